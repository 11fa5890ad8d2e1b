"""Server-rendered pages of the forum. Pages only read; every write goes through the JSON API
(`api.py`) from the page's script, which reloads the page with a `?notice=` flash."""

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup, escape

from scenarios.clock import parse_iso
from sites.forum.feature_routes import NOTICES as FEATURE_NOTICES
from sites.forum.feature_routes import (
    attachments_of,
    badges_of,
    bounty_view,
    closure_view,
    later_features,
    my_pending_edits,
    pending_reviews,
    size_text,
    unread_messages,
)
from sites.forum.models import (
    FLAG_REASONS,
    PAGE_SIZES,
    SORTS,
    TITLE_MAX,
    TITLE_MIN,
    Answer,
    ForumEpisode,
    ForumState,
    Member,
    Question,
    Sort,
)
from sites.forum.search import parse_search, search_questions
from sites.kit.dates import day_month_year, day_month_year_unless_current
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point, results_point
from sites.kit.lookup import get_or_404
from sites.kit.notices import notice_of
from sites.kit.paging import Listing, page_number
from sites.kit.templating import Pages
from sites.kit.urls import same_page_url

SORT_NAMES: dict[str, str] = {"newest": "Newest", "votes": "Most votes", "unanswered": "Unanswered"}
_URL = re.compile(r"https?://[^\s<>\"'`]+[^\s<>\"'`.,;:!?)]")

NOTICES = {
    "asked": "Your question was posted",
    "answered": "Your answer was posted",
    "commented": "Comment added",
    "voted": "Vote recorded",
    "unvoted": "Vote taken back",
    "accepted": "Answer accepted",
    "unaccepted": "Acceptance taken back",
    "edited": "Edit saved",
    "deleted": "Post deleted",
    "comment_deleted": "Comment deleted",
    "flagged": "Thanks for flagging: a moderator will review it",
    "followed": "You now follow this tag",
    "unfollowed": "You no longer follow this tag",
    "settings_saved": "Settings saved",
    "notifications_read": "All notifications marked as read",
    **FEATURE_NOTICES,
}


# ---- formatting --------------------------------------------------------------------------------


def when(stamp: str, now: datetime) -> str:
    """'3 mins ago', '5 hours ago', 'yesterday', '14 Mar', '14 Mar 2021' (the episode clock's now)."""
    moment = parse_iso(stamp)
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        minutes = int(seconds // 60)
        return f"{minutes} min{'s' if minutes > 1 else ''} ago"
    if seconds < 86400:
        hours = int(seconds // 3600)
        return f"{hours} hour{'s' if hours > 1 else ''} ago"
    if seconds < 2 * 86400:
        return "yesterday"
    return day_month_year_unless_current(moment, now)


def full_date(stamp: str) -> str:
    moment = parse_iso(stamp)
    return f"{day_month_year(moment)} at {moment:%H:%M}"


def count(value: int) -> str:
    """9,812 -> '9.8k' (views and reputation in lists)."""
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value:,}"
    return str(value)


def render_post(text: str) -> Markup:
    """Plain text, escaped: paragraphs, `code`, '$ ' command lines and bare links (rel=nofollow)."""
    blocks: list[str] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        runs: list[tuple[bool, list[str]]] = []
        for line in block.split("\n"):
            command = line.startswith("$ ")
            if runs and runs[-1][0] == command:
                runs[-1][1].append(line)
            else:
                runs.append((command, [line]))
        for command, lines in runs:
            if command:
                blocks.append("<pre><code>" + "\n".join(str(escape(line)) for line in lines) + "</code></pre>")
                continue
            html = str(escape("\n".join(lines)))
            html = re.sub(r"`([^`]+)`", r"<code>\1</code>", html)
            html = _URL.sub(lambda m: f'<a href="{m.group(0)}" rel="nofollow ugc">{m.group(0)}</a>', html)
            blocks.append("<p>" + html.replace("\n", "<br>") + "</p>")
    return Markup("\n".join(blocks))


def excerpt(text: str, limit: int = 160) -> str:
    first = re.split(r"\n\s*\n", text.strip())[0]
    flat = " ".join(first.replace("`", "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def forum_filters() -> dict[str, Any]:
    return {"render_post": render_post, "full_date": full_date, "count": count, "size_text": size_text}


# ---- shared context ------------------------------------------------------------------------------

def page_context(state: ForumState | None) -> dict[str, Any]:
    if state is None:
        return {"me": None, "unread": 0, "followed": [], "query": "", "active": None, "features": set(),
                "unread_messages": 0, "pending_reviews": 0}
    return {"me": state.me, "unread": sum(1 for n in state.notifications if not n.read),
            "followed": [f.tag for f in state.follows], "query": "", "active": None,
            "features": later_features(state), "unread_messages": unread_messages(state),
            "pending_reviews": pending_reviews(state)}


def _sort_of(request: Request) -> Sort:
    raw = request.query_params.get("sort", "") or "newest"
    sort = next((s for s in SORTS if s == raw), None)
    if sort is None:
        raise HTTPException(400, f"Sort by one of: {', '.join(SORTS)}.")
    return sort


def sort_questions(state: ForumState, questions: list[Question], sort: Sort) -> list[Question]:
    if sort == "votes":
        return sorted(questions, key=lambda q: (-q.score, q.created_at, q.id))
    newest = sorted(questions, key=lambda q: (q.created_at, q.id), reverse=True)
    if sort == "unanswered":
        return [q for q in newest if not state.answers_to(q.id)]
    return newest


def _row(state: ForumState, question: Question, now: datetime) -> dict[str, Any]:
    answers = state.answers_to(question.id)
    author = state.member(question.author_id)
    return {"q": question, "answers": len(answers), "accepted": question.accepted_answer_id is not None,
            "excerpt": excerpt(question.body), "author": author, "asked": when(question.created_at, now),
            "asked_full": full_date(question.created_at)}


@dataclass(frozen=True)
class TimelineEvent:
    at: str
    kind: str  # asked, answered, commented, edited
    member: Member
    post_id: str

    @property
    def shown_at(self) -> str:
        return full_date(self.at)


def timeline_events(state: ForumState, question: Question) -> list[TimelineEvent]:
    """What happened to a question and its answers, oldest first (its dates as stored, never relative)."""
    answers = state.answers_to(question.id)
    events = [TimelineEvent(question.created_at, "asked", _author(state, question.author_id), question.id)]
    events += [TimelineEvent(a.created_at, "answered", _author(state, a.author_id), a.id) for a in answers]
    for post_id in [question.id, *(a.id for a in answers)]:
        events += [TimelineEvent(c.created_at, "commented", _author(state, c.author_id), post_id)
                   for c in state.comments_on(post_id)]
        events += [TimelineEvent(r.created_at, "edited", _author(state, r.editor_id), post_id)
                   for r in state.revisions_of(post_id) if r.number > 1]
    order = {"asked": 0, "answered": 1, "edited": 2, "commented": 3}
    return sorted(events, key=lambda e: (e.at, order[e.kind], e.post_id))


def _author(state: ForumState, member_id: str) -> Member:
    return get_or_404(state.members, member_id, detail="That member does not exist.")


def page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def listing_page(episode: SiteEpisode, request: Request, found: list[Question], *, heading: str,
                     sort: Sort, tag: str | None, search: str | None) -> tuple[Listing, HTMLResponse]:
        state = episode.state
        listing = Listing(found, page_number(request.query_params.get("page")), state.settings.page_size)
        now = episode.clock.now().replace(tzinfo=None)
        path = request.url.path
        html = ui.render(
            episode, "questions.html", title=heading, heading=heading, listing=listing,
            rows=[_row(state, q, now) for q in listing.shown], sort=sort, sorts=SORT_NAMES,
            sort_urls={s: same_page_url(path, request, sort=s, page=None) for s in SORTS},
            prev_url=same_page_url(path, request, page=str(listing.page - 1)) if listing.page > 1 else None,
            next_url=same_page_url(path, request, page=str(listing.page + 1)) if listing.page < listing.pages else None,
            page_urls=[(n, same_page_url(path, request, page=str(n))) for n in range(1, listing.pages + 1)],
            tag=state.tag(tag) if tag else None, following=bool(tag and state.follows_tag(tag)),
            query=search or "", notice=notice_of(request, NOTICES), active="questions",
        )
        return listing, html

    @router.get("/", response_class=HTMLResponse)
    @hook_point("questions", "page")
    async def questions(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        sort = _sort_of(request)
        tagged = request.query_params.get("tagged", "").strip().lower()
        if tagged:
            get_or_404(state.tags, tagged, key="name", detail=f"There is no tag called “{tagged[:40]}”.")
        pool = [q for q in state.live_questions() if not tagged or tagged in q.tags]
        found = results_point(episode, "questions", sort_questions(state, pool, sort), state.questions)
        heading = f"Questions tagged [{tagged}]" if tagged else (
            "Unanswered questions" if sort == "unanswered" else "All questions")
        listing, html = listing_page(episode, request, found, heading=heading, sort=sort, tag=tagged or None,
                                     search=None)
        if tagged:
            episode.emit.filter("view_questions", tagged, tag=tagged, sort=sort, page=listing.page,
                                question_ids=[q.id for q in listing.shown], total=listing.total)
        else:
            episode.emit.navigate("view_questions", None, sort=sort, page=listing.page,
                                  question_ids=[q.id for q in listing.shown], total=listing.total)
        return html

    @router.get("/search", response_class=HTMLResponse,
                responses={303: {"description": "An empty query goes back to the questions list"}})
    @hook_point("search", "page")
    async def search(request: Request, episode: ForumEpisode) -> Response:
        state = episode.state
        raw = request.query_params.get("q", "").strip()
        if not raw:
            return RedirectResponse("/", status_code=303)
        sort = _sort_of(request)
        tags, words = parse_search(raw)
        found = results_point(episode, "search", sort_questions(state, search_questions(state, tags, words), sort),
                              state.questions)
        listing, html = listing_page(episode, request, found, heading=f"Search results for “{raw}”", sort=sort,
                                     tag=None, search=raw)
        episode.emit.search("search", query=raw, results=[q.id for q in listing.shown], tags=tags, sort=sort,
                            total=listing.total, **({"page": listing.page} if listing.page > 1 else {}))
        return html

    @router.get("/questions/ask", response_class=HTMLResponse)
    @hook_point("ask_page", "page")
    async def ask_page(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_ask", None)
        return ui.render(episode, "ask.html", title="Ask a public question", tags=state.tags, active="ask",
                         title_min=TITLE_MIN, title_max=TITLE_MAX, editing=None)

    @router.get("/questions/{question_id}", response_class=HTMLResponse)
    @hook_point("question", "page", target=lambda kw: kw["question_id"])
    async def question_page(question_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        question = get_or_404(state.live_questions(), question_id,
                              detail="This question doesn't exist or has been deleted.")
        now = episode.clock.now().replace(tzinfo=None)
        order = request.query_params.get("answers", "votes")
        if order not in ("votes", "newest"):
            raise HTTPException(400, "Order answers by votes or newest.")
        answers = state.answers_to(question.id)
        if order == "votes":
            answers.sort(key=lambda a: (a.id != question.accepted_answer_id, -a.score, a.created_at))
        else:
            answers.sort(key=lambda a: (a.created_at, a.id), reverse=True)

        def post_view(post: Question | Answer) -> dict[str, Any]:
            vote = state.vote_on(post.id)
            revisions = state.revisions_of(post.id)
            return {"p": post, "author": _author(state, post.author_id), "mine": post.author_id == state.me.id,
                    "vote": vote.value if vote else 0, "when": when(post.created_at, now),
                    "when_full": full_date(post.created_at), "edited": len(revisions) > 1,
                    "edited_when": when(revisions[-1].created_at, now) if len(revisions) > 1 else None,
                    "flagged": any(f.post_id == post.id for f in state.flags),
                    "files": attachments_of(state, post.id),
                    "comments": [{"c": c, "author": _author(state, c.author_id), "when": when(c.created_at, now),
                                  "mine": c.author_id == state.me.id} for c in state.comments_on(post.id)]}

        related = [q for q in state.live_questions() if q.id != question.id and set(q.tags) & set(question.tags)]
        related.sort(key=lambda q: (-q.score, q.id))
        episode.emit.inspect("view_question", question.id,
                             revealed=["body", "answers", "comments", "authors", "reputation", "accepted"],
                             answer_ids=[a.id for a in answers])
        return ui.render(
            episode, "question.html", title=question.title, question=question, qv=post_view(question),
            answers=[post_view(a) for a in answers], order=order, notice=notice_of(request, NOTICES),
            asked=when(question.created_at, now), active_when=when(question.last_activity_at, now),
            my_question=question.author_id == state.me.id, related=related[:6],
            bounty=bounty_view(state, question.id), closed=closure_view(state, question.id),
            can_close=state.closures is not None and question.author_id == state.me.id,
            suggested=my_pending_edits(state), active="questions",
        )

    @router.get("/questions/{question_id}/timeline", response_class=HTMLResponse)
    @hook_point("timeline", "page", target=lambda kw: kw["question_id"])
    async def timeline(question_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        question = get_or_404(state.live_questions(), question_id,
                              detail="This question doesn't exist or has been deleted.")
        events = timeline_events(state, question)
        episode.emit.inspect("view_timeline", question.id, revealed=["dates", "authors"],
                             answer_ids=[e.post_id for e in events if e.kind == "answered"])
        return ui.render(episode, "timeline.html", title=f"Timeline: {question.title}", question=question,
                         events=events, active="questions")

    @router.get("/questions/{question_id}/edit", response_class=HTMLResponse)
    @hook_point("edit_question_page", "page", target=lambda kw: kw["question_id"])
    async def edit_question_page(question_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        question = get_or_404(state.live_questions(), question_id,
                              detail="This question doesn't exist or has been deleted.")
        if question.author_id != state.me.id:
            raise HTTPException(403, "You can only edit your own posts.")
        episode.emit.navigate("view_edit", question.id)
        return ui.render(episode, "ask.html", title="Edit question", tags=state.tags, editing=question,
                         title_min=TITLE_MIN, title_max=TITLE_MAX, active="questions")

    @router.get("/answers/{answer_id}/edit", response_class=HTMLResponse)
    @hook_point("edit_answer_page", "page", target=lambda kw: kw["answer_id"])
    async def edit_answer_page(answer_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        answer = state.answer(answer_id)
        question = state.question(answer.question_id) if answer else None
        if answer is None or question is None:
            raise HTTPException(404, "This answer doesn't exist or has been deleted.")
        if answer.author_id != state.me.id:
            raise HTTPException(403, "You can only edit your own posts.")
        episode.emit.navigate("view_edit", answer.id)
        return ui.render(episode, "edit_answer.html", title="Edit answer", answer=answer, question=question,
                         active="questions")

    @router.get("/posts/{post_id}/revisions", response_class=HTMLResponse)
    @hook_point("revisions", "page", target=lambda kw: kw["post_id"])
    async def revisions(post_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        post = state.post(post_id)
        question = state.question_of(post) if post else None
        if post is None or question is None:
            raise HTTPException(404, "This post doesn't exist or has been deleted.")
        now = episode.clock.now().replace(tzinfo=None)
        rows = [{"r": r, "editor": _author(state, r.editor_id), "when": when(r.created_at, now)}
                for r in reversed(state.revisions_of(post.id))]
        episode.emit.inspect("view_revisions", post.id, revealed=["revisions"])
        return ui.render(episode, "revisions.html", title=f"Edit history: {question.title}", post=post,
                         question=question, rows=rows, active="questions")

    @router.get("/posts/{post_id}/flag", response_class=HTMLResponse)
    @hook_point("flag_page", "page", target=lambda kw: kw["post_id"])
    async def flag_page(post_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        post = state.post(post_id)
        question = state.question_of(post) if post else None
        if post is None or question is None:
            raise HTTPException(404, "This post doesn't exist or has been deleted.")
        if post.author_id == state.me.id:
            raise HTTPException(403, "You can't flag your own post: edit or delete it instead.")
        episode.emit.inspect("view_flag", post.id, revealed=["body"])
        return ui.render(episode, "flag.html", title="Flag", post=post, question=question,
                         kind="question" if isinstance(post, Question) else "answer",
                         author=_author(state, post.author_id), flag_reasons=FLAG_REASONS,
                         already=any(f.post_id == post.id for f in state.flags), active="questions")

    @router.get("/tags", response_class=HTMLResponse)
    @hook_point("tags", "page")
    async def tags(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        needle = request.query_params.get("q", "").strip().lower()[:40]
        shown = [t for t in state.tags if needle in t.name]
        rows = [{"t": t, "count": sum(1 for q in state.live_questions() if t.name in q.tags),
                 "following": state.follows_tag(t.name)} for t in shown]
        episode.emit.navigate("view_tags", None, tag_ids=[t.id for t in shown])
        return ui.render(episode, "tags.html", title="Tags", rows=rows, tag_query=needle,
                         notice=notice_of(request, NOTICES), active="tags", wikis=state.tag_wikis is not None)

    @router.get("/tags/{name}", response_class=HTMLResponse)
    @hook_point("tag", "page", target=lambda kw: kw["name"])
    async def tag(name: str, request: Request, episode: ForumEpisode) -> Response:
        get_or_404(episode.state.tags, name, key="name", detail=f"There is no tag called “{name[:40]}”.")
        return RedirectResponse(f"/?{urlencode({'tagged': name})}", status_code=303)

    @router.get("/users", response_class=HTMLResponse)
    @hook_point("users", "page")
    async def users(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        needle = request.query_params.get("q", "").strip()[:60]
        shown = [m for m in state.members if needle.casefold() in m.display_name.casefold()]
        shown.sort(key=lambda m: (-m.reputation, m.id))
        if needle:
            episode.emit.search("search_users", query=needle, results=[m.id for m in shown])
        else:
            episode.emit.navigate("view_users", None, member_ids=[m.id for m in shown])
        return ui.render(episode, "users.html", title="Users", members=shown, user_query=needle, active="users")

    @router.get("/users/{member_id}", response_class=HTMLResponse)
    @hook_point("profile", "page", target=lambda kw: kw["member_id"])
    async def profile(member_id: str, request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        member = _author(state, member_id)
        now = episode.clock.now().replace(tzinfo=None)
        asked = sorted((q for q in state.live_questions() if q.author_id == member.id),
                       key=lambda q: q.created_at, reverse=True)
        answered = []
        for answer in sorted((a for a in state.answers if a.author_id == member.id and not a.deleted),
                             key=lambda a: a.created_at, reverse=True):
            question = state.question(answer.question_id)
            if question is not None:
                answered.append({"a": answer, "q": question, "when": when(answer.created_at, now),
                                 "accepted": question.accepted_answer_id == answer.id})
        episode.emit.inspect("view_profile", member.id, revealed=["reputation", "location", "about", "posts"])
        return ui.render(episode, "profile.html", title=member.display_name, member=member,
                         asked=[_row(state, q, now) for q in asked], answered=answered,
                         joined=when(member.joined_at, now), is_me=member.id == state.me.id,
                         can_message=state.messages is not None and member.id != state.me.id,
                         badges=badges_of(state, member.id), active="users")

    @router.get("/notifications", response_class=HTMLResponse)
    @hook_point("notifications", "page")
    async def notifications(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        now = episode.clock.now().replace(tzinfo=None)
        rows: list[dict[str, Any]] = []
        listed = sorted(state.notifications, key=lambda n: (n.created_at, n.id), reverse=True)
        for n in sorted(state.notifications, key=lambda n: (n.created_at, n.id), reverse=True):
            post = state.post(n.post_id) if n.post_id else None
            question = state.question_of(post) if post else None
            href = (f"/questions/{question.id}" + (f"#{post.id}" if post and post.id != question.id else "")
                    if question else None)
            rows.append({"n": n, "when": when(n.created_at, now), "href": href})
        episode.emit.navigate("view_notifications", None, notification_ids=[n.id for n in listed])
        return ui.render(episode, "notifications.html", title="Notifications", rows=rows,
                         notice=notice_of(request, NOTICES), active="notifications")

    @router.get("/settings", response_class=HTMLResponse)
    @hook_point("settings", "page")
    async def settings(request: Request, episode: ForumEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_settings", None)
        return ui.render(episode, "settings.html", title="Settings", settings=state.settings, page_sizes=PAGE_SIZES,
                         email=state.user.email, notice=notice_of(request, NOTICES), active="settings",
                         exports=state.exports)

    return router
