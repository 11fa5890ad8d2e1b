"""Network faults end to end: real sites server, real mitmdump, real headless Chromium, reference agent."""

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from harness.agents import ReferenceAgent
from harness.browser.pool import spki_hash
from harness.episodes.manager import EpisodeManager, EpisodeSpec
from harness.run.results import EpisodeResult
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from tests.harness.episodes import CATALOG, episode_dir, jsonl, run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def https_stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Services]:
    running = Services(state_dir=tmp_path_factory.mktemp("state-https"), https=True)
    await running.start()
    yield running
    await running.stop()


def folder(runs_dir: Path, result: EpisodeResult) -> Path:
    return episode_dir(runs_dir, result)


def lines(path: Path, name: str) -> list[dict[str, Any]]:
    return jsonl(path / name)


async def test_503_then_success_is_retried_with_recovery_and_fails_without(stack: Services, tmp_path: Path) -> None:
    on, off = await run(stack, tmp_path, "shop_add_to_cart", "shop_cart_503_then_success",
                        [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)])
    assert (off.agent, on.agent) == ("reference-no-recovery", "reference")
    assert not off.success and off.outcome.status == "failed", off.outcome
    assert on.success, (on.outcome, on.verdict)
    assert on.outcome.recoveries >= 1
    for result in (on, off):
        fired = [x for x in lines(folder(tmp_path, result), "faults.jsonl") if x["layer"] == "network"]
        assert [(x["type"], x["detail"]) for x in fired] == [("error_then_success", {"status": 503, "failure": 1})]
    har = json.loads((folder(tmp_path, on) / "trace.har").read_text())
    posts = [e for e in har["log"]["entries"] if e["request"]["method"] == "POST"
             and e["request"]["url"].endswith("/api/cart")]
    assert [e["response"]["status"] for e in posts][:2] == [503, 201]
    assert posts[0]["_webchaos"][0]["type"] == "error_then_success"


async def test_swallowed_write_fools_the_page_but_not_the_grader(stack: Services, tmp_path: Path) -> None:
    (result,) = await run(stack, tmp_path, "shop_add_to_cart", "shop_cart_swallowed_write",
                          [ReferenceAgent(recovery=False)])
    assert result.outcome.status == "done", result.outcome  # the page said "Added to cart"
    assert not result.success  # ... but the shop never saw the write
    path = folder(tmp_path, result)
    assert not any(e.get("kind") == "commit" for e in lines(path, "events.jsonl"))
    assert [x["type"] for x in lines(path, "faults.jsonl") if x["layer"] == "network"] == ["swallowed_write"]


async def test_https_mode_end_to_end_with_the_reference_agent(https_stack: Services, tmp_path: Path) -> None:
    pin = spki_hash(https_stack.ca_cert_path.read_bytes())
    assert pin in https_stack.spki_pins
    assert https_stack.ca_cert_path.is_relative_to(https_stack.state_dir)
    (result,) = await run(https_stack, tmp_path, "shop_add_to_cart", None, [ReferenceAgent(recovery=False)])
    assert result.outcome.status == "done", result.outcome
    assert result.success, result.verdict
    path = folder(tmp_path, result)
    assert json.loads((path / "episode.json").read_text())["start_url"] == "https://shop.test/"
    entries = json.loads((path / "trace.har").read_text())["log"]["entries"]
    site = [e for e in entries if e["request"]["url"].startswith("https://shop.test/")]
    assert any(e["request"]["method"] == "POST" and e["response"]["status"] == 201 for e in site)
    assert not [e for e in entries if e["request"]["url"].startswith("http://shop.test/")]


async def test_https_mode_still_refuses_connect_to_other_hosts(https_stack: Services, tmp_path: Path) -> None:
    spec = EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], None, 1)
    oracle = OracleClient(https_stack.oracle_url, https_stack.secret)
    control = ControlClient(https_stack.control_url, https_stack.secret)
    try:
        manager = EpisodeManager(oracle, control)
        episode = await manager.open(spec, "https-guard", tmp_path / "ep")
        assert episode.start_url == "https://shop.test/"
        async with aiohttp.ClientSession() as session:
            for url in ("https://example.com/", "https://shop.test:8443/", f"https://127.0.0.1:{https_stack.oracle_port}/"):
                with pytest.raises(aiohttp.ClientHttpProxyError) as exc:
                    await session.get(url, proxy=episode.proxy_url)
                assert exc.value.status == 403, url
            # the site itself over https, trusting the proxy's CA only
            import ssl

            context = ssl.create_default_context(cafile=str(https_stack.ca_cert_path))
            async with session.get("https://shop.test/", proxy=episode.proxy_url, ssl=context) as r:
                assert r.status == 200 and "<html" in (await r.text()).lower()
        await manager.close(episode)
    finally:
        await oracle.close()
        await control.close()
    refused = [x for x in lines(tmp_path / "ep", "faults.jsonl") if x["layer"] == "guard"]
    assert len(refused) == 3 and all(x["request"]["method"] == "CONNECT" for x in refused)
