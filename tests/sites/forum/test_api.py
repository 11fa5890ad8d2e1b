"""The JSON API: each task's write, reputation and events, and 4xx (never 500, never a partial
write) for every malformed or impossible request."""

from typing import Any

import pytest

from tests.sites.worlds import commits, world_fixture

from . import Doc, client_for, new_world

world = world_fixture(new_world, seed=4)


async def test_ask_then_follow(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, ask = episode.state, episode.bindings["ask"]
    count = len(state.questions)
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/questions", json={
            "title": ask["title"], "body": ask["body"], "tags": [ask["tag_a"], ask["tag_b"].upper()]})
        assert response.status_code == 201, response.text
        question = response.json()["question"]
        assert question["id"] == f"q{count + 1:04d}" and question["tags"] == [ask["tag_a"], ask["tag_b"]]
        page = await client.get(response.json()["url"])
        assert page.status_code == 200 and Doc(page.text).named("h1", ask["title"])
        listed = Doc((await client.get(f"/?tagged={ask['tag_b']}")).text)
        assert listed.links(ask["title"])
        follow = await client.put(f"/api/tags/{ask['follow_tag']}/follow", json={"following": True})
        assert follow.status_code == 200
        again = await client.put(f"/api/tags/{ask['follow_tag']}/follow", json={"following": True})
        assert again.status_code == 409
        tags_page = Doc((await client.get("/tags")).text)
        assert tags_page.buttons(f"Unfollow {ask['follow_tag']}") or [
            b for b in tags_page.all("button") if b.attrs.get("aria-label") == f"Unfollow {ask['follow_tag']}"]
    assert [f.tag for f in state.follows] == [ask["follow_tag"]]
    assert [e.name for e in commits(episode)] == ["ask", "follow_tag"]
    assert commits(episode)[0].detail["touched"][0] == question["id"]


async def test_votes_move_score_and_reputation_and_toggle(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, ns = episode.state, episode.bindings["namesake"]
    answer = state.answer(ns["answer_id"])
    member = state.member(ns["member_id"])
    assert answer and member
    score, rep = answer.score, member.reputation
    async with client_for(app, episode.id) as client:
        assert (await client.post(f"/api/posts/{answer.id}/vote", json={"value": 1})).status_code == 200
        assert (answer.score, member.reputation) == (score + 1, rep + 10)
        assert (await client.post(f"/api/posts/{answer.id}/vote", json={"value": 1})).status_code == 409
        doc = Doc((await client.get(f"/questions/{ns['question_id']}")).text)
        assert any(e.text == "You upvoted" for e in doc.all("span"))
        assert (await client.post(f"/api/posts/{answer.id}/vote", json={"value": -1})).status_code == 200
        assert (answer.score, member.reputation) == (score - 1, rep - 2)
        assert (await client.post(f"/api/posts/{answer.id}/vote", json={"value": 0})).status_code == 200
        assert (answer.score, member.reputation) == (score, rep)
        mine = episode.bindings["own"]["answer_id"]
        assert (await client.post(f"/api/posts/{mine}/vote", json={"value": 1})).status_code == 409
    assert state.votes == []
    assert [e.name for e in commits(episode)] == ["upvote", "downvote", "unvote"]


async def test_edit_own_answer_keeps_history(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, own = episode.state, episode.bindings["own"]
    text = f"The default {own['setting']} is {own['right_value']}. Set it explicitly {own['where']}."
    async with client_for(app, episode.id) as client:
        edit_page = await client.get(f"/answers/{own['answer_id']}/edit")
        assert edit_page.status_code == 200 and Doc(edit_page.text).labelled("Answer").tag == "textarea"
        response = await client.put(f"/api/answers/{own['answer_id']}", json={"body": text, "summary": "fix"})
        assert response.status_code == 200 and response.json()["revision"] == 2
        history = await client.get(f"/posts/{own['answer_id']}/revisions")
        assert "Revision 2" in history.text and own["wrong_value"] in history.text
        others = episode.bindings["namesake"]["answer_id"]
        assert (await client.put(f"/api/answers/{others}", json={"body": text})).status_code == 403
        assert (await client.get(f"/answers/{others}/edit")).status_code == 403
        assert (await client.put(f"/api/answers/{own['answer_id']}", json={"body": text})).status_code == 409
    mine = state.answer(own["answer_id"])
    assert mine and mine.body == text
    assert [r.number for r in state.revisions_of(mine.id)] == [1, 2]


async def test_flag_comment_accept_delete_settings_notifications(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, b = episode.state, episode.bindings
    my_question = next(q for q in state.live_questions() if q.author_id == state.me.id)
    answer = state.answers_to(my_question.id)[0]
    async with client_for(app, episode.id) as client:
        flag = await client.post(f"/api/posts/{b['spam']['answer_id']}/flags", json={"reason": "spam"})
        assert flag.status_code == 201
        assert (await client.post(f"/api/posts/{b['spam']['answer_id']}/flags",
                                  json={"reason": "spam"})).status_code == 409
        assert (await client.post(f"/api/posts/{b['spam']['legit_answer_id']}/flags",
                                  json={"reason": "other"})).status_code == 422
        comment = await client.post(f"/api/posts/{answer.id}/comments", json={"body": "Thanks, that did it!"})
        assert comment.status_code == 201
        cid = comment.json()["comment"]["id"]
        assert (await client.delete(f"/api/comments/{cid}")).status_code == 200
        assert (await client.delete(f"/api/comments/{b['own']['comment_id']}")).status_code == 403
        if my_question.accepted_answer_id == answer.id:
            assert (await client.post(f"/api/questions/{my_question.id}/accept",
                                      json={"answer_id": answer.id})).status_code == 409
        else:
            assert (await client.post(f"/api/questions/{my_question.id}/accept",
                                      json={"answer_id": answer.id})).status_code == 200
        assert (await client.post(f"/api/questions/{b['spam']['question_id']}/accept",
                                  json={"answer_id": b['spam']['answer_id']})).status_code == 403
        assert (await client.delete(f"/api/questions/{my_question.id}")).status_code == 409
        settings = await client.put("/api/settings", json={
            "display_name": "New Name", "location": "Oslo, Norway", "about": "", "email_digest": "weekly",
            "notify_on_answer": True, "notify_on_comment": False, "page_size": 30})
        assert settings.status_code == 200
        unread = [n.id for n in state.notifications if not n.read]
        read = await client.post("/api/notifications/read", json={"ids": unread})
        assert read.status_code == 200 and read.json()["changed"] == unread
    assert state.me.display_name == "New Name" and state.settings.page_size == 30
    assert [f.post_id for f in state.flags] == [b["spam"]["answer_id"]]
    assert my_question.accepted_answer_id == answer.id
    assert all(n.read for n in state.notifications)


# ---- bad input: 4xx with a message, never a 500, nothing written -------------------------------------

HUGE = "x" * 40_000
GOOD_Q = {"title": "How do I list every file a package installed?", "body": "I installed a package and want "
          "to see all the files it put on my system.", "tags": ["linux"]}

BAD = [
    ("POST", "/api/questions", {}, "missing fields"),
    ("POST", "/api/questions", {**GOOD_Q, "title": "Too short"}, "title under 15 characters"),
    ("POST", "/api/questions", {**GOOD_Q, "title": "x" * 151}, "title over 150 characters"),
    ("POST", "/api/questions", {**GOOD_Q, "tags": []}, "no tags"),
    ("POST", "/api/questions", {**GOOD_Q, "tags": ["a", "b", "c", "d", "e", "f"]}, "six tags"),
    ("POST", "/api/questions", {**GOOD_Q, "tags": ["no-such-tag"]}, "unknown tag"),
    ("POST", "/api/questions", {**GOOD_Q, "tags": ["<b>x</b>"]}, "markup as a tag"),
    ("POST", "/api/questions", {**GOOD_Q, "tags": "linux"}, "tags not a list"),
    ("POST", "/api/questions", {**GOOD_Q, "body": "short"}, "body too short"),
    ("POST", "/api/questions", {**GOOD_Q, "body": HUGE}, "oversized body"),
    ("POST", "/api/questions", {**GOOD_Q, "title": 42}, "title not text"),
    ("POST", "/api/questions", {**GOOD_Q, "extra": 1}, "unknown field"),
    ("PUT", "/api/questions/q9999", GOOD_Q, "unknown question"),
    ("DELETE", "/api/questions/q9999", None, "delete unknown question"),
    ("POST", "/api/questions/q9999/answers", {"body": "A perfectly fine answer text."}, "answer to unknown"),
    ("POST", "/api/questions/{q}/answers", {"body": "short"}, "answer too short"),
    ("POST", "/api/questions/{q}/answers", {"body": ["a list"]}, "answer not text"),
    ("PUT", "/api/answers/a9999", {"body": "A perfectly fine answer text."}, "edit unknown answer"),
    ("DELETE", "/api/answers/{spam}", None, "delete someone else's answer"),
    ("POST", "/api/posts/x1/comments", {"body": "A perfectly fine comment."}, "comment on unknown"),
    ("POST", "/api/posts/{q}/comments", {"body": "too short"}, "comment too short"),
    ("POST", "/api/posts/{q}/comments", {"body": "x" * 601}, "comment too long"),
    ("DELETE", "/api/comments/c9999", None, "delete unknown comment"),
    ("POST", "/api/posts/{q}/vote", {"value": 2}, "vote of 2"),
    ("POST", "/api/posts/{q}/vote", {"value": True}, "vote true"),
    ("POST", "/api/posts/{q}/vote", {"value": "1"}, "vote as text"),
    ("POST", "/api/posts/q9999/vote", {"value": 1}, "vote on unknown"),
    ("POST", "/api/questions/{q}/accept", {"answer_id": "{spam}"}, "accept on someone else's question"),
    ("POST", "/api/posts/{spam}/flags", {"reason": "boring"}, "unknown flag reason"),
    ("POST", "/api/posts/{spam}/flags", {"reason": "spam", "note": "x" * 501}, "flag note too long"),
    ("PUT", "/api/tags/no-such-tag/follow", {"following": True}, "follow unknown tag"),
    ("PUT", "/api/tags/git/follow", {"following": "yes"}, "following not a bool"),
    ("PUT", "/api/tags/git/follow", {"following": False}, "unfollow a tag not followed"),
    ("POST", "/api/notifications/read", {"ids": []}, "no notifications named"),
    ("POST", "/api/notifications/read", {"ids": ["n0001", "n9999"]}, "one unknown notification"),
    ("PUT", "/api/settings", {"display_name": "A"}, "settings missing fields"),
    ("PUT", "/api/settings", {"display_name": "Name", "location": "", "about": "", "email_digest": "hourly",
                              "notify_on_answer": True, "notify_on_comment": True, "page_size": 15},
     "unknown digest"),
    ("PUT", "/api/settings", {"display_name": "Name", "location": "", "about": "", "email_digest": "daily",
                              "notify_on_answer": True, "notify_on_comment": True, "page_size": 7},
     "page size not offered"),
]


@pytest.mark.parametrize(("method", "path", "body", "label"), BAD, ids=[b[3] for b in BAD])
async def test_bad_requests_get_a_4xx_with_a_message_and_change_nothing(
        world: tuple[Any, Any], method: str, path: str, body: Any, label: str) -> None:
    app, episode = world
    b = episode.bindings
    fill = {"q": b["spam"]["question_id"], "spam": b["spam"]["answer_id"]}
    path = path.format(**fill)
    if isinstance(body, dict):
        body = {k: (v.format(**fill) if isinstance(v, str) and "{" in v else v) for k, v in body.items()}
    before, events = episode.state_bytes(), len(episode.events)
    async with client_for(app, episode.id) as client:
        response = await client.request(method, path, json=body)
    assert 400 <= response.status_code < 500, (label, response.status_code, response.text[:300])
    assert response.json().get("detail"), label
    assert episode.state_bytes() == before and len(episode.events) == events


@pytest.mark.parametrize("path", ["/?page=0", "/?page=x", "/?page=99", "/?sort=hot", "/?tagged=nope",
                                  "/questions/q9999", "/questions/q9999/edit", "/answers/a9999/edit",
                                  "/posts/zz/revisions", "/users/u999", "/tags/nope",
                                  "/search?q=" + "x" * 400, "/questions/{q}?answers=oldest"])
async def test_bad_pages_are_4xx_pages(world: tuple[Any, Any], path: str) -> None:
    app, episode = world
    async with client_for(app, episode.id) as client:
        response = await client.get(path.format(q=episode.bindings["spam"]["question_id"]))
    assert 400 <= response.status_code < 500, (path, response.status_code)
    assert "<h1>" in response.text


async def test_markup_in_user_text_is_stored_as_text_and_shown_escaped(world: tuple[Any, Any]) -> None:
    app, episode = world
    payload = '<script>window.__pwned=1</script><img src=x onerror="alert(1)">'
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/questions", json={
            "title": f"Why does {payload} run?", "body": f"Body with {payload} inside it.", "tags": ["css"]})
        assert response.status_code == 201
        qid = response.json()["question"]["id"]
        await client.post(f"/api/posts/{qid}/comments", json={"body": f"Comment {payload}"})
        await client.put("/api/settings", json={
            "display_name": "<b>Bold</b>", "location": payload[:80], "about": payload, "email_digest": "daily",
            "notify_on_answer": True, "notify_on_comment": True, "page_size": 15})
        for path in (f"/questions/{qid}", "/", f"/users/{episode.state.me.id}", "/settings",
                     f"/search?q={qid}", f"/posts/{qid}/revisions"):
            html = (await client.get(path)).text
            assert "<script>window.__pwned" not in html and "<img src=x" not in html and "<b>Bold" not in html
    question = episode.state.question(qid)
    assert question and payload in question.title
