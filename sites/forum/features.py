"""The worlds of the later tasks' focuses: features the first worlds do not have (bounties, …).

Each focus here turns its feature on (a collection that is None elsewhere) and adds what its tasks are
about, after every other part of the world is made and from the generator's RNG used last, so the worlds
of the older focuses stay byte-identical. Bindings (one group per focus):

    bounty: the user's own question carries their open bounty; other members' questions carry theirs.
            {question_id, title, amount, answer_id (the answer that fixed it), author, answer_ids,
             plain: {question_id, title, author} (the user's question without a bounty, and one answerer),
             tag, tag_total (reputation on offer in the tag's open bounties), tag_count,
             top: {question_id, title, amount} (the tag's largest open bounty)}
    messages: private messages. A member's unread message asks for the link to one of the user's questions;
            a colleague the user has never written to answers a question a moment after it is asked.
            {link: {member_id, name, question_id, question_title, url}, ask: {member_id, name, question,
             reply_value}}
    export: a copy of the user's data, prepared on request and downloaded from the settings.
            {answer_count, answer_score_total (the total the export states; no page sums it)}
    attach: files attached to posts. On the user's own question a member asks, in a comment, for the full
            error log. {question_id, title, commenter, comment_id, comment_marker, file, other_file}
    duplicate: questions closed as duplicates. The user's new question was asked before: a search finds a
            copy first, itself closed as a duplicate of the original (which has the accepted answer).
            {search, question_id, title, original_id, original_title, copy_id, copy_title,
             answer_id, answerer (the original's accepted answer and its author)}
    review: the suggested-edits queue: four edits to others' answers wait for review; one fixes a spelling
            mistake, one formats a command as code, one adds an advertisement, one only adds a greeting.
            {spelling, format, spam, greeting: {id, post_id, title (the question's)}, spam_url}
    tagwiki: every tag has a wiki page; an old tag name, deprecated, was merged into another and can't be
            followed. {old, new, topic}
    badges: members' badges on their profiles; the two members who share a display name have different
            numbers of silver badges. {name, location, silver, other_location, other_silver}
    roundup: a member asks which of three changes speeds something up most; three earlier threads each measured
            one in their accepted answer (another answer on each gives another member's figure).
            {question_id, title, asker, unit, threads: [{question_id, title, change, key, value, other_value}] x3,
             best: {change, key, title, value} (the shortest time; key: a word naming it), other_values}
    suggest: the user suggests edits to others' answers (they go to the review queue, which the user also
            reviews). An accepted answer gives a command an update replaced (a comment says so), and an advert
            another member suggested for it waits for review: a post takes one suggested edit at a time.
            {question_id, title, answer_id, answerer, commenter, old, new, fixed_body, pending_id, spam_url,
             other_pending_id}
"""

from random import Random
from typing import Any

from sites.forum import content as C
from sites.forum.models import (
    Answer,
    Badge,
    Bounty,
    Closure,
    Comment,
    ForumState,
    Message,
    Question,
    Revision,
    SuggestedEdit,
    Tag,
    TagWiki,
)

FEATURE_FOCUSES = ("bounty", "messages", "export", "attach", "duplicate", "review", "tagwiki", "badges",
                   "roundup", "suggest")
_MINUTES_PER_DAY = 24 * 60


class _Maker:
    """Adds posts to a finished world: ids continue its counters, times come from the episode clock."""

    def __init__(self, state: ForumState, rng: Random, ago: Any) -> None:
        self.state, self.rng, self.ago = state, rng, ago

    def ordinary(self, *avoid: str) -> str:
        """A member with a display name of their own, neither the user nor a spammer."""
        names = [m.display_name for m in self.state.members]
        pool = [m.id for m in self.state.members if m.id != self.state.me.id and m.id not in avoid
                and names.count(m.display_name) == 1 and m.reputation > 1]
        return self.rng.choice(pool)

    def question(self, title: str, body: str, tags: list[str], author: str, age_min: int) -> Question:
        at = self.ago(age_min)
        question = Question(id=self.state.take_id("question", "q"), title=title, body=body, tags=list(tags),
                            author_id=author, created_at=at, last_activity_at=at, score=self.rng.randint(2, 30),
                            views=self.rng.randint(60, 2400))
        self.state.questions.append(question)
        self.state.questions.sort(key=lambda q: (q.created_at, q.id))
        self.state.revisions.append(Revision(id=self.state.take_id("revision", "r"), post_id=question.id, number=1,
                                             title=title, body=body, tags=list(tags), editor_id=author,
                                             summary="Asked", created_at=at))
        return question

    def answer(self, question: Question, body: str, author: str, age_min: int, score: int) -> Answer:
        at = self.ago(age_min)
        answer = Answer(id=self.state.take_id("answer", "a"), question_id=question.id, body=body, author_id=author,
                        created_at=at, score=score)
        self.state.answers.append(answer)
        self.state.revisions.append(Revision(id=self.state.take_id("revision", "r"), post_id=answer.id, number=1,
                                             body=body, editor_id=author, summary="Answered", created_at=at))
        question.last_activity_at = max(question.last_activity_at, at)
        return answer


def _name(state: ForumState, member_id: str) -> str:
    member = state.member(member_id)
    assert member is not None
    return member.display_name


def _bounty(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    state.bounties = []
    tags, title, opening, detail, command, texts = rng.choice(C.BOUNTY_QUESTIONS)
    age = rng.randint(6, 9) * _MINUTES_PER_DAY
    mine = m.question(title, f"{opening} {detail}\n\nWhat I ran:\n$ {command}\n\nI put a bounty on this: it blocks "
                             "our release.", list(tags), state.me.id, age)
    authors: list[str] = []
    answers = []
    order = [0, 1, 2]
    rng.shuffle(order)  # the answer that fixed it is not always the first posted
    for index in order:
        author = m.ordinary(*authors)
        authors.append(author)
        answers.append((index, m.answer(mine, texts[index], author, age - rng.randint(300, 4000),
                                        rng.randint(0, 6))))
    fixed = next(a for i, a in answers if i == 0)
    amount = rng.choice((50, 100, 150))
    started = rng.randint(2, 4) * _MINUTES_PER_DAY + rng.randint(0, 600)
    state.bounties.append(Bounty(id=state.take_id("bounty", "b"), question_id=mine.id, amount=amount,
                                 offered_by=state.me.id, started_at=m.ago(started),
                                 ends_at=m.ago(started - 7 * _MINUTES_PER_DAY)))
    # Other members' bounties: open ones across tags (two or three in one tag), and one in that tag that was
    # awarded already (not on offer any more).
    others = [q for q in state.live_questions() if q.author_id != state.me.id and state.answers_to(q.id)
              and q.id not in {k.id for k in keyed.values()} and len(q.tags) == 1]
    by_tag: dict[str, list[Question]] = {}
    for question in others:
        by_tag.setdefault(question.tags[0], []).append(question)
    tag = rng.choice(sorted(t for t, qs in by_tag.items() if len(qs) >= 3 and t not in tags))
    in_tag = rng.sample(by_tag[tag], min(len(by_tag[tag]), rng.randint(3, 4)))
    elsewhere = rng.sample([q for q in others if q.tags[0] != tag], 3)
    total = 0
    top: tuple[int, Question] | None = None
    for index, question in enumerate(in_tag + elsewhere):
        amount_other = rng.choice(C.BOUNTY_AMOUNTS)
        if question in in_tag and index and top is not None and amount_other == top[0]:
            amount_other += 50  # the tag's largest open bounty is one question, not a tie
        begun = rng.randint(1, 6) * _MINUTES_PER_DAY + rng.randint(0, 600)
        bounty = Bounty(id=state.take_id("bounty", "b"), question_id=question.id, amount=amount_other,
                        offered_by=question.author_id, started_at=m.ago(begun),
                        ends_at=m.ago(begun - 7 * _MINUTES_PER_DAY))
        if index == 0:  # the awarded one
            winner = state.answers_to(question.id)[0]
            bounty.awarded_answer_id, bounty.awarded_at = winner.id, m.ago(rng.randint(60, 600))
        elif question in in_tag:
            total += amount_other
            if top is None or amount_other > top[0]:
                top = (amount_other, question)
        state.bounties.append(bounty)
    state.bounties.sort(key=lambda b: (b.started_at, b.id))
    plain = keyed["my_question"]
    plain_answer = state.answers_to(plain.id)[0]
    return {"question_id": mine.id, "title": title, "amount": amount, "answer_id": fixed.id,
            "author": _name(state, fixed.author_id), "answer_ids": [a.id for _, a in answers],
            "plain": {"question_id": plain.id, "title": plain.title, "author": _name(state, plain_answer.author_id)},
            "tag": tag, "tag_total": total, "tag_count": len(in_tag) - 1,
            "top": {"question_id": top[1].id, "title": top[1].title, "amount": top[0]} if top else None}, mine


def _messages(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    messages: list[Message] = []
    used: list[str] = []
    # Small talk with two members, read long ago.
    for opening, reply in rng.sample(C.SMALL_TALK, 2):
        member = m.ordinary(*used)
        used.append(member)
        age = rng.randint(5, 60) * _MINUTES_PER_DAY
        tag = rng.choice([t.name for t in state.tags])
        messages.append(Message(id="", member_id=member, outgoing=False, body=opening.format(tag=tag),
                                sent_at=m.ago(age)))
        messages.append(Message(id="", member_id=member, outgoing=True, body=reply,
                                sent_at=m.ago(age - rng.randint(30, 600))))
    # The link request, unread.
    question = keyed["my_question"]
    asker = m.ordinary(*used, question.author_id)
    used.append(asker)
    opening, closing = rng.choice(C.LINK_REQUESTS)
    messages.append(Message(id="", member_id=asker, outgoing=False,
                            body=f"{opening.format(title=question.title)} {closing}",
                            sent_at=m.ago(rng.randint(30, 600)), read=False))
    # The colleague: no conversation yet; their answer waits until they are asked.
    colleague = m.ordinary(*used)
    asked, answer, values = rng.choice(C.COLLEAGUE_QUESTIONS)
    value = rng.choice(values)
    messages.append(Message(id="", member_id=colleague, outgoing=False, body=answer.format(value=value),
                            sent_at=m.ago(0), read=False, pending=True))
    messages.sort(key=lambda x: (x.sent_at, x.member_id))
    for message in messages:
        message.id = state.take_id("message", "m")
    state.messages = messages
    return {"link": {"member_id": asker, "name": _name(state, asker), "question_id": question.id,
                     "question_title": question.title, "url": f"http://forum.test/questions/{question.id}"},
            "ask": {"member_id": colleague, "name": _name(state, colleague), "question": asked,
                    "reply_value": value}}, question


def _export(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state = m.state
    state.exports = []
    mine = [a for a in state.live_answers() if a.author_id == state.me.id]
    if len(mine) < 3:  # a member with a few answers to their name (the total is not one answer's score)
        cutoff = m.ago(20 * _MINUTES_PER_DAY)  # asked before the answers come
        pool = [q for q in state.live_questions() if q.author_id != state.me.id and q.created_at < cutoff
                and q.id not in {k.id for k in keyed.values()} and state.answers_to(q.id)]
        for question in m.rng.sample(pool, 3 - len(mine)):
            body = (f"What fixed it for me: {excerpt_of(question)}, then run it again and check the output; it "
                    "should be clean now.")
            mine.append(m.answer(question, body, state.me.id, m.rng.randint(600, 19 * _MINUTES_PER_DAY),
                                 m.rng.randint(1, 25)))
    return {"answer_count": len(mine), "answer_score_total": sum(a.score for a in mine)}, keyed["my_question"]


def excerpt_of(question: Question) -> str:
    """The command a question shows (its '$ ' line), as an answer would quote it."""
    line = next((x for x in question.body.split("\n") if x.startswith("$ ")), "$ the same command")
    return f"`{line[2:]}` with the flags reset"


def _attach(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    state.attachments = []
    question = keyed["my_question"]
    commenter = m.ordinary(question.author_id, *(a.author_id for a in state.answers_to(question.id)))
    marker = "attach the full error log"
    comment = Comment(id=state.take_id("comment", "c"), post_id=question.id, author_id=commenter,
                      body=f"Could you {marker} to the question? The excerpt above isn't enough to see what fails.",
                      created_at=m.ago(rng.randint(20, 300)))
    state.comments.append(comment)
    return {"question_id": question.id, "title": question.title, "commenter": _name(state, commenter),
            "comment_id": comment.id, "comment_marker": marker, "file": "error.log",
            "other_file": "access.log"}, question


def _duplicate(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    tags, search, original_title, copy_title, mine_title, fix = rng.choice(C.DUPLICATES)

    def body(opening: str) -> str:  # the titles hold the search words; the bodies tell the story
        return f"{opening}\n\nWhat am I missing?"

    original_age = rng.randint(400, 1500) * _MINUTES_PER_DAY
    original = m.question(original_title, body("This works in my shell but not from the scheduled run."), list(tags),
                          m.ordinary(), original_age)
    fixer = m.ordinary(original.author_id)
    answer = m.answer(original, fix, fixer, original_age - rng.randint(60, 2000), rng.randint(40, 300))
    original.accepted_answer_id = answer.id
    copy_age = rng.randint(30, 300) * _MINUTES_PER_DAY
    copy = m.question(copy_title, body("Same setup as everyone else, I think, and still it fails."), list(tags),
                      m.ordinary(original.author_id, fixer), copy_age)
    mine = m.question(mine_title, body("I tried everything I could find and it still fails."), list(tags),
                      state.me.id, rng.randint(60, 900))
    state.closures = [Closure(id=state.take_id("closure", "k"), question_id=copy.id, duplicate_of=original.id,
                              closed_by=m.ordinary(copy.author_id), closed_at=m.ago(copy_age - rng.randint(60, 900)))]
    return {"search": search, "question_id": mine.id, "title": mine_title, "original_id": original.id,
            "original_title": original_title, "copy_id": copy.id, "copy_title": copy_title,
            "answer_id": answer.id, "answerer": _name(state, fixer)}, mine


def _review(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    special = {k.id for k in keyed.values()}
    used_questions: set[str] = set()

    def pick(test: Any) -> Answer:
        pool = [a for a in state.live_answers() if a.author_id != state.me.id and a.question_id not in special
                and a.question_id not in used_questions and test(a.body)]
        chosen = rng.choice(pool)
        used_questions.add(chosen.question_id)
        return chosen

    def set_text(answer: Answer, body: str) -> None:  # the post as it stands (and as it was first written)
        answer.body = body
        for revision in state.revisions_of(answer.id):
            revision.body = body

    edits: dict[str, tuple[Answer, str, str]] = {}
    typo = pick(lambda body: " the " in body and "`" not in body.split(" the ", 1)[0])
    set_text(typo, typo.body.replace(" the ", " teh ", 1))
    edits["spelling"] = (typo, typo.body.replace(" teh ", " the ", 1), "fixed spelling")
    coded = pick(lambda body: body.count("`") == 2)
    with_code = coded.body
    set_text(coded, with_code.replace("`", ""))
    edits["format"] = (coded, with_code, "formatted the command as code")
    product, domain = rng.choice(C.SPAM_PRODUCTS)
    spam_url = f"https://{domain}/get?src=edit"
    ad = pick(lambda body: True)
    edits["spam"] = (ad, f"{ad.body}\n\nUpdate: the quickest fix is {product}, it repairs this automatically. Download "
                         f"it here: {spam_url}", "added a better solution")
    hello = pick(lambda body: True)
    edits["greeting"] = (hello, f"Hi there! {hello.body}\n\nHope this helps, good luck!!", "improved the answer")
    state.suggested_edits = []
    order = list(edits)
    rng.shuffle(order)  # the queue's order is not the task's
    out: dict[str, Any] = {}
    for age, kind in zip(sorted(rng.sample(range(30, 2000), 4), reverse=True), order, strict=True):
        answer, body, summary = edits[kind]
        editor = m.ordinary(answer.author_id)
        made = SuggestedEdit(id=state.take_id("suggested_edit", "s"), post_id=answer.id, editor_id=editor, body=body,
                             summary=summary, suggested_at=m.ago(age))
        state.suggested_edits.append(made)
        question = state.question(answer.question_id)
        assert question is not None
        out[kind] = {"id": made.id, "post_id": answer.id, "title": question.title}
    out["spam_url"] = spam_url
    return out, keyed["my_question"]


def _tagwiki(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    old, new, topic = rng.choice(C.DEPRECATED_TAGS)
    state.tags.append(Tag(id=f"t{len(state.tags) + 1:02d}", name=old, summary=f"An older name for {new}."))
    wikis = []
    for tag in state.tags:
        count = sum(1 for q in state.live_questions() if tag.name in q.tags)
        if tag.name == old:
            body = (f"The {old} tag is deprecated: it was merged into {new}, and its questions were retagged. "
                    f"Use and follow {new} instead.")
        else:
            body = (f"{tag.summary} Use it for questions about {tag.name} itself, not for everything that happens "
                    f"to involve it. {count} questions so far.")
        wikis.append(TagWiki(id=f"wiki-{tag.id}", tag=tag.name, body=body,
                             deprecated_for=new if tag.name == old else None))
    state.tag_wikis = wikis
    return {"old": old, "new": new, "topic": topic}, keyed["my_question"]


def _badges(m: _Maker, keyed: dict[str, Question], namesake: dict[str, Any]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    badges: list[Badge] = []
    pair = {namesake["member_id"]: rng.randint(2, 7)}
    pair[namesake["other"]["member_id"]] = rng.choice([n for n in range(1, 9) if n != pair[namesake["member_id"]]])
    for member in state.members:
        if member.reputation <= 1:
            continue  # a spammer's fresh account has none
        counts = {"gold": rng.randint(0, 2), "silver": pair.get(member.id, rng.randint(0, 6)),
                  "bronze": rng.randint(1, 9)}
        for tier, count in counts.items():
            names = C.BADGES[tier]
            for index in range(count):
                badges.append(Badge(id="", member_id=member.id, name=names[(index + rng.randrange(len(names)))
                                                                              % len(names)],
                                    tier=tier, awarded_at=m.ago(rng.randint(1, 900) * _MINUTES_PER_DAY)))
    badges.sort(key=lambda b: (b.awarded_at, b.member_id))
    for badge in badges:
        badge.id = state.take_id("badge", "g")
    state.badges = badges
    return {"name": namesake["name"], "location": namesake["location"], "silver": pair[namesake["member_id"]],
            "other_location": namesake["other"]["location"],
            "other_silver": pair[namesake["other"]["member_id"]]}, keyed["namesake"]


def _roundup(m: _Maker) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    tags, title, body, unit, threads = rng.choice(C.ROUNDUPS)
    # Every figure differs: the three measured ones, the other answers' and where each started.
    figures = rng.sample(range(3, 17), 6)
    values, others = figures[:3], figures[3:]
    befores = rng.sample(range(22, 48), 4)
    asker = m.ordinary()
    made = []
    used = [asker]
    for index, (t_title, change, key, t_body, accepted, other) in enumerate(threads):
        age = rng.randint(40, 700) * _MINUTES_PER_DAY
        author = m.ordinary(*used)
        question = m.question(t_title, t_body, list(tags), author, age)
        fixer = m.ordinary(author, asker)
        doubter = m.ordinary(author, asker, fixer)
        # The other answer is often the higher voted: only the accepted one states the thread's measurement.
        score = rng.randint(3, 40)
        good = m.answer(question, accepted.format(n=values[index], before=befores[index]), fixer,
                        age - rng.randint(60, 3000), score)
        m.answer(question, other.format(m=others[index]), doubter, age - rng.randint(60, 3000),
                 score + rng.choice((-2, 5, 12)))
        question.accepted_answer_id = good.id
        made.append({"question_id": question.id, "title": t_title, "change": change, "key": key, "value": values[index],
                     "other_value": others[index]})
    target = m.question(title, body.format(before=befores[3]), list(tags), asker, rng.randint(60, 1200))
    best = made[min(range(len(made)), key=lambda index: values[index])]
    return {"question_id": target.id, "title": title, "asker": _name(state, asker), "unit": unit, "threads": made,
            "best": {k: best[k] for k in ("change", "key", "title", "value")},
            "other_values": others}, target


def _suggest(m: _Maker, keyed: dict[str, Question]) -> tuple[dict[str, Any], Question]:
    state, rng = m.state, m.rng
    tags, title, q_body, a_body, old, new, remark = rng.choice(C.RENAMED_COMMANDS)
    age = rng.randint(200, 1200) * _MINUTES_PER_DAY
    question = m.question(title, q_body, list(tags), m.ordinary(), age)
    answerer = m.ordinary(question.author_id)
    body = a_body.format(cmd=old)
    accepted = m.answer(question, body, answerer, age - rng.randint(30, 600), rng.randint(12, 90))
    question.accepted_answer_id = accepted.id
    m.answer(question, "I had the same problem; the documentation's page on it has a short example that worked for "
                       "me as it is.", m.ordinary(question.author_id, answerer), age - rng.randint(700, 3000),
             rng.randint(0, 6))
    commenter = m.ordinary(question.author_id, answerer)
    state.comments.append(Comment(id=state.take_id("comment", "c"), post_id=accepted.id, author_id=commenter,
                                  body=remark, created_at=m.ago(rng.randint(5, 60) * _MINUTES_PER_DAY)))
    # The queue: an advert suggested for that answer (it blocks another suggestion until reviewed), and an edit
    # elsewhere that only adds a greeting (the task leaves it to other reviewers).
    product, domain = rng.choice(C.SPAM_PRODUCTS)
    spam_url = f"https://{domain}/get?src=edit"
    advert = SuggestedEdit(id="", post_id=accepted.id, editor_id=m.ordinary(answerer, commenter),
                           body=f"{body}\n\nUpdate: {product} does all of this for you automatically. Download it "
                                f"here: {spam_url}", summary="added an easier way",
                           suggested_at=m.ago(rng.randint(30, 900)))
    special = {k.id for k in keyed.values()} | {question.id}
    elsewhere = rng.choice([a for a in state.live_answers() if a.author_id != state.me.id
                            and a.question_id not in special])
    greeting = SuggestedEdit(id="", post_id=elsewhere.id, editor_id=m.ordinary(elsewhere.author_id),
                             body=f"Hi there! {elsewhere.body}\n\nHope this helps!", summary="improved the answer",
                             suggested_at=m.ago(rng.randint(30, 900)))
    state.suggested_edits = sorted([advert, greeting], key=lambda e: e.suggested_at)
    for edit in state.suggested_edits:
        edit.id = state.take_id("suggested_edit", "s")
    state.suggesting = True
    return {"question_id": question.id, "title": title, "answer_id": accepted.id, "answerer": _name(state, answerer),
            "commenter": _name(state, commenter), "old": old, "new": new, "fixed_body": body.replace(old, new),
            "pending_id": advert.id, "spam_url": spam_url, "other_pending_id": greeting.id}, question


def feature_bindings(focus: str, state: ForumState, rng: Random, ago: Any, keyed: dict[str, Question],
                     namesake: dict[str, Any]) -> tuple[str, dict[str, Any], Question]:
    """The focus's binding group (its name and values) and the question that is the task's target."""
    maker = _Maker(state, rng, ago)
    if focus == "bounty":
        values, target = _bounty(maker, keyed)
        return "bounty", values, target
    if focus == "messages":
        values, target = _messages(maker, keyed)
        return "messages", values, target
    if focus == "export":
        values, target = _export(maker, keyed)
        return "export", values, target
    if focus == "attach":
        values, target = _attach(maker, keyed)
        return "attach", values, target
    if focus == "duplicate":
        values, target = _duplicate(maker, keyed)
        return "duplicate", values, target
    if focus == "review":
        values, target = _review(maker, keyed)
        return "review", values, target
    if focus == "tagwiki":
        values, target = _tagwiki(m=maker, keyed=keyed)
        return "tagwiki", values, target
    if focus == "badges":
        values, target = _badges(maker, keyed, namesake)
        return "badges", values, target
    if focus == "roundup":
        values, target = _roundup(maker)
        return "roundup", values, target
    if focus == "suggest":
        values, target = _suggest(maker, keyed)
        return "suggest", values, target
    raise ValueError(f"not a feature focus: {focus!r}")
