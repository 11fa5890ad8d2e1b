"""human_check and bot_wall (proxy_addons/network/checks.py) through the real addon chain, without a network."""

import re
from typing import Any

import pytest
from mitmproxy import http

from proxy_addons.network.checks import CHECK_KEY, WORDS
from scenarios.faults import FaultError, Primitive, parse_fault, registry
from scenarios.ledger import is_firing
from tests.proxy_addons.conftest import Chain, ledger

PAGE = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
SITE_PAGE = http.Response.make(200, b"<html><head></head><body>the site</body></html>", {"content-type": "text/html"})


def check(mode: str = "word", match: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    return {"id": "hc", "type": "human_check", "layer": "network", "match": {"host": "shop.test", **(match or {})},
            "params": {"mode": mode, **params}}


def wall(**params: Any) -> dict[str, Any]:
    return {"id": "bw", "type": "bot_wall", "layer": "network", "match": {"host": "shop.test"}, "params": params}


async def load(chain: Chain, ep: Any, url: str, headers: dict[str, str] | None = None) -> http.HTTPFlow:
    return await chain.send(chain.flow(ep, "GET", url, headers=PAGE if headers is None else headers),
                            SITE_PAGE.copy())


def text(flow: http.HTTPFlow) -> str:
    assert flow.response is not None
    return flow.response.get_text() or ""


def word_of(page: str) -> str:
    found = re.search(r"Type the word shown: <strong>(\w+)</strong>", page)
    assert found, page
    return found.group(1)


def number_of(page: str) -> str:
    found = re.search(rf'name="{CHECK_KEY}" value="(\d+)"', page)
    assert found, page
    return found.group(1)


def lines(ep: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(line["type"], line["detail"]) for line in ledger(ep)]


def test_both_types_are_registered_with_their_parameters_and_primitives() -> None:
    kinds = registry()  # human_check is also a client type (before an action): keyed by layer
    assert kinds["network:human_check"].primitive == "planning" and kinds["bot_wall"].primitive == "patience"
    assert set(kinds["network:human_check"].model_fields) == {"mode", "wait_ms", "times"}
    assert set(kinds["bot_wall"].model_fields) == {"wait_ms", "times"}
    with pytest.raises(FaultError, match=r"faults\[2\]\.params\.mode"):
        parse_fault(check(mode="puzzle"), 2)


async def test_a_word_check_answers_the_page_load_until_the_word_shown_is_typed(chain: Chain) -> None:
    ep = chain.open([check("word")])
    api = await chain.send(chain.flow(ep, "GET", "http://shop.test/api/cart", headers={"accept": "application/json"}))
    assert text(api) == "upstream"  # a script's call is not a page load
    first = await load(chain, ep, "http://shop.test/search?q=lamp")
    assert first.response is not None and first.response.status_code == 403
    page = text(first)
    assert "Verify you are human" in page and word_of(page) in WORDS
    assert 'action="/search"' in page and "the site" not in page
    again = await load(chain, ep, "http://shop.test/search?q=lamp")  # a reload: the same challenge
    assert word_of(text(again)) == word_of(page) and number_of(text(again)) == "1"
    wrong = await load(chain, ep, f"http://shop.test/search?{CHECK_KEY}=1&answer=nope")
    assert "That was not the word shown" in text(wrong) and number_of(text(wrong)) == "2"
    right = await load(chain, ep, f"http://shop.test/search?{CHECK_KEY}=2&answer={word_of(text(wrong)).upper()}")
    assert right.response is not None and right.response.status_code == 303
    assert right.response.headers["location"] == "/search?q=lamp"  # the page first asked for, asked again
    replayed = await load(chain, ep, "http://shop.test/search?q=lamp")
    later = await load(chain, ep, "http://shop.test/cart")
    assert text(replayed) == text(later) == "<html><head></head><body>the site</body></html>"
    kinds = [(t, d.get("note")) for t, d in lines(ep)]
    assert kinds == [("human_check", None), ("human_check", "shown again"), ("human_check", "wrong answer"),
                     ("human_check", "passed")]
    assert [is_firing(line) for line in ledger(ep)] == [True, False, False, False]


async def test_the_same_seed_asks_the_same_words(chain: Chain) -> None:
    def asked(ep: Any) -> list[str]:
        return [d["word"] for _, d in lines(ep) if "word" in d]

    episodes = [chain.open([check("word")], seed=seed, name=f"ep{i}") for i, seed in enumerate((3, 3, 4))]
    for ep in episodes:
        await load(chain, ep, "http://shop.test/")
        for number in range(1, 4):
            await load(chain, ep, f"http://shop.test/?{CHECK_KEY}={number}&answer=wrong")
    same, twin, other = (asked(ep) for ep in episodes)
    assert same == twin and len(same) == 4
    assert same != other


async def test_a_checkbox_check_needs_the_box_and_its_wait(chain: Chain) -> None:
    ep = chain.open([check("checkbox", wait_ms=0)])
    page = text(await load(chain, ep, "http://shop.test/"))
    assert "I am not a robot" in page and "disabled data-continue" in page and "setTimeout" in page
    unticked = await load(chain, ep, f"http://shop.test/?{CHECK_KEY}=1")
    assert unticked.response is not None and unticked.response.status_code == 403
    assert "We could not verify you" in text(unticked)
    ticked = await load(chain, ep, f"http://shop.test/?{CHECK_KEY}=2&confirm=human")
    assert ticked.response is not None and ticked.response.status_code == 303


async def test_a_checkbox_answered_before_its_wait_is_refused(chain: Chain) -> None:
    ep = chain.open([check("checkbox", wait_ms=60_000)])
    await load(chain, ep, "http://shop.test/")
    early = await load(chain, ep, f"http://shop.test/?{CHECK_KEY}=1&confirm=human")
    assert early.response is not None and early.response.status_code == 403


async def test_a_slider_check_passes_only_at_the_end(chain: Chain) -> None:
    ep = chain.open([check("slider")])
    page = text(await load(chain, ep, "http://shop.test/product/p1"))
    assert 'type="range"' in page and 'max="100"' in page and "Slide to verify" in page
    halfway = await load(chain, ep, f"http://shop.test/product/p1?{CHECK_KEY}=1&position=50")
    assert halfway.response is not None and halfway.response.status_code == 403
    end = await load(chain, ep, f"http://shop.test/product/p1?{CHECK_KEY}=2&position=100")
    assert end.response is not None and end.response.headers["location"] == "/product/p1"


async def test_times_asks_again_after_a_pass_but_lets_the_page_asked_for_through_first(chain: Chain) -> None:
    ep = chain.open([check("slider", times=2)])
    await load(chain, ep, "http://shop.test/a")
    await load(chain, ep, f"http://shop.test/a?{CHECK_KEY}=1&position=100")
    assert text(await load(chain, ep, "http://shop.test/a")).endswith("the site</body></html>")
    assert "Verify you are human" in text(await load(chain, ep, "http://shop.test/b"))
    await load(chain, ep, f"http://shop.test/b?{CHECK_KEY}=2&position=100")
    assert text(await load(chain, ep, "http://shop.test/b")).endswith("the site</body></html>")
    assert text(await load(chain, ep, "http://shop.test/c")).endswith("the site</body></html>")
    assert sum(is_firing(line) for line in ledger(ep)) == 2


async def test_a_pass_is_the_episodes_own(chain: Chain) -> None:
    one, two = chain.open([check("slider")], name="one"), chain.open([check("slider")], name="two")
    await load(chain, one, "http://shop.test/")
    await load(chain, two, "http://shop.test/")
    await load(chain, one, f"http://shop.test/?{CHECK_KEY}=1&position=100")
    assert text(await load(chain, one, "http://shop.test/")).endswith("the site</body></html>")
    assert "Verify you are human" in text(await load(chain, two, "http://shop.test/"))


async def test_a_stale_or_forged_answer_is_sent_back_not_forwarded(chain: Chain) -> None:
    ep = chain.open([check("word")])
    stray = await load(chain, ep, f"http://shop.test/x?{CHECK_KEY}=9&answer=a")
    assert stray.response is not None and stray.response.status_code == 303
    assert stray.response.headers["location"] == "/x"
    assert lines(ep) == [("human_check", {"note": "stale answer", "answered": "9"})]


async def test_the_check_page_gets_the_action_recorder(chain: Chain) -> None:
    ep = chain.open([check("word")], record_actions=True)
    page = text(await load(chain, ep, "http://shop.test/"))
    assert "<script data-webchaos>" in page and "/__webchaos/actions" in page


async def test_a_bot_wall_stands_its_time_then_lets_the_reload_through(chain: Chain) -> None:
    ep = chain.open([wall(wait_ms=0)])
    first = await load(chain, ep, "http://shop.test/")
    assert first.response is not None and first.response.status_code == 503
    assert "Checking your browser" in text(first) and "location.reload()" in text(first)
    reload = await load(chain, ep, "http://shop.test/")
    after = await load(chain, ep, "http://shop.test/other")
    assert text(reload).endswith("the site</body></html>") and text(after).endswith("the site</body></html>")
    assert lines(ep) == [("bot_wall", {"wait_ms": 0, "wall": 1}), ("bot_wall", {"note": "passed", "wall": 1})]


async def test_a_bot_wall_shows_again_on_every_page_load_before_its_time(chain: Chain) -> None:
    ep = chain.open([wall(wait_ms=60_000)])
    for path in ("/", "/", "/cart"):
        flow = await load(chain, ep, "http://shop.test" + path)
        assert flow.response is not None and flow.response.status_code == 503
    image = await load(chain, ep, "http://shop.test/logo.png", headers={"accept": "image/png"})
    assert text(image).endswith("the site</body></html>")  # not a page load
    assert [d.get("note") for _, d in lines(ep)] == [None, "shown again", "shown again"]
    assert sum(is_firing(line) for line in ledger(ep)) == 1


def test_the_check_before_an_action_is_a_client_type_of_the_same_name() -> None:
    kind = registry()["client:human_check"]
    assert kind.primitive is Primitive.planning and set(kind.model_fields) >= {"mode", "wait_ms", "times"}
    with pytest.raises(FaultError, match="needs a target"):
        parse_fault({"type": "human_check", "layer": "client", "match": {"host": "shop.test"}}, 0)
