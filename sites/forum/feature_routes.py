"""The API and pages of the later features (bounties, …). A world without a feature answers 404 for its
pages and its API alike, as a community that does not offer it would (`available`)."""

import asyncio
from datetime import timedelta
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from scenarios.clock import parse_iso
from sites.forum.models import (
    ATTACHMENT_MAX_BYTES,
    BADGE_TIERS,
    REJECT_REASONS,
    AnswerEdit,
    Attachment,
    AttachmentBody,
    AwardBody,
    Bounty,
    CloseBody,
    Closure,
    DataExport,
    ForumEpisode,
    ForumState,
    Member,
    Message,
    MessageBody,
    Question,
    ReviewBody,
    Revision,
    SuggestedEdit,
    TagWiki,
)
from sites.forum.search import parse_search, search_questions
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.notices import notice_of
from sites.kit.templating import Pages
from sites.kit.uploads import decoded_upload, sha256_hex

Feature = TypeVar("Feature")
AWARD_AFTER = timedelta(days=1)  # a bounty is awarded no sooner than a day after it was offered

# A member answers a message a moment after they are asked (they are not at their desk all day); the
# conversation page waits for it while it is due.
REPLY_IN_S = 2.5

EXPORT_PREPARED_IN_S = 2.0  # a copy of your data is put together when asked for: it takes a moment

NOTICES = {"bounty_awarded": "Bounty awarded", "message_sent": "Message sent", "message_arrived": "New message",
           "attached": "File attached", "closed": "Closed as a duplicate", "edit_approved": "Edit approved",
           "edit_rejected": "Edit rejected", "followed": "You now follow this tag",
           "unfollowed": "You no longer follow this tag",
           "edit_suggested": "Thanks: your edit waits for review and shows once a reviewer approves it"}


def available(feature: Feature | None, what: str) -> Feature:
    """A later feature's part of the state; 404 in a world without it."""
    if feature is None:
        raise HTTPException(404, f"{what} are not available on this community.")
    return feature


def later_features(state: ForumState) -> set[str]:
    """The later features this world has (what the navigation offers)."""
    parts = (("bounties", state.bounties), ("messages", state.messages), ("exports", state.exports),
             ("attachments", state.attachments), ("closures", state.closures), ("review", state.suggested_edits),
             ("tag_wikis", state.tag_wikis), ("badges", state.badges))
    return {name for name, part in parts if part is not None}


def attachments_of(state: ForumState, post_id: str) -> list[Attachment] | None:
    """A post's attached files (None in a world whose posts take none)."""
    if state.attachments is None:
        return None
    return [a for a in state.attachments if a.post_id == post_id]


def closure_of(state: ForumState, question_id: str) -> Closure | None:
    return next((c for c in state.closures or [] if c.question_id == question_id), None)


def closure_view(state: ForumState, question_id: str) -> dict[str, Any] | None:
    """What the question page shows when the question is closed as a duplicate (None when it is not)."""
    closure = closure_of(state, question_id)
    original = state.question(closure.duplicate_of) if closure else None
    if closure is None or original is None:
        return None
    return {"c": closure, "original": original, "by": state.member(closure.closed_by)}


def size_text(size: int) -> str:
    return f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} KB"


def export_summary(state: ForumState) -> dict[str, int]:
    """What the data export counts (read when the file is made)."""
    answers = [a for a in state.live_answers() if a.author_id == state.me.id]
    questions = [q for q in state.live_questions() if q.author_id == state.me.id]
    accepted = {q.accepted_answer_id for q in state.live_questions()}
    return {"questions": len(questions), "answers": len(answers), "answer_score": sum(a.score for a in answers),
            "question_score": sum(q.score for q in questions), "accepted": sum(1 for a in answers if a.id in accepted)}


def conversation(state: ForumState, member_id: str) -> list[Message]:
    """The messages with one member that have arrived, oldest first."""
    return sorted((m for m in state.messages or [] if m.member_id == member_id and not m.pending),
                  key=lambda m: (m.sent_at, m.id))


def reply_due(state: ForumState, member_id: str) -> bool:
    """Has the user written to a member whose answer has not arrived yet?"""
    return any(m.pending for m in state.messages or [] if m.member_id == member_id) and any(
        m.outgoing for m in conversation(state, member_id))


def wiki_of(state: ForumState, tag: str) -> TagWiki | None:
    return next((w for w in state.tag_wikis or [] if w.tag == tag), None)


def badges_of(state: ForumState, member_id: str) -> dict[str, list[str]] | None:
    """A member's badge names by tier, newest first (None in a world without badges)."""
    if state.badges is None:
        return None
    mine = sorted((b for b in state.badges if b.member_id == member_id), key=lambda b: b.awarded_at, reverse=True)
    return {tier: [b.name for b in mine if b.tier == tier] for tier in BADGE_TIERS}


def pending_reviews(state: ForumState) -> int:
    """Suggested edits waiting for the user's review (their own suggestions wait for other reviewers)."""
    return sum(1 for e in state.suggested_edits or [] if e.status == "pending" and e.editor_id != state.me.id)


def pending_edit_on(state: ForumState, post_id: str) -> SuggestedEdit | None:
    """The suggested edit waiting for review on a post: a post takes one at a time."""
    return next((e for e in state.suggested_edits or [] if e.post_id == post_id and e.status == "pending"), None)


def my_pending_edits(state: ForumState) -> set[str] | None:
    """The posts the user's own suggested edits wait on (None in a world where the user suggests none)."""
    if not state.suggesting:
        return None
    return {e.post_id for e in state.suggested_edits or [] if e.editor_id == state.me.id and e.status == "pending"}


def unread_messages(state: ForumState) -> int:
    return sum(1 for m in state.messages or [] if not m.outgoing and not m.read and not m.pending)


def open_bounty(state: ForumState, question_id: str) -> Bounty | None:
    return next((b for b in state.bounties or [] if b.question_id == question_id and b.awarded_answer_id is None),
                None)


def bounty_view(state: ForumState, question_id: str) -> dict[str, Any] | None:
    """What the question page shows of its bounty (None in a world without bounties)."""
    if state.bounties is None:
        return None
    mine = [b for b in state.bounties if b.question_id == question_id]
    bounty = mine[-1] if mine else None
    if bounty is None:
        return {"b": None}
    offerer = state.member(bounty.offered_by)
    winner = state.answer(bounty.awarded_answer_id) if bounty.awarded_answer_id else None
    return {"b": bounty, "offerer": offerer, "mine": bounty.offered_by == state.me.id,
            "winner": state.member(winner.author_id) if winner else None}


def feature_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/questions/{question_id}/bounty/award")
    @hook_point("award_bounty", "write", target=lambda kw: kw["question_id"])
    async def award_bounty(question_id: str, body: AwardBody, request: Request,
                           episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        bounties = available(state.bounties, "Bounties")
        question = get_or_404(state.live_questions(), question_id, "question")
        bounty = open_bounty(state, question.id)
        if bounty is None:
            awarded = any(b.question_id == question.id for b in bounties)
            raise HTTPException(409 if awarded else 404, "This bounty was awarded already." if awarded
                                else "There is no bounty on this question.")
        if bounty.offered_by != state.me.id:
            raise HTTPException(403, "Only the member who offered a bounty can award it.")
        answer = get_or_404(state.live_answers(), body.answer_id, "answer")
        if answer.question_id != question.id:
            raise HTTPException(409, "That answer belongs to another question.")
        if answer.author_id == state.me.id:
            raise HTTPException(409, "You can't award your bounty to your own answer.")
        now = episode.clock.now().replace(tzinfo=None)
        if now - parse_iso(bounty.started_at) < AWARD_AFTER:
            raise HTTPException(409, "A bounty can be awarded once it has been open for a day.")
        at = episode.clock.stamp()
        bounty.awarded_answer_id, bounty.awarded_at = answer.id, at
        author = state.member(answer.author_id)
        if author is not None:
            author.reputation += bounty.amount
        episode.emit.commit("award_bounty", bounty.id, question_id=question.id, answer_id=answer.id,
                            touched=[bounty.id, answer.id])
        return {"bounty": bounty.model_dump()}

    # -- private messages ----------------------------------------------------------------------------

    def _member(state: ForumState, member_id: str) -> Member:
        member = get_or_404(state.members, member_id, detail="That member does not exist.")
        if member.id == state.me.id:
            raise HTTPException(409, "You can't send a message to yourself.")
        return member

    @router.post("/messages/{member_id}", status_code=201)
    @hook_point("send_message", "write", target=lambda kw: kw["member_id"])
    async def send_message(member_id: str, body: MessageBody, request: Request,
                           episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        messages = available(state.messages, "Private messages")
        member = _member(state, member_id)
        mine = [m for m in conversation(state, member.id) if m.outgoing]
        if mine and mine[-1].body == body.body:
            raise HTTPException(409, "You just sent this message.")
        at = episode.clock.stamp()
        new = Message(id=state.take_id("message", "m"), member_id=member.id, outgoing=True, body=body.body,
                      sent_at=at)
        messages.append(new)
        touched = [new.id]
        for earlier in conversation(state, member.id):  # answering a conversation reads it
            if not earlier.outgoing and not earlier.read:
                earlier.read = True
                touched.append(earlier.id)
        episode.emit.commit("send_message", new.id, member_id=member.id, touched=touched)
        return {"message": new.model_dump(exclude={"pending"}), "reply_due": reply_due(state, member.id)}

    @router.post("/messages/{member_id}/arrivals")
    @hook_point("message_arrivals", "read", target=lambda kw: kw["member_id"])
    async def arrivals(member_id: str, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        """Wait for the answer of a member the user wrote to (the page asks while one is due)."""
        state = episode.state
        available(state.messages, "Private messages")
        member = _member(state, member_id)
        if not reply_due(state, member.id):
            return {"arrived": []}
        await asyncio.sleep(REPLY_IN_S)
        arrived = []
        for message in state.messages or []:
            if message.member_id == member.id and message.pending:
                # it arrives in the conversation the user is reading
                message.pending, message.read, message.sent_at = False, True, episode.clock.stamp()
                arrived.append(message.id)
        return {"arrived": arrived}

    # -- closing as a duplicate --------------------------------------------------------------------------

    @router.post("/questions/{question_id}/close")
    @hook_point("close_duplicate", "write", target=lambda kw: kw["question_id"])
    async def close_duplicate(question_id: str, body: CloseBody, request: Request,
                              episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        closures = available(state.closures, "Duplicate closing")
        question = get_or_404(state.live_questions(), question_id, "question")
        if question.author_id != state.me.id:
            raise HTTPException(403, "You can only close your own questions; flag others' as duplicates instead.")
        if closure_of(state, question.id) is not None:
            raise HTTPException(409, "This question is closed already.")
        original = get_or_404(state.live_questions(), body.duplicate_of, "question")
        if original.id == question.id:
            raise HTTPException(409, "A question can't be a duplicate of itself.")
        copy_of = closure_of(state, original.id)
        if copy_of is not None:
            first = state.question(copy_of.duplicate_of)
            raise HTTPException(409, f"“{original.title}” is itself closed as a duplicate"
                                     f"{' of “' + first.title + '”' if first else ''}: pick the original question.")
        at = episode.clock.stamp()
        made = Closure(id=state.take_id("closure", "k"), question_id=question.id, duplicate_of=original.id,
                       closed_by=state.me.id, closed_at=at)
        closures.append(made)
        question.last_activity_at = at
        episode.emit.commit("close_duplicate", question.id, duplicate_of=original.id, touched=[made.id, question.id])
        return {"closure": made.model_dump()}

    # -- the review queue ------------------------------------------------------------------------------

    @router.post("/suggested-edits/{edit_id}/review")
    @hook_point("review_edit", "write", target=lambda kw: kw["edit_id"])
    async def review_edit(edit_id: str, body: ReviewBody, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        edit: SuggestedEdit = get_or_404(available(state.suggested_edits, "Reviews"), edit_id, "suggested edit")
        if edit.status != "pending":
            raise HTTPException(409, f"This edit was {edit.status} already.")
        if edit.editor_id == state.me.id:
            raise HTTPException(403, "You can't review your own suggested edit: another reviewer will.")
        if body.decision == "reject" and body.reason is None:
            raise HTTPException(422, "Say why the edit is rejected.")
        if body.decision == "approve" and body.reason is not None:
            raise HTTPException(422, "An approved edit takes no rejection reason.")
        post = state.post(edit.post_id)
        if post is None:
            raise HTTPException(409, "The post was deleted; the edit can't be reviewed any more.")
        at = episode.clock.stamp()
        edit.status, edit.reason, edit.reviewed_at = (
            "approved" if body.decision == "approve" else "rejected"), body.reason, at
        touched = [edit.id]
        if body.decision == "approve":
            post.body = edit.body
            number = len(state.revisions_of(post.id)) + 1
            revision = Revision(id=state.take_id("revision", "r"), post_id=post.id, number=number,
                                title=post.title if isinstance(post, Question) else None, body=post.body,
                                tags=list(post.tags) if isinstance(post, Question) else [], editor_id=edit.editor_id,
                                summary=edit.summary, created_at=at)
            state.revisions.append(revision)
            touched += [post.id, revision.id]
        episode.emit.commit("approve_edit" if body.decision == "approve" else "reject_edit", edit.id,
                            post_id=post.id, reason=body.reason, touched=touched)
        return {"edit": edit.model_dump()}

    # -- suggesting an edit to someone else's answer -----------------------------------------------------

    @router.post("/answers/{answer_id}/suggested-edits", status_code=201)
    @hook_point("suggest_edit", "write", target=lambda kw: kw["answer_id"])
    async def suggest_edit(answer_id: str, body: AnswerEdit, request: Request,
                           episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        edits = available(state.suggested_edits if state.suggesting else None, "Suggested edits")
        answer = get_or_404(state.live_answers(), answer_id, "answer")
        if answer.author_id == state.me.id:
            raise HTTPException(409, "This is your own answer: edit it directly.")
        if pending_edit_on(state, answer.id) is not None:
            raise HTTPException(409, "An edit to this answer is already waiting for review; suggest yours once it "
                                     "has been reviewed.")
        if body.body == answer.body:
            raise HTTPException(409, "Nothing changed: edit the text first.")
        made = SuggestedEdit(id=state.take_id("suggested_edit", "s"), post_id=answer.id, editor_id=state.me.id,
                             body=body.body, summary=body.summary or "Edited", suggested_at=episode.clock.stamp())
        edits.append(made)
        episode.emit.commit("suggest_edit", answer.id, edit_id=made.id, touched=[made.id])
        return {"edit": made.model_dump()}

    # -- a copy of your data ---------------------------------------------------------------------------

    @router.post("/export", status_code=201)
    @hook_point("request_export", "write")
    async def request_export(request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        exports = available(state.exports, "Data exports")
        if not exports:
            await asyncio.sleep(EXPORT_PREPARED_IN_S)
            made = DataExport(id=state.take_id("export", "x"), requested_at=episode.clock.stamp(),
                              file_name=f"threadline-data-{state.me.id}.html")
            exports.append(made)
            episode.emit.commit("request_export", made.id, touched=[made.id])
        return {"export": exports[-1].model_dump(), "download": "/settings/data-export"}

    # -- attachments -------------------------------------------------------------------------------------

    @router.post("/posts/{post_id}/attachments", status_code=201)
    @hook_point("attach_file", "write", target=lambda kw: kw["post_id"])
    async def attach_file(post_id: str, body: AttachmentBody, request: Request,
                          episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        attachments = available(state.attachments, "Attachments")
        post = state.post(post_id)
        if post is None:
            raise HTTPException(404, f"no question or answer {post_id[:40]!r}")
        if post.author_id != state.me.id:
            raise HTTPException(403, "You can only attach files to your own posts.")
        data = decoded_upload(body.data, name=body.name, content_type=body.content_type,
                              max_bytes=ATTACHMENT_MAX_BYTES)
        text = data.decode("utf-8") if body.content_type == "text/plain" else None
        if any(a.post_id == post.id and a.name == body.name for a in attachments):
            raise HTTPException(409, f"{body.name} is attached to this post already.")
        made = Attachment(id=state.take_id("attachment", "f"), post_id=post.id, name=body.name,
                          content_type=body.content_type, size_bytes=len(data), sha256=sha256_hex(data),
                          text=text, attached_at=episode.clock.stamp())
        attachments.append(made)
        episode.emit.commit("attach_file", made.id, post_id=post.id, file_name=made.name, touched=[made.id])
        return {"attachment": made.model_dump(exclude={"text"})}

    return router


def feature_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/bounties", response_class=HTMLResponse)
    @hook_point("bounties", "page")
    async def bounties(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        every = available(state.bounties, "Bounties")
        tagged = request.query_params.get("tagged", "").strip().lower()[:40]
        if tagged:
            get_or_404(state.tags, tagged, key="name", detail=f"There is no tag called “{tagged}”.")
        rows: list[dict[str, Any]] = []
        for bounty in sorted((b for b in every if b.awarded_answer_id is None), key=lambda b: (b.ends_at, b.id)):
            question = state.question(bounty.question_id)
            if question is None or (tagged and tagged not in question.tags):
                continue
            rows.append({"b": bounty, "q": question, "answers": len(state.answers_to(question.id)),
                         "ends": parse_iso(bounty.ends_at)})
        tag_names = sorted({t for b in every if b.awarded_answer_id is None
                            for q in [state.question(b.question_id)] if q for t in q.tags})
        episode.emit.filter("view_bounties", tagged or None, tag=tagged or None,
                            question_ids=[r["q"].id for r in rows])
        return ui.render(episode, "bounties.html", title="Bounties", rows=rows, tagged=tagged, tag_names=tag_names,
                         total=sum(r["b"].amount for r in rows), notice=notice_of(request, NOTICES),
                         active="bounties")

    @router.get("/messages", response_class=HTMLResponse)
    @hook_point("messages", "page")
    async def inbox(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        available(state.messages, "Private messages")
        rows: list[dict[str, Any]] = []
        for member_id in dict.fromkeys(m.member_id for m in state.messages or [] if not m.pending):
            shown = conversation(state, member_id)
            member = state.member(member_id)
            if member is None or not shown:
                continue
            rows.append({"member": member, "last": shown[-1], "count": len(shown),
                         "unread": sum(1 for m in shown if not m.outgoing and not m.read)})
        rows.sort(key=lambda r: (r["last"].sent_at, r["member"].id), reverse=True)
        episode.emit.navigate("view_messages", None, member_ids=[r["member"].id for r in rows])
        return ui.render(episode, "messages.html", title="Messages", rows=rows, notice=notice_of(request, NOTICES),
                         active="messages")

    @router.get("/messages/{member_id}", response_class=HTMLResponse)
    @hook_point("conversation", "page", target=lambda kw: kw["member_id"])
    async def conversation_page(member_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        available(state.messages, "Private messages")
        member = get_or_404(state.members, member_id, detail="That member does not exist.")
        if member.id == state.me.id:
            raise HTTPException(404, "That is you: pick someone else to write to.")
        shown = conversation(state, member.id)
        last_in = next((m.id for m in reversed(shown) if not m.outgoing), None)
        episode.emit.inspect("view_conversation", member.id, revealed=["messages"],
                             message_ids=[m.id for m in shown])
        return ui.render(episode, "conversation.html", title=f"Messages with {member.display_name}", member=member,
                         messages=shown, last_in=last_in, waiting=reply_due(state, member.id),
                         notice=notice_of(request, NOTICES), active="messages")

    @router.get("/questions/{question_id}/close", response_class=HTMLResponse)
    @hook_point("close_page", "page", target=lambda kw: kw["question_id"])
    async def close_page(question_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        available(state.closures, "Duplicate closing")
        question = get_or_404(state.live_questions(), question_id,
                              detail="This question doesn't exist or has been deleted.")
        if question.author_id != state.me.id:
            raise HTTPException(403, "You can only close your own questions.")
        raw = request.query_params.get("q", "").strip()
        found: list[dict[str, Any]] = []
        if raw:
            tags, words = parse_search(raw)
            for hit in sorted(search_questions(state, tags, words), key=lambda q: (q.created_at, q.id), reverse=True):
                if hit.id != question.id:
                    found.append({"q": hit, "closed": closure_view(state, hit.id),
                                  "answers": len(state.answers_to(hit.id)), "accepted": bool(hit.accepted_answer_id)})
            episode.emit.search("search_originals", query=raw, results=[r["q"].id for r in found[:20]])
        else:
            episode.emit.navigate("view_close", question.id)
        return ui.render(episode, "close.html", title="Close as a duplicate", question=question, original_query=raw,
                         results=found[:20], closed=closure_view(state, question.id), active="questions")

    @router.get("/review", response_class=HTMLResponse)
    @hook_point("review_queue", "page")
    async def review_queue(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        edits = available(state.suggested_edits, "Reviews")
        now = episode.clock.now().replace(tzinfo=None)

        def row(edit: SuggestedEdit) -> dict[str, Any]:
            post = state.post(edit.post_id)
            question = state.question_of(post) if post else None
            return {"e": edit, "question": question, "editor": state.member(edit.editor_id),
                    "when": parse_iso(edit.suggested_at), "now": now}

        pending = [row(e) for e in edits if e.status == "pending" and e.editor_id != state.me.id]
        done = [row(e) for e in sorted(edits, key=lambda e: e.reviewed_at or "", reverse=True) if e.status != "pending"]
        episode.emit.navigate("view_review", None, edit_ids=[r["e"].id for r in pending])
        return ui.render(episode, "review.html", title="Review suggested edits", pending=pending, done=done,
                         reasons=REJECT_REASONS, notice=notice_of(request, NOTICES), active="review")

    @router.get("/review/{edit_id}", response_class=HTMLResponse)
    @hook_point("review_item", "page", target=lambda kw: kw["edit_id"])
    async def review_item(edit_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        edit = get_or_404(available(state.suggested_edits, "Reviews"), edit_id, "suggested edit")
        post = state.post(edit.post_id)
        question = state.question_of(post) if post else None
        if post is None or question is None:
            raise HTTPException(404, "The post was deleted.")
        episode.emit.inspect("view_suggested_edit", edit.id, revealed=["body", "summary"])
        return ui.render(episode, "review_item.html", title="Review suggested edit", edit=edit, post=post,
                         question=question, editor=state.member(edit.editor_id),
                         author=state.member(post.author_id), reasons=REJECT_REASONS,
                         own=edit.editor_id == state.me.id, active="review")

    @router.get("/answers/{answer_id}/suggest-edit", response_class=HTMLResponse)
    @hook_point("suggest_edit_page", "page", target=lambda kw: kw["answer_id"])
    async def suggest_edit_page(answer_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        available(state.suggested_edits if state.suggesting else None, "Suggested edits")
        answer = state.answer(answer_id)
        question = state.question(answer.question_id) if answer else None
        if answer is None or question is None:
            raise HTTPException(404, "This answer doesn't exist or has been deleted.")
        if answer.author_id == state.me.id:
            raise HTTPException(409, "This is your own answer: edit it directly.")
        waiting = pending_edit_on(state, answer.id)
        episode.emit.navigate("view_suggest_edit", answer.id)
        return ui.render(episode, "suggest_edit.html", title="Suggest an edit", answer=answer, question=question,
                         author=state.member(answer.author_id), waiting=waiting,
                         mine=waiting is not None and waiting.editor_id == state.me.id, active="questions")

    @router.get("/tags/{name}/info", response_class=HTMLResponse)
    @hook_point("tag_info", "page", target=lambda kw: kw["name"])
    async def tag_info(name: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        available(state.tag_wikis, "Tag wikis")
        tag = get_or_404(state.tags, name, key="name", detail=f"There is no tag called “{name[:40]}”.")
        wiki = wiki_of(state, tag.name)
        count = sum(1 for q in state.live_questions() if tag.name in q.tags)
        episode.emit.inspect("view_tag_wiki", tag.id, revealed=["wiki"])
        return ui.render(episode, "tag_info.html", title=f"About {tag.name}", tag=tag, wiki=wiki, count=count,
                         following=state.follows_tag(tag.name), notice=notice_of(request, NOTICES), active="tags")

    @router.get("/settings/data-export", response_class=HTMLResponse)
    @hook_point("data_export", "page")
    async def data_export(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        exports = available(state.exports, "Data exports")
        if not exports:
            raise HTTPException(404, "No copy of your data has been prepared yet: ask for one in your settings.")
        made = exports[-1]
        questions = sorted((q for q in state.live_questions() if q.author_id == state.me.id),
                           key=lambda q: q.created_at)
        answers = []
        for answer in sorted((a for a in state.live_answers() if a.author_id == state.me.id),
                             key=lambda a: a.created_at):
            question = state.question(answer.question_id)
            if question is not None:
                answers.append({"a": answer, "q": question, "accepted": question.accepted_answer_id == answer.id})
        episode.emit.inspect("download_export", made.id, revealed=["export"])
        page = ui.render(episode, "export.html", title="Your Threadline data", made=made, member=state.me,
                         email=state.user.email, questions=questions, answers=answers,
                         summary=export_summary(state))
        page.headers["Content-Disposition"] = f'attachment; filename="{made.file_name}"'
        return page

    @router.get("/attachments/{attachment_id}")
    @hook_point("attachment", "page", target=lambda kw: kw["attachment_id"])
    async def attachment(attachment_id: str, request: Request, episode: ForumEpisode) -> Response:
        state = episode.state
        found = get_or_404(available(state.attachments, "Attachments"), attachment_id, "attachment")
        if state.post(found.post_id) is None:
            raise HTTPException(404, "The post this file was attached to has been deleted.")
        episode.emit.inspect("view_attachment", found.id, revealed=["file"])
        if found.text is None:  # an image: its bytes are not kept, only what it was
            raise HTTPException(410, f"{found.name} can no longer be downloaded.")
        return Response(found.text, media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'inline; filename="{found.name}"'})

    return router
