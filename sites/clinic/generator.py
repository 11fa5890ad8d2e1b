"""Seeded CareBridge worlds: a patient portal with the traps its tasks need built in.

Everything random comes from the `rng` argument and every time from the episode clock, so
the same (setup, seed) gives byte-identical state. Slots are on weekdays from the day after
the clock's epoch for three weeks, every half hour from 8:00 to 16:30.

Setup params (unknown keys are refused):
    focus: which question the world is set up for (`asks.py`): flagged (the default: every action task's
           world, whose target is the flagged result), next_visit, copay, accepting, insurance,
           missing_doctor. A focus other than the default adds its records and its bindings group after
           the default world is built, and rebinds `target`.

Bindings (task templates refer to them as `{group.key}`):
    user:      {id, name, email}
    target:    {id, name}: the flagged result (the target of look-alike and noise faults).
    book:      book a slot with one of two Northside cardiologists who share a surname.
               {provider_id, provider_name, other_id, other_name, surname, specialty, location, day, time,
                slot_id, reason}
    cancel:    cancel the later of two appointments with the same-surname cardiologists.
               {appointment_id, provider_name, day, time, slot_id, other_appointment_id, other_provider_name}
    move:      reschedule the family doctor appointment. {appointment_id, provider_name, old_day, old_time,
               new_day, new_time, new_slot_id, old_slot_id}
    flagged:   the one of three same-named results with a value above range (shown on its page only).
               {result_id, test, provider_id, provider_name, component, other_ids}
    refill:    refill every medication one prescriber wrote that has refills left.
               {prescriber_name, ids, names, empty_id, empty_name, pharmacy_id, pharmacy}
    previsit:  the pre-visit form of the endocrinology visit, with the current insurance card.
               {appointment_id, provider_name, day, symptoms, since, card_id, card_label, old_card_id,
                old_card_label}
    contact:   add an emergency contact and change the phone. {name, relationship, relationship_label, phone,
               new_phone, old_phone}
    opening:   the one dermatologist at Riverside with an opening on a day. {provider_id, provider_name, day,
               time, slot_id, specialty, location, other_ids, reason}
"""

from datetime import datetime, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock, iso, parse_iso
from sites.clinic import content as C
from sites.clinic.asks import DEFAULT_FOCUS, FOCUSES
from sites.clinic.models import (
    Appointment,
    ClinicState,
    Component,
    EmergencyContact,
    InsuranceCard,
    Location,
    Medication,
    Message,
    Patient,
    Pharmacy,
    Provider,
    Slot,
    Status,
    TestResult,
)
from sites.kit.accounts import email_address
from sites.kit.dates import MONTH_NAMES, WEEKDAY_NAMES, day_label, time_label
from sites.kit.site import World, WorldSetup

DAYS_AHEAD = 21
SLOT_TIMES = [(h, m) for h in range(8, 17) for m in (0, 30)]

# focuses that add to the world what their task is about (tests/sites/test_worlds.py holds the others to moving
# only the target binding)
ADDING_FOCUSES = tuple(focus for focus, build in FOCUSES.items() if build is not None)


def long_date(stamp: str) -> str:
    """'2025-01-14T09:30:00Z' -> 'Tuesday 14 January 2025'."""
    moment = parse_iso(stamp)
    return f"{WEEKDAY_NAMES[moment.weekday()]} {moment.day} {MONTH_NAMES[moment.month - 1]} {moment.year}"


def card_label(card: InsuranceCard) -> str:
    return f"{card.carrier} {card.plan} · member {card.member_id}"


def _validate(setup: WorldSetup) -> str:
    setup.refuse_unknown("clinic", ("focus",))
    return setup.one_of("focus", tuple(FOCUSES), DEFAULT_FOCUS)


def _workdays(clock: EpisodeClock) -> list[datetime]:
    first = clock.epoch.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None) + timedelta(days=1)
    days = [first + timedelta(days=n) for n in range(DAYS_AHEAD)]
    return [d for d in days if d.weekday() < 5]


class _Builder:
    def __init__(self, rng: Random, clock: EpisodeClock) -> None:
        self.rng, self.clock = rng, clock
        self.days = _workdays(clock)

    def providers(self) -> list[Provider]:
        rng = self.rng
        surnames = rng.sample(C.SURNAMES, len(C.ROSTER))
        firsts = rng.sample(C.FIRST_NAMES, len(C.ROSTER))
        shared = surnames[C.NAMESAKE_ROWS[0]]
        # The namesakes share an initial too, so "Dr. A. <surname>" does not tell them apart.
        initial = firsts[C.NAMESAKE_ROWS[0]][0]
        other_first = next((f for f in C.FIRST_NAMES if f[0] == initial and f not in firsts), None)
        if other_first is not None:
            firsts[C.NAMESAKE_ROWS[1]] = other_first
        surnames[C.NAMESAKE_ROWS[1]] = shared
        providers = []
        for row, (specialty, location) in enumerate(C.ROSTER):
            languages = ["English", *rng.sample([lang for lang in C.LANGUAGES if lang != "English"], rng.randint(0, 2))]
            providers.append(Provider(
                id=f"pr{row + 1:02d}", first_name=firsts[row], last_name=surnames[row],
                credentials=rng.choice(C.CREDENTIALS), specialty=specialty, location_id=f"loc{location + 1}",
                languages=languages, bio=C.BIOS[specialty]))
        return providers

    def slots(self, providers: list[Provider]) -> list[Slot]:
        slots: list[Slot] = []
        for provider in providers:
            for day in self.days:
                for hour, minute in SLOT_TIMES:
                    if self.rng.random() < 0.2:
                        start = iso(day.replace(hour=hour, minute=minute))
                        slots.append(Slot(id="", provider_id=provider.id, start=start, minutes=30))
        return slots

    def ensure_slot(self, slots: list[Slot], provider_id: str, day: datetime, hour: int, minute: int) -> Slot:
        start = iso(day.replace(hour=hour, minute=minute))
        found = next((s for s in slots if s.provider_id == provider_id and s.start == start), None)
        if found is None:
            found = Slot(id="", provider_id=provider_id, start=start, minutes=30)
            slots.append(found)
        return found


def _first_slot(slots: list[Slot], provider_id: str, day: datetime) -> Slot:
    prefix = day.strftime("%Y-%m-%d")
    return min((s for s in slots if s.provider_id == provider_id and s.start.startswith(prefix) and not s.taken),
               key=lambda s: s.start)


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    focus = _validate(setup)
    b = _Builder(rng, clock)
    days = b.days
    locations = [Location(id=f"loc{i + 1}", name=n, address=a) for i, (n, a) in enumerate(C.LOCATIONS)]
    providers = b.providers()
    by_row = {row: providers[row] for row in range(len(providers))}
    slots = b.slots(providers)
    first, last = rng.choice(C.PATIENT_FIRST), rng.choice(C.PATIENT_LAST)
    patient = Patient(id="pt1", name=f"{first} {last}", email=email_address(first, last, domain="example.com"),
                      phone=f"(555) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}",
                      born=f"{rng.randint(1958, 1996)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                      address=f"{rng.randint(10, 990)} {rng.choice(('Birch', 'Cedar', 'Harbor', 'Elm'))} Avenue")

    # Slots the tasks depend on (made sure of before ids are given).
    wanted, namesake = by_row[C.NAMESAKE_ROWS[rng.randint(0, 1)]], None
    namesake = by_row[C.NAMESAKE_ROWS[1]] if wanted.id == by_row[C.NAMESAKE_ROWS[0]].id else by_row[C.NAMESAKE_ROWS[0]]
    book_day, book_hour = days[rng.randint(3, 6)], rng.choice((9, 10, 11, 14))
    for provider in (wanted, namesake):   # both have the same opening: the name decides
        b.ensure_slot(slots, provider.id, book_day, book_hour, 0)
    # Cancel: the namesake's visit comes first in the list; the wanted one is later.
    cancel_other = b.ensure_slot(slots, namesake.id, days[1], 10, 30)
    cancel_wanted = b.ensure_slot(slots, wanted.id, days[8], 15, 0)
    family, endo = by_row[C.FAMILY_ROW], by_row[C.ENDO_ROW]
    move_old = b.ensure_slot(slots, family.id, days[2], 9, 0)
    move_new = b.ensure_slot(slots, family.id, days[9], rng.choice((13, 14, 15)), 30)
    previsit_slot = b.ensure_slot(slots, endo.id, days[4], 11, 0)
    # Opening: only the last-listed dermatologist has openings on that day.
    derm = [by_row[row] for row in C.DERMATOLOGY_ROWS]
    open_day = days[rng.randint(5, 9)]
    prefix = open_day.strftime("%Y-%m-%d")
    slots = [s for s in slots if not (s.provider_id in {d.id for d in derm[:2]} and s.start.startswith(prefix))]
    b.ensure_slot(slots, derm[2].id, open_day, rng.choice((10, 13)), 0)
    slots.sort(key=lambda s: (s.start, s.provider_id))
    for index, slot in enumerate(slots):
        slot.id = f"s{index + 1:04d}"
    for slot in (cancel_other, cancel_wanted, move_old, previsit_slot):
        slot.taken = True
    book_start = iso(book_day.replace(hour=book_hour))
    book_slot = next(s for s in slots if s.provider_id == wanted.id and s.start == book_start)
    open_slot = _first_slot(slots, derm[2].id, open_day)

    # Appointments: past visits, then the upcoming ones (ids in booking order).
    appointments: list[Appointment] = []

    def appoint(provider: Provider, start: str, reason: str, status: Status, slot: Slot | None) -> Appointment:
        record = Appointment(id=f"ap{len(appointments) + 1:04d}", provider_id=provider.id,
                             slot_id=slot.id if slot else None, start=start, visit_reason=reason,
                             status=status,
                             booked_at=clock.ago(days=rng.randint(20, 60), minutes=rng.randint(0, 600)))
        appointments.append(record)
        return record

    for _ in range(4):
        past = clock.epoch.replace(tzinfo=None) - timedelta(days=rng.randint(30, 300))
        past = past.replace(hour=rng.choice((9, 10, 14)), minute=0, second=0)
        appoint(rng.choice(providers), iso(past), rng.choice(C.VISIT_REASONS), "completed", None)
    appointments.sort(key=lambda a: a.start)
    for index, record in enumerate(appointments):
        record.id = f"ap{index + 1:04d}"
        record.booked_at = min(record.booked_at, iso(parse_iso(record.start) - timedelta(days=7)))
    other_ap = appoint(namesake, cancel_other.start, "Palpitations", "booked", cancel_other)
    wanted_ap = appoint(wanted, cancel_wanted.start, "Follow-up on blood pressure", "booked", cancel_wanted)
    move_ap = appoint(family, move_old.start, "Annual check-up", "booked", move_old)
    previsit_ap = appoint(endo, previsit_slot.start, "Thyroid follow-up", "booked", previsit_slot)

    # Results: three of one test, one with a value above range (seen on its page only).
    flag_test = rng.choice(C.FLAGGABLE)
    orderers = [family, endo, by_row[C.NAMESAKE_ROWS[0]]]
    rng.shuffle(orderers)
    results: list[TestResult] = []
    flagged_index = rng.choice((1, 2))   # never the newest of the three: the obvious pick is wrong
    plan: list[tuple[str, int, Provider, bool]] = [(flag_test, 20 + 70 * i + rng.randint(0, 30), orderers[i],
                                                    i == flagged_index) for i in range(3)]
    for test in rng.sample([t for t in C.TESTS if t != flag_test], 4):
        plan.append((test, rng.randint(10, 400), rng.choice([*providers[:3], endo]), False))
    flag_component = ""
    for test, days_ago, orderer, flagged in plan:
        spec = C.TESTS[test]
        above = [c for c in spec if c[5] > c[3]]
        chosen = above[0][0] if flagged else None
        if flagged:
            flag_component = above[0][0]
        components = []
        for name, unit, low, high, typical, high_value in spec:
            jitter = round(typical * rng.uniform(-0.04, 0.04), 1)
            value = high_value if name == chosen else min(high, max(low, round(typical + jitter, 1)))
            components.append(Component(name=name, value=value, unit=unit, low=low, high=high))
        results.append(TestResult(id="", test=test, collected_at=clock.ago(days=days_ago, minutes=rng.randint(0, 300)),
                                  ordered_by=orderer.id, components=components,
                                  comment="" if flagged else "Results look good. No changes needed."))
    results.sort(key=lambda r: r.collected_at)
    for index, result in enumerate(results):
        result.id = f"r{index + 1:04d}"
    same = [r for r in results if r.test == flag_test]
    target = next(r for r in same if any(c.flag for c in r.components))

    # Medications: the family doctor wrote three (one has no refills left), others wrote the rest.
    pharmacies = [Pharmacy(id=f"ph{i + 1}", name=n, address=a) for i, (n, a) in enumerate(C.PHARMACIES)]
    meds = rng.sample(C.MEDICATIONS, 6)
    writers = [family, family, family, endo, by_row[C.DERMATOLOGY_ROWS[0]], wanted]
    refills = [rng.randint(1, 4), rng.randint(1, 4), 0, rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)]
    medications = [Medication(id=f"m{i + 1:03d}", name=name, dose=dose, directions=directions,
                              prescriber_id=writers[i].id, refills_left=refills[i],
                              last_filled=clock.ago(days=rng.randint(20, 80)))
                   for i, (name, dose, directions) in enumerate(meds)]
    pharmacy = rng.choice(pharmacies)

    # Insurance: the card still marked primary expired; the current one is second.
    old_carrier, new_carrier = rng.sample(C.CARRIERS, 2)
    epoch_day = clock.epoch.date()
    old_card = InsuranceCard(id="ins1", carrier=old_carrier[0], plan=old_carrier[1],
                             member_id=f"{old_carrier[0][:2].upper()}{rng.randint(10**7, 10**8 - 1)}",
                             group=f"G{rng.randint(1000, 9999)}",
                             valid_from=(epoch_day - timedelta(days=rng.randint(400, 700))).isoformat(),
                             valid_to=(epoch_day - timedelta(days=rng.randint(20, 70))).isoformat(), primary=True)
    new_card = InsuranceCard(id="ins2", carrier=new_carrier[0], plan=new_carrier[1],
                             member_id=f"{new_carrier[0][:2].upper()}{rng.randint(10**7, 10**8 - 1)}",
                             group=f"G{rng.randint(1000, 9999)}",
                             valid_from=(epoch_day - timedelta(days=rng.randint(10, 19))).isoformat(),
                             valid_to=(epoch_day + timedelta(days=rng.randint(300, 360))).isoformat(), primary=False)

    contact_names = rng.sample(C.CONTACT_NAMES, 2)
    contacts = [EmergencyContact(id="ec1", name=contact_names[0], relationship=rng.choice(("parent", "sibling")),
                                 phone=f"(555) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}")]

    messages: list[Message] = []
    for n, line in enumerate(rng.sample(C.STAFF_LINES, 3)):
        messages.append(Message(id="", provider_id=rng.choice([family, endo, wanted]).id,
                                subject=line.split(":")[0].rstrip("."), body=line, from_patient=False,
                                sent_at=clock.ago(days=rng.randint(2, 40), minutes=rng.randint(0, 600)),
                                read=n > 0))
    messages.sort(key=lambda m: m.sent_at)
    for index, message in enumerate(messages):
        message.id = f"msg{index + 1:04d}"

    state = ClinicState(
        patient=patient, locations=locations, providers=providers, slots=slots, appointments=appointments,
        messages=messages, results=results, medications=medications, pharmacies=pharmacies,
        insurance_cards=[old_card, new_card], contacts=contacts,
        next_ids={"appointment": len(appointments) + 1, "message": len(messages) + 1, "refill": 1, "contact": 2,
                  "form": 1, "slot": len(slots) + 1, "result": len(results) + 1},
    )
    location_of = {x.id: x.name for x in locations}
    since = (epoch_day - timedelta(days=rng.randint(5, 30))).isoformat()
    relationship = rng.choice(("spouse", "friend", "sibling"))
    bindings: dict[str, Any] = {
        "user": {"id": patient.id, "name": patient.name, "email": patient.email},
        "target": {"id": target.id, "name": target.test},
        "book": {"provider_id": wanted.id, "provider_name": wanted.name, "other_id": namesake.id,
                 "other_name": namesake.name, "surname": wanted.last_name, "specialty": wanted.specialty,
                 "location": location_of[wanted.location_id], "day": day_label(book_slot.start),
                 "time": time_label(book_slot.start), "slot_id": book_slot.id, "reason": "Follow-up on palpitations"},
        "cancel": {"appointment_id": wanted_ap.id, "provider_name": wanted.name, "day": day_label(wanted_ap.start),
                   "time": time_label(wanted_ap.start), "slot_id": cancel_wanted.id,
                   "other_appointment_id": other_ap.id,
                   "other_provider_name": namesake.name},
        "move": {"appointment_id": move_ap.id, "provider_name": family.name, "old_day": day_label(move_old.start),
                 "old_time": time_label(move_old.start), "new_day": day_label(move_new.start),
                 "new_time": time_label(move_new.start), "new_slot_id": move_new.id, "old_slot_id": move_old.id},
        "flagged": {"result_id": target.id, "test": flag_test, "provider_id": target.ordered_by,
                    "provider_name": next(p.name for p in providers if p.id == target.ordered_by),
                    "component": flag_component, "other_ids": [r.id for r in same if r.id != target.id]},
        "refill": {"prescriber_name": family.name, "ids": [m.id for m in medications[:2]],
                   "names": [m.name for m in medications[:2]], "empty_id": medications[2].id,
                   "empty_name": medications[2].name, "pharmacy_id": pharmacy.id, "pharmacy": pharmacy.name},
        "previsit": {"appointment_id": previsit_ap.id, "provider_name": endo.name,
                     "day": day_label(previsit_ap.start), "symptoms": rng.choice(C.SYMPTOMS), "since": since,
                     "card_id": new_card.id, "card_label": card_label(new_card), "old_card_id": old_card.id,
                     "old_card_label": card_label(old_card)},
        "contact": {"name": contact_names[1], "relationship": relationship,
                    "relationship_label": relationship.capitalize(),
                    "phone": f"(555) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}",
                    "new_phone": f"(555) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}",
                    "old_phone": patient.phone},
        "opening": {"provider_id": derm[2].id, "provider_name": derm[2].name, "day": day_label(open_slot.start),
                    "time": time_label(open_slot.start), "slot_id": open_slot.id, "specialty": "Dermatology",
                    "location": location_of[derm[2].location_id], "other_ids": [d.id for d in derm[:2]],
                    "reason": "Skin check"},
    }
    build = FOCUSES[focus]
    if build is not None:   # after every draw of the default world, which it leaves as it was
        build(state, bindings, rng, clock)
    return World(state=state, bindings=bindings)
