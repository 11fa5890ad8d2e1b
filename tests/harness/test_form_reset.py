"""form_reset in real headless Chromium through the real stack: the click that commits finds the form emptied.
It fires once, the agent without recoveries fails, and of the ablated agents only the one lacking state tracking
fails: checking where the write shows (verification) finds it missing, but sending the emptied form again is
refused, and waiting or reloading (patience) brings back no typed text. The reference agent types the fields
again and passes; the ledger, the actions log and the HAR show it."""

import json

import pytest
import pytest_asyncio

from harness.agents import ReferenceAgent
from harness.agents.base import Agent
from harness.agents.moves.forms import SETS, typed_on_this_page
from harness.episodes.manager import EpisodeSpec
from harness.services.processes import Services
from scenarios.faults import Primitive
from tests.catalog import builtin_catalog
from tests.harness.episodes import Ran, jsonl, run_to_the_fault

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
CATALOG = builtin_catalog()
TASK = "shop_change_default_address"
VARIANT = f"commit_form_reset@{TASK}"
AGENTS: list[Agent] = [ReferenceAgent(recovery=True), ReferenceAgent(recovery=False),
          *(ReferenceAgent(without=p) for p in (Primitive.state_tracking, Primitive.verification, Primitive.patience))]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runs(stack: Services, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    spec = EpisodeSpec(CATALOG.tasks[TASK], CATALOG.variants[VARIANT], 1)
    return await run_to_the_fault([spec], AGENTS, tmp_path_factory.mktemp("runs"), stack, concurrency=3)


async def test_the_fields_set_on_the_commits_page_are_the_fills_checks_and_selects_since_the_last_page_load() -> None:
    plan = CATALOG.tasks[TASK].plan
    commit = next(s for s in plan if s.effect is not None)
    typed = typed_on_this_page(tuple(plan), commit)
    assert typed and all(s.do in SETS for s in typed)
    before = plan[:plan.index(commit)]
    last_load = max(i for i, s in enumerate(before) if s.loads_a_page())
    assert typed == [s for s in before[last_load:] if s.do in SETS and (s.do == "check" or s.value)]


async def test_only_the_fields_set_since_the_form_was_last_sent_count_each_with_its_last_value() -> None:
    """Budgets added one after another on one page: the second Add sends only the second category and amount
    (the first ones were sent with the first Add, and the page's form holds the second ones now)."""
    plan = tuple(CATALOG.tasks["bank_budgets_from_last_month"].plan)
    adds = [s for s in plan if s.effect is not None]
    assert len(adds) == 3
    second = typed_on_this_page(plan, adds[1])
    assert [(s.do, s.name) for s in second] == [("select", "Category"), ("fill", "Monthly amount")]
    assert second == list(plan[plan.index(adds[0]) + 1:plan.index(adds[1])])


async def test_a_star_ratings_radio_is_set_again_with_the_text() -> None:
    """A review form emptied as it was sent loses its rating as well as its text: the move sets both again."""
    plan = CATALOG.tasks["shop_review_received_item"].plan
    commit = next(s for s in plan if s.effect is not None)
    typed = typed_on_this_page(tuple(plan), commit)
    assert [s.do for s in typed] == ["check", "fill", "fill"] and all(s.do in SETS for s in typed)
    assert typed[0].role == "radio"


async def test_the_form_is_emptied_once_and_the_agent_without_recoveries_fails(runs: Ran) -> None:
    off, folder = runs[(VARIANT, "reference-no-recovery")]
    assert not off.success and off.outcome.status == "failed", off.outcome
    fired = [x["detail"] for x in jsonl(folder / "faults.jsonl")
             if x["layer"] == "client" and x["detail"].get("event") == "fired"]
    assert len(fired) == 1 and fired[0]["info"]["cleared"] >= 2


async def test_only_the_agent_lacking_state_tracking_fails_it(runs: Ran) -> None:
    verdicts = {agent: runs[(VARIANT, agent)][0].success for agent in (
        "reference", "reference-without-state_tracking", "reference-without-verification",
        "reference-without-patience")}
    assert verdicts == {"reference": True, "reference-without-state_tracking": False,
                        "reference-without-verification": True, "reference-without-patience": True}, {
        agent: runs[(VARIANT, agent)][0].outcome.log[-6:] for agent in verdicts}


async def test_the_reference_agent_types_the_emptied_fields_again_and_sends_the_form_once(runs: Ran) -> None:
    on, folder = runs[(VARIANT, "reference")]
    assert any(line.startswith("recover: the form had been emptied: set") for line in on.outcome.log), \
        on.outcome.log
    entries = json.loads((folder / "trace.har").read_text())["log"]["entries"]
    writes = [e for e in entries if e["request"]["method"] == "POST" and "/addresses" in e["request"]["url"]
              and not e["request"]["url"].endswith("/default")]
    assert len(writes) == 1, [e["request"]["url"] for e in writes]  # the lost click sent nothing
