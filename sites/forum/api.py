"""The JSON API the forum's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing), steps the episode clock once and records one `commit` event whose `touched` lists the
ids it changed. Errors are 4xx with a `detail` message: 404 for ids that do not exist, 403 for
someone else's post, 409 for a request that does not make sense in the current state, 422 for a
malformed body. Reputation follows the usual rules: an upvote on a question or answer gives its
author 10, a downvote takes 2, an accepted answer gives 15 (and the asker 2).
"""

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.forum.feature_routes import closure_of, wiki_of
from sites.forum.models import (
    AcceptBody,
    Answer,
    AnswerBody,
    AnswerEdit,
    Comment,
    CommentBody,
    Flag,
    FlagBody,
    Follow,
    FollowBody,
    ForumEpisode,
    ForumState,
    Question,
    QuestionBody,
    QuestionEdit,
    ReadBody,
    Revision,
    SettingsBody,
    Vote,
    VoteBody,
)
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404

UPVOTE, DOWNVOTE, ACCEPTED, ACCEPTER = 10, -2, 15, 2


def _question(state: ForumState, question_id: str) -> Question:
    return get_or_404(state.live_questions(), question_id, "question")


def _answer(state: ForumState, answer_id: str) -> Answer:
    return get_or_404(state.live_answers(), answer_id, "answer")


def _post(state: ForumState, post_id: str) -> Question | Answer:
    post = state.post(post_id)
    if post is None:
        raise HTTPException(404, f"no question or answer {post_id!r}")
    return post


def _own(state: ForumState, post: Question | Answer | Comment) -> None:
    if post.author_id != state.me.id:
        raise HTTPException(403, "You can only change your own posts.")


def _known_tags(state: ForumState, tags: list[str]) -> None:
    unknown = [t for t in tags if state.tag(t) is None]
    if unknown:
        raise HTTPException(422, f"Unknown tag{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}. "
                                 "Use existing tags.")


def _reputation(state: ForumState, member_id: str, change: int) -> None:
    member = state.member(member_id)
    if member is not None:
        member.reputation = max(1, member.reputation + change)


def _revise(state: ForumState, post: Question | Answer, at: str, summary: str) -> Revision:
    number = len(state.revisions_of(post.id)) + 1
    revision = Revision(id=state.take_id("revision", "r"), post_id=post.id, number=number,
                        title=post.title if isinstance(post, Question) else None, body=post.body,
                        tags=list(post.tags) if isinstance(post, Question) else [], editor_id=state.me.id,
                        summary=summary, created_at=at)
    state.revisions.append(revision)
    return revision


def _touch(state: ForumState, post: Question | Answer, at: str) -> None:
    question = state.question_of(post)
    if question is not None:
        question.last_activity_at = at


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    # -- questions -------------------------------------------------------------------------------

    @router.post("/questions", status_code=201)
    @hook_point("ask", "write")
    async def ask(body: QuestionBody, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        _known_tags(state, body.tags)
        if any(q.title.casefold() == body.title.casefold() and q.author_id == state.me.id
               for q in state.live_questions()):
            raise HTTPException(409, "You already asked a question with this title.")
        at = episode.clock.stamp()
        question = Question(id=state.take_id("question", "q"), title=body.title, body=body.body, tags=body.tags,
                            author_id=state.me.id, created_at=at, last_activity_at=at, score=0, views=1)
        state.questions.append(question)
        revision = _revise(state, question, at, "Asked")
        episode.emit.commit("ask", question.id, tags=body.tags, touched=[question.id, revision.id])
        return {"question": question.model_dump(), "url": f"/questions/{question.id}"}

    @router.put("/questions/{question_id}")
    @hook_point("edit_question", "write", target=lambda kw: kw["question_id"])
    async def edit_question(question_id: str, body: QuestionEdit, request: Request,
                            episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        question = _question(state, question_id)
        _own(state, question)
        _known_tags(state, body.tags)
        if (question.title, question.body, question.tags) == (body.title, body.body, body.tags):
            raise HTTPException(409, "Nothing changed: edit the title, the text or the tags first.")
        at = episode.clock.stamp()
        question.title, question.body, question.tags = body.title, body.body, body.tags
        question.last_activity_at = at
        revision = _revise(state, question, at, body.summary or "Edited")
        episode.emit.commit("edit_question", question.id, touched=[question.id, revision.id])
        return {"question": question.model_dump(), "revision": revision.number}

    @router.delete("/questions/{question_id}")
    @hook_point("delete_question", "write", target=lambda kw: kw["question_id"])
    async def delete_question(question_id: str, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        question = _question(state, question_id)
        _own(state, question)
        if state.answers_to(question.id):
            raise HTTPException(409, "Questions that have answers can't be deleted: others put work into them.")
        episode.clock.stamp()
        question.deleted = True
        episode.emit.commit("delete_question", question.id, touched=[question.id])
        return {"deleted": question.id}

    # -- answers -----------------------------------------------------------------------------------

    @router.post("/questions/{question_id}/answers", status_code=201)
    @hook_point("answer", "write", target=lambda kw: kw["question_id"])
    async def answer(question_id: str, body: AnswerBody, request: Request,
                     episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        question = _question(state, question_id)
        if closure_of(state, question.id) is not None:
            raise HTTPException(409, "This question is closed as a duplicate: answer the original question.")
        if any(a.body == body.body and a.author_id == state.me.id for a in state.answers_to(question.id)):
            raise HTTPException(409, "You already posted this answer.")
        at = episode.clock.stamp()
        new = Answer(id=state.take_id("answer", "a"), question_id=question.id, body=body.body,
                     author_id=state.me.id, created_at=at, score=0)
        state.answers.append(new)
        question.last_activity_at = at
        revision = _revise(state, new, at, "Answered")
        episode.emit.commit("answer", new.id, question_id=question.id, touched=[new.id, revision.id])
        return {"answer": new.model_dump(), "url": f"/questions/{question.id}#{new.id}"}

    @router.put("/answers/{answer_id}")
    @hook_point("edit_answer", "write", target=lambda kw: kw["answer_id"])
    async def edit_answer(answer_id: str, body: AnswerEdit, request: Request,
                          episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        found = _answer(state, answer_id)
        _own(state, found)
        if found.body == body.body:
            raise HTTPException(409, "Nothing changed: edit the text first.")
        at = episode.clock.stamp()
        found.body = body.body
        _touch(state, found, at)
        revision = _revise(state, found, at, body.summary or "Edited")
        episode.emit.commit("edit_answer", found.id, touched=[found.id, revision.id])
        return {"answer": found.model_dump(), "revision": revision.number}

    @router.delete("/answers/{answer_id}")
    @hook_point("delete_answer", "write", target=lambda kw: kw["answer_id"])
    async def delete_answer(answer_id: str, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        found = _answer(state, answer_id)
        _own(state, found)
        question = state.question(found.question_id)
        if question is not None and question.accepted_answer_id == found.id:
            raise HTTPException(409, "An accepted answer can't be deleted.")
        episode.clock.stamp()
        found.deleted = True
        episode.emit.commit("delete_answer", found.id, touched=[found.id])
        return {"deleted": found.id}

    # -- comments ----------------------------------------------------------------------------------

    @router.post("/posts/{post_id}/comments", status_code=201)
    @hook_point("comment", "write", target=lambda kw: kw["post_id"])
    async def comment(post_id: str, body: CommentBody, request: Request,
                      episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        post = _post(state, post_id)
        if any(c.body == body.body and c.author_id == state.me.id for c in state.comments_on(post.id)):
            raise HTTPException(409, "You already posted this comment.")
        at = episode.clock.stamp()
        new = Comment(id=state.take_id("comment", "c"), post_id=post.id, body=body.body, author_id=state.me.id,
                      created_at=at)
        state.comments.append(new)
        _touch(state, post, at)
        episode.emit.commit("comment", new.id, post_id=post.id, touched=[new.id])
        return {"comment": new.model_dump()}

    @router.delete("/comments/{comment_id}")
    @hook_point("delete_comment", "write", target=lambda kw: kw["comment_id"])
    async def delete_comment(comment_id: str, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(state.live_comments(), comment_id, "comment")
        _own(state, found)
        episode.clock.stamp()
        found.deleted = True
        episode.emit.commit("delete_comment", found.id, touched=[found.id])
        return {"deleted": found.id}

    # -- votes, acceptance, flags -------------------------------------------------------------------

    @router.post("/posts/{post_id}/vote")
    @hook_point("vote", "write", target=lambda kw: kw["post_id"])
    async def vote(post_id: str, body: VoteBody, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        post = _post(state, post_id)
        if post.author_id == state.me.id:
            raise HTTPException(409, "You can't vote on your own post.")
        current = state.vote_on(post.id)
        before = current.value if current else 0
        if before == body.value:
            raise HTTPException(409, "You already voted this way." if body.value else "You haven't voted on this.")
        at = episode.clock.stamp()
        post.score += body.value - before
        change = {1: UPVOTE, -1: DOWNVOTE, 0: 0}
        _reputation(state, post.author_id, change[body.value] - change[before])
        touched = [post.id]
        if current is not None:
            state.votes = [v for v in state.votes if v.id != current.id]
            touched.append(current.id)
        if body.value:
            new = Vote(id=state.take_id("vote", "v"), post_id=post.id, value=body.value, cast_at=at)
            state.votes.append(new)
            touched.append(new.id)
        name = {1: "upvote", -1: "downvote", 0: "unvote"}[body.value]
        episode.emit.commit(name, post.id, value=body.value, touched=touched)
        return {"post_id": post.id, "score": post.score, "vote": body.value}

    @router.post("/questions/{question_id}/accept")
    @hook_point("accept", "write", target=lambda kw: kw["question_id"])
    async def accept(question_id: str, body: AcceptBody, request: Request,
                     episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        question = _question(state, question_id)
        _own(state, question)
        chosen = None
        if body.answer_id is not None:
            chosen = _answer(state, body.answer_id)
            if chosen.question_id != question.id:
                raise HTTPException(409, "That answer belongs to another question.")
        if question.accepted_answer_id == body.answer_id:
            raise HTTPException(409, "Nothing to change: that is already the accepted answer."
                                if chosen else "No answer is accepted.")
        episode.clock.stamp()
        previous = state.answer(question.accepted_answer_id) if question.accepted_answer_id else None
        touched = [question.id]
        if previous is not None:
            _reputation(state, previous.author_id, -ACCEPTED)
            touched.append(previous.id)
        if chosen is not None:
            _reputation(state, chosen.author_id, ACCEPTED)
            touched.append(chosen.id)
            if previous is None:
                _reputation(state, state.me.id, ACCEPTER)
        elif previous is not None:
            _reputation(state, state.me.id, -ACCEPTER)
        question.accepted_answer_id = body.answer_id
        episode.emit.commit("accept" if chosen else "unaccept", question.id, answer_id=body.answer_id,
                            touched=touched)
        return {"question_id": question.id, "accepted_answer_id": body.answer_id}

    @router.post("/posts/{post_id}/flags", status_code=201)
    @hook_point("flag", "write", target=lambda kw: kw["post_id"])
    async def flag(post_id: str, body: FlagBody, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        post = _post(state, post_id)
        if post.author_id == state.me.id:
            raise HTTPException(409, "You can't flag your own post: edit or delete it instead.")
        if any(f.post_id == post.id for f in state.flags):
            raise HTTPException(409, "You already flagged this post.")
        if body.reason == "other" and not body.note:
            raise HTTPException(422, "Tell the moderators what is wrong (a note is needed with “Something else”).")
        at = episode.clock.stamp()
        new = Flag(id=state.take_id("flag", "f"), post_id=post.id, reason=body.reason, note=body.note, flagged_at=at)
        state.flags.append(new)
        episode.emit.commit("flag", post.id, reason=body.reason, touched=[new.id])
        return {"flag": new.model_dump()}

    # -- tags, notifications, settings ---------------------------------------------------------------

    @router.put("/tags/{name}/follow")
    @hook_point("follow_tag", "write", target=lambda kw: kw["name"])
    async def follow_tag(name: str, body: FollowBody, request: Request,
                         episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(state.tags, name, key="name", detail=f"no tag {name[:40]!r}")
        wiki = wiki_of(state, found.name)
        if body.following and wiki is not None and wiki.deprecated_for:
            raise HTTPException(409, f"{found.name} is deprecated: it was merged into {wiki.deprecated_for}. "
                                     f"Follow {wiki.deprecated_for} instead.")
        if state.follows_tag(found.name) == body.following:
            raise HTTPException(409, "You already follow this tag." if body.following
                                else "You don't follow this tag.")
        at = episode.clock.stamp()
        if body.following:
            new = Follow(id=state.take_id("follow", "w"), tag=found.name, followed_at=at)
            state.follows.append(new)
            touched = [new.id]
        else:
            touched = [f.id for f in state.follows if f.tag == found.name]
            state.follows = [f for f in state.follows if f.tag != found.name]
        episode.emit.commit("follow_tag" if body.following else "unfollow_tag", found.id, tag=found.name,
                            touched=touched)
        return {"tag": found.name, "following": body.following}

    @router.post("/notifications/read")
    @hook_point("read_notifications", "write")
    async def read_notifications(body: ReadBody, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        wanted = [get_or_404(state.notifications, i, "notification") for i in dict.fromkeys(body.ids)]
        changed = [n for n in wanted if not n.read]
        if changed:
            episode.clock.stamp()
            for notification in changed:
                notification.read = True
            episode.emit.commit("read_notifications", changed[0].id, touched=[n.id for n in changed])
        return {"changed": [n.id for n in changed]}

    @router.put("/settings")
    @hook_point("update_settings", "write")
    async def update_settings(body: SettingsBody, request: Request, episode: ForumEpisode) -> dict[str, Any]:
        state = episode.state
        episode.clock.stamp()
        for key, value in body.model_dump().items():
            setattr(state.settings, key, value)
        me = state.me
        me.display_name, me.location, me.about = body.display_name, body.location, body.about
        episode.emit.commit("update_settings", "settings", touched=["settings", me.id])
        return {"settings": state.settings.model_dump()}

    return router
