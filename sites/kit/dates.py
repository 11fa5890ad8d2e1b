"""Days written in fixed English words for every site's pages and seeded text: the names live here, not in a
locale, so no machine setting can change a byte."""

from datetime import date

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_ABBREVIATIONS = tuple(name[:3] for name in MONTH_NAMES)  # 'Jan' … 'Dec'
WEEKDAY_ABBREVIATIONS = tuple(name[:3] for name in WEEKDAY_NAMES)  # 'Mon' … 'Sun'


def day_month(day: date) -> str:
    """'14 Mar'"""
    return f"{day.day} {MONTH_ABBREVIATIONS[day.month - 1]}"


def day_month_year(day: date | str) -> str:
    """'14 Mar 2025', from a date (or datetime) or an ISO day such as '2025-03-14' (the templates' filter)."""
    if isinstance(day, str):
        day = date.fromisoformat(day)
    return f"{day_month(day)} {day.year}"


def day_month_year_unless_current(day: date, today: date) -> str:
    """'14 Mar' within today's year, '14 Mar 2024' in any other (lists leave the obvious year out)."""
    return day_month(day) if day.year == today.year else day_month_year(day)


# Filters every site's templates get (make_environment registers them before the site's own).
DATE_FILTERS = {"day_month_year": day_month_year}
