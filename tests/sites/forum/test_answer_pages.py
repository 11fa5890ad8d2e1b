"""What the answer tasks read: the question Timeline page, the accepted answer's votes, a question's tag
links, and the `lookup` bindings of their focuses (which agree with those pages on every seed)."""

import re

import pytest

from sites.forum import content as C
from sites.kit.dates import day_month_year

from . import Doc, client_for, new_world

SEEDS = range(1, 6)
TAG_NAMES = {name for name, _ in C.TAGS}


def _timeline_rows(html: str) -> list[str]:
    doc = Doc(html)
    return [row.text for row in doc.all("tr")][1:]  # the first row is the header


@pytest.mark.parametrize("focus", ["accepted_score", "asked_date", "first_answer", "tags", "missing_distro"])
def test_a_lookup_focus_changes_no_record_of_the_world(focus: str) -> None:
    plain = new_world(5, focus="distro")[2]
    looked = new_world(5, focus=focus)[2]
    assert looked.state_bytes() == plain.state_bytes()
    def others(bindings: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in bindings.items() if k not in ("lookup", "target")}

    assert others(looked.bindings) == others(plain.bindings)
    assert "lookup" not in plain.bindings


@pytest.mark.parametrize("seed", SEEDS)
async def test_the_accepted_answers_votes_say_its_score(seed: int) -> None:
    app, _store, episode = new_world(seed, focus="accepted_score")
    lookup = episode.bindings["lookup"]
    accepted = episode.state.answer(lookup["answer_id"])
    assert accepted is not None and accepted.score == lookup["score"]
    async with client_for(app, episode.id) as client:
        page = await client.get(f"/questions/{lookup['question_id']}")
    assert page.status_code == 200
    groups = Doc(page.text).named("div", "Votes on the accepted answer")
    assert len(groups) == 1
    assert re.search(r"-?\d+", groups[0].text).group(0) == str(lookup["score"])  # type: ignore[union-attr]
    # The question's own votes are a separate group (its score is a near miss).
    assert Doc(page.text).named("div", "Votes on this question")


@pytest.mark.parametrize("seed", SEEDS)
async def test_the_timeline_shows_when_the_question_was_asked(seed: int) -> None:
    app, _store, episode = new_world(seed, focus="asked_date")
    lookup = episode.bindings["lookup"]
    async with client_for(app, episode.id) as client:
        question = Doc((await client.get(f"/questions/{lookup['question_id']}")).text)
        assert question.links("Timeline")
        page = await client.get(f"/questions/{lookup['question_id']}/timeline")
    assert page.status_code == 200
    assert Doc(page.text).heading() == "Timeline"
    rows = _timeline_rows(page.text)
    asked = [r for r in rows if re.search(r"\basked\b", r)]
    assert len(asked) == 1 and asked[0].startswith(day_month_year(lookup["date"]) + " at ")
    assert rows[0] == asked[0]  # oldest first


@pytest.mark.parametrize("seed", SEEDS)
async def test_the_first_answered_row_names_the_first_answers_author(seed: int) -> None:
    app, _store, episode = new_world(seed, focus="first_answer")
    lookup, state = episode.bindings["lookup"], episode.state
    question = state.question(lookup["question_id"])
    assert question is not None and question.author_id == state.me.id
    async with client_for(app, episode.id) as client:
        mine = Doc((await client.get(f"/users/{state.me.id}")).text)
        assert mine.links(lookup["question_title"])
        rows = _timeline_rows((await client.get(f"/questions/{question.id}/timeline")).text)
    answered = [r for r in rows if re.search(r"\banswered\b", r)]
    assert len(answered) == len(state.answers_to(question.id))
    assert re.search(r"answered (.+)$", answered[0]).group(1) == lookup["author"]  # type: ignore[union-attr]


@pytest.mark.parametrize("seed", SEEDS)
async def test_the_question_page_links_exactly_its_tags(seed: int) -> None:
    app, _store, episode = new_world(seed, focus="tags")
    lookup = episode.bindings["lookup"]
    async with client_for(app, episode.id) as client:
        users = Doc((await client.get("/users", params={"q": lookup["asker"]})).text)
        (asker,) = users.links(lookup["asker"])
        assert asker.attrs["href"] == f"/users/{lookup['asker_id']}"
        profile = Doc((await client.get(asker.attrs["href"])).text)
        assert profile.links(lookup["question_title"])
        page = Doc((await client.get(f"/questions/{lookup['question_id']}")).text)
    tag_links = [a.text for a in page.all("a") if a.text in TAG_NAMES]
    assert sorted(tag_links) == sorted(lookup["tags"]) and len(lookup["tags"]) > 1


@pytest.mark.parametrize("seed", SEEDS)
async def test_the_missing_thread_is_not_found_but_its_title_is(seed: int) -> None:
    app, _store, episode = new_world(seed, focus="missing_distro")
    lookup = episode.bindings["lookup"]
    assert lookup["distro"] not in lookup["listed"]
    async with client_for(app, episode.id) as client:
        by_title = Doc((await client.get("/search", params={"q": lookup["title"]})).text)
        both = await client.get("/search", params={"q": f"{lookup['title']} {lookup['distro']}"})
    assert len(by_title.links(lookup["title"])) == 3
    assert both.status_code == 200 and "find anything for" in both.text
    assert not [a for a in Doc(both.text).all("a") if a.attrs.get("href", "").startswith("/questions/q")]


@pytest.mark.parametrize("path", ["/questions/q9999/timeline", "/questions/%00/timeline", "/questions/../timeline",
                                  "/questions/" + "q" * 300 + "/timeline"])
async def test_a_timeline_of_no_question_is_not_found(path: str) -> None:
    app, _store, episode = new_world(1)
    async with client_for(app, episode.id) as client:
        assert (await client.get(path)).status_code in (400, 404)


async def test_the_timeline_ignores_query_junk_and_the_answer_order_is_checked() -> None:
    app, _store, episode = new_world(1)
    question = episode.state.questions[0]
    async with client_for(app, episode.id) as client:
        junk = await client.get(f"/questions/{question.id}/timeline", params={"page": "-1", "answers": "\x00"})
        bad_order = await client.get(f"/questions/{question.id}", params={"answers": "oldest%"})
    assert junk.status_code == 200
    assert bad_order.status_code == 400
