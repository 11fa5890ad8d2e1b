"""Seeded Threadline worlds: a Q&A community with traps built in for eight kinds of task.

Everything random comes from the `rng` argument and every timestamp from the episode clock
(`clock.ago(...)`), so the same (setup, seed) always gives byte-identical state. Questions are
stored oldest first with ids in that order (`q0001`, …); answers and comments likewise.

Setup params (validated; unknown keys are refused):
    focus: which question is the task's `target` (for the look-alike, ordering and
           misinformation faults): one of distro (default), namesake, spam, outdated, own, or one of
           the answer tasks' focuses (sites/forum/lookups.py: they add the `lookup` binding).

Bindings (task templates refer to them as `{group.key}`):

    user:       {id, name, email}
    target:     {id, name}: the focused question and its title.
    namesake:   upvote the answer by one of two members who share a display name.
                {name, question_id, question_title, answer_id, member_id, reputation, reputation_text, location,
                 other: {member_id, answer_id, reputation, reputation_text, location}}
    ask:        post a new question with two tags and follow one of them.
                {title, body, tag_a, tag_b, follow_tag}
    unanswered: upvote every unanswered question in one tag.
                {tag, ids, titles (3), answered_ids (answered questions of that tag), other_unanswered_ids}
    own:        correct the default value the user's own answer gets wrong (a comment says the right one).
                {question_id, question_title, answer_id, setting, wrong_value, right_value, comment_id, commenter}
    profile:    change the account settings. {display_name, location, digest (weekly), old_display_name}
    distro:     answer the one of three same-titled questions asked on a given system (stated in the body only).
                {question_id, title, distro, hard_negative_ids, other_distros, answer_text}
    spam:       flag the spam answer (a download link) on a question; a genuine answer also has a link.
                {question_id, question_title, answer_id, author_name, product, legit_answer_id}
    outdated:   the accepted, highly voted answer is outdated; a newer one is right.
                {question_id, question_title, old_answer_id, new_answer_id, old_author, new_author, tool,
                 since_version, comment_text}
    lookup:     only with an answer task's focus: what it asks about (sites/forum/lookups.py).
    bounty, …:  only with a later feature's focus: its world and what its tasks ask (sites/forum/features.py).
"""

from dataclasses import dataclass, field
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.forum import content as C
from sites.forum.features import FEATURE_FOCUSES, feature_bindings
from sites.forum.lookups import LOOKUP_FOCUSES, lookup_bindings
from sites.forum.models import (
    Account,
    Answer,
    Comment,
    ForumState,
    Member,
    Notification,
    Question,
    Revision,
    Settings,
    Tag,
)
from sites.kit.accounts import email_address
from sites.kit.site import World, WorldSetup

FOCUSES = ("distro", "namesake", "spam", "outdated", "own", *LOOKUP_FOCUSES, *FEATURE_FOCUSES)
# focuses that add to the world what their task is about (tests/sites/test_worlds.py holds the others to moving
# only the target binding)
ADDING_FOCUSES = FEATURE_FOCUSES
KNOWN_PARAMS = ("focus",)
_MINUTES_PER_DAY = 24 * 60


def _validate(setup: WorldSetup) -> str:
    setup.refuse_unknown("forum", KNOWN_PARAMS)
    return setup.one_of("focus", FOCUSES, "distro")


def _marker(text: str) -> str:
    """The opening words of an answer, as its page shows them (before any code or colon)."""
    return text.split("`")[0].split(":")[0].strip().rstrip(";,")


def reputation_text(value: int) -> str:
    return f"{value:,}"


@dataclass
class _Draft:
    """A question being assembled, with its answers and comments, before ids are given."""

    tags: tuple[str, ...]
    title: str
    body: str
    author: str
    age_min: int                      # minutes before the epoch it was asked
    score: int
    views: int
    answers: list[dict[str, Any]] = field(default_factory=list)  # body, author, age_min, score, accepted, key
    comments: list[dict[str, Any]] = field(default_factory=list)  # body, author, age_min, on ("q" or answer key)
    key: str = ""


class _Builder:
    def __init__(self, rng: Random, clock: EpisodeClock) -> None:
        self.rng, self.clock = rng, clock
        self.members: list[Member] = []
        self.used_names: set[str] = set()
        self.drafts: list[_Draft] = []

    def ago(self, minutes: int) -> str:
        return self.clock.ago(minutes=minutes, seconds=self.rng.randint(0, 59))

    def member(self, name: str | None = None, reputation: int | None = None, location: str | None = None) -> str:
        rng = self.rng
        if name is None:
            while True:
                name = (rng.choice(C.HANDLES) if rng.random() < 0.15
                        else f"{rng.choice(C.FIRST_NAMES)} {rng.choice(C.LAST_NAMES)}")
                if name not in self.used_names:
                    break
        self.used_names.add(name)
        member = Member(
            id=f"u{len(self.members) + 1:03d}", display_name=name,
            reputation=reputation if reputation is not None else rng.choice(
                (rng.randint(1, 150), rng.randint(150, 2500), rng.randint(2500, 48_000))),
            location=location if location is not None else rng.choice(C.LOCATIONS),
            about=rng.choice(C.ABOUTS), joined_at=self.ago(rng.randint(400, 3000) * _MINUTES_PER_DAY),
        )
        self.members.append(member)
        return member.id

    def someone(self, *avoid: str) -> str:
        """An ordinary member (never the user, a namesake or a spammer)."""
        pool = [m.id for m in self.members[1:self.ordinary] if m.id not in avoid]
        return self.rng.choice(pool)

    ordinary = 0


def _body(opening: str, detail: str, command: str) -> str:
    return f"{opening} {detail}\n\nWhat I ran:\n$ {command}\n\nAny pointers appreciated."


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    focus = _validate(setup)
    b = _Builder(rng, clock)

    # -- members -----------------------------------------------------------------------------
    me_first, me_last = rng.choice(C.FIRST_NAMES), rng.choice(C.LAST_NAMES)
    me_name = f"{me_first} {me_last}"
    me = b.member(me_name, reputation=rng.randint(600, 1900))
    for _ in range(34):
        b.member()
    b.ordinary = len(b.members)
    while True:
        ns_name = f"{rng.choice(C.FIRST_NAMES)} {rng.choice(C.LAST_NAMES)}"
        if ns_name not in b.used_names:
            break
    ns_locations = rng.sample(C.LOCATIONS, 2)
    ns_reps = [rng.randint(2100, 9800), rng.randint(110, 980)]
    while reputation_text(ns_reps[1]) in reputation_text(ns_reps[0]):
        ns_reps[0] += 1
    rng.shuffle(ns_reps)
    ns_ids = [b.member(ns_name, reputation=ns_reps[0], location=ns_locations[0])]
    b.used_names.discard(ns_name)
    ns_ids.append(b.member(ns_name, reputation=ns_reps[1], location=ns_locations[1]))
    spam_index = rng.randrange(len(C.SPAM_PRODUCTS))
    spammer = b.member(C.SPAM_HANDLES[spam_index], reputation=1, location="")

    tag_names = [name for name, _ in C.TAGS]

    # -- everyday questions ------------------------------------------------------------------
    for tags, title, opening, detail, command, answer_text in C.EVERYDAY:
        asker = b.someone()
        age = rng.randint(3 * _MINUTES_PER_DAY, 600 * _MINUTES_PER_DAY)
        draft = _Draft(tags, title, _body(opening, detail, command), asker, age, rng.randint(0, 45),
                       rng.randint(40, 9000))
        first_age = age - rng.randint(30, max(31, min(age - 10, 3 * _MINUTES_PER_DAY)))
        draft.answers.append({"body": answer_text, "author": b.someone(asker), "age_min": first_age,
                              "score": rng.randint(1, 70), "accepted": rng.random() < 0.55, "key": "main"})
        if rng.random() < 0.4:
            draft.answers.append({
                "body": f"If that doesn't help, post the full output of `{command}` and what you expected instead.",
                "author": b.someone(asker), "age_min": max(5, first_age - rng.randint(10, 900)),
                "score": rng.randint(0, 6), "accepted": False, "key": "extra"})
        if rng.random() < 0.45:
            draft.comments.append({"body": rng.choice(C.COMMENTS), "author": b.someone(asker),
                                   "age_min": max(2, age - rng.randint(5, 300)), "on": "q"})
        b.drafts.append(draft)

    # -- unanswered questions ------------------------------------------------------------------
    unanswered_tag = rng.choice([t for t, titles in C.UNANSWERED.items() if len(titles) >= 3])
    for tag, titles in C.UNANSWERED.items():
        chosen = list(titles) if tag == unanswered_tag else list(titles[:1])
        for title in chosen:
            draft = _Draft((tag,), title, f"{C.UNANSWERED_BODY}\n\nEnvironment: {rng.choice(C.DISTROS)}.",
                           b.someone(), rng.randint(60, 40 * _MINUTES_PER_DAY), rng.randint(0, 4),
                           rng.randint(8, 140), key=f"unanswered:{tag}")
            b.drafts.append(draft)

    # -- namesakes -----------------------------------------------------------------------------
    ns_tags, ns_title, ns_open, ns_detail, ns_cmd, ns_texts = rng.choice(C.NAMESAKE_QUESTIONS)
    ns_asker = b.someone()
    ns_age = rng.randint(20 * _MINUTES_PER_DAY, 200 * _MINUTES_PER_DAY)
    ns_draft = _Draft(ns_tags, ns_title, _body(ns_open, ns_detail, ns_cmd), ns_asker, ns_age, rng.randint(5, 60),
                      rng.randint(500, 20_000), key="namesake")
    answer_texts = list(ns_texts)
    rng.shuffle(answer_texts)
    for index, (author, text) in enumerate(zip([ns_ids[0], ns_ids[1], b.someone(ns_asker)], answer_texts,
                                               strict=True)):
        ns_draft.answers.append({"body": text, "author": author,
                                 "age_min": ns_age - rng.randint(60, 5000) - index * 7,
                                 "score": rng.randint(2, 40), "accepted": False, "key": f"ns{index}"})
    b.drafts.append(ns_draft)

    # -- the user's own answer with a wrong default ---------------------------------------------
    own_tags, own_title, own_open, setting, wrong, right, where = rng.choice(C.OWN_ANSWER)
    own_asker = b.someone()
    own_age = rng.randint(3 * _MINUTES_PER_DAY, 30 * _MINUTES_PER_DAY)
    own_draft = _Draft(own_tags, own_title,
                       f"{own_open} We never changed {setting}, so it should be at its default.\n\n"
                       "Is the default the problem, and what should we set instead?",
                       own_asker, own_age, rng.randint(2, 25), rng.randint(100, 3000), key="own")
    own_draft.answers.append({
        "body": f"The default {setting} is {wrong}. Set it explicitly {where} to a value above what your "
                "clients need, and reload.",
        "author": me, "age_min": own_age - 90, "score": rng.randint(1, 6), "accepted": False, "key": "mine"})
    own_draft.comments.append({
        "body": f"Thanks! One correction though: according to the documentation the default {setting} is {right}, "
                f"not {wrong}.", "author": own_asker, "age_min": own_age - 400, "on": "mine"})
    b.drafts.append(own_draft)

    # -- near-duplicate questions, told apart by the system in the body ----------------------------
    d_title, d_open, d_tags, d_answer = rng.choice(C.DISTRO_TITLES)
    distros = rng.sample(C.DISTROS, 3)
    distro_keys = []
    for index, distro in enumerate(distros):
        age = rng.randint(2 * _MINUTES_PER_DAY, 25 * _MINUTES_PER_DAY) + index * 97
        key = f"distro{index}"
        distro_keys.append(key)
        draft = _Draft(
            d_tags, d_title,
            f"{d_open}\n\nI'm on {distro}, fresh install, with nothing unusual configured. What is the right "
            "way to fix this rather than working around it?",
            b.someone(), age, rng.randint(0, 9), rng.randint(30, 900), key=key)
        draft.answers.append({"body": "Can you add the full error output to the question? The fix depends on "
                                      "what exactly fails.", "author": b.someone(draft.author),
                              "age_min": age - rng.randint(20, 600), "score": rng.randint(0, 3), "accepted": False,
                              "key": "ask_more"})
        b.drafts.append(draft)
    distro_target = rng.randrange(3)

    # -- spam answer next to a genuine answer with a link -------------------------------------------
    spam_candidates = [d for d in b.drafts if d.key == "" and d.tags[0] in C.LEGIT_LINKS]
    spam_draft = rng.choice(spam_candidates)
    spam_draft.key = "spam"
    topic = spam_draft.tags[0]
    product, domain = C.SPAM_PRODUCTS[spam_index]
    spam_url = f"https://{domain}/download?ref={rng.getrandbits(24):06x}"
    spam_draft.answers.append({
        "body": f"The documentation covers this case: {C.LEGIT_LINKS[topic]} — the short version is in the answer "
                "above, but the page lists the edge cases too.",
        "author": b.someone(spam_draft.author), "age_min": max(30, spam_draft.age_min - 2000),
        "score": rng.randint(2, 15), "accepted": False, "key": "legit"})
    spam_draft.answers.append({
        "body": C.SPAM_TEXT.format(product=product, topic=topic, url=spam_url), "author": spammer,
        "age_min": rng.randint(20, 600), "score": 0, "accepted": False, "key": "spammy"})

    # -- an outdated accepted answer and the newer correction ---------------------------------------
    o_tags, o_title, o_open, old_text, new_text, tool, since = rng.choice(C.OUTDATED)
    o_age = rng.randint(6 * 365 * _MINUTES_PER_DAY, 8 * 365 * _MINUTES_PER_DAY)
    o_draft = _Draft(o_tags, o_title, f"{o_open}\n\nIs there a cleaner way?", b.someone(), o_age,
                     rng.randint(200, 900), rng.randint(50_000, 400_000), key="outdated")
    o_draft.answers.append({"body": old_text, "author": b.someone(o_draft.author), "age_min": o_age - 45,
                            "score": rng.randint(300, 700), "accepted": True, "key": "old"})
    o_draft.answers.append({"body": new_text, "author": b.someone(o_draft.author),
                            "age_min": rng.randint(60 * _MINUTES_PER_DAY, 700 * _MINUTES_PER_DAY),
                            "score": rng.randint(8, 60), "accepted": False, "key": "new"})
    b.drafts.append(o_draft)

    # -- the user's own question -----------------------------------------------------------------
    mine_q = rng.choice([d for d in b.drafts if d.key == ""])
    mine_q.author, mine_q.key = me, "my_question"
    for spec_answer in mine_q.answers:
        if spec_answer["author"] == me:
            spec_answer["author"] = b.someone(me)

    # -- ids, in the order questions were asked ---------------------------------------------------
    b.drafts.sort(key=lambda d: (-d.age_min, d.title))
    state = ForumState(
        user=Account(member_id=me, email=email_address(me_first, me_last)),
        members=b.members,
        tags=[Tag(id=f"t{i + 1:02d}", name=name, summary=summary) for i, (name, summary) in enumerate(C.TAGS)],
        questions=[], answers=[], comments=[],
        settings=Settings(display_name=me_name, location=b.members[0].location, about=b.members[0].about),
        next_ids={},
    )
    keyed: dict[str, Question] = {}
    pending_answers: list[tuple[int, Answer, bool]] = []
    pending_comments: list[tuple[int, Comment]] = []
    for draft in b.drafts:
        asked = b.ago(draft.age_min)
        question = Question(id=state.take_id("question", "q"), title=draft.title, body=draft.body,
                            tags=list(draft.tags), author_id=draft.author, created_at=asked, last_activity_at=asked,
                            score=draft.score, views=draft.views)
        state.questions.append(question)
        if draft.key:
            keyed[draft.key] = question
        for spec in draft.answers:
            made = Answer(id="", question_id=question.id, body=spec["body"], author_id=spec["author"],
                          created_at=b.ago(max(1, spec["age_min"])), score=spec["score"])
            pending_answers.append((spec["age_min"], made, spec["accepted"]))
            spec["answer"] = made
        for spec in draft.comments:
            comment = Comment(id="", post_id=question.id if spec["on"] == "q" else spec["on"], body=spec["body"],
                              author_id=spec["author"], created_at=b.ago(max(1, spec["age_min"])))
            spec["comment"] = comment
            pending_comments.append((spec["age_min"], comment))
    for _, answer, accepted in sorted(pending_answers, key=lambda p: (-p[0], p[1].question_id)):
        answer.id = state.take_id("answer", "a")
        state.answers.append(answer)
        question_found = next(q for q in state.questions if q.id == answer.question_id)
        if accepted and question_found.accepted_answer_id is None:
            question_found.accepted_answer_id = answer.id
        question_found.last_activity_at = max(question_found.last_activity_at, answer.created_at)
    for draft in b.drafts:
        for spec in draft.comments:
            if spec["on"] != "q":
                spec["comment"].post_id = next(s["answer"].id for s in draft.answers if s["key"] == spec["on"])
    for _, comment in sorted(pending_comments, key=lambda p: (-p[0], p[1].post_id)):
        comment.id = state.take_id("comment", "c")
        state.comments.append(comment)
    # Revision 1 of every post: its original text.
    for question in state.questions:
        state.revisions.append(Revision(id=state.take_id("revision", "r"), post_id=question.id, number=1,
                                        title=question.title, body=question.body, tags=list(question.tags),
                                        editor_id=question.author_id, summary="Asked",
                                        created_at=question.created_at))
    for answer in state.answers:
        state.revisions.append(Revision(id=state.take_id("revision", "r"), post_id=answer.id, number=1,
                                        body=answer.body, editor_id=answer.author_id, summary="Answered",
                                        created_at=answer.created_at))

    def answer_of(key: str, answer_key: str) -> Answer:
        draft = next(d for d in b.drafts if d.key == key)
        found = next(s["answer"] for s in draft.answers if s["key"] == answer_key)
        assert isinstance(found, Answer)
        return found

    # -- notifications -----------------------------------------------------------------------------
    my_question = keyed["my_question"]
    for answer in state.answers_to(my_question.id):
        state.notifications.append(Notification(
            id="", kind="answer", text=f"New answer to your question “{my_question.title}”", post_id=answer.id,
            created_at=answer.created_at, read=True))
    own_comment = own_draft.comments[0]["comment"]
    state.notifications.append(Notification(
        id="", kind="comment", text=f"New comment on your answer to “{own_title}”", post_id=own_comment.post_id,
        created_at=own_comment.created_at, read=False))
    state.notifications.append(Notification(
        id="", kind="badge", text="You earned the “Teacher” badge", created_at=b.ago(rng.randint(2000, 20_000)),
        read=True))
    state.notifications.sort(key=lambda n: n.created_at)
    for notification in state.notifications:
        notification.id = state.take_id("notification", "n")

    # -- bindings ---------------------------------------------------------------------------------
    ns_question = keyed["namesake"]
    ns_target = rng.randrange(2)
    ns_members = [state.member(i) for i in ns_ids]
    ns_answers = [answer_of("namesake", "ns0"), answer_of("namesake", "ns1")]
    spam_q = keyed["spam"]
    spammy, legit = answer_of("spam", "spammy"), answer_of("spam", "legit")
    old, new = answer_of("outdated", "old"), answer_of("outdated", "new")
    mine = answer_of("own", "mine")
    distro_qs = [keyed[k] for k in distro_keys]
    unanswered = [q for q in state.questions if unanswered_tag in q.tags and not state.answers_to(q.id)]
    assert len(unanswered) == 3
    ask = rng.choice(C.ASK)
    new_name = f"{me_first} {rng.choice([n for n in C.LAST_NAMES if n != me_last])}"

    def member_view(index: int) -> dict[str, Any]:
        member = ns_members[index]
        assert member is not None
        return {"member_id": member.id, "answer_id": ns_answers[index].id, "reputation": member.reputation,
                "reputation_text": reputation_text(member.reputation), "location": member.location}

    bindings: dict[str, Any] = {
        "user": {"id": me, "name": me_name, "email": state.user.email},
        "namesake": {"name": ns_name, "question_id": ns_question.id, "question_title": ns_question.title,
                     **member_view(ns_target), "other": member_view(1 - ns_target)},
        "ask": {"title": ask[0], "body": ask[1], "tag_a": ask[2], "tag_b": ask[3], "follow_tag": ask[2]},
        "unanswered": {"tag": unanswered_tag, "ids": [q.id for q in unanswered],
                       "titles": [q.title for q in unanswered],
                       "answered_ids": [q.id for q in state.questions
                                        if unanswered_tag in q.tags and state.answers_to(q.id)],
                       "other_unanswered_ids": [q.id for q in state.questions if unanswered_tag not in q.tags
                                                and not state.answers_to(q.id)]},
        "own": {"question_id": keyed["own"].id, "question_title": own_title, "answer_id": mine.id,
                "setting": setting, "wrong_value": wrong, "right_value": right, "where": where,
                "comment_id": own_comment.id,
                "commenter": (state.member(own_asker) or state.me).display_name},
        "profile": {"display_name": new_name, "old_display_name": me_name,
                    "location": rng.choice([loc for loc in C.LOCATIONS if loc != state.settings.location]),
                    "digest": "weekly"},
        "distro": {"question_id": distro_qs[distro_target].id, "title": d_title, "distro": distros[distro_target],
                   "hard_negative_ids": [q.id for i, q in enumerate(distro_qs) if i != distro_target],
                   "other_distros": [d for i, d in enumerate(distros) if i != distro_target],
                   "answer_text": d_answer},
        "spam": {"question_id": spam_q.id, "question_title": spam_q.title, "answer_id": spammy.id,
                 "author_name": C.SPAM_HANDLES[spam_index], "product": product, "legit_answer_id": legit.id},
        "outdated": {"question_id": keyed["outdated"].id, "question_title": o_title, "old_answer_id": old.id,
                     "new_answer_id": new.id,
                     "old_author": (state.member(old.author_id) or state.me).display_name,
                     "new_author": (state.member(new.author_id) or state.me).display_name,
                     "tool": tool, "since_version": since, "old_marker": _marker(old_text),
                     "new_marker": _marker(new_text),
                     "comment_text": f"This is outdated: since {tool} {since} there is a direct way, see the newer "
                                     "answer below."},
    }
    if focus in LOOKUP_FOCUSES:
        # Last, and only for the answer tasks' focuses: the older worlds stay byte-identical.
        bindings["lookup"], focused = lookup_bindings(focus, state, rng, keyed, d_title, distros)
    elif focus in FEATURE_FOCUSES:
        # Likewise last: a later feature's world (sites/forum/features.py).
        group, bindings[group], focused = feature_bindings(focus, state, rng, b.ago, keyed,
                                                             bindings["namesake"])
    else:
        focused = {"distro": distro_qs[distro_target], "namesake": ns_question, "spam": spam_q,
                   "outdated": keyed["outdated"], "own": keyed["own"]}[focus]
    bindings["target"] = {"id": focused.id, "name": focused.title}
    assert set(tag_names) >= {t for q in state.questions for t in q.tags}
    return World(state=state, bindings=bindings)
