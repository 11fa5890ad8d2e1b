"""Quiz questions drawn for a world (options shuffled by the seed) and the scoring of an attempt."""

from random import Random

from sites.learn.models import Option, Question, Quiz


def score_attempt(quiz: Quiz, answers: dict[str, list[str]]) -> float:
    """Points earned: a choice question scores when the chosen set is the key; a short answer when
    it matches an accepted answer, ignoring case and surrounding spaces."""
    total = 0.0
    for question in quiz.questions:
        given = answers.get(question.id, [])
        if question.kind == "short":
            typed = given[0].strip().casefold() if given else ""
            ok = typed in {k.casefold() for k in question.key}
        else:
            ok = set(given) == set(question.key) and len(given) == len(question.key)
        total += question.points if ok else 0
    return total


def make_questions(rng: Random, quiz_id: str, spec: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...]
               ) -> list[Question]:
    questions = []
    for index, (kind, prompt, labels, key) in enumerate(spec):
        qid = f"{quiz_id}q{index + 1}"
        shuffled = list(labels)
        rng.shuffle(shuffled)
        options = [Option(id=f"{qid}o{n + 1}", label=label) for n, label in enumerate(shuffled)]
        key_ids = [o.id for o in options if o.label in key] if kind != "short" else list(key)
        questions.append(Question(id=qid, kind=kind, prompt=prompt, points=2, options=options,
                                  key=key_ids))
    return questions
