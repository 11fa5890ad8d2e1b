"""Process metrics from semantic events, actions and the fault ledger; offline re-grade equals online."""

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from grader.trace import EpisodeTrace, HarEntry, load_trace
from grader.verdict import grade
from harness.cli.main import app
from harness.episodes.manager import grade_episode, grade_episode_dir
from scenarios.schema import Task
from tests.grader.conftest import BINDINGS, SHOP_TASKS, bought, shop_state


def ev(seq: int, kind: str, name: str, target: str | None = None, **detail: Any) -> dict[str, Any]:
    return {"seq": seq, "at": "2025-01-01T00:00:00Z", "kind": kind, "name": name, "target": target, "detail": detail}


GOOD_BUY = [
    ev(0, "navigate", "view_home", product_ids=["p001"]),
    ev(1, "search", "search", query="Ember Skillet", results=["p008", "p007", "p009"]),
    ev(2, "inspect", "view_product", "p008", revealed=["seller", "delivery"]),
    ev(3, "inspect", "view_product", "p007", revealed=["seller", "delivery"]),
    ev(4, "commit", "add_to_cart", "c1", product_id="p007", quantity=1),
    ev(5, "navigate", "view_cart", cart_item_ids=["c1"]),
    ev(6, "commit", "place_order", "o1001", product_ids=["p007"]),
]


def test_good_trajectory(shop_tasks: dict[str, Task]) -> None:
    trace = EpisodeTrace(events=GOOD_BUY, actions=[{"t_ms": i, "kind": "click"} for i in range(14)], attempts=3)
    v = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), bought(shop_state()), trace)
    p = v.process
    assert p is not None and p.terminal_success
    assert (p.target_id, p.exploration_success, p.execution_success) == ("p007", True, True)
    assert p.inspected_before_commit == ["p008", "p007"]
    assert p.informational_coverage == 0.6667 and p.relevant_missing == ["p009.seller"]
    assert (p.gui_steps, p.gui_steps_source, p.semantic_steps, p.gui_per_semantic) == (14, "actions", 7, 2.0)
    assert p.steps_by_kind == {"commit": 2, "inspect": 2, "navigate": 2, "search": 1}
    assert not p.premature_commit and p.first_wrong_step is None


def test_wrong_item_committed_blames_the_inspect(shop_tasks: dict[str, Task]) -> None:
    events = [*GOOD_BUY[:3], ev(3, "commit", "add_to_cart", "c1", product_id="p008", quantity=1),
              ev(4, "commit", "place_order", "o1001", product_ids=["p008"])]
    v = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), bought(shop_state(), "p008"),
              EpisodeTrace(events=events, attempts=5))
    p = v.process
    assert p is not None and not p.terminal_success
    assert p.exploration_success is False and p.execution_success is None
    assert (p.gui_steps, p.gui_steps_source) == (5, "attempts")
    assert p.first_wrong_step is not None
    assert (p.first_wrong_step.seq, p.first_wrong_step.kind) == (2, "inspect")
    assert p.premature_commit and p.missing_evidence == ["inspect", "p007.seller"]


def test_bad_search_and_omissions(shop_tasks: dict[str, Task]) -> None:
    task = shop_tasks["shop_buy_by_seller"]
    bad_search = [ev(0, "search", "search", query="pan", results=["p001"])]
    p = grade(task, BINDINGS, shop_state(), shop_state(), EpisodeTrace(events=bad_search)).process
    assert p is not None and p.first_wrong_step is not None
    assert (p.first_wrong_step.seq, p.first_wrong_step.kind) == (0, "search")
    never_inspected = [ev(0, "search", "search", results=["p007"])]
    p = grade(task, BINDINGS, shop_state(), shop_state(), EpisodeTrace(events=never_inspected)).process
    assert p is not None and p.first_wrong_step is not None and p.first_wrong_step.kind == "inspect"
    stopped = GOOD_BUY[:4]
    p = grade(task, BINDINGS, shop_state(), shop_state(), EpisodeTrace(events=stopped)).process
    assert p is not None and p.first_wrong_step is not None
    assert (p.first_wrong_step.seq, p.first_wrong_step.kind) == (None, "commit")
    assert p.exploration_success is True and p.execution_success is False
    assert p.gui_steps is None and p.gui_per_semantic is None


def test_task_without_target_has_no_exploration_metric(shop_tasks: dict[str, Task]) -> None:
    events = [ev(0, "navigate", "view_account"), ev(1, "commit", "add_address", "a3", make_default=True)]
    p = grade(shop_tasks["shop_change_default_address"], BINDINGS, shop_state(), shop_state(),
              EpisodeTrace(events=events)).process
    assert p is not None
    assert p.target_id is None and p.exploration_success is None and p.informational_coverage is None
    assert not p.premature_commit  # navigate evidence was gathered


def _har_entry(start: float, method: str, path: str, status: int, duration: float = 5.0,
               marks: list[dict[str, Any]] | None = None) -> HarEntry:
    return HarEntry(start, duration, method, path, status, marks or [])


def test_recovery_time_after_each_firing(shop_tasks: dict[str, Task]) -> None:
    t0 = 1_700_000_000_000.0  # HAR wall clock; ledger t_ms counts from the proxy's episode open
    fired = {"layer": "network", "type": "error_then_success", "fault_id": "e#0", "detail": {"status": 503}}
    overlay = {"layer": "client", "type": "overlay", "fault_id": "o#0", "detail": {"event": "fired"}}
    ledger = [
        {"seq": 1, "t_ms": 1000.0, **fired},
        {"seq": 2, "t_ms": 4000.0, **overlay},
        {"seq": 3, "t_ms": 4100.0, "layer": "client", "type": "overlay", "fault_id": "o#0",
         "detail": {"event": "dismissed"}},
        {"seq": 4, "t_ms": 9000.0, "layer": "guard", "type": "refused", "fault_id": None, "detail": {}},
    ]
    har = [
        _har_entry(t0 + 1000, "POST", "/api/cart", 503, marks=[fired]),
        _har_entry(t0 + 2500, "POST", "/api/cart", 201, duration=100),
        _har_entry(t0 + 4000, "POST", "/__webchaos/report", 204, marks=[overlay]),
        _har_entry(t0 + 4500, "GET", "/static/shop.css", 200),
        _har_entry(t0 + 7000, "POST", "/api/orders", 201, duration=50),
    ]
    trace = EpisodeTrace(events=GOOD_BUY, ledger=ledger, har=har)
    p = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), bought(shop_state()), trace).process
    assert p is not None
    assert [(r.seq, r.recovered, r.recover_ms, r.via) for r in p.recoveries] == [
        (1, True, 1600.0, "POST /api/cart"), (2, True, 3050.0, "POST /api/orders")]
    unanchored = EpisodeTrace(events=GOOD_BUY, ledger=ledger[:1], har=[])
    p = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), bought(shop_state()), unanchored).process
    assert p is not None and [(r.recovered, r.recover_ms) for r in p.recoveries] == [(False, None)]


def _episode_dir(tmp_path: Path, with_actions: bool) -> Path:
    folder = tmp_path / "ep"
    folder.mkdir()
    (folder / "episode.json").write_text(json.dumps({"task_id": "shop_buy_by_seller", "bindings": BINDINGS}))
    (folder / "state_initial.json").write_text(json.dumps(shop_state()))
    (folder / "state_final.json").write_text(json.dumps(bought(shop_state())))
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in GOOD_BUY) + '{"cut sh')
    if with_actions:
        (folder / "actions.jsonl").write_text('{"t_ms": 1, "kind": "click"}\n{"t_ms": 2, "kind": "input"}\n')
    return folder


def test_offline_regrade_is_byte_for_byte_the_online_verdict(tmp_path: Path, shop_tasks: dict[str, Task]) -> None:
    folder = _episode_dir(tmp_path, with_actions=True)
    task = shop_tasks["shop_buy_by_seller"]
    online = grade_episode(task, BINDINGS, (folder / "state_initial.json").read_bytes(),
                           (folder / "state_final.json").read_bytes(), load_trace(folder, attempts=7))
    (folder / "result.json").write_text(json.dumps({"outcome": {"attempts": 7},
                                                    "verdict": json.loads(online.model_dump_json())}, indent=2))
    offline = grade_episode_dir(task, folder)
    assert offline.model_dump_json(indent=2) == online.model_dump_json(indent=2)
    assert offline.process is not None and offline.process.gui_steps == 2  # actions.jsonl wins over attempts
    runner = CliRunner()
    out = runner.invoke(app, ["grade", str(folder), "--catalog", str(SHOP_TASKS), "--check"])
    assert out.exit_code == 0, out.output
    assert out.stdout == online.model_dump_json(indent=2) + "\n"


def test_grade_check_flags_a_changed_verdict(tmp_path: Path) -> None:
    folder = _episode_dir(tmp_path, with_actions=False)
    (folder / "result.json").write_text(json.dumps({"outcome": {"attempts": 1}, "verdict": {"success": False}}))
    out = CliRunner().invoke(app, ["grade", str(folder), "--catalog", str(SHOP_TASKS), "--check"])
    assert out.exit_code == 1
