"""The later features (bounties, …): each focus's world, its pages and its API, with the 4xx of every
impossible request; and a world without the feature answers 404 for its pages and its API alike."""

import base64
import html as html_module
import re

import pytest

from sites.forum import content as C
from tests.sites.worlds import commits

from . import Doc, client_for, new_world


def text_of(html: str) -> str:
    """The page's words, tags left out (entities as written)."""
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", html)).split())


# ---- bounties ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_bounty_world(seed: int) -> None:
    episode = new_world(seed, focus="bounty")[2]
    state, b = episode.state, episode.bindings["bounty"]
    assert state.bounties is not None and episode.bindings["target"]["id"] == b["question_id"]
    mine = [x for x in state.bounties if x.offered_by == state.me.id]
    assert len(mine) == 1 and mine[0].question_id == b["question_id"] and mine[0].awarded_answer_id is None
    answers = state.answers_to(b["question_id"])
    assert sorted(a.id for a in answers) == sorted(b["answer_ids"]) and b["answer_id"] in b["answer_ids"]
    assert len({a.author_id for a in answers}) == 3
    assert not any(x.question_id == b["plain"]["question_id"] for x in state.bounties)
    # The tag's total counts its open bounties only: one in the tag was awarded already.
    tagged = {q.id for q in state.live_questions() if b["tag"] in q.tags}
    in_tag = [x for x in state.bounties if x.question_id in tagged]
    assert sum(x.amount for x in in_tag if x.awarded_answer_id is None) == b["tag_total"]
    assert any(x.awarded_answer_id for x in in_tag) and b["tag_total"] < sum(
        x.amount for x in state.bounties if x.awarded_answer_id is None)
    # The tag's largest open bounty is on one question (no tie).
    open_in_tag = sorted((x.amount, x.question_id) for x in in_tag if x.awarded_answer_id is None)
    assert open_in_tag[-1] == (b["top"]["amount"], b["top"]["question_id"]) and open_in_tag[-2][0] < open_in_tag[-1][0]


def test_worlds_without_bounties_have_no_bounty_parts() -> None:
    episode = new_world(1)[2]
    assert episode.state.bounties is None and b'"bounties"' not in episode.state_bytes()


async def test_award_the_bounty_then_never_again() -> None:
    app, _, episode = new_world(2, focus="bounty")
    state, b = episode.state, episode.bindings["bounty"]
    winner = state.answer(b["answer_id"])
    assert winner is not None
    author = state.member(winner.author_id)
    assert author is not None
    rep = author.reputation
    async with client_for(app, episode.id) as client:
        html = (await client.get(f"/questions/{b['question_id']}")).text
        assert len(Doc(html).buttons("Award bounty")) == 3 and "Your bounty" in text_of(html)
        other = next(a for a in b["answer_ids"] if a != b["answer_id"])
        assert (await client.post(f"/api/questions/{b['question_id']}/bounty/award",
                                  json={"answer_id": "a9999"})).status_code == 404
        assert (await client.post(f"/api/questions/{b['question_id']}/bounty/award",
                                  json={"answer_id": b["answer_id"], "x": 1})).status_code == 422
        ok = await client.post(f"/api/questions/{b['question_id']}/bounty/award", json={"answer_id": b["answer_id"]})
        assert ok.status_code == 200, ok.text
        again = await client.post(f"/api/questions/{b['question_id']}/bounty/award", json={"answer_id": other})
        assert again.status_code == 409
        after = text_of((await client.get(f"/questions/{b['question_id']}")).text)
        assert f"You awarded your bounty to {b['author']}" in after and "Award bounty" not in after
    assert author.reputation == rep + b["amount"]
    assert [e.name for e in commits(episode)] == ["award_bounty"]


async def test_bounties_are_awarded_only_by_their_owner_and_only_where_there_is_one() -> None:
    app, _, episode = new_world(3, focus="bounty")
    state, b = episode.state, episode.bindings["bounty"]
    theirs = next(x for x in state.bounties or [] if x.offered_by != state.me.id and x.awarded_answer_id is None)
    their_answer = state.answers_to(theirs.question_id)[0]
    plain = b["plain"]["question_id"]
    async with client_for(app, episode.id) as client:
        forbidden = await client.post(f"/api/questions/{theirs.question_id}/bounty/award",
                                      json={"answer_id": their_answer.id})
        assert forbidden.status_code == 403
        none = await client.post(f"/api/questions/{plain}/bounty/award",
                                 json={"answer_id": state.answers_to(plain)[0].id})
        assert none.status_code == 404
        wrong = await client.post(f"/api/questions/{b['question_id']}/bounty/award",
                                  json={"answer_id": their_answer.id})
        assert wrong.status_code == 409
        box = text_of((await client.get(f"/questions/{plain}")).text)
        assert "There is no bounty on your question." in box and "Award bounty" not in box
    assert not commits(episode) and all(x.awarded_answer_id is None or x.question_id != b["question_id"]
                                        for x in state.bounties or [])


async def test_bounties_page_totals_the_open_bounties_of_a_tag() -> None:
    app, _, episode = new_world(4, focus="bounty")
    b = episode.bindings["bounty"]
    async with client_for(app, episode.id) as client:
        every = Doc((await client.get("/bounties")).text)
        tagged = Doc((await client.get(f"/bounties?tagged={b['tag']}")).text)
        assert (await client.get("/bounties?tagged=nope")).status_code == 404
    summary = tagged.named("p", "Reputation on offer")[0].text
    assert summary.startswith(f"{b['tag_total']:,} reputation on offer in {b['tag_count']} open")
    assert every.links(b["tag"]) and every.links("Bounties")


async def test_a_world_without_bounties_answers_404() -> None:
    app, _, episode = new_world(1)
    async with client_for(app, episode.id) as client:
        assert (await client.get("/bounties")).status_code == 404
        question = episode.state.questions[0].id
        answer = episode.state.answers_to(question)
        response = await client.post(f"/api/questions/{question}/bounty/award",
                                     json={"answer_id": answer[0].id if answer else "a0001"})
        assert response.status_code == 404
        page = Doc((await client.get("/")).text)
        assert not page.links("Bounties")


# ---- private messages ----------------------------------------------------------------------------------


def test_messages_world() -> None:
    episode = new_world(2, focus="messages")[2]
    state, m = episode.state, episode.bindings["messages"]
    assert state.messages is not None
    unread = [x for x in state.messages if not x.outgoing and not x.read and not x.pending]
    assert [x.member_id for x in unread] == [m["link"]["member_id"]]
    assert m["link"]["question_title"] in unread[0].body and m["link"]["question_id"] not in unread[0].body
    pending = [x for x in state.messages if x.pending]
    assert [x.member_id for x in pending] == [m["ask"]["member_id"]] and m["ask"]["reply_value"] in pending[0].body
    assert not [x for x in state.messages if x.member_id == m["ask"]["member_id"] and not x.pending]


async def test_a_reply_arrives_only_after_the_member_is_asked() -> None:
    app, _, episode = new_world(3, focus="messages")
    state, ask = episode.state, episode.bindings["messages"]["ask"]
    async with client_for(app, episode.id) as client:
        before = await client.get(f"/messages/{ask['member_id']}")
        assert ask["reply_value"] not in before.text and 'aria-busy="false"' in before.text
        early = await client.post(f"/api/messages/{ask['member_id']}/arrivals")
        assert early.json() == {"arrived": []}
        sent = await client.post(f"/api/messages/{ask['member_id']}", json={"body": ask["question"]})
        assert sent.status_code == 201 and sent.json()["reply_due"] is True
        assert "pending" not in sent.json()["message"]
        waiting = await client.get(f"/messages/{ask['member_id']}")
        assert ask["reply_value"] not in waiting.text and "is typing" in waiting.text
        assert (await client.post(f"/api/messages/{ask['member_id']}",
                                  json={"body": ask["question"]})).status_code == 409
        arrived = await client.post(f"/api/messages/{ask['member_id']}/arrivals")
        assert len(arrived.json()["arrived"]) == 1
        after = Doc((await client.get(f"/messages/{ask['member_id']}")).text)
    latest = after.all("article", **{"aria-label": f"Latest message from {ask['name']}"})
    assert len(latest) == 1 and ask["reply_value"] in latest[0].text
    assert [e.name for e in commits(episode)] == ["send_message"]
    assert not any(x.pending for x in state.messages or [])


async def test_replying_reads_the_conversation_and_bad_messages_are_refused() -> None:
    app, _, episode = new_world(1, focus="messages")
    state, link = episode.state, episode.bindings["messages"]["link"]
    async with client_for(app, episode.id) as client:
        inbox = Doc((await client.get("/messages")).text)
        assert inbox.links(link["name"]) and inbox.links("Messages (1 unread)")
        assert (await client.post(f"/api/messages/{state.me.id}", json={"body": "hello me"})).status_code == 409
        assert (await client.post("/api/messages/u999", json={"body": "hello"})).status_code == 404
        assert (await client.post(f"/api/messages/{link['member_id']}", json={"body": ""})).status_code == 422
        assert (await client.post(f"/api/messages/{link['member_id']}", json={"text": "hi"})).status_code == 422
        assert (await client.get(f"/messages/{state.me.id}")).status_code == 404
        ok = await client.post(f"/api/messages/{link['member_id']}", json={"body": f"Here: {link['url']}"})
        assert ok.status_code == 201
        inbox = Doc((await client.get("/messages")).text)
        profile = Doc((await client.get(f"/users/{link['member_id']}")).text)
    assert not inbox.links("Messages (1 unread)") and inbox.links("Messages")
    assert profile.links("Send message")
    assert all(x.read for x in state.messages or [] if x.member_id == link["member_id"])


async def test_a_world_without_messages_answers_404() -> None:
    app, _, episode = new_world(1)
    member = episode.state.members[3].id
    async with client_for(app, episode.id) as client:
        assert (await client.get("/messages")).status_code == 404
        assert (await client.get(f"/messages/{member}")).status_code == 404
        assert (await client.post(f"/api/messages/{member}", json={"body": "hello"})).status_code == 404
        assert not Doc((await client.get(f"/users/{member}")).text).links("Send message")


# ---- a copy of your data ---------------------------------------------------------------------------------


async def test_the_export_is_prepared_on_request_and_states_the_answer_total() -> None:
    app, _, episode = new_world(2, focus="export")
    state, export = episode.state, episode.bindings["export"]
    async with client_for(app, episode.id) as client:
        settings = Doc((await client.get("/settings")).text)
        assert settings.buttons("Request a copy of your data") and not settings.links("Download your data")
        assert (await client.get("/settings/data-export")).status_code == 404
        made = await client.post("/api/export")
        assert made.status_code == 201 and made.json()["download"] == "/settings/data-export"
        again = await client.post("/api/export")
        assert again.json()["export"]["id"] == made.json()["export"]["id"]
        assert Doc((await client.get("/settings")).text).links("Download your data")
        file = await client.get("/settings/data-export")
    assert file.status_code == 200 and "attachment" in file.headers["content-disposition"]
    total = Doc(file.text).all("p", **{"aria-label": "Total score of your answers"})
    assert len(total) == 1 and total[0].text.startswith(f"{export['answer_score_total']} total score")
    assert export["answer_count"] >= 3 and state.exports is not None and len(state.exports) == 1
    assert [e.name for e in commits(episode)] == ["request_export"]


# ---- attachments ---------------------------------------------------------------------------------------

LOG = base64.b64encode(b"[error] no live upstreams while connecting to upstream\n").decode()


async def test_a_file_is_attached_to_your_own_post_only() -> None:
    app, _, episode = new_world(1, focus="attach")
    state, attach = episode.state, episode.bindings["attach"]
    other = next(q for q in state.live_questions() if q.author_id != state.me.id)
    url = f"/api/posts/{attach['question_id']}/attachments"
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/questions/{attach['question_id']}")).text)
        assert len(page.buttons("Attach a file")) == 1
        theirs = await client.post(f"/api/posts/{other.id}/attachments",
                                   json={"name": "error.log", "content_type": "text/plain", "data": LOG})
        assert theirs.status_code == 403
        bad = [({"name": "error.log", "content_type": "text/plain", "data": "%%%"}, 422),
               ({"name": "error.log", "content_type": "image/png", "data": LOG}, 422),
               ({"name": "../x.log", "content_type": "text/plain", "data": LOG}, 422),
               ({"name": "error.log", "content_type": "text/html", "data": LOG}, 422),
               ({"name": "error.log", "content_type": "text/plain", "data": ""}, 422),
               ({"name": "big.log", "content_type": "text/plain",
                 "data": base64.b64encode(b"x" * (300 * 1024)).decode()}, 413)]
        for body, status in bad:
            assert (await client.post(url, json=body)).status_code == status, body
        ok = await client.post(url, json={"name": "error.log", "content_type": "text/plain", "data": LOG})
        assert ok.status_code == 201 and "text" not in ok.json()["attachment"]
        assert (await client.post(url, json={"name": "error.log", "content_type": "text/plain",
                                             "data": LOG})).status_code == 409
        page = Doc((await client.get(f"/questions/{attach['question_id']}")).text)
        link = page.links("error.log")
        shown = await client.get(link[0].attrs["href"])
    assert shown.status_code == 200 and "no live upstreams" in shown.text
    assert shown.headers["content-type"].startswith("text/plain")
    assert [e.name for e in commits(episode)] == ["attach_file"]


async def test_worlds_without_exports_or_attachments_answer_404() -> None:
    app, _, episode = new_world(1)
    mine = next(q for q in episode.state.live_questions() if q.author_id == episode.state.me.id)
    async with client_for(app, episode.id) as client:
        assert (await client.post("/api/export")).status_code == 404
        assert (await client.get("/settings/data-export")).status_code == 404
        assert (await client.get("/attachments/f0001")).status_code == 404
        response = await client.post(f"/api/posts/{mine.id}/attachments",
                                     json={"name": "a.log", "content_type": "text/plain", "data": LOG})
        assert response.status_code == 404
        assert not Doc((await client.get(f"/questions/{mine.id}")).text).buttons("Attach a file")


# ---- closing as a duplicate -------------------------------------------------------------------------------


async def test_close_your_question_as_a_duplicate_of_the_original_only() -> None:
    app, _, episode = new_world(3, focus="duplicate")
    state, dup = episode.state, episode.bindings["duplicate"]
    original = state.question(dup["original_id"])
    assert original is not None and original.accepted_answer_id
    url = f"/api/questions/{dup['question_id']}/close"
    async with client_for(app, episode.id) as client:
        copy = text_of((await client.get(f"/questions/{dup['copy_id']}")).text)
        assert f"This question already has an answer here: {dup['original_title']}" in copy
        assert "Close as duplicate" not in copy  # not the user's question
        found = Doc((await client.get(f"/search?q={dup['search']}")).text)
        titles = [a.text for a in found.all("a") if a.text in (dup["title"], dup["copy_title"], dup["original_title"])]
        assert titles == [dup["title"], dup["copy_title"], dup["original_title"]]  # newest first: the copy first
        page = Doc((await client.get(f"/questions/{dup['question_id']}/close?q={dup['search']}")).text)
        radios = [r.attrs.get("aria-label") for r in page.all("input", type="radio")]
        assert radios == [dup["copy_title"], dup["original_title"]]
        assert (await client.post(url, json={"duplicate_of": dup["copy_id"]})).status_code == 409
        assert (await client.post(url, json={"duplicate_of": dup["question_id"]})).status_code == 409
        assert (await client.post(url, json={"duplicate_of": "q9999"})).status_code == 404
        assert (await client.post(f"/api/questions/{dup['copy_id']}/close",
                                  json={"duplicate_of": dup["original_id"]})).status_code == 403
        assert (await client.get(f"/questions/{dup['copy_id']}/close")).status_code == 403
        ok = await client.post(url, json={"duplicate_of": dup["original_id"]})
        assert ok.status_code == 200
        assert (await client.post(url, json={"duplicate_of": dup["original_id"]})).status_code == 409
        mine = text_of((await client.get(f"/questions/{dup['question_id']}")).text)
    assert f"This question already has an answer here: {dup['original_title']}" in mine
    assert [e.name for e in commits(episode)] == ["close_duplicate"]


async def test_a_world_without_closing_answers_404() -> None:
    app, _, episode = new_world(2)
    mine = next(q for q in episode.state.live_questions() if q.author_id == episode.state.me.id)
    other = next(q for q in episode.state.live_questions() if q.author_id != episode.state.me.id)
    async with client_for(app, episode.id) as client:
        assert (await client.get(f"/questions/{mine.id}/close")).status_code == 404
        closing = await client.post(f"/api/questions/{mine.id}/close", json={"duplicate_of": other.id})
        assert closing.status_code == 404
        assert not Doc((await client.get(f"/questions/{mine.id}")).text).links("Close as duplicate")


# ---- the review queue ---------------------------------------------------------------------------------------


def test_review_world() -> None:
    episode = new_world(4, focus="review")[2]
    state, review = episode.state, episode.bindings["review"]
    edits = {e.id: e for e in state.suggested_edits or []}
    assert len(edits) == 4 and all(e.status == "pending" for e in edits.values())
    typo, coded = state.answer(review["spelling"]["post_id"]), state.answer(review["format"]["post_id"])
    assert typo and " teh " in typo.body and " teh " not in edits[review["spelling"]["id"]].body
    assert coded and "`" not in coded.body and "`" in edits[review["format"]["id"]].body
    assert review["spam_url"] in edits[review["spam"]["id"]].body
    assert len({review[k]["title"] for k in ("spelling", "format", "spam", "greeting")}) == 4


async def test_approving_applies_the_edit_and_rejecting_needs_a_reason() -> None:
    app, _, episode = new_world(5, focus="review")
    state, review = episode.state, episode.bindings["review"]
    spelling, spam = review["spelling"], review["spam"]
    url = "/api/suggested-edits/{}/review"
    async with client_for(app, episode.id) as client:
        queue = Doc((await client.get("/review")).text)
        assert queue.links(f"Suggested edit on {spam['title']}") and queue.links("Review (4 waiting)")
        item = Doc((await client.get(f"/review/{spam['id']}")).text)
        assert item.buttons("Approve") and item.buttons("Reject") and item.labelled("Reason for rejecting")
        assert (await client.post(url.format(spam["id"]), json={"decision": "reject"})).status_code == 422
        assert (await client.post(url.format(spam["id"]), json={"decision": "approve",
                                                                "reason": "spam"})).status_code == 422
        assert (await client.post(url.format("s999"), json={"decision": "approve"})).status_code == 404
        rejected = await client.post(url.format(spam["id"]), json={"decision": "reject", "reason": "spam"})
        assert rejected.status_code == 200
        assert (await client.post(url.format(spam["id"]), json={"decision": "approve"})).status_code == 409
        assert (await client.post(url.format(spelling["id"]), json={"decision": "approve"})).status_code == 200
        queue = Doc((await client.get("/review")).text)
    assert not queue.links(f"Suggested edit on {spam['title']}") and queue.links("Review (2 waiting)")
    fixed = state.answer(spelling["post_id"])
    assert fixed and " teh " not in fixed.body and state.revisions_of(fixed.id)[-1].number == 2
    assert not [a for a in state.answers if review["spam_url"] in a.body]
    assert [e.name for e in commits(episode)] == ["reject_edit", "approve_edit"]


async def test_a_world_without_reviews_answers_404() -> None:
    app, _, episode = new_world(2)
    async with client_for(app, episode.id) as client:
        assert (await client.get("/review")).status_code == 404
        assert (await client.get("/review/s0001")).status_code == 404
        review = await client.post("/api/suggested-edits/s0001/review", json={"decision": "approve"})
        assert review.status_code == 404


# ---- tag wikis -------------------------------------------------------------------------------------------------


async def test_a_deprecated_tag_points_to_its_replacement_and_cannot_be_followed() -> None:
    app, _, episode = new_world(3, focus="tagwiki")
    state, wiki = episode.state, episode.bindings["tagwiki"]
    assert state.tag(wiki["old"]) and state.tag(wiki["new"])
    assert not [q for q in state.live_questions() if wiki["old"] in q.tags]
    async with client_for(app, episode.id) as client:
        tags = Doc((await client.get(f"/tags?q={wiki['old']}")).text)
        assert tags.links(f"About {wiki['old']}")
        old = Doc((await client.get(f"/tags/{wiki['old']}/info")).text)
        assert "Deprecated tag" in old.all("section", **{"aria-label": "Tag wiki"})[0].text
        assert old.links(wiki["new"]) and not old.buttons(f"Follow {wiki['old']}")
        refused = await client.put(f"/api/tags/{wiki['old']}/follow", json={"following": True})
        assert refused.status_code == 409 and wiki["new"] in refused.json()["detail"]
        new = Doc((await client.get(f"/tags/{wiki['new']}/info")).text)
        assert [b for b in new.all("button") if b.attrs.get("aria-label") == f"Follow {wiki['new']}"]
        assert (await client.put(f"/api/tags/{wiki['new']}/follow", json={"following": True})).status_code == 200
        assert (await client.get("/tags/nope/info")).status_code == 404
    assert [f.tag for f in state.follows] == [wiki["new"]]
    assert [e.name for e in commits(episode)] == ["follow_tag"]


async def test_a_world_without_tag_wikis_answers_404() -> None:
    app, _, episode = new_world(2)
    async with client_for(app, episode.id) as client:
        assert (await client.get("/tags/python/info")).status_code == 404
        assert not Doc((await client.get("/tags")).text).links("About python")


# ---- badges ------------------------------------------------------------------------------------------------------


async def test_profiles_show_badges_and_the_namesakes_counts_differ() -> None:
    app, _, episode = new_world(2, focus="badges")
    state, badges = episode.state, episode.bindings["badges"]
    pair = [m for m in state.members if m.display_name == badges["name"]]
    assert len(pair) == 2 and badges["silver"] != badges["other_silver"]
    async with client_for(app, episode.id) as client:
        counts = {}
        for member in pair:
            page = Doc((await client.get(f"/users/{member.id}")).text)
            silver = page.all("p", **{"aria-label": "Silver badges"})
            counts[member.location] = int(silver[0].text.split()[0])
        plain_app, _, plain = new_world(2)
        async with client_for(plain_app, plain.id) as other:
            assert not Doc((await other.get(f"/users/{pair[0].id}")).text).all("p", **{"aria-label": "Silver badges"})
    assert counts == {badges["location"]: badges["silver"], badges["other_location"]: badges["other_silver"]}


# ---- roundups ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
async def test_each_thread_states_its_figure_in_the_accepted_answer_only(seed: int) -> None:
    app, _, episode = new_world(seed, focus="roundup")
    state, r = episode.state, episode.bindings["roundup"]
    figures = [t["value"] for t in r["threads"]] + r["other_values"]
    assert len(set(figures)) == 6 and r["best"]["value"] == min(t["value"] for t in r["threads"])
    assert r["best"]["key"].casefold() in r["best"]["change"].casefold()
    assert not state.answers_to(r["question_id"]) and episode.bindings["target"]["id"] == r["question_id"]
    async with client_for(app, episode.id) as client:
        for thread in r["threads"]:
            question = state.question(thread["question_id"])
            assert question is not None and question.accepted_answer_id is not None
            page = text_of((await client.get(f"/questions/{thread['question_id']}")).text)
            accepted = state.answer(question.accepted_answer_id)
            other = next(a for a in state.answers_to(question.id) if a.id != question.accepted_answer_id)
            assert accepted is not None and re.search(rf"(?<!\d){thread['value']}(?!\d)", accepted.body)
            assert re.search(rf"(?<!\d){thread['other_value']}(?!\d)", other.body)
            assert str(thread["value"]) in page and str(thread["other_value"]) in page
            # The search the plan makes finds the thread by its title.
            found = text_of((await client.get("/search", params={"q": thread["title"]})).text)
            assert thread["title"] in found


async def test_an_answer_on_the_roundup_question_is_posted_by_the_user() -> None:
    app, _, episode = new_world(3, focus="roundup")
    r = episode.bindings["roundup"]
    body = "With caching it took 9 minutes; parallel jobs took 5 and multi-stage 12. The fastest was parallel."
    async with client_for(app, episode.id) as client:
        response = await client.post(f"/api/questions/{r['question_id']}/answers", json={"body": body})
        assert response.status_code == 201
        page = Doc((await client.get(f"/questions/{r['question_id']}")).text)
    assert page.all("article", **{"aria-label": f"Answer by {episode.state.me.display_name}"})
    assert [a.body for a in episode.state.answers_to(r["question_id"])] == [body]


def test_worlds_without_roundups_have_no_roundup_threads() -> None:
    episode = new_world(1)[2]
    titles = {thread[0] for roundup in C.ROUNDUPS for thread in roundup[4]}
    assert not titles & {q.title for q in episode.state.questions}


# ---- suggested edits ---------------------------------------------------------------------------------------------


async def test_an_edit_is_suggested_only_once_the_one_waiting_on_the_answer_is_reviewed() -> None:
    app, _, episode = new_world(2, focus="suggest")
    state, s = episode.state, episode.bindings["suggest"]
    answer = state.answer(s["answer_id"])
    assert answer is not None and s["old"] in answer.body and s["new"] not in answer.body
    assert any(s["new"] in c.body for c in state.comments_on(answer.id))
    url = f"/api/answers/{answer.id}/suggested-edits"
    fixed = {"body": s["fixed_body"], "summary": "Updated the command"}
    async with client_for(app, episode.id) as client:
        question = text_of((await client.get(f"/questions/{s['question_id']}")).text)
        assert "Improve this answer" in question
        page = text_of((await client.get(f"/answers/{answer.id}/suggest-edit")).text)
        assert "already waiting for review" in page and "Suggest edit" not in page
        assert (await client.post(url, json=fixed)).status_code == 409
        assert (await client.post(f"/api/suggested-edits/{s['pending_id']}/review",
                                  json={"decision": "reject", "reason": "spam"})).status_code == 200
        assert "Suggest edit" in text_of((await client.get(f"/answers/{answer.id}/suggest-edit")).text)
        assert (await client.post(url, json={"body": answer.body})).status_code == 409  # nothing changed
        assert (await client.post(url, json={"body": "short"})).status_code == 422
        made = await client.post(url, json=fixed)
        assert made.status_code == 201
        mine = made.json()["edit"]
        assert (await client.post(url, json=fixed)).status_code == 409  # one waiting edit per post
        # The post keeps its text until a reviewer approves; the user can't review their own suggestion.
        assert answer.body != s["fixed_body"]
        assert (await client.post(f"/api/suggested-edits/{mine['id']}/review",
                                  json={"decision": "approve"})).status_code == 403
        queue = text_of((await client.get("/review")).text)
        assert "Waiting for review (1)" in queue
        assert "Your suggested edit is waiting for review" in text_of(
            (await client.get(f"/questions/{s['question_id']}")).text)
    assert mine["editor_id"] == state.me.id and mine["status"] == "pending" and mine["post_id"] == answer.id
    assert [e.name for e in commits(episode)] == ["reject_edit", "suggest_edit"]


async def test_suggesting_is_refused_on_your_own_answer_and_missing_without_the_feature() -> None:
    app, _, episode = new_world(1, focus="suggest")
    state = episode.state
    own = next(a for a in state.live_answers() if a.author_id == state.me.id)
    async with client_for(app, episode.id) as client:
        assert (await client.post(f"/api/answers/{own.id}/suggested-edits",
                                  json={"body": own.body + " (and more)"})).status_code == 409
        assert (await client.get(f"/answers/{own.id}/suggest-edit")).status_code == 409
        assert (await client.get("/answers/a9999/suggest-edit")).status_code == 404
    for focus in (None, "review"):  # the review queue alone does not let the user suggest edits
        plain_app, _, plain = new_world(1, focus=focus) if focus else new_world(1)
        other = next(a for a in plain.state.live_answers() if a.author_id != plain.state.me.id)
        async with client_for(plain_app, plain.id) as client:
            assert (await client.get(f"/answers/{other.id}/suggest-edit")).status_code == 404
            assert (await client.post(f"/api/answers/{other.id}/suggested-edits",
                                      json={"body": other.body + " (and more)"})).status_code == 404
            assert "Improve this answer" not in (await client.get(f"/questions/{other.question_id}")).text
