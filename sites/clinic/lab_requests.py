"""A doctor asks for a lab value (focus `lab_request`): the endocrinologist writes asking for the patient's most
recent Hemoglobin A1c before the thyroid follow-up. The patient had two A1c tests, months apart, with
different values; the newer one (newer than any other result) is the answer to send back, as a reply.

Bindings:
    lab_request: {message_id, subject, provider_id, provider_name, result_id, value, unit, older_result_id,
                  older_value}
"""

from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.clinic import content as C
from sites.clinic.models import ClinicState, Component, Message, TestResult

TEST = "Hemoglobin A1c"


def lab_request(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    endo = state.providers[C.ENDO_ROW]
    family = state.providers[C.FAMILY_ROW]
    ((name, unit, low, high, _typical, _above),) = C.TESTS[TEST]
    older_value = round(rng.uniform(5.7, 6.4), 1)
    value = round(older_value - rng.choice((0.3, 0.4, 0.5, 0.6)), 1)   # better since: the older is not it
    made = []
    # the newer one is newer than any result the default world has (those are 10 days old or more)
    for days, val, orderer in ((rng.randint(150, 240), older_value, family), (rng.randint(3, 8), value, endo)):
        result = TestResult(id=state.take_id("result", "r"), test=TEST,
                            collected_at=clock.ago(days=days, minutes=rng.randint(0, 300)), ordered_by=orderer.id,
                            components=[Component(name=name, value=val, unit=unit, low=low, high=high)],
                            comment="" if val > high else "Results look good. No changes needed.")
        state.results.append(result)
        made.append(result)
    first = state.patient.name.split()[0]
    subject = f"Your latest {TEST}"
    message = Message(id=state.take_id("message", "msg"), provider_id=endo.id, subject=subject,
                      body=(f"Hi {first}, before your thyroid follow-up, could you reply to this message with the "
                            f"value of your most recent {TEST} test? It's under Test results. Thank you, "
                            f"{endo.name}"),
                      from_patient=False, sent_at=clock.ago(hours=rng.randint(2, 20)), read=False)
    state.messages.append(message)
    older, newer = made
    bindings["lab_request"] = {
        "message_id": message.id, "subject": subject, "provider_id": endo.id, "provider_name": endo.name,
        "result_id": newer.id, "value": f"{value:g}", "unit": unit, "older_result_id": older.id,
        "older_value": f"{older_value:g}"}
    bindings["target"] = {"id": newer.id, "name": TEST}
