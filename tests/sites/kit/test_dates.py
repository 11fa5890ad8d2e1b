"""The kit's day formatting: fixed English names, the shapes every site's pages print, the templates' filter."""

from datetime import date, datetime
from pathlib import Path

import pytest

from sites.kit.dates import (
    MONTH_ABBREVIATIONS,
    MONTH_NAMES,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAY_NAMES,
    day_label,
    day_month,
    day_month_year,
    day_month_year_unless_current,
    month_day,
    month_day_year,
    month_year,
    time_label,
    weekday_day_month,
)
from sites.kit.templating import make_environment


def test_names_are_english_and_abbreviations_are_their_first_three_letters() -> None:
    assert len(MONTH_NAMES) == 12 and MONTH_NAMES[0] == "January" and MONTH_NAMES[8] == "September"
    assert MONTH_ABBREVIATIONS == ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                   "Dec")
    assert WEEKDAY_NAMES[date(2025, 3, 14).weekday()] == "Friday"
    assert WEEKDAY_ABBREVIATIONS == ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def test_day_month_has_no_leading_zero() -> None:
    assert day_month(date(2025, 3, 4)) == "4 Mar"
    assert day_month(date(2025, 12, 31)) == "31 Dec"


def test_day_month_year_takes_a_date_a_datetime_or_an_iso_day() -> None:
    assert day_month_year(date(2025, 3, 14)) == "14 Mar 2025"
    assert day_month_year(datetime(2024, 1, 2, 23, 59)) == "2 Jan 2024"
    assert day_month_year("2025-11-03") == "3 Nov 2025"


def test_day_month_year_reads_a_stamp_as_its_day() -> None:
    assert day_month_year("2025-03-14T23:59:00Z") == "14 Mar 2025"


def test_day_month_year_refuses_a_string_that_is_not_an_iso_day() -> None:
    with pytest.raises(ValueError):
        day_month_year("14/03/2025")
    with pytest.raises(ValueError):
        day_month_year("2025-03-14T23:59")


def test_the_other_day_shapes_the_sites_print() -> None:
    day = date(2025, 1, 14)
    assert weekday_day_month(day) == "Tue 14 Jan"
    assert month_day(day) == "January 14" and month_day_year(day) == "January 14, 2025"
    assert month_year("2025-01") == month_year(day) == "January 2025"
    assert day_label("2025-01-14T09:30:00Z") == day_label("2025-01-14") == "Tue 14 Jan"
    with pytest.raises(ValueError):
        month_year("2025-13")


def test_time_label_is_a_twelve_hour_clock() -> None:
    assert [time_label(f"2025-01-14T{hour:02d}:05:00Z") for hour in (0, 9, 11, 12, 13, 23)] == [
        "12:05 AM", "9:05 AM", "11:05 AM", "12:05 PM", "1:05 PM", "11:05 PM"]


def test_the_year_is_left_out_only_within_the_current_year() -> None:
    today = date(2025, 6, 1)
    assert day_month_year_unless_current(date(2025, 1, 9), today) == "9 Jan"
    assert day_month_year_unless_current(date(2025, 12, 31), today) == "31 Dec"
    assert day_month_year_unless_current(date(2024, 12, 31), today) == "31 Dec 2024"
    assert day_month_year_unless_current(date(2026, 1, 1), today) == "1 Jan 2026"
    assert day_month_year_unless_current(datetime(2025, 2, 3, 9, 14), datetime(2025, 5, 5, 8, 0)) == "3 Feb"


def test_every_site_environment_has_the_date_filter_and_a_site_filter_wins_on_a_shared_name(tmp_path: Path) -> None:
    (tmp_path / "day.html").write_text("{{ when | day_month_year }}")
    assert make_environment(tmp_path).get_template("day.html").render(when="2025-03-14") == "14 Mar 2025"
    (tmp_path / "month.html").write_text("{{ when | month_year }}")
    assert make_environment(tmp_path).get_template("month.html").render(when=date(2025, 3, 14)) == "March 2025"
    own = make_environment(tmp_path, {"day_month_year": lambda value: f"site:{value}"})
    assert own.get_template("day.html").render(when="2025-03-14") == "site:2025-03-14"
