import pytest

from scenarios.seeding import SeedsError, parse_seeds


def test_seed_lists() -> None:
    assert parse_seeds("3") == [3]
    assert parse_seeds("1,4") == [1, 4]
    assert parse_seeds("2-5") == [2, 3, 4, 5]
    assert parse_seeds("0") == [0]


@pytest.mark.parametrize("text", ["", "a", "1..3", "5-2", "-3", "1,-2", "1-", ","])
def test_a_bad_seed_list_is_an_error_quoting_it(text: str) -> None:
    with pytest.raises(SeedsError, match=f"got {text!r}"):
        parse_seeds(text)
