"""How each interactive way in reads an answer: `webchaos up` (the line typed before Enter) and `webchaos play`
(Done's body). How `webchaos list` and `catalog` name a task's kind is checked where their output is
(tests/harness/test_cli_startup.py, tests/harness/test_catalog_check.py)."""

from harness.interactive.play import _answer_of
from harness.interactive.up import INFEASIBLE_WORD, typed_answer
from scenarios.answers import MAX_ANSWER_CHARS, Answer


def test_the_line_typed_before_enter_is_the_answer() -> None:
    assert typed_answer(None) is None
    assert typed_answer("\n") is None
    assert typed_answer("  BK-7Q2 \n") == Answer(value="BK-7Q2")
    assert typed_answer(INFEASIBLE_WORD.upper() + "\n") == Answer(infeasible=True)


def test_done_reads_the_players_answer_and_refuses_a_malformed_one() -> None:
    assert _answer_of(None) is None
    assert _answer_of({"compare_run": None}) is None
    assert _answer_of({"answer": "  ", "infeasible": False}) is None
    assert _answer_of({"answer": " 12.50 "}) == Answer(value="12.50")
    assert _answer_of({"answer": None, "infeasible": True}) == Answer(infeasible=True)
    assert _answer_of({"answer": 12}) == f"answer: expected text of at most {MAX_ANSWER_CHARS} characters"
    assert _answer_of({"answer": "x" * (MAX_ANSWER_CHARS + 1)}) is not None
    assert _answer_of({"infeasible": "yes"}) == "infeasible: expected true or false"
