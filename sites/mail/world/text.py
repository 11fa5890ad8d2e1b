"""Calendar and text formatting for mail bodies: the kit's fixed English names, so no locale can change a byte."""

from datetime import date, datetime

from sites.kit.dates import MONTH_NAMES, WEEKDAY_ABBREVIATIONS, WEEKDAY_NAMES, day_month_year

MINUTES_PER_DAY = 24 * 60


def day_text(day: date) -> str:
    """'Thursday 14 March'"""
    return f"{WEEKDAY_NAMES[day.weekday()]} {day.day} {MONTH_NAMES[day.month - 1]}"


def quote_stamp(moment: datetime) -> str:
    """'Thu, 14 Mar 2025 at 09:14'"""
    return f"{WEEKDAY_ABBREVIATIONS[moment.weekday()]}, {day_month_year(moment)} at {moment:%H:%M}"


def money(cents: int) -> str:
    whole, frac = divmod(cents, 100)
    return f"${whole:,}.{frac:02d}"


def clock_time(hour: int, minute: int) -> str:
    suffix = "am" if hour < 12 else "pm"
    shown = hour % 12 or 12
    return f"{shown}:{minute:02d} {suffix}" if minute else f"{shown} {suffix}"


def slug(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
