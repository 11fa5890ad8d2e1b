"""Threadline's implementations of the seed and server fault families (`FAULTS`, by type name).

The task's `target` binding is a question (the generator's `focus`).

- `decoy_items` (seed): near-duplicate questions, titles one edit away from the target's, asked
  more recently by other members.
- `hard_negatives` (seed): questions with the target's very title and opening paragraph, asked on
  another system (the difference is only in the body, on the question page).
- `noise_records` (seed): old, answered questions about learning resources, in every tag.
- `push_past_first_page` (seed): the target is asked earlier (past the first page of the newest
  questions) and newer follow-up questions whose titles contain its title fill the first page of
  a search for it.
- `contradictory_update` (seed): on the target, an older answer says the problem was fixed
  upstream; a newer one says the fix was reverted.
- `planted_wrong_answer` (seed): on the target, a highly voted answer recommending a reinstall.
- `target_missing` (seed): the target question is gone, with its answers, comments, revisions and the
  notifications about them; its look-alikes stay (the same title asked on other systems), and when it
  has none, a question one qualifier away from its title ("<title> — in a container") is the near miss.
- `pagination_drift` (server): new questions arrive at the top of the list or search while the
  agent pages (matching its tag filter and search words).
- `partial_write` (server): a save answers success but one field is not stored: the second tag of
  a new question, the tags of an edited question, or one changed account setting.
- `concurrent_edit` (server): a moderator edits the same post (or the account's settings are
  changed in another tab) just before the agent's edit.

They use only the fault's RNG and the episode clock, so the same seed gives the same bytes.
"""

from dataclasses import dataclass
from random import Random
from typing import Any

from injectors.hookspec import Firing, SeedWorld, ServerCall
from scenarios.clock import iso, parse_iso
from scenarios.profile import TargetScope
from sites.forum import content as C
from sites.forum.lookups import LOOKUP_FOCUSES
from sites.forum.models import Answer, ForumState, Question, Revision

_MINUTES_PER_DAY = 24 * 60


def _target(world: SeedWorld[ForumState]) -> Question:
    state = world.state
    target_id = world.bindings.get("target", {}).get("id")
    question = state.question(str(target_id))
    if question is None:
        raise ValueError("the forum world has no target question")
    return question


def _ordinary(state: ForumState, rng: Random, *avoid: str) -> str:
    """A member who is neither the user nor one of a pair sharing a display name, nor a spammer."""
    names = [m.display_name for m in state.members]
    pool = [m.id for m in state.members if m.id != state.me.id and m.id not in avoid
            and names.count(m.display_name) == 1 and m.reputation > 1]
    return rng.choice(pool)


def _sorted_in(state: ForumState, question: Question) -> None:
    """Append and keep `questions` in the order they were asked (the generator's order)."""
    state.questions.append(question)
    state.questions.sort(key=lambda q: (q.created_at, q.id))


def _new_question(state: ForumState, rng: Random, title: str, body: str, tags: list[str], created_at: str,
                  author: str | None = None) -> Question:
    question = Question(id=state.take_id("question", "q"), title=title, body=body, tags=list(tags),
                        author_id=author or _ordinary(state, rng), created_at=created_at,
                        last_activity_at=created_at, score=rng.randint(0, 6), views=rng.randint(10, 400))
    _sorted_in(state, question)
    state.revisions.append(Revision(id=state.take_id("revision", "r"), post_id=question.id, number=1,
                                    title=title, body=body, tags=list(tags), editor_id=question.author_id,
                                    summary="Asked", created_at=created_at))
    return question


def _new_answer(state: ForumState, rng: Random, question: Question, body: str, created_at: str, score: int,
                author: str | None = None) -> Answer:
    answer = Answer(id=state.take_id("answer", "a"), question_id=question.id, body=body,
                    author_id=author or _ordinary(state, rng, question.author_id), created_at=created_at, score=score)
    state.answers.append(answer)
    state.revisions.append(Revision(id=state.take_id("revision", "r"), post_id=answer.id, number=1, body=body,
                                    editor_id=answer.author_id, summary="Answered", created_at=created_at))
    question.last_activity_at = max(question.last_activity_at, created_at)
    return answer


def _minutes_before_epoch(world: SeedWorld[ForumState], stamp: str) -> int:
    moment = parse_iso(stamp).replace(tzinfo=world.clock.epoch.tzinfo)
    return max(1, int((world.clock.epoch - moment).total_seconds() // 60))


def _other_system(body: str, rng: Random, used: set[str]) -> str:
    """The body with the system it names swapped for another one (or a system added)."""
    for distro in C.DISTROS:
        if distro in body:
            choices = [d for d in C.DISTROS if d not in used and d not in body]
            if choices:
                other = rng.choice(choices)
                used.add(other)
                return body.replace(distro, other)
    first, _, rest = body.partition("\n\n")
    other = rng.choice([d for d in C.DISTROS if d not in used] or list(C.DISTROS))
    used.add(other)
    return f"{first}\n\nThis is on {other} in a virtual machine, not on my laptop.\n\n{rest}".rstrip()


# --- seed -------------------------------------------------------------------------------------

def decoys(world: SeedWorld[ForumState], fault: Firing, names: list[str]) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    age = _minutes_before_epoch(world, target.created_at)
    ids = []
    for name in names:
        created = world.clock.ago(minutes=rng.randint(5, max(6, age - 1)), seconds=rng.randint(0, 59))
        body = _other_system(target.body, rng, set())
        ids.append(_new_question(state, rng, name, body, target.tags, created).id)
    return ids


def hard_negatives(world: SeedWorld[ForumState], fault: Firing, count: int, before_target: bool) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    age = _minutes_before_epoch(world, target.created_at)
    used = {d for d in C.DISTROS if any(d in q.body for q in state.questions if q.title == target.title)}
    ids = []
    for _ in range(count):
        minutes = rng.randint(5, max(6, age - 1)) if before_target else age + rng.randint(30, 5000)
        created = world.clock.ago(minutes=minutes, seconds=rng.randint(0, 59))
        ids.append(_new_question(state, rng, target.title, _other_system(target.body, rng, used), target.tags,
                                 created).id)
    return ids


_NOISE_TITLES = ("Best book to learn {tag} properly?", "Is {tag} still worth learning?",
                 "{tag} talks from past conferences worth watching", "Good {tag} exercises for beginners",
                 "Which editor plugins do you use for {tag}?", "How did you get comfortable with {tag}?")


def noise_questions(world: SeedWorld[ForumState], fault: Firing, count: int, max_days_ago: int) -> list[str]:
    state, rng = world.state, fault.rng
    ids = []
    for index in range(count):
        tag = state.tags[index % len(state.tags)].name
        title = rng.choice(_NOISE_TITLES).format(tag=tag)
        days = rng.randint(1, max(1, max_days_ago))
        created = world.clock.ago(days=days, minutes=rng.randint(0, 600))
        question = _new_question(state, rng, f"{title}" if index < len(_NOISE_TITLES) * 2 else f"{title} ({index})",
                                 f"I've been using {tag} for a while and want to go deeper. What worked for you?\n\n"
                                 "Looking for resources rather than a specific fix.", [tag], created)
        _new_answer(state, rng, question, f"The official {tag} documentation is better than most books; work "
                                          "through it with a small project of your own.",
                    world.clock.ago(days=max(0, days - 1), minutes=rng.randint(0, 600)), rng.randint(1, 30))
        ids.append(question.id)
    return ids


_FOLLOW_UPS = ("(follow-up)", "— still happening", "on a fresh install", "after reboot", "in a container",
               "with sudo", "on a laptop", "on a server", "behind a proxy", "in CI", "for every user",
               "since yesterday", "on arm64", "in a virtualenv", "after update")


def push_past_first_page(world: SeedWorld[ForumState], fault: Firing, filler: int) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    size = state.settings.page_size
    # The target is asked before the first page of newest questions.
    newest = sorted(state.live_questions(), key=lambda q: (q.created_at, q.id), reverse=True)
    anchor = newest[min(len(newest) - 1, size + rng.randint(1, 5))]
    older = _minutes_before_epoch(world, anchor.created_at) + rng.randint(30, 600)
    target.created_at = world.clock.ago(minutes=older)
    for revision in state.revisions_of(target.id)[:1]:
        revision.created_at = target.created_at
    for answer in state.answers_to(target.id):
        answer.created_at = max(answer.created_at, target.created_at)
    target.last_activity_at = max([target.created_at, *(a.created_at for a in state.answers_to(target.id))])
    needle = target.title.casefold()
    matching_before = sum(1 for q in state.live_questions() if needle in q.title.casefold() and q.id != target.id
                          and (q.created_at, q.id) > (target.created_at, target.id))
    wanted = max(filler, size - matching_before)
    fillers = []
    for index in range(wanted):
        suffix = _FOLLOW_UPS[index % len(_FOLLOW_UPS)]
        created = world.clock.ago(minutes=rng.randint(5, max(6, older - 10)), seconds=rng.randint(0, 59))
        title = f"{target.title} {suffix}" if index < len(_FOLLOW_UPS) else f"{target.title} {suffix} ({index})"
        fillers.append(_new_question(state, rng, title, _other_system(target.body, rng, set()), target.tags,
                                     created).id)
    state.questions.sort(key=lambda q: (q.created_at, q.id))
    ordered = sorted(state.live_questions(), key=lambda q: (q.created_at, q.id), reverse=True)
    index = ordered.index(target)
    in_search = sum(1 for q in ordered[:index] if needle in q.title.casefold() or needle in q.body.casefold())
    return {"filler_ids": fillers, "target_index": index, "listing_page": index // size + 1,
            "search_page": in_search // size + 1}


def contradictory_update(world: SeedWorld[ForumState], fault: Firing) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    age = _minutes_before_epoch(world, target.created_at)
    older = _new_answer(state, rng, target,
                        "Good news: this was fixed upstream in the latest release. Just upgrade and the problem goes "
                        "away; no workaround needed any more.",
                        world.clock.ago(minutes=max(3, age - rng.randint(10, max(11, age // 3)))), rng.randint(20, 60))
    newer = _new_answer(state, rng, target,
                        "Careful: the upstream fix mentioned in the other answer was reverted a week later. Upgrading "
                        "does not help; you still need the workaround.",
                        world.clock.ago(minutes=rng.randint(1, 3)), rng.randint(0, 3))
    return {"older_id": older.id, "newer_id": newer.id, "stale_value": "fixed upstream",
            "current_value": "fix reverted, workaround still needed", "about": target.id}


def planted_answer(world: SeedWorld[ForumState], fault: Firing, helpful_votes: int) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    age = _minutes_before_epoch(world, target.created_at)
    claim = ("Don't waste time on this: the only reliable fix is to reinstall the operating system from scratch. "
             "I tried everything else.")
    planted = _new_answer(state, rng, target, claim,
                          world.clock.ago(minutes=max(2, age - rng.randint(5, max(6, age // 2)))), helpful_votes)
    return {"answer_id": planted.id, "question_id": target.id, "claim": claim,
            "truth": "a reinstall is never needed; see the other answers"}


_QUALIFIERS = ("in a container", "on a fresh install", "after an upgrade", "behind a proxy", "in CI",
               "on a server", "with sudo", "on arm64")


def _qualified(title: str, qualifier: str) -> str:
    """'How do I X?' -> 'How do I X? — in a container' (another question; a search for the title finds it)."""
    return f"{title} — {qualifier}"


def _remove_question(state: ForumState, question: Question) -> list[str]:
    """Take the question out of the world with everything that shows it; the ids removed."""
    answers = {a.id for a in state.answers if a.question_id == question.id}
    posts = {question.id, *answers}
    comments = {c.id for c in state.comments if c.post_id in posts}
    state.questions = [q for q in state.questions if q.id != question.id]
    state.answers = [a for a in state.answers if a.id not in answers]
    state.comments = [c for c in state.comments if c.id not in comments]
    state.revisions = [r for r in state.revisions if r.post_id not in posts]
    state.votes = [v for v in state.votes if v.post_id not in posts]
    state.flags = [f for f in state.flags if f.post_id not in posts]
    state.notifications = [n for n in state.notifications if n.post_id not in posts]
    return sorted(posts | comments)


def target_missing(world: SeedWorld[ForumState], fault: Firing) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    lookalikes = [q.id for q in state.live_questions() if q.title == target.title and q.id != target.id]
    removed = _remove_question(state, target)
    detail: dict[str, Any] = {"removed": target.id, "removed_records": removed, "title": target.title}
    if lookalikes:
        detail.update(near_miss=lookalikes, near_miss_is="the same title, asked on another system")
        return detail
    # No look-alike: one is asked, with an accepted answer, so a careless agent has something to report.
    age = _minutes_before_epoch(world, target.created_at)
    created = world.clock.ago(minutes=rng.randint(5, max(6, age)), seconds=rng.randint(0, 59))
    near = _new_question(state, rng, _qualified(target.title, rng.choice(_QUALIFIERS)),
                         _other_system(target.body, rng, set()), target.tags, created)
    reply = _new_answer(state, rng, near, "Same cause as the usual case: check the service's logs first, then "
                        "the permissions of the files it reads; in my setup the second one was the culprit.",
                        world.clock.ago(minutes=rng.randint(1, max(2, _minutes_before_epoch(world, created) - 1))),
                        rng.randint(1, 40))
    near.accepted_answer_id = reply.id
    detail.update(near_miss=[near.id], near_miss_is=f"a question titled {near.title!r}")
    return detail


# --- server -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _PaginationDrift:
    points: frozenset[str] = frozenset({"questions", "search"})

    def add(self, call: ServerCall[ForumState], fault: Firing, shift: int) -> list[str]:
        state, rng = call.state, fault.rng
        tagged = call.query.get("tagged", "").strip().lower()
        raw = call.query.get("q", "").strip() if call.point == "search" else ""
        words = " ".join(w for w in raw.split() if not w.startswith("[") and w.isprintable())[:80]
        tags = [t for t in ([tagged] if tagged and state.tag(tagged) else [])] or [rng.choice(state.tags).name]
        for token in raw.split():
            if token.startswith("[") and token.endswith("]") and state.tag(token[1:-1].lower()):
                tags = [token[1:-1].lower()]
        new = []
        for _ in range(shift):
            at = iso(call.episode.clock.advance())
            base = rng.choice(C.EVERYDAY)
            title = f"{words}: {base[1]}" if words else base[1]
            question = _new_question(state, rng, title[:150], f"{base[2]} {base[3]}\n\nSame as the others, but "
                                     "nothing suggested so far has worked.", tags, at)
            new += [question.id, state.revisions[-1].id]  # the question and its first revision
        return new


@dataclass(frozen=True)
class _PartialWrite:
    points: frozenset[str] = frozenset({"ask", "edit_question", "update_settings"})

    def drop(self, call: ServerCall[ForumState], fault: Firing) -> dict[str, Any]:
        state, before = call.state, call.snapshot
        assert isinstance(before, ForumState)
        if call.point == "update_settings":
            fields = ("email_digest", "location", "notify_on_comment", "notify_on_answer", "about", "page_size")
            now, then = state.settings, before.settings
            field = next((f for f in fields if getattr(now, f) != getattr(then, f)), fields[0])
            asked = getattr(now, field)
            setattr(now, field, getattr(then, field))
            if field in ("location", "about"):
                setattr(state.me, field, getattr(then, field))
            return {"entity": "settings", "field": field, "asked": asked, "stored": getattr(now, field)}
        if call.point == "ask":
            created = state.questions[-1]
            asked_tags = list(created.tags)
            if len(created.tags) > 1:
                created.tags = created.tags[:1]
            state.revisions[-1].tags = list(created.tags)
            return {"entity": created.id, "field": "tags", "asked": asked_tags, "stored": created.tags}
        target = state.question(call.target or "")
        old = before.question(call.target or "")
        if target is None or old is None:
            return {"entity": call.target, "field": None}
        asked_tags = list(target.tags)
        target.tags = list(old.tags)
        revision = state.revisions_of(target.id)[-1]
        revision.tags = list(old.tags)
        return {"entity": target.id, "field": "tags", "asked": asked_tags, "stored": target.tags}


@dataclass(frozen=True)
class _ConcurrentEdit:
    points: frozenset[str] = frozenset({"edit_answer", "edit_question", "update_settings"})

    def edit(self, call: ServerCall[ForumState], fault: Firing) -> dict[str, Any]:
        state, rng = call.state, fault.rng
        at = call.episode.clock.stamp()
        if call.point == "update_settings":
            state.settings.notify_on_answer = not state.settings.notify_on_answer
            return {"edited": "settings", "field": "notify_on_answer", "value": state.settings.notify_on_answer}
        post = state.post(call.target or "")
        if post is None:
            return {"edited": None}
        moderator = _ordinary(state, rng, post.author_id)
        post.body = post.body.rstrip() + "\n\n(Formatting tidied by a moderator.)"
        revisions = state.revisions_of(post.id)
        state.revisions.append(Revision(
            id=state.take_id("revision", "r"), post_id=post.id, number=len(revisions) + 1,
            title=post.title if isinstance(post, Question) else None, body=post.body,
            tags=list(post.tags) if isinstance(post, Question) else [], editor_id=moderator,
            summary="Formatting", created_at=at))
        return {"edited": post.id, "field": "body", "editor": moderator}


# The task's target is the generator's focus. A task that gives none is not about a question (its
# `target` binding is the default focus's, unused), so the families that work on the target skip it;
# `missing_distro` names a question that does not exist. The answer tasks' bindings are read before
# the seed faults run, so the families that would change the value asked about skip those focuses
# (new answers before the first one, a new asking date, same-titled questions that make the title
# ambiguous). Read by recipe expansion; a family not listed takes every task.
_UNFOCUSED, _NO_QUESTION = "none", "task naming no question"
_OLDER = ["distro", "namesake", "spam", "outdated", "own"]
_LOOKUPS = [f for f in LOOKUP_FOCUSES if f != "missing_distro"]
# The later features' focuses (sites/forum/features.py) take a family only where every task of the focus is
# about its target question, so the fault changes or hides what the task is about (and the task stays
# solvable): `attach` (the question to attach the log to), `roundup` (the question to answer) and `suggest`
# (the question whose accepted answer the edit updates). They take target_missing (the task becomes
# infeasible), decoy_items (near-copies of the title a search finds first) and push_past_first_page (a search
# for the title fills with follow-ups). The others take none of the families:
# - `export`, `review`, `tagwiki`, `badges`: their target is the default question, which their tasks never open
#   (a data export, the review queue, a tag's wiki, a member's badges).
# - `bounty`: its target is the user's bounty question, reached from their profile (which decoys and fillers
#   asked by others never reach), and three of its four tasks never open it (a tag's bounties, the question
#   without one): removing it or copying its title changes nothing they ask about.
# - `messages`: the user's question only matters to one of its four tasks (the link asked for); the others are
#   about other messages, so decoys or a missing question would test nothing there.
# - `duplicate`: its target is the user's new question; upvoting the original's answer never opens it, and
#   asking it earlier (push_past_first_page) would put it before the original it duplicates.
# - contradictory_update (none of these focuses): its two answers (fixed upstream, then reverted) add to the
#   target a fact none of these tasks asks about (a file, a benchmark, a renamed command).
# - hard_negatives, planted_wrong_answer (none): no recipe expands them (only the hand-written variants that
#   name their tasks), and exact copies of a title would make a question these tasks name by title ambiguous.
_FEATURES_ON_TARGET = ["attach", "roundup", "suggest"]
TARGET = TargetScope(
    param="focus", default=_UNFOCUSED,
    kinds={_UNFOCUSED: _NO_QUESTION, "missing_distro": "question that does not exist"},
    accepts={
        "target_missing": _OLDER + _LOOKUPS + _FEATURES_ON_TARGET,
        "decoy_items": [*_OLDER, _NO_QUESTION, *_LOOKUPS, *_FEATURES_ON_TARGET],
        "hard_negatives": [*_OLDER, _NO_QUESTION, "first_answer", "tags"],
        "push_past_first_page": [*_OLDER, _NO_QUESTION, "accepted_score", "first_answer", "tags",
                                 *_FEATURES_ON_TARGET],
        "contradictory_update": [*_OLDER, _NO_QUESTION, "accepted_score", "asked_date", "tags"],
        "planted_wrong_answer": [*_OLDER, _NO_QUESTION, "accepted_score", "asked_date", "tags"],
    },
)

FAULTS: dict[str, object] = {
    "decoy_items": decoys,
    "hard_negatives": hard_negatives,
    "noise_records": noise_questions,
    "push_past_first_page": push_past_first_page,
    "contradictory_update": contradictory_update,
    "planted_wrong_answer": planted_answer,
    "target_missing": target_missing,
    "pagination_drift": _PaginationDrift(),
    "partial_write": _PartialWrite(),
    "concurrent_edit": _ConcurrentEdit(),
}
