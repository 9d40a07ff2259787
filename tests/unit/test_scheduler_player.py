"""The local API's EventBridge Scheduler (localapi/scheduler_player.py) over moto in-process: a rate fires
every N minutes from when it was set, an at() once, a disabled schedule never, a deleted one is forgotten;
what fires is the target's input on the target queue."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws

from localapi.scheduler_player import SchedulerPlayer

GROUP = "player-test"
ROLE = "arn:aws:iam::123456789012:role/r"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any, str]]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        scheduler, sqs = boto3.client("scheduler"), boto3.client("sqs")
        scheduler.create_schedule_group(Name=GROUP)
        url = sqs.create_queue(QueueName="checks")["QueueUrl"]
        yield scheduler, sqs, url


def _add(scheduler: Any, name: str, expression: str, state: str = "ENABLED") -> datetime:
    scheduler.create_schedule(Name=name, GroupName=GROUP, ScheduleExpression=expression, State=state,
                              FlexibleTimeWindow={"Mode": "OFF"},
                              Target={"Arn": "arn:aws:sqs:us-east-1:123456789012:checks", "RoleArn": ROLE,
                                      "Input": f'{{"from": "{name}"}}'})
    modified: datetime = scheduler.get_schedule(Name=name, GroupName=GROUP)["LastModificationDate"]
    return modified


def _bodies(sqs: Any, url: str) -> list[str]:
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
    for message in got:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return sorted(m["Body"] for m in got)


def test_rates_fire_on_time_and_disabled_or_deleted_schedules_do_not(aws: tuple[Any, Any, str]) -> None:
    scheduler, sqs, url = aws
    set_at = _add(scheduler, "every-minute", "rate(1 minute)")
    _add(scheduler, "paused", "rate(1 minute)", state="DISABLED")
    once = (set_at + timedelta(seconds=90)).strftime("%Y-%m-%dT%H:%M:%S")
    _add(scheduler, "once", f"at({once})")
    player = SchedulerPlayer(scheduler, sqs, (GROUP,))
    assert player.tick(set_at + timedelta(seconds=30)) == []
    assert player.tick(set_at + timedelta(seconds=61)) == ["every-minute"]
    assert player.tick(set_at + timedelta(seconds=62)) == []  # once per minute, not once per tick
    assert sorted(player.tick(set_at + timedelta(seconds=121))) == ["every-minute", "once"]
    assert player.tick(set_at + timedelta(seconds=400)) == ["every-minute"]  # at() fired once, for good
    assert _bodies(sqs, url) == ['{"from": "every-minute"}'] * 3 + ['{"from": "once"}']
    scheduler.delete_schedule(Name="every-minute", GroupName=GROUP)
    assert player.tick(set_at + timedelta(seconds=500)) == []


def test_at_a_schedule_speed_a_schedule_fires_that_many_times_as_often(aws: tuple[Any, Any, str]) -> None:
    """`--schedule-speed 10` (tests that wait for firings): a rate(1 minute) every 6 s from when it was set,
    an at() at a tenth of its distance from then; the default speed is the real timing (above)."""
    scheduler, sqs, url = aws
    set_at = _add(scheduler, "every-minute", "rate(1 minute)")
    once = (set_at + timedelta(seconds=90)).strftime("%Y-%m-%dT%H:%M:%S")
    _add(scheduler, "once", f"at({once})")
    player = SchedulerPlayer(scheduler, sqs, (GROUP,), speed=10)
    assert player.tick(set_at + timedelta(seconds=5)) == []
    assert player.tick(set_at + timedelta(seconds=6.1)) == ["every-minute"]
    assert player.tick(set_at + timedelta(seconds=6.2)) == []
    assert sorted(player.tick(set_at + timedelta(seconds=9.5))) == ["once"]
    assert player.tick(set_at + timedelta(seconds=12.1)) == ["every-minute"]
    assert player.tick(set_at + timedelta(seconds=40)) == ["every-minute"]  # late: once, not once per missed
    assert _bodies(sqs, url) == ['{"from": "every-minute"}'] * 3 + ['{"from": "once"}']
