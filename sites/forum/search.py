"""Searching questions: '[tag] words' (every tag and every word must match), shared by the search page and
the close-as-duplicate page."""

import re

from fastapi import HTTPException

from sites.forum.models import ForumState, Question

MAX_QUERY = 300
_TAG_TOKEN = re.compile(r"\[([^\]\s]{1,25})\]")


def parse_search(raw: str) -> tuple[list[str], list[str]]:
    """'[git] undo commit' -> (tags ['git'], words ['undo', 'commit'])."""
    if len(raw) > MAX_QUERY:
        raise HTTPException(400, f"Searches are limited to {MAX_QUERY} characters.")
    tags = [t.lower() for t in _TAG_TOKEN.findall(raw)]
    words = [w.casefold() for w in _TAG_TOKEN.sub(" ", raw).split()]
    return tags, words


def search_questions(state: ForumState, tags: list[str], words: list[str]) -> list[Question]:
    found = []
    for question in state.live_questions():
        if any(t not in question.tags for t in tags):
            continue
        haystack = f"{question.title}\n{question.body}".casefold()
        if all(w in haystack for w in words):
            found.append(question)
    return found
