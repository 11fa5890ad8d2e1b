"""Chaos profiles over the shop tasks: deterministic per seed, and graded beside the clean base."""

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import webchaos
from harness.agents import ReferenceAgent
from harness.run.overlays import robustness_table, with_overlays
from harness.run.runner import plan_matrix, run_matrix
from harness.services.processes import Services
from scenarios.ledger import is_firing
from tests.harness.episodes import CATALOG

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

PROFILES = ["flaky-network", "hostile-page", "all-weather"]
# Two shop tasks, fixed, so that the run below (one episode per task and profile, plus the base) does not grow
# as tasks are added to the shop's catalog: a search-and-add and a signed-in form, each under every profile.
SHOP_TASKS = ["shop_add_to_cart", "shop_change_default_address"]


async def browse(stack: webchaos.Stack, profile: str, seed: int) -> list[tuple[Any, ...]]:
    """The same 16 requests through the episode's proxy; returns the firings and client-fault injections
    (a page given a client fault: without a browser nothing reports it fired), without times or flow ids."""
    async with stack.episode("shop_add_to_cart", seed=seed, cdp=False, profile=profile) as ep, \
            aiohttp.ClientSession() as session:
        product = ep._live.opened.bindings["target"]["id"]
        for _ in range(4):
            for method, path, body in (("GET", "/", None), ("GET", f"/product/{product}", None),
                                       ("POST", "/api/cart", {"product_id": product, "quantity": 1}),
                                       ("GET", "/cart", None)):
                try:
                    async with session.request(method, f"http://shop.test{path}", json=body, proxy=ep.proxy_url,
                                               allow_redirects=False) as response:
                        await response.read()
                except aiohttp.ClientError:
                    pass  # a reset: the connection dropped
        await ep.grade()
    return [(line["layer"], line["type"], line["fault_id"], (line["request"] or {}).get("path"),
             tuple(sorted((k, str(v)) for k, v in line["detail"].items())))
            for line in ep.ledger() if is_firing(line) or line["detail"].get("event") == "injected"]


@pytest.mark.parametrize("profile", [*PROFILES, "hostile-web"])
async def test_a_profile_fires_the_same_way_for_the_same_seed(api_stack: webchaos.Stack, profile: str) -> None:
    first = await browse(api_stack, profile, seed=5)
    again = await browse(api_stack, profile, seed=5)
    assert first and again == first
    ids = {fault_id for _, _, fault_id, _, _ in first}
    assert ids <= {f["id"] for f in api_stack.spec("shop_add_to_cart", profile=profile).faults}
    if profile == "flaky-network":
        assert await browse(api_stack, profile, seed=6) != first  # the seed, not the clock, decides


async def test_every_profile_over_the_shop_tasks_is_graded_next_to_the_clean_base(stack: Services,
                                                                                 tmp_path: Path) -> None:
    specs = with_overlays(plan_matrix(CATALOG, SHOP_TASKS, [], [1]), PROFILES)
    assert len(specs) == len(SHOP_TASKS) * (1 + len(PROFILES))
    summary, run_dir = await run_matrix(specs, [ReferenceAgent()], runs_dir=tmp_path, stack=stack, concurrency=3,
                                        time_budget_s=120)
    assert not [r for r in summary.episodes if r.infra_failed], [r.infra for r in summary.episodes]
    assert {(r.task_id, r.profile) for r in summary.episodes} == {
        (t, p) for t in SHOP_TASKS for p in (None, *PROFILES)}
    assert all(r.firings > 0 for r in summary.episodes if r.profile)  # the background faults did fire
    rows = summary.aggregates["profile_robustness"] if summary.aggregates else []
    assert [(r["agent"], r["profile"], r["n"]) for r in rows] == [("reference", p, len(SHOP_TASKS))
                                                                  for p in sorted(PROFILES)]
    # The clean base is not mixed with profile episodes anywhere else in the aggregates.
    assert summary.aggregates is not None and summary.aggregates["episodes"] == len(SHOP_TASKS)
    assert robustness_table(summary) is not None

    # report.html shows the same numbers as run.json, one row per agent × profile.
    written = json.loads((run_dir / "run.json").read_text())
    expected = [[r["agent"], r["profile"], str(r["n"]),
                 f"{100 * r['base_success_rate']:.0f}% score {r['base_score']:.2f}",
                 f"{100 * r['profile_success_rate']:.0f}% score {r['profile_score']:.2f}",
                 f"{r['robustness']:.2f}" if r["robustness"] is not None else "–",
                 f"{r['drop']:+.2f} [{r['drop_ci95'][0]:.2f}, {r['drop_ci95'][1]:.2f}]" if r["drop"] else
                 f"0.00 [{r['drop_ci95'][0]:.2f}, {r['drop_ci95'][1]:.2f}]",
                 str(r["firings"])]
                for r in written["aggregates"]["profile_robustness"]]
    assert table_rows((run_dir / "report.html").read_text(), "robustness") == expected
    for row in written["aggregates"]["profile_robustness"]:
        assert row["firings"] == sum(e["firings"] for e in written["episodes"] if e["profile"] == row["profile"])


class TableRows(HTMLParser):
    """The body rows of the first <table> whose class names `wanted`, each as its cells' text."""

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted, self.depth, self.rows, self.cell = wanted, 0, [], None
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and not self.done and self.wanted in (dict(attrs).get("class") or "").split():
            self.depth = 1
        elif self.depth and tag == "tr":
            self.rows.append([])
        elif self.depth and tag == "td":
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "td" and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif self.depth and tag == "table":
            self.depth, self.done = 0, True

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data if not self.cell or data[:1].isspace() else " " + data)


def table_rows(html: str, wanted: str) -> list[list[str]]:
    parser = TableRows(wanted)
    parser.feed(html)
    return [row for row in parser.rows if row]
