"""Monitor schedules read by the service (docs/monitors.md#schedules): what EventBridge Scheduler takes,
what it is refused with, and when each fires next."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from webcapture.monitors.schedule_expressions import BadSchedule, parse_schedule

NOW = datetime(2026, 11, 27, 4, 20, 30, tzinfo=UTC)  # a Friday


@pytest.mark.parametrize(("text", "written"), [
    ("rate(1 minute)", "rate(1 minute)"), ("rate(1 minutes)", "rate(1 minute)"),
    ("rate(2 hour)", "rate(2 hours)"), ("rate(7 days)", "rate(7 days)"),
    (" cron(0  9 ? * MON-FRI *) ", "cron(0 9 ? * MON-FRI *)"),
])
def test_expressions_are_written_as_the_scheduler_takes_them(text: str, written: str) -> None:
    assert parse_schedule(text).expression == written


@pytest.mark.parametrize(("text", "says"), [
    ("rate(30 seconds)", "at least 1 minute"), ("rate(0 minutes)", "at least 1 minute"),
    ("rate(five minutes)", "rate(N minutes|hours|days)"), ("cron(nonsense)", "6 fields"),
    ("cron(0 9 * * * *)", "exactly one of day-of-month and day-of-week"),
    ("cron(0 9 ? * ? *)", "exactly one of day-of-month and day-of-week"),
    ("cron(60 * * * ? *)", "minutes must be 0-59"), ("cron(0 0 ? * FUNDAY *)", "SUN-SAT"),
    ("cron(0 0 ? * 2#6 *)", "1-5"), ("cron(0 0 5-1 * ? *)", "backwards"), ("cron(0/0 * * * ? *)", "step"),
    ("at(2026-12-01T00:00:00)", "a schedule is rate("), ("every day", "a schedule is rate("),
])
def test_bad_expressions_say_what_to_write(text: str, says: str) -> None:
    with pytest.raises(BadSchedule) as refused:
        parse_schedule(text)
    assert says in str(refused.value)


def test_a_rate_fires_every_n_minutes_from_when_it_was_set() -> None:
    started = datetime(2026, 11, 27, 4, 0, tzinfo=UTC)
    schedule = parse_schedule("rate(15 minutes)")
    assert schedule.next_run(NOW, None, started) == datetime(2026, 11, 27, 4, 30, tzinfo=UTC)
    assert schedule.next_run(started, None, started) == datetime(2026, 11, 27, 4, 15, tzinfo=UTC)


@pytest.mark.parametrize(("text", "zone", "expected"), [
    ("cron(0/15 * * * ? *)", None, datetime(2026, 11, 27, 4, 30, tzinfo=UTC)),
    # 09:00 in Berlin (UTC+1 in November) on the next weekday: today, Friday.
    ("cron(0 9 ? * MON-FRI *)", "Europe/Berlin", datetime(2026, 11, 27, 8, 0, tzinfo=UTC)),
    ("cron(0 9 ? * SAT *)", None, datetime(2026, 11, 28, 9, 0, tzinfo=UTC)),
    ("cron(0 12 L * ? *)", None, datetime(2026, 11, 30, 12, 0, tzinfo=UTC)),
    ("cron(0 8 ? * 6#3 *)", None, datetime(2026, 12, 18, 8, 0, tzinfo=UTC)),  # third Friday
    ("cron(0 8 ? * 2L *)", None, datetime(2026, 11, 30, 8, 0, tzinfo=UTC)),  # last Monday
    ("cron(0 8 15W * ? *)", None, datetime(2026, 12, 15, 8, 0, tzinfo=UTC)),
    ("cron(0 8 1W * ? *)", None, datetime(2026, 12, 1, 8, 0, tzinfo=UTC)),
    ("cron(0 0 1 JAN ? 2028)", None, datetime(2028, 1, 1, 0, 0, tzinfo=UTC)),
    ("cron(0 0 1 JAN ? 2020)", None, None),  # only past years: never again
])
def test_a_cron_fires_when_its_fields_next_match(text: str, zone: str | None, expected: datetime | None) -> None:
    assert parse_schedule(text).next_run(NOW, zone, NOW) == expected
