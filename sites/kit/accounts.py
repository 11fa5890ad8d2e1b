"""The signed-in user's email address, made from their name.

The sign-in form's field is `type=email`, and a browser refuses an address whose local part is not
ASCII (Chromium: "A part followed by '@' should not contain the symbol 'á'"): a seeded Tomás could not
sign in again after his session expired. So names are folded to ASCII letters first.
"""

import re
import unicodedata

ACCOUNT_DOMAIN = "example.test"


def email_address(*names: str, domain: str = ACCOUNT_DOMAIN) -> str:
    """`first.last@domain` in lower-case ASCII: accents dropped, anything else but letters and digits too."""
    parts = []
    for name in names:
        folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
        part = re.sub(r"[^a-z0-9]+", "", folded)
        if part:
            parts.append(part)
    if not parts:
        raise ValueError(f"no letters to make an email address from: {names!r}")
    return f"{'.'.join(parts)}@{domain}"
