"""Server-rendered pages: listings (sort, tag filter, paging), search, the question page and the
controls the tasks' plans name."""

from typing import Any

from tests.sites.worlds import world_fixture

from . import Doc, client_for, new_world

world = world_fixture(new_world, seed=2)


async def test_listing_sorts_filters_and_pages(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        first = Doc((await client.get("/")).text)
        newest = sorted(state.live_questions(), key=lambda q: (q.created_at, q.id), reverse=True)
        shown = [e.attrs["href"] for e in first.all("a") if e.attrs.get("href", "").startswith("/questions/q")]
        assert shown == [f"/questions/{q.id}" for q in newest[:15]]
        assert first.links("Next page") and first.links("Page 2")
        second = Doc((await client.get("/?page=2")).text)
        shown2 = [e.attrs["href"] for e in second.all("a") if e.attrs.get("href", "").startswith("/questions/q")]
        assert shown2 == [f"/questions/{q.id}" for q in newest[15:30]]
        votes = Doc((await client.get("/?sort=votes")).text)
        top = max(state.live_questions(), key=lambda q: (q.score, -len(q.id)))
        assert next(e for e in votes.all("a") if e.attrs.get("href", "").startswith("/questions/q")).text == top.title
        tag = episode.bindings["unanswered"]["tag"]
        unanswered = Doc((await client.get(f"/?tagged={tag}&sort=unanswered")).text)
        listed = {e.text for e in unanswered.all("a") if e.attrs.get("href", "").startswith("/questions/q")}
        assert listed == set(episode.bindings["unanswered"]["titles"])
        assert unanswered.named("h1", f"Questions tagged [{tag}]")
        assert [b for b in unanswered.all("button") if b.text == "Follow tag"]


async def test_search_with_tags_and_words(world: tuple[Any, Any]) -> None:
    app, episode = world
    distro = episode.bindings["distro"]
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get("/search", params={"q": distro["title"]})).text)
        hits = [e for e in doc.all("a") if e.text == distro["title"]]
        assert len(hits) == 3
        tagged = Doc((await client.get("/search", params={"q": "[regex] pattern"})).text)
        for e in tagged.all("a"):
            if e.attrs.get("href", "").startswith("/questions/q"):
                q = episode.state.question(e.attrs["href"].rsplit("/", 1)[1])
                assert q is not None and "regex" in q.tags
        assert (await client.get("/search?q=")).status_code == 303
    searches = [e for e in episode.events if e.name == "search"]
    assert searches[0].detail["results"] and searches[1].detail["tags"] == ["regex"]


async def test_question_page_names_the_controls_the_plans_use(world: tuple[Any, Any]) -> None:
    app, episode = world
    b = episode.bindings
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get(f"/questions/{b['spam']['question_id']}")).text)
        assert doc.named("h1", b["spam"]["question_title"])
        assert [x for x in doc.all("button") if x.attrs.get("aria-label") == "Upvote"]
        assert [x for x in doc.all("a") if x.text == "Flag"]
        flag = Doc((await client.get(f"/posts/{b['spam']['answer_id']}/flag")).text)
        assert flag.named("h1", "Flag this answer") and flag.buttons("Submit flag")
        assert [r for r in flag.all("input") if r.attrs.get("type") == "radio" and r.attrs.get("value") == "spam"]
        assert (await client.get(f"/posts/{b['own']['answer_id']}/flag")).status_code == 403
        assert doc.buttons("Post Your Answer") and doc.labelled("Your Answer").tag == "textarea"
        spam_link = [a for a in doc.all("a") if b["spam"]["product"].split()[0].lower() in a.attrs.get("href", "")]
        assert spam_link and "nofollow" in spam_link[0].attrs["rel"]
        articles = [a for a in doc.all("article") if a.attrs.get("aria-label", "").startswith("Answer by")]
        assert len(articles) >= 3
        own = Doc((await client.get(f"/questions/{b['own']['question_id']}")).text)
        assert [a for a in own.all("a") if a.text == "Edit"]
    inspected = [e for e in episode.events if e.kind == "inspect"]
    assert inspected[0].target == b["spam"]["question_id"] and "body" in inspected[0].detail["revealed"]


async def test_profile_settings_tags_users_notifications(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    ns = episode.bindings["namesake"]
    async with client_for(app, episode.id) as client:
        me = Doc((await client.get(f"/users/{state.me.id}")).text)
        assert me.named("h1", state.me.display_name)
        assert [a for a in me.all("a") if a.text == episode.bindings["own"]["question_title"]]
        profile = (await client.get(f"/users/{ns['member_id']}")).text
        assert ns["location"] in profile and ns["reputation_text"] in profile
        users = (await client.get("/users", params={"q": ns["name"]})).text
        assert users.count(f">{ns['name']}</a>") == 2
        settings = Doc((await client.get("/settings")).text)
        assert settings.labelled("Display name").attrs["value"] == state.settings.display_name
        assert [r for r in settings.all("input") if r.attrs.get("type") == "radio"]
        tags = Doc((await client.get("/tags")).text)
        assert [x for x in tags.all("button") if x.attrs.get("aria-label") == "Follow git"]
        notes = (await client.get("/notifications")).text
        assert "Mark all as read" in notes
        header = Doc((await client.get("/")).text)
        assert [a for a in header.all("a") if a.attrs.get("aria-label") == f"Your profile: {state.me.display_name}"]
