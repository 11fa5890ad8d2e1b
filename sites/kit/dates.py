"""Days written in fixed English words for every site's pages and seeded text: the names live here, not in a
locale, so no machine setting can change a byte."""

from datetime import date

from scenarios.clock import parse_iso

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December")
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_ABBREVIATIONS = tuple(name[:3] for name in MONTH_NAMES)  # 'Jan' … 'Dec'
WEEKDAY_ABBREVIATIONS = tuple(name[:3] for name in WEEKDAY_NAMES)  # 'Mon' … 'Sun'


def day_month(day: date) -> str:
    """'14 Mar'"""
    return f"{day.day} {MONTH_ABBREVIATIONS[day.month - 1]}"


def day_month_year(day: date | str) -> str:
    """'14 Mar 2025', from a date (or datetime), an ISO day such as '2025-03-14' or a stamp such as
    '2025-03-14T09:30:00Z' (the templates' filter)."""
    if isinstance(day, str):
        day = parse_iso(day) if "T" in day else date.fromisoformat(day)
    return f"{day_month(day)} {day.year}"


def day_month_year_unless_current(day: date, today: date) -> str:
    """'14 Mar' within today's year, '14 Mar 2024' in any other (lists leave the obvious year out)."""
    return day_month(day) if day.year == today.year else day_month_year(day)


def month_day(day: date) -> str:
    """'March 14' (the US order)"""
    return f"{MONTH_NAMES[day.month - 1]} {day.day}"


def month_day_year(day: date) -> str:
    """'March 14, 2025' (the US order)"""
    return f"{month_day(day)}, {day.year}"


def weekday_day_month(day: date) -> str:
    """'Tue 14 Jan'"""
    return f"{WEEKDAY_ABBREVIATIONS[day.weekday()]} {day_month(day)}"


def month_year(month: date | str) -> str:
    """'January 2025', from a date or an ISO month such as '2025-01' (a ValueError for any other text)."""
    if isinstance(month, str):
        month = date.fromisoformat(f"{month}-01")
    return f"{MONTH_NAMES[month.month - 1]} {month.year}"


def day_label(stamp: str) -> str:
    """'Tue 14 Jan', from a stamp ('2025-01-14T09:30:00Z', in UTC as every stamp is) or an ISO day."""
    return weekday_day_month(date.fromisoformat(stamp[:10]))


def time_label(stamp: str) -> str:
    """'2025-01-14T09:30:00Z' -> '9:30 AM' (a 12-hour clock, 'PM' from noon)."""
    moment = parse_iso(stamp)
    return f"{(moment.hour - 1) % 12 + 1}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


# Filters every site's templates get (make_environment registers them before the site's own).
DATE_FILTERS = {"day_month_year": day_month_year, "month_year": month_year}
