"""Server-rendered pages: landmarks and names agents rely on, listings, the conversation view,
compose prefill, search, settings, the pages links lead to, errors and events."""

import re
from datetime import timedelta
from typing import Any

from scenarios.events import EventKind
from tests.sites.worlds import world_fixture

from . import Doc, client_for, new_world

FOLDER_LINKS = ("Inbox", "Starred", "Sent", "Drafts", "Archive", "Spam", "Trash")


world = world_fixture(new_world, seed=4)


def pages_of(bindings: dict[str, Any]) -> list[str]:
    return [
        "/", "/?page=2", "/folder/inbox", "/folder/sent", "/folder/drafts", "/folder/archive", "/folder/spam",
        "/folder/trash", "/starred", f"/label/{bindings['labels']['Work']}", "/search?q=invoice",
        f"/message/{bindings['person']['latest_id']}", f"/message/{bindings['invoice']['id']}",
        "/compose", f"/compose?reply={bindings['booking']['request_id']}",
        f"/compose?forward={bindings['invoice']['id']}", f"/compose?draft={bindings['draft']['id']}",
        "/contacts", "/settings", "/settings/vacation", "/settings/filters", "/settings/labels",
    ]


def check_chrome(doc: Doc) -> None:
    assert len(doc.links("Lark Mail")) == 1 and doc.links("Lark Mail")[0].attrs["href"] == "/"
    searches = [e for e in doc.role("search") if e.name == "Search mail"]
    assert len(searches) == 1 and searches[0].tag == "form"
    assert searches[0].attrs["action"] == "/search" and searches[0].attrs["method"] == "get"
    box = doc.labelled("Search mail")
    assert box.tag == "input" and box.attrs["type"] == "search" and box.attrs["name"] == "q"
    assert len(doc.buttons("Search")) == 1
    navs = {e.attrs.get("aria-label") for e in doc.all("nav")}
    assert {"Mailboxes", "Labels", "Account"} <= navs
    for name in FOLDER_LINKS:
        assert len(doc.links(name)) == 1, name
    assert len(doc.links("Compose")) == 1 and len(doc.links("Contacts")) == 1 and len(doc.links("Settings")) == 1
    assert len(doc.all("main")) == 1 and len(doc.all("header")) >= 1


async def test_every_page_renders_with_its_chrome(world: tuple[Any, Any]) -> None:
    app, episode = world
    async with client_for(app, episode.id) as client:
        for path in pages_of(episode.bindings):
            response = await client.get(path)
            assert response.status_code == 200, path
            assert response.headers["content-type"].startswith("text/html")
            doc = Doc(response.text)
            check_chrome(doc)
            assert len(doc.all("h1")) == 1, path
            for ref in re.findall(r'\s(?:href|src|action)="([^"]*)"', response.text):
                assert ref.startswith("/") or ref.startswith("#"), (path, ref)
            buttons = [b.name for b in doc.all("button")]
            assert all(buttons) and len(buttons) == len(set(buttons)), (path, buttons)
            for control in doc.all("input") + doc.all("select") + doc.all("textarea"):
                if control.attrs.get("type") == "hidden":
                    continue
                labelled = control.attrs.get("aria-label") or any(
                    lb.attrs.get("for") == control.attrs.get("id") for lb in doc.all("label"))
                assert labelled, (path, control.attrs)


async def test_static_assets_are_local(world: tuple[Any, Any]) -> None:
    app, episode = world
    async with client_for(app, episode.id) as client:
        for name, kind in (("mail.css", "text/css"), ("mail.js", "javascript"), ("kit.css", "text/css")):
            response = await client.get(f"/static/{name}")
            assert response.status_code == 200 and kind in response.headers["content-type"]
            assert "http:" not in response.text and "https:" not in response.text
            assert "@import" not in response.text and "url(" not in response.text and "@font-face" not in response.text


async def test_inbox_lists_newest_first_and_pages(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    inbox = state.in_folder("inbox")
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get("/")).text)
        ids = [e.attrs["data-id"] for e in doc.all("li") if "data-id" in e.attrs]
        assert ids == [m.id for m in inbox[:25]]
        assert doc.all("p", **{"class": "range"})[0].text == "1–25 of 90"
        nxt = doc.links("Next page")
        assert len(nxt) == 1 and nxt[0].attrs["href"] == "/?page=2"
        assert doc.links("Previous page") == []
        unread = [e for e in doc.all("li") if "unread" in e.attrs.get("class", "").split()]
        assert [e.attrs["data-id"] for e in unread] == [m.id for m in inbox[:25] if not m.read]
        last = Doc((await client.get("/?page=4")).text)
        assert [e.attrs["data-id"] for e in last.all("li") if "data-id" in e.attrs] == [m.id for m in inbox[75:]]
        assert last.links("Next page") == [] and last.links("Previous page")[0].attrs["href"] == "/?page=3"
        assert (await client.get("/?page=5")).status_code == 404
        assert (await client.get("/?page=abc")).status_code == 400
        assert (await client.get("/folder/nope")).status_code == 404
    views = [e for e in episode.events if e.name == "view_folder"]
    assert views[0].kind == EventKind.navigate and views[0].detail["message_ids"] == [m.id for m in inbox[:25]]
    assert views[0].detail["folder"] == "inbox" and views[0].detail["total"] == 90


async def test_page_size_setting_changes_the_listing(world: tuple[Any, Any]) -> None:
    app, episode = world
    episode.state.settings.page_size = 50
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get("/")).text)
        assert len([e for e in doc.all("li") if "data-id" in e.attrs]) == 50
        assert "1–50 of 90" in (await client.get("/")).text


async def test_rows_name_their_controls_and_link_drafts_to_compose(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get("/")).text)
        first = state.in_folder("inbox")[0]
        assert doc.named("input", f"Select {first.from_name}: {first.subject}")
        star = "Unstar" if first.starred else "Star"
        assert doc.buttons(f"{star} {first.from_name}: {first.subject}")
        drafts = Doc((await client.get("/folder/drafts")).text)
        hrefs = [a.attrs["href"] for a in drafts.all("a", **{"class": "row-link"})]
        assert hrefs == [f"/compose?draft={m.id}" for m in state.in_folder("drafts")]
        assert drafts.buttons("Archive") == []


async def test_message_page_shows_the_conversation_and_marks_it_read(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    reply = next(m for m in state.in_folder("inbox") if m.in_reply_to and not m.read)
    thread = [m for m in state.thread(reply.thread_id) if m.folder != "drafts"]
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get(f"/message/{reply.id}")).text)
    assert doc.all("h1")[0].text == reply.subject
    articles = doc.all("article")
    assert len(articles) == len(state.thread(reply.thread_id))
    assert all(m.read for m in thread), "opening a conversation reads it"
    for name in ("Reply", "Reply all", "Forward", "Back to Inbox"):
        assert len(doc.links(name)) == 1, name
    assert doc.links("Reply")[0].attrs["href"] == f"/compose?reply={reply.id}"
    for name in ("Archive", "Delete", "Report spam", "Mark as unread", "Move", "Apply label"):
        assert len(doc.buttons(name)) == 1, name
    assert doc.role("toolbar")[0].attrs["aria-label"] == "Conversation actions"
    [event] = [e for e in episode.events if e.name == "view_message"]
    assert event.kind == EventKind.inspect and event.target == reply.id
    assert event.detail["message_ids"] == [m.id for m in state.thread(reply.thread_id)]
    assert "body" in event.detail["revealed"]


async def test_bodies_are_escaped_and_links_go_through_the_site(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    invoice = state.message(episode.bindings["invoice"]["id"])
    assert invoice is not None
    invoice.body += '\n\n<script>alert("x")</script> & <b>bold</b>'
    async with client_for(app, episode.id) as client:
        html = (await client.get(f"/message/{invoice.id}")).text
    assert "<script>alert" not in html and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    doc = Doc(html)
    [link] = invoice.links
    body_links = doc.links(link.url)
    assert len(body_links) == 1 and body_links[0].attrs["href"] == f"/link/{link.id}"
    assert doc.links("View invoice online")[0].attrs["href"] == f"/link/{link.id}"
    attachment = invoice.attachments[0]
    assert attachment.name in html and re.search(r"\d+ KB", html)


async def test_newsletters_offer_unsubscribe(world: tuple[Any, Any]) -> None:
    app, episode = world
    issue = episode.bindings["newsletter"]["ids"][0]
    state = episode.state
    message = state.message(issue)
    assert message is not None
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get(f"/message/{issue}")).text)
    [link] = [lk for lk in message.links if lk.kind == "unsubscribe"]
    assert doc.links("Unsubscribe")[0].attrs["href"] == f"/link/{link.id}"


async def test_search_operators(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    b = episode.bindings

    async def found(client: Any, q: str) -> list[str]:
        response = await client.get("/search", params={"q": q})
        assert response.status_code == 200, (q, response.text[:300])
        doc = Doc(response.text)
        return [e.attrs["data-id"] for e in doc.all("li") if "data-id" in e.attrs]

    async with client_for(app, episode.id) as client:
        person = b["person"]
        hits = await found(client, f"from:{person['email']}")
        assert sorted(hits) == sorted(person["message_ids"])
        assert sorted(await found(client, f"from:\"{person['name']}\"")) == sorted(person["message_ids"])
        booking = await found(client, b["booking"]["reference"])
        assert booking == [b["booking"]["source_id"]]
        invoices = await found(client, f"from:{b['invoice']['vendor']['email']} has:attachment")
        assert invoices[0] == b["invoice"]["id"]
        tomorrow = (episode.clock.epoch.date() + timedelta(days=1)).isoformat()
        assert await found(client, f"after:{tomorrow}") == []
        assert len(await found(client, f"before:{tomorrow}")) == 25
        recent = await found(client, f"in:inbox after:{state.in_folder('inbox')[30].sent_at[:10]}")
        assert set(recent) >= {m.id for m in state.in_folder("inbox")[:25]}
        assert await found(client, "in:trash") == [m.id for m in state.in_folder("trash")][:25]
        spam_subject = state.in_folder("spam")[0].subject
        assert await found(client, f'subject:"{spam_subject}"') == [], "spam is left out without in:"
        assert await found(client, f'in:anywhere subject:"{spam_subject}"') == [state.in_folder("spam")[0].id]
        unread = await found(client, "is:unread in:inbox")
        assert unread == [m.id for m in state.in_folder("inbox") if not m.read][:25]
        finance = await found(client, "label:finance")
        assert finance and all(b["labels"]["Finance"] in state.message(i).labels for i in finance)  # type: ignore[union-attr]
        bad = await client.get("/search", params={"q": "before:2025-13-40"})
        assert bad.status_code == 400 and "before: needs a date like 2025-03-14" in bad.text
        assert (await client.get("/search", params={"q": "has:pizza"})).status_code == 400
        empty = await client.get("/search", params={"q": "  "}, follow_redirects=False)
        assert empty.status_code == 303 and empty.headers["location"] == "/"
        page = Doc((await client.get("/search", params={"q": "zzzz-nothing"})).text)
        assert "No messages matched your search." in page.all("div", **{"class": "empty"})[0].text
        assert page.labelled("Search mail").attrs["value"] == "zzzz-nothing"
    searches = [e for e in episode.events if e.kind == EventKind.search]
    assert searches[0].detail["query"] == f"from:{person['email']}"
    assert searches[0].detail["operators"] == {"from": [person["email"]]}
    assert sorted(searches[0].detail["results"]) == sorted(person["message_ids"])


async def test_compose_prefills(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    b = episode.bindings
    signature_first = state.settings.signature.splitlines()[0]
    async with client_for(app, episode.id) as client:
        new = Doc((await client.get("/compose?to=a@b.test")).text)
        assert new.labelled("To").attrs["value"] == "a@b.test"
        assert signature_first in new.labelled("Message").text
        for name in ("Send", "Save draft", "Discard"):
            assert len(new.buttons(name)) == 1
        assert new.labelled("To").attrs["role"] == "combobox"

        request = state.message(b["booking"]["request_id"])
        assert request is not None
        reply = Doc((await client.get(f"/compose?reply={request.id}")).text)
        form = reply.all("form", **{"data-compose": ""})[0]
        assert form.attrs["data-in-reply-to"] == request.id and form.attrs["data-forwarded-from"] == ""
        assert reply.labelled("To").attrs["value"] == request.from_email
        assert reply.labelled("Subject").attrs["value"] == f"Re: {request.subject}"
        assert f"<{request.from_email}> wrote:" in reply.labelled("Message").text

        invoice = state.message(b["invoice"]["id"])
        assert invoice is not None
        forward = Doc((await client.get(f"/compose?forward={invoice.id}")).text)
        assert forward.all("form", **{"data-compose": ""})[0].attrs["data-forwarded-from"] == invoice.id
        assert forward.labelled("Subject").attrs["value"] == f"Fwd: {invoice.subject}"
        assert forward.labelled("To").attrs["value"] == ""
        assert invoice.attachments[0].name in forward.all("ul", **{"aria-label": "Attachments"})[0].text

        draft = state.message(b["draft"]["id"])
        assert draft is not None
        doc = Doc((await client.get(f"/compose?draft={draft.id}")).text)
        assert doc.all("form", **{"data-compose": ""})[0].attrs["data-draft-id"] == draft.id
        assert doc.labelled("To").attrs["value"] == ", ".join(draft.to)
        assert b["draft"]["wrong_value"] in doc.labelled("Message").text
        redirect = await client.get(f"/message/{draft.id}", follow_redirects=False)
        assert redirect.status_code == 303 and redirect.headers["location"] == f"/compose?draft={draft.id}"

        assert (await client.get(f"/compose?reply={request.id}&forward={invoice.id}")).status_code == 400
        assert (await client.get("/compose?reply=m9999")).status_code == 404
        assert (await client.get(f"/compose?draft={invoice.id}")).status_code == 404


async def test_reply_all_leaves_the_user_out(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    me = state.user.email
    message = next(m for m in state.messages if m.cc and m.folder == "inbox")
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get(f"/compose?reply_all={message.id}")).text)
    to = doc.labelled("To").attrs["value"].split(", ")
    cc = [e for e in doc.labelled("Cc").attrs["value"].split(", ") if e]
    assert to[0] == message.from_email and me not in to + cc
    assert cc == [e for e in message.cc if e != me]


async def test_contacts_and_settings_pages(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get("/contacts")).text)
        for contact in state.contacts:
            assert len(doc.links(f"Email {contact.name}")) == 1
            assert doc.links(f"Email {contact.name}")[0].attrs["href"].startswith("/compose?to=")
            assert len(doc.buttons(f"Delete {contact.name}")) == 1
        for text in ("Name", "Email", "Company", "Search contacts"):
            doc.labelled(text)
        person = episode.bindings["person"]
        narrowed = Doc((await client.get("/contacts", params={"q": person["first_name"]})).text)
        names = " | ".join(e.text for e in narrowed.all("th", scope="row"))
        assert person["name"] in names and person["namesake"]["name"] in names
        assert len(narrowed.all("th", scope="row")) < len(state.contacts)

        general = Doc((await client.get("/settings")).text)
        assert general.labelled("Signature").text == " ".join(state.settings.signature.split())
        assert general.labelled("Messages per page").tag == "select"
        assert general.labelled("Compact").attrs["type"] == "radio"
        assert len(general.buttons("Save changes")) == 1
        tabs = [e for e in general.all("nav") if e.attrs.get("aria-label") == "Settings sections"]
        assert len(tabs) == 1

        vacation = Doc((await client.get("/settings/vacation")).text)
        assert vacation.labelled("First day").attrs["value"] == state.vacation.start_date
        assert vacation.labelled("Last day").attrs["type"] == "date"
        assert vacation.labelled("Subject").attrs["value"] == state.vacation.subject
        assert "checked" in vacation.labelled("Vacation responder off").attrs
        vacation.labelled("Vacation responder on")
        vacation.labelled("Only send a response to people in my Contacts")

        filters = Doc((await client.get("/settings/filters?from_address=x@y.test")).text)
        assert filters.labelled("From").attrs["value"] == "x@y.test"
        for text in ("To", "Subject", "Has the words", "Has attachment", "Skip the Inbox (Archive it)", "Mark as read",
                     "Star it", "Apply the label", "Delete it", "Also apply filter to matching messages"):
            filters.labelled(text)
        assert len(filters.buttons("Create filter")) == 1
        for f in state.filters:
            assert f.criteria.from_address in filters.all("table")[0].text

        labels = Doc((await client.get("/settings/labels")).text)
        for label in state.labels:
            assert len(labels.buttons(f"Delete label {label.name}")) == 1
        labels.labelled("Label name")


async def test_following_a_link_records_the_click(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    ph = episode.bindings["phishing"]
    before = episode.clock.now()
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get(f"/link/{ph['link_id']}")).text)
        assert doc.all("h1")[0].text == "Verify your mailbox"
        assert doc.labelled("Password").attrs["type"] == "password"
        assert len(doc.buttons("Verify account")) == 1
        invoice = state.message(episode.bindings["invoice"]["id"])
        assert invoice is not None
        leaving = Doc((await client.get(f"/link/{invoice.links[0].id}")).text)
        assert leaving.all("h1")[0].text == "You're leaving Lark Mail"
        assert invoice.links[0].url in leaving.all("p", **{"class": "url-box"})[0].text
        assert (await client.get("/link/k9999")).status_code == 404
    assert [(c.message_id, c.link_id) for c in state.link_clicks] == [
        (ph["id"], ph["link_id"]), (invoice.id, invoice.links[0].id)]
    assert state.link_clicks[0].id == "lc1" and (episode.clock.now() - before).total_seconds() == 2 * 37
    commits = [e for e in episode.events if e.kind == EventKind.commit]
    assert [(e.name, e.target) for e in commits] == [("follow_link", ph["id"]), ("follow_link", invoice.id)]
    assert commits[0].detail["touched"] == ["lc1", ph["id"]]


async def test_errors_are_pages_for_pages_and_json_for_the_api(world: tuple[Any, Any]) -> None:
    app, episode = world
    async with client_for(app, episode.id) as client:
        page = await client.get("/message/m9999")
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
        assert Doc(page.text).links("Back to your inbox")
        api = await client.post("/api/messages/archive", json={"ids": ["m9999"]})
        assert api.status_code == 404 and api.json() == {"detail": "no message 'm9999'"}
    async with client_for(app, None) as client:
        assert (await client.get("/")).status_code == 400


async def test_signed_out_pages_go_to_sign_in(world: tuple[Any, Any]) -> None:
    app, episode = world
    episode.signed_in = False
    async with client_for(app, episode.id) as client:
        response = await client.get("/folder/sent", follow_redirects=False)
        assert response.status_code in (302, 303, 307)
        assert response.headers["location"].startswith("/login?next=%2Ffolder%2Fsent")
        login = Doc((await client.get("/login")).text)
        assert login.labelled("Email").attrs["value"] == episode.state.user.email
        assert (await client.post("/api/messages/archive", json={"ids": ["m0001"]})).status_code == 401
