"""A monitor's `schedule` (docs/monitors.md#schedules): `rate(N minute|minutes|hour|hours|day|days)` or an
EventBridge `cron(minutes hours day-of-month month day-of-week year)` expression.

EventBridge Scheduler checks expressions when a schedule is created, but its answer is a 400 about the
whole call; here each is parsed first, so a bad one is a 422 on `schedule` that says what to fix, and the
next run can be answered (`nextRunAt`) without asking AWS.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

MIN_RATE_MINUTES = 1
_RATE = re.compile(r"rate\(\s*(\d+)\s+([a-z]+)\s*\)")
_CRON = re.compile(r"cron\((.*)\)", re.DOTALL)
_UNITS = {"minute": 1, "minutes": 1, "hour": 60, "hours": 60, "day": 1440, "days": 1440}
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"))}
# EventBridge numbers days of the week 1 (SUN) to 7 (SAT).
_DAYS = {name: i + 1 for i, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))}
_MAX_YEAR = 2199
# How far ahead nextRunAt is looked for: a cron that names only past years (or 31 February) has none.
_SEARCH_DAYS = 366 * 5


class BadSchedule(ValueError):
    """The message says what to write instead."""


@dataclass(frozen=True)
class Field:
    """One cron field: the values it allows, or a day rule (L, W, #) decided per month."""

    values: frozenset[int]
    any: bool  # `*` or `?`
    last_day: bool = False  # L (day of month) or nL (day of week: the month's last such day)
    nearest_weekday: int | None = None  # nW
    nth_weekday: tuple[int, int] | None = None  # d#n


@dataclass(frozen=True)
class Schedule:
    expression: str  # as EventBridge Scheduler takes it
    rate_minutes: int | None  # None for a cron
    fields: tuple[Field, ...] = ()

    def next_run(self, after: datetime, timezone: str | None, started: datetime) -> datetime | None:
        """The first run strictly after `after` (UTC). A rate runs every N minutes from `started` (when the
        schedule was set); a cron reads its fields in `timezone` (UTC when none)."""
        if self.rate_minutes is not None:
            step = timedelta(minutes=self.rate_minutes)
            if after < started:
                return started + step
            return started + step * ((after - started) // step + 1)
        return _next_cron(self.fields, after, ZoneInfo(timezone) if timezone else UTC)


def parse_schedule(text: str) -> Schedule:
    text = text.strip()
    if rate := _RATE.fullmatch(text):
        count, unit = int(rate.group(1)), rate.group(2)
        if unit not in _UNITS:
            raise BadSchedule(f"a rate's unit is minutes, hours or days (at least 1 minute), not {unit!r}; "
                              "for example rate(5 minutes)")
        if count < MIN_RATE_MINUTES:
            raise BadSchedule("a rate must be at least 1 minute; for example rate(1 minute)")
        base = unit.rstrip("s")
        return Schedule(f"rate({count} {base}{'' if count == 1 else 's'})", count * _UNITS[unit])
    if cron := _CRON.fullmatch(text):
        return Schedule(f"cron({' '.join(cron.group(1).split())})", None, _cron_fields(cron.group(1)))
    if text.startswith("rate("):
        raise BadSchedule("write a rate as rate(N minutes|hours|days), at least 1 minute; "
                          "for example rate(5 minutes)")
    raise BadSchedule("a schedule is rate(N minutes|hours|days) or cron(minutes hours day-of-month month "
                      "day-of-week year); for example rate(1 hour) or cron(0 9 ? * MON-FRI *)")


def _cron_fields(body: str) -> tuple[Field, ...]:
    parts = body.split()
    if len(parts) != 6:
        raise BadSchedule(f"a cron has 6 fields (minutes hours day-of-month month day-of-week year), not "
                          f"{len(parts)}; for example cron(0 9 ? * MON-FRI *)")
    minutes = _field(parts[0], 0, 59, {}, "minutes")
    hours = _field(parts[1], 0, 23, {}, "hours")
    day_of_month = _field(parts[2], 1, 31, {}, "day-of-month", day_rules="month")
    month = _field(parts[3], 1, 12, _MONTHS, "month")
    day_of_week = _field(parts[4], 1, 7, _DAYS, "day-of-week", day_rules="week")
    year = _field(parts[5], 1970, _MAX_YEAR, {}, "year")
    if (parts[2] == "?") == (parts[4] == "?"):
        raise BadSchedule("a cron needs ? in exactly one of day-of-month and day-of-week; "
                          "for example cron(0 9 ? * MON-FRI *) or cron(0 9 1 * ? *)")
    if "?" in (parts[0], parts[1], parts[3], parts[5]):
        raise BadSchedule("? is only for day-of-month or day-of-week")
    return (minutes, hours, day_of_month, month, day_of_week, year)


def _value(text: str, low: int, high: int, names: dict[str, int], what: str) -> int:
    upper = text.upper()
    if upper in names:
        return names[upper]
    if not text.isdigit():
        spelled = f", or {next(iter(names))}-{list(names)[-1]}" if names else ""
        raise BadSchedule(f"{text!r} is not a valid {what} value ({low}-{high}{spelled})")
    number = int(text)
    if not low <= number <= high:
        raise BadSchedule(f"{what} must be {low}-{high}, not {number}")
    return number


def _field(text: str, low: int, high: int, names: dict[str, int], what: str,
           day_rules: str | None = None) -> Field:
    if text in ("*", "?"):
        if text == "?" and day_rules is None:
            raise BadSchedule("? is only for day-of-month or day-of-week")
        return Field(frozenset(range(low, high + 1)), any=True)
    upper = text.upper()
    if day_rules == "month":
        if upper == "L":
            return Field(frozenset(), any=False, last_day=True)
        if upper.endswith("W") and upper[:-1].isdigit():
            return Field(frozenset(), any=False, nearest_weekday=_value(upper[:-1], 1, 31, {}, what))
    if day_rules == "week":
        if "#" in upper:
            day, _, nth = upper.partition("#")
            if not nth.isdigit() or not 1 <= int(nth) <= 5:
                raise BadSchedule(f"in {text!r}, the week of the month after # is 1-5")
            return Field(frozenset(), any=False, nth_weekday=(_value(day, 1, 7, names, what), int(nth)))
        if upper.endswith("L") and len(upper) > 1:
            return Field(frozenset({_value(upper[:-1], 1, 7, names, what)}), any=False, last_day=True)
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise BadSchedule(f"the {what} field {text!r} has an empty entry")
        span, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) < 1:
                raise BadSchedule(f"in {part!r}, the step after / must be a whole number >= 1")
            step = int(step_text)
        if span == "*":
            first, last = low, high
        elif "-" in span:
            start, _, end = span.partition("-")
            first, last = _value(start, low, high, names, what), _value(end, low, high, names, what)
            if first > last:
                raise BadSchedule(f"the {what} range {span!r} runs backwards")
        else:
            first = _value(span, low, high, names, what)
            last = high if step_text else first
        values.update(range(first, last + 1, step))
    return Field(frozenset(values), any=False)


def _day_matches(day_of_month: Field, day_of_week: Field, year: int, month: int, day: int) -> bool:
    days_in_month = calendar.monthrange(year, month)[1]
    weekday = (calendar.weekday(year, month, day) + 1) % 7 + 1  # Monday=0 in calendar; SUN=1 here
    if not day_of_month.any:
        if day_of_month.last_day:
            return day == days_in_month
        if day_of_month.nearest_weekday is not None:
            return day == _nearest_weekday(year, month, min(day_of_month.nearest_weekday, days_in_month))
        return day in day_of_month.values
    if day_of_week.any:
        return True
    if day_of_week.nth_weekday is not None:
        wanted, nth = day_of_week.nth_weekday
        return weekday == wanted and (day - 1) // 7 + 1 == nth
    if day_of_week.last_day:
        return weekday in day_of_week.values and day + 7 > days_in_month
    return weekday in day_of_week.values


def _nearest_weekday(year: int, month: int, day: int) -> int:
    weekday = calendar.weekday(year, month, day)  # Monday=0
    days_in_month = calendar.monthrange(year, month)[1]
    if weekday == 5:  # Saturday: the Friday before, or the Monday after on the 1st
        return day - 1 if day > 1 else day + 2
    if weekday == 6:  # Sunday: the Monday after, or the Friday before on the month's last day
        return day + 1 if day < days_in_month else day - 2
    return day


def _next_cron(fields: tuple[Field, ...], after: datetime, zone: tzinfo) -> datetime | None:
    minutes, hours, day_of_month, month, day_of_week, year = fields
    local = after.astimezone(zone)
    day = local.date()
    for _ in range(_SEARCH_DAYS):
        if (day.year in year.values and day.month in month.values
                and _day_matches(day_of_month, day_of_week, day.year, day.month, day.day)):
            for hour in sorted(hours.values):
                for minute in sorted(minutes.values):
                    candidate = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
                    if candidate.astimezone(UTC) > after:
                        return candidate.astimezone(UTC)
        day += timedelta(days=1)
    return None
