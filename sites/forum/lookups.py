"""What the answer tasks ask about: the `lookup` bindings of the focuses that only those tasks use.

They are computed after every other binding, from the finished state (and the generator's RNG, used
last), so a world with one of the older focuses is byte-identical to what it was before these existed.
The values are read off the same records the pages render (a question's `created_at` is the date its
timeline shows; the accepted answer's `score` is the number next to it), so page and binding agree.

    accepted_score: the score of the accepted answer on a question with several answers.
                    {question_id, question_title, answer_id, score, question_score}
    asked_date:     the day a question was asked. {question_id, question_title, date (YYYY-MM-DD)}
    first_answer:   who posted the first answer to the user's own question.
                    {question_id, question_title, answer_id, author, top_author}
    tags:           the tags of a question, found through the member who asked it.
                    {question_id, question_title, asker, asker_id, tags}
    missing_distro: a question the world does not have: the same-titled question asked on a fourth
                    system. {title, distro, listed (the systems it was asked on)}
"""

from random import Random
from typing import Any

from sites.forum import content as C
from sites.forum.models import ForumState, Question

LOOKUP_FOCUSES = ("accepted_score", "asked_date", "first_answer", "tags", "missing_distro")


def _everyday(state: ForumState, special: set[str]) -> list[Question]:
    """Questions no other task is about, with a title no other question has, asked by a member with
    a display name of their own (so a title or a name picks exactly one)."""
    titles = [q.title for q in state.questions]
    names = [m.display_name for m in state.members]
    out = []
    for question in state.live_questions():
        author = state.member(question.author_id)
        if question.id in special or titles.count(question.title) != 1 or author is None:
            continue
        if question.author_id == state.me.id or names.count(author.display_name) != 1:
            continue
        out.append(question)
    return out


def lookup_bindings(focus: str, state: ForumState, rng: Random, keyed: dict[str, Question],
                    distro_title: str, distros: list[str]) -> tuple[dict[str, Any], Question]:
    """The `lookup` binding of an answer task's focus, and the question that is its target."""
    special = {q.id for q in keyed.values()}
    pool = _everyday(state, special)

    def name_of(member_id: str) -> str:
        member = state.member(member_id)
        assert member is not None
        return member.display_name

    if focus == "accepted_score":
        with_accepted = [q for q in pool if q.accepted_answer_id]
        several = [q for q in with_accepted if len(state.answers_to(q.id)) > 1]
        question = rng.choice(several or with_accepted)
        accepted = state.answer(question.accepted_answer_id or "")
        assert accepted is not None
        return {"question_id": question.id, "question_title": question.title, "answer_id": accepted.id,
                "score": accepted.score, "question_score": question.score}, question
    if focus == "asked_date":
        question = rng.choice(pool)
        return {"question_id": question.id, "question_title": question.title,
                "date": question.created_at[:10]}, question
    if focus == "first_answer":
        question = keyed["my_question"]
        answers = sorted(state.answers_to(question.id), key=lambda a: (a.created_at, a.id))
        top = sorted(answers, key=lambda a: (a.id != question.accepted_answer_id, -a.score, a.created_at))[0]
        return {"question_id": question.id, "question_title": question.title, "answer_id": answers[0].id,
                "author": name_of(answers[0].author_id), "top_author": name_of(top.author_id)}, question
    if focus == "tags":
        tagged = [q for q in pool if len(q.tags) > 1]
        question = rng.choice(tagged or pool)
        return {"question_id": question.id, "question_title": question.title, "asker": name_of(question.author_id),
                "asker_id": question.author_id, "tags": list(question.tags)}, question
    if focus == "missing_distro":
        listed = [q for q in state.live_questions() if q.title == distro_title]
        # A system whose words, searched with the title, match none of the questions (words are
        # matched as substrings: "arch" is in "search"), so a search for both finds nothing.
        haystacks = [f"{q.title}\n{q.body}".casefold() for q in state.live_questions()]
        unmatched = [d for d in C.DISTROS if d not in distros and not any(
            all(w in hay for w in f"{distro_title} {d}".casefold().split()) for hay in haystacks)]
        missing = rng.choice(unmatched)
        return {"title": distro_title, "distro": missing, "listed": list(distros)}, listed[0]
    raise ValueError(f"not a lookup focus: {focus!r}")
