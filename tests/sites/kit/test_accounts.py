"""Every site's account email is one the sign-in form's `type=email` field accepts, on any seed."""

import re

import pytest

from sites.kit.accounts import email_address
from sites.registry import all_sites
from tests.sites.worlds import new_world

# The HTML standard's valid e-mail address (what a browser checks before it submits the form).
VALID_EMAIL = re.compile(r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
                         r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$")


def test_names_are_folded_to_ascii() -> None:
    assert email_address("Tomás", "Takahashi") == "tomas.takahashi@example.test"
    assert email_address("Zoë", "O'Brien-Łukasz") == "zoe.obrienukasz@example.test"
    assert email_address("Ana") == "ana@example.test"
    with pytest.raises(ValueError):
        email_address("王", "")


@pytest.mark.parametrize("site", sorted(all_sites()))
def test_the_account_email_is_one_a_browser_submits(site: str) -> None:
    for seed in range(1, 41):
        _, _, episode = new_world(site, seed)
        email = all_sites()[site].account_email(episode.state)
        assert VALID_EMAIL.match(email), (seed, email)
