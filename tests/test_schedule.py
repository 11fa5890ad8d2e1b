"""The order `make test` hands files to its processes (tests/schedule.py): the heaviest first, every file whole."""

from pathlib import Path

from tests.schedule import HEAVIEST_FIRST, schedule_order

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_named_heaviest_is_a_test_file_named_once() -> None:
    assert len(set(HEAVIEST_FIRST)) == len(HEAVIEST_FIRST)
    missing = [path for path in HEAVIEST_FIRST if not (ROOT / path).is_file()]
    assert missing == [], f"renamed or gone: {missing}"
    assert all(Path(path).name.startswith("test_") for path in HEAVIEST_FIRST)


def test_the_heaviest_files_go_first_then_the_rest_by_their_number_of_tests() -> None:
    heaviest, next_heaviest = HEAVIEST_FIRST[0], HEAVIEST_FIRST[1]
    nodeids = ["tests/a/test_one.py::t1",
               f"{next_heaviest}::only",
               "tests/a/test_three.py::t1", "tests/a/test_three.py::t2", "tests/a/test_three.py::t3[x]",
               f"{heaviest}::first", f"{heaviest}::second",
               "tests/b/test_other_one.py::t1",
               "tests/a/test_one.py::t2"]
    ordered = [nodeids[index] for index in schedule_order(nodeids)]
    assert ordered == [f"{heaviest}::first", f"{heaviest}::second", f"{next_heaviest}::only",
                       "tests/a/test_three.py::t1", "tests/a/test_three.py::t2", "tests/a/test_three.py::t3[x]",
                       "tests/a/test_one.py::t1", "tests/a/test_one.py::t2",
                       "tests/b/test_other_one.py::t1"]
    assert sorted(schedule_order(nodeids)) == list(range(len(nodeids)))
