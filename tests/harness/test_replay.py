"""replay.html from episode files alone (no browser): the data it carries, and `webchaos replay`."""

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from harness.cli.main import app
from harness.reporting.replay import REPLAY_NAME, replay_data, write_replay, write_replay_quietly
from proxy_addons.rrweb import player_assets

OPENED = 1_800_000_000_000.0


def iso(ms_after_open: float) -> str:
    from datetime import UTC, datetime
    return datetime.fromtimestamp((OPENED + ms_after_open) / 1000, UTC).isoformat().replace("+00:00", "Z")


def page(rec: int, start: float, stop: float) -> list[dict[str, Any]]:
    """One page load's rrweb events: DomContentLoaded, Meta, FullSnapshot, then one mutation at `stop`."""
    return [{"rec": rec, "event": {"type": t, "timestamp": OPENED + at, "data": {}}}
            for t, at in ((0, start), (4, start), (2, start + 10), (3, stop))]


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def episode(tmp_path: Path, rrweb: list[dict[str, Any]] | None = None) -> Path:
    folder = tmp_path / "ep"
    folder.mkdir()
    (folder / "episode.json").write_text(json.dumps({"episode_id": "ep", "task_id": "t", "variant_id": "v",
                                                     "seed": 3, "instruction": "Do <b>it</b>"}))
    (folder / "result.json").write_text(json.dumps({
        "agent": "a", "success": False, "score": 0.5, "outcome": {"status": "done"},
        "verdict": {"checks": [{"ref": "create[0]", "desc": "the thing", "passed": False, "detail": "missing"},
                               {"ref": "create[1]", "desc": "fine", "passed": True}],
                    "negative_checks": [], "failures": ["create[0] the thing"],
                    "process": {"first_wrong_step": {"seq": 2, "kind": "commit", "name": "archive",
                                                     "target": "m1", "reason": "wrong"}}}}))
    har = {"log": {"entries": [
        {"startedDateTime": iso(100), "time": 5, "request": {"method": "GET", "url": "http://s.test/"},
         "response": {"status": 200}},
        {"startedDateTime": iso(1000), "time": 5, "request": {"method": "GET", "url": "http://s.test/static/a.css"},
         "response": {"status": 200}},
        {"startedDateTime": iso(1200), "time": 5, "request": {"method": "GET", "url": "http://s.test/item/m1?x=1"},
         "response": {"status": 200}, "_webchaos": [{"fault_id": "slow#0"}]},
        {"startedDateTime": iso(3000), "time": 9, "request": {"method": "POST", "url": "http://s.test/api/archive"},
         "response": {"status": 200}},
    ]}}
    (folder / "trace.har").write_text(json.dumps(har))
    write_jsonl(folder / "events.jsonl", [{"seq": 1, "kind": "inspect", "name": "view", "target": "m1"},
                                          {"seq": 2, "kind": "commit", "name": "archive", "target": "m1"}])
    write_jsonl(folder / "actions.jsonl", [{"seq": 1, "t_ms": 1100.0, "kind": "click", "page": "/"}])
    write_jsonl(folder / "faults.jsonl", [
        {"seq": 1, "t_ms": 900.0, "layer": "client", "type": "overlay", "detail": {"event": "injected"}},
        {"seq": 2, "t_ms": 1250.0, "layer": "client", "type": "overlay", "detail": {"event": "fired"}},
        {"seq": 3, "t_ms": 10.0, "layer": "guard", "type": "refused", "detail": {}},
    ])
    if rrweb is not None:
        write_jsonl(folder / "rrweb.jsonl", [{"webchaos_rrweb": 1, "opened_epoch_ms": OPENED}, *rrweb])
    return folder


def test_the_timeline_has_firings_requests_actions_and_placed_events(tmp_path: Path) -> None:
    data = replay_data(episode(tmp_path, page(1, 50, 1000)))
    assert [f["seq"] for f in data["firings"]] == [2]  # only what counts as a firing
    assert [(r["t_ms"], r["method"], r["path"], r["asset"]) for r in data["requests"]] == [
        (100.0, "GET", "/", False), (1000.0, "GET", "/static/a.css", True),
        (1200.0, "GET", "/item/m1?x=1", False), (3000.0, "POST", "/api/archive", False)]
    assert data["requests"][2]["faults"] == ["slow#0"]
    # The inspect of m1 sits at the request naming m1; the commit at the next write.
    assert [(e["seq"], e["t_ms"], e["approx"]) for e in data["events"]] == [(1, 1200.0, True), (2, 3000.0, True)]
    assert [c["ref"] for c in data["failed_checks"]] == ["create[0]"]
    assert data["first_wrong_step"]["seq"] == 2 and data["opened_epoch_ms"] == OPENED


def test_pages_in_another_tab_stay_out_of_the_player_and_unload_events_are_cut(tmp_path: Path) -> None:
    rrweb = [*page(1, 0, 2000), *page(2, 1500, 5000), *page(3, 2500, 4000), *page(4, 6000, 7000)]
    data = replay_data(episode(tmp_path, rrweb))["rrweb"]
    assert data["skipped"] == [3] and data["recordings"] == 4  # rec 3 began while rec 2 went on
    stamps = [e["timestamp"] - OPENED for e in data["events"]]
    assert stamps == sorted(stamps)
    assert 2000 not in stamps  # rec 1's last event came after rec 2 began: cut
    assert stamps[0] == 0 and stamps[-1] == 7000


def test_a_cut_recording_and_broken_lines_are_shown_as_such(tmp_path: Path) -> None:
    folder = episode(tmp_path, [*page(1, 0, 100), {"rec": 1, "truncated": True, "t_ms": 150, "cap_bytes": 10}])
    with (folder / "rrweb.jsonl").open("a") as handle:
        handle.write('{"rec": 1, "event": {"type": 3, "timest')
    data = replay_data(folder)["rrweb"]
    assert data["truncated"]["cap_bytes"] == 10 and len(data["events"]) == 4


def test_replay_html_is_self_contained_and_escapes_what_it_shows(tmp_path: Path) -> None:
    folder = episode(tmp_path, page(1, 0, 100))
    (folder / "actions.jsonl").write_text(json.dumps({"seq": 1, "t_ms": 5, "kind": "input", "page": "/",
                                                      "value": "</script><script>alert(1)</script>"}) + "\n")
    html = write_replay(folder).read_text()
    assert "</script><script>alert(1)" not in html and "\\u003c/script\\u003e" in html
    assert "Do &lt;b&gt;it&lt;/b&gt;" in html
    assert "<script src=" not in html and "<link" not in html
    if player_assets() is not None:
        assert "rrwebPlayer" in html and len(html) > 200_000


def test_without_a_recording_or_an_episode(tmp_path: Path) -> None:
    folder = episode(tmp_path)
    data = replay_data(folder)
    assert data["rrweb"]["events"] == [] and data["requests"][0]["t_ms"] == 0.0  # t=0 at the first request
    assert write_replay_quietly(tmp_path / "nothing") is None


def test_cli_replay_writes_the_page_and_refuses_a_non_episode(tmp_path: Path) -> None:
    folder = episode(tmp_path, page(1, 0, 100))
    runner = CliRunner()
    ok = runner.invoke(app, ["replay", str(folder)])
    assert ok.exit_code == 0, ok.output
    assert (folder / REPLAY_NAME).is_file() and f"replay: {folder / REPLAY_NAME}" in ok.output
    bad = runner.invoke(app, ["replay", str(tmp_path)])
    assert bad.exit_code == 2 and "episode.json" in bad.output
