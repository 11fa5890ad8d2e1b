"""The ablated reference agents: `reference-without-<primitive>` skips exactly that primitive's recovery moves
(harness/agents/recovery.py RECOVERIES), so on a page that fails in one way only the agent lacking the move's
primitive fails (specificity in miniature). Pages and the browser are the reference agent's own tests'."""

import re
from pathlib import Path

import pytest

from harness.agents import agent_from_spec
from harness.agents.moves import MOVES
from harness.agents.recovery import RECOVERIES
from harness.browser.pool import BrowserPool
from scenarios.faults import Primitive
from scenarios.schema import PlanStep
from tests.harness.test_reference_agent import browser, plan, run_agent, run_agents  # noqa: F401 - `browser` is a fixture

pytestmark = [pytest.mark.e2e]

AGENTS_DIR = Path(__file__).resolve().parents[2] / "harness" / "agents"


def test_every_move_the_agent_makes_is_in_the_table_and_every_primitive_has_moves() -> None:
    used = set()
    for source in ("recovery.py", "reference.py"):
        for call in re.findall(r"\bmay\(([^)]*)\)", (AGENTS_DIR / source).read_text()):
            used |= set(re.findall(r'"([^"]+)"', call))
    used |= {field_move.name for field_move in MOVES}  # made through `may(field_move.name)`
    assert used == set(RECOVERIES), (used ^ set(RECOVERIES))
    assert {RECOVERIES[m] for m in RECOVERIES} == set(Primitive)


def test_the_ablated_agents_are_named_by_what_they_lack() -> None:
    agent = agent_from_spec("reference-without-patience")
    assert agent.name == "reference-without-patience"
    with pytest.raises(ValueError, match="unknown primitive 'speed'"):
        agent_from_spec("reference-without-speed")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_write_dropped_without_a_word_is_sent_again_only_by_an_agent_with_patience(
    browser: BrowserPool, tmp_path: Path,  # noqa: F811
) -> None:
    """Nothing claimed the write was done: the check (in a second tab, so the form keeps what was typed) finds it
    missing, and sending it again from the same page is trying again, patience's move; no refilling (state
    tracking) is needed. Without the check, a reload and the form typed again get there too."""
    steps = [PlanStep(do="goto", url="/page/dropped"),
             PlanStep(do="fill", role="textbox", name="Name", value="Ada"),
             PlanStep.model_validate({"do": "click", "role": "button", "name": "Save",
                                      "expect": {"text": "Saved it", "timeout_ms": 1500},
                                      "effect": {"visit": "/saved", "expect": {"text": "Your item is saved"}}})]
    runs = await run_agents(browser, steps, tmp_path, "reference-without-state_tracking",
                            "reference-without-patience", "reference-without-verification", "reference-no-recovery")
    status, moves, hits = runs["reference-without-state_tracking"]
    assert status == "done" and hits == ["save"], moves
    assert "recover: the write does not show where it should: sending it again" in moves, moves
    assert not any("filled the form again" in move for move in moves), moves
    status, moves, hits = runs["reference-without-patience"]
    assert status == "failed" and hits == [], moves
    status, moves, hits = runs["reference-without-verification"]
    assert status == "done" and hits == ["save"], moves  # without the check: a reload, the form filled again
    assert any("filled the form again" in move for move in moves), moves
    status, _, hits = runs["reference-no-recovery"]
    assert status == "failed" and hits == []


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("page", ["claimed", "claimed_elsewhere", "claimed_in_place"])
async def test_a_claimed_success_found_missing_is_redone_with_its_form_by_the_check(
    browser: BrowserPool, tmp_path: Path, page: str,  # noqa: F811
) -> None:
    """The page says "Saved it" (on the form's page, on a page of its own leaving the form empty, or in place of
    the control, which is back only when the page is loaded again): only the
    check finds it false, so redoing the write, its form typed again, is the check's move; the agents lacking
    state tracking or patience redo it, the one that does not check believes it."""
    steps = [PlanStep(do="goto", url=f"/page/{page}"),
             PlanStep(do="fill", role="textbox", name="Name", value="Ada"),
             PlanStep.model_validate({"do": "click", "role": "button", "name": "Save",
                                      "expect": {"text": "Saved it", "timeout_ms": 1500},
                                      "effect": {"visit": "/saved", "expect": {"text": "Your item is saved"}}})]
    runs = await run_agents(browser, steps, tmp_path, "reference-without-state_tracking",
                            "reference-without-patience", "reference-without-verification")
    for lacking in (Primitive.state_tracking, Primitive.patience):
        status, moves, hits = runs[f"reference-without-{lacking.value}"]
        assert status == "done" and hits == ["save"], (lacking, moves, hits)
        assert any(move.startswith("recover: the claimed success did not happen") for move in moves), moves
        assert "recover: filled the form again (1 fields)" in moves, moves
    status, moves, hits = runs["reference-without-verification"]
    assert status == "done" and hits == [], moves  # believes the claim: nothing was written


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(
    ("page", "lacking", "spared"),
    [
        ("more", Primitive.exploration, Primitive.patience),
        ("modal", Primitive.grounding, Primitive.planning),
        ("decoy", Primitive.backtracking, Primitive.planning),
        ("disabled", Primitive.patience, Primitive.backtracking),
    ],
)
async def test_only_the_agent_lacking_the_moves_primitive_fails(
    browser: BrowserPool, tmp_path: Path, page: str, lacking: Primitive, spared: Primitive,  # noqa: F811
) -> None:
    # In turn, not at once: some of these pages are timed against the agent's action timeout (the "disabled"
    # button), and the one that fails spends most of the time anyway.
    status, moves, _ = await run_agent(browser, plan(page), f"reference-without-{lacking.value}", tmp_path)
    assert status == "failed", moves
    status, moves, hits = await run_agent(browser, plan(page), f"reference-without-{spared.value}", tmp_path)
    assert status == "done", moves
    assert hits.count("save") == 1


@pytest.mark.asyncio(loop_scope="module")
async def test_a_click_on_the_point_where_the_control_was_seen_takes_what_moved_there(
    browser: BrowserPool, tmp_path: Path,  # noqa: F811
) -> None:
    """Without looking again before clicking (grounding), the agent presses where the button was when it
    measured it; the promotion the pointer's arrival put above the button takes the click."""
    status, _, hits = await run_agent(browser, plan("shifting"), "reference-no-recovery", tmp_path)
    assert (status, hits) == ("failed", ["promo"])
    # finding the button again as the button goes down: the promotion never takes the click
    status, moves, hits = await run_agent(browser, plan("shifting"), "reference-without-planning", tmp_path)
    assert (status, hits) == ("done", ["save"]), moves
    status, _, hits = await run_agent(browser, plan("plain"), "reference-no-recovery", tmp_path)
    assert (status, hits) == ("done", ["save"])  # where nothing moves, the point is the button


@pytest.mark.asyncio(loop_scope="module")
async def test_a_tab_the_page_opens_is_followed_only_by_the_agent_lacking_state_tracking(
    browser: BrowserPool, tmp_path: Path,  # noqa: F811
) -> None:
    steps = [*plan("popup"), PlanStep.model_validate({"do": "click", "role": "button", "name": "Finish",
                                                     "expect": {"text": "Finished"}})]
    runs = await run_agents(browser, steps, tmp_path, "reference-no-recovery", "reference-without-state_tracking",
                            "reference-without-planning")
    for spec in ("reference-no-recovery", "reference-without-state_tracking"):
        status, _, hits = runs[spec]
        assert (status, hits) == ("failed", ["save"]), spec  # Finish is not in the promotion's tab
    status, moves, hits = runs["reference-without-planning"]
    assert (status, hits) == ("done", ["save", "finish"]), moves


@pytest.mark.asyncio(loop_scope="module")
async def test_keys_typed_after_the_focus_moved_away_are_lost_only_for_the_agent_lacking_state_tracking(
    browser: BrowserPool, tmp_path: Path,  # noqa: F811
) -> None:
    """An agent that clicks into a field and types sends its keys wherever the focus is; typing into the field
    itself (state tracking: knowing where the text goes) is not fooled by a page that moves the focus, and
    reading back what was typed (verification) finds the field empty and types again."""
    steps = [PlanStep(do="goto", url="/page/stealing"), PlanStep(do="fill", role="textbox", name="Name", value="Ada"),
             *plan("stealing")[1:]]
    status, _, hits = await run_agent(browser, steps, "reference-no-recovery", tmp_path)
    assert (status, hits) == ("failed", [])
    status, moves, hits = await run_agent(browser, steps, "reference-without-state_tracking", tmp_path)
    assert (status, hits) == ("done", ["save"]), moves
    assert "recover: the field changed what was typed: typing it again" in moves, moves
    status, moves, hits = await run_agent(browser, steps, "reference-without-verification", tmp_path)
    assert (status, hits, moves) == ("done", ["save"], []), moves
    plain = [PlanStep(do="goto", url="/page/dropped"), PlanStep(do="fill", role="textbox", name="Name", value="Ada")]
    status, _, _ = await run_agent(browser, plain, "reference-no-recovery", tmp_path)
    assert status == "done"  # where the focus stays, the keys land in the field
