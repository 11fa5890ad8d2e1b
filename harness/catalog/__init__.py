"""Checking the catalog: `check.py` (`webchaos catalog check`, no browser; `a11y_html.py` reads roles
and names from rendered HTML) and `validate.py` (`webchaos validate`: fair and biting per variant)."""
