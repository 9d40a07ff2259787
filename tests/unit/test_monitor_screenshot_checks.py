"""A screenshot monitor's checks over moto (docs/monitors.md#screenshot-comparison): the screenshot function
settles the check's job and hands the check to the comparison queue once, however often its message comes;
the comparison function compares the capture with the last one (the changed region as one box, the marked
capture stored as the user's file), finishes the check once and tells the webhook; a comparison that cannot
be made fails the check, refunded on the check, its job and its key."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from PIL import Image, ImageDraw

from tests.support.jobs_records import event_of, receive_all, remaining
from webcapture import metering
from webcapture.auth import api_keys
from webcapture.credits import Operation
from webcapture.jobs import job_store
from webcapture.jobs.item_worker import ItemRunner
from webcapture.monitors import check_store, screenshot_compare, store
from webcapture.monitors.check_store import CheckKey
from webcapture.monitors.check_worker import MonitorChecks
from webcapture.monitors.comparison_handoff import COMPARISON_MESSAGE_KEY, send_for_comparison
from webcapture.monitors.schedules import check_message
from webcapture.monitors.store import Monitor
from webcapture.settings import get_settings
from webcapture.stored_files import store_image

pytest_plugins = ["tests.support.jobs_moto"]

PAGE = "http://127.0.0.1:8080/status"
BOX = (600, 300, 100, 100)  # x, y, width, height of the square that changes colour


class Shots:
    """The screenshot operation's stand-in: a 1280x800 white page with a square of the current colour, stored
    as the screenshot function stores its captures."""

    def __init__(self) -> None:
        self.colour, self.loads = (0, 0, 255), 0

    def __call__(self, caller: Any, request: Any) -> dict[str, Any]:
        with metering.metered(caller, 1):
            self.loads += 1
            image = Image.new("RGB", (1280, 800), (255, 255, 255))
            x, y, width, height = BOX
            ImageDraw.Draw(image).rectangle((x, y, x + width - 1, y + height - 1), fill=self.colour)
            png = io.BytesIO()
            image.save(png, "PNG")
            metadata = {"width": 1280, "height": 800, "format": "png", "url": request.url}
            stored = store_image(user_id=caller.user_id, page_url=request.url, image=png.getvalue(),
                                 image_format="png", metadata=metadata)
            return {"metadata": metadata, "permanentUrl": stored.public_url, "fileId": stored.file_id}


@pytest.fixture
def shots_aws(jobs_aws: dict[str, str], settings_env: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    settings_env.setenv("MONITORS_TABLE", "MonitorsTable")
    settings_env.setenv("PROFILES_TABLE", "ProfilesTable")
    settings_env.setenv("MONITORS_COMPARE_QUEUE_URL", jobs_aws["MonitorsCompareQueue"])
    get_settings.cache_clear()
    yield jobs_aws


def _monitor(record: api_keys.ApiKeyRecord, events: list[str]) -> Monitor:
    now = "2026-11-27T08:00:00.000Z"
    return store.create(Monitor(
        user_id=record.user_id, monitor_id=store.new_id(), name="status", url=PAGE, operation="screenshot",
        request={}, schedule="rate(1 hour)", timezone=None,
        webhook={"url": "https://hooks.example/in", "events": events, "metadata": {}}, threshold=0.1,
        enabled=True, scheduled_at=now, created_at=now, updated_at=now, key_hash=record.key_hash,
        key_id=record.id, limited=True))


def _scheduled(monitor: Monitor, message_id: str) -> dict[str, Any]:
    time.sleep(0.002)  # a moment apart, so the checks sort in order
    return {"MessageId": message_id, "ReceiptHandle": message_id, "Body": check_message(monitor),
            "Attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": str(int(time.time() * 1000))}}


def _run(shots: Shots, message: dict[str, Any]) -> None:
    """The message on the screenshot function, which hands its check off."""
    worker = MonitorChecks(ItemRunner(Operation.SCREENSHOT, shots), hand_off=send_for_comparison)
    event = event_of([message], "webcapture-local-ScreenshotJobsQueue")
    assert worker.handle(event, lambda: 60_000.0) == {"batchItemFailures": []}


def _compare(messages: list[dict[str, Any]], receives: int = 1) -> None:
    for message in messages:
        message["Attributes"] = {"ApproximateReceiveCount": str(receives)}
    event = event_of(messages, "webcapture-local-MonitorsCompareQueue")
    assert screenshot_compare.handle(event) == {"batchItemFailures": []}


def _checks(record: api_keys.ApiKeyRecord, monitor: Monitor) -> list[dict[str, Any]]:
    checks, _ = check_store.checks_page(record.user_id, monitor.monitor_id, 100, None)
    return checks


def _events(url: str) -> list[dict[str, Any]]:
    return [json.loads(m["Body"])["payload"] for m in receive_all(url)]


def _object(key: str) -> bytes:
    body: bytes = boto3.client("s3").get_object(Bucket=get_settings().files_bucket, Key=key)["Body"].read()
    return body


def test_a_check_is_handed_off_once_compared_there_marked_stored_and_told(shots_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, ["monitor.changed"])
    shots = Shots()
    first = _scheduled(monitor, "s-1")
    _run(shots, first)
    _run(shots, first)  # the same message again: one capture, one hand-off
    (handed,) = receive_all(shots_aws["MonitorsCompareQueue"])
    assert [c["status"] for c in _checks(record, monitor)] == ["queued"]  # until it is compared
    assert set(json.loads(handed["Body"])[COMPARISON_MESSAGE_KEY]) == {"userId", "monitorId", "queuedAt",
                                                                       "checkId"}
    _compare([handed])
    shots.colour = (255, 128, 0)
    _run(shots, _scheduled(monitor, "s-2"))
    (changed_message,) = receive_all(shots_aws["MonitorsCompareQueue"])
    _compare([changed_message])
    _compare([changed_message])  # delivered twice: the check is final, told once
    _run(shots, _scheduled(monitor, "s-3"))  # the same colour: same
    _compare(receive_all(shots_aws["MonitorsCompareQueue"]))

    same, changed, new = _checks(record, monitor)
    assert [(c["status"], c["changeStatus"]) for c in (new, changed, same)] == [
        ("completed", "new"), ("completed", "changed"), ("completed", "same")]
    assert new["diff"] is None and shots.loads == 3
    diff = changed["diff"]
    assert diff["changedRatio"] == round(100 * 100 / (1280 * 800), 6)  # rounded to 6 places
    assert diff["boxes"] == [dict(zip(("x", "y", "width", "height"), BOX, strict=True))]
    marked_record = boto3.resource("dynamodb").Table(get_settings().files_table).get_item(
        Key={"id": diff["image"]["fileId"]})["Item"]
    assert marked_record["userId"] == record.user_id and diff["image"]["fileId"] != changed["data"]["fileId"]
    assert diff["image"]["permanentUrl"].endswith(str(marked_record["storage_key"]))
    marked = Image.open(io.BytesIO(_object(str(marked_record["storage_key"])))).convert("RGB")
    x, y, _, _ = BOX
    assert marked.getpixel((x - 2, y - 2)) == (255, 0, 0)  # the outline, just outside the box
    assert marked.getpixel((x + 50, y + 50)) == (255, 128, 0)  # the new capture inside it
    assert same["diff"] == {"changedRatio": 0.0, "boxes": [], "image": {
        "permanentUrl": same["data"]["permanentUrl"], "fileId": same["data"]["fileId"]}}

    (event,) = _events(shots_aws["WebhooksQueue"])
    assert (event["type"], event["checkId"], event["changeStatus"]) == (
        "monitor.changed", changed["checkId"], "changed")
    assert sum(c["creditsCost"] for c in (new, changed, same)) == 3 == 10 - (remaining(record) or 0)


def test_a_comparison_that_cannot_be_made_fails_the_check_refunded(shots_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, ["monitor.failed", "monitor.checked"])
    shots = Shots()
    _run(shots, _scheduled(monitor, "f-1"))
    _compare(receive_all(shots_aws["MonitorsCompareQueue"]))
    _run(shots, _scheduled(monitor, "f-2"))
    (message,) = receive_all(shots_aws["MonitorsCompareQueue"])
    newest = _checks(record, monitor)[0]
    assert newest["status"] == "queued"
    key = CheckKey.from_dict(json.loads(message["Body"])[COMPARISON_MESSAGE_KEY])
    job = job_store.get_job(key.check_id)
    assert job is not None and job.credits_cost == 1 and remaining(record) == 8
    capture = _run_data(key)["fileId"]  # its capture deleted (DELETE /v1/files) before it is compared
    boto3.resource("dynamodb").Table(get_settings().files_table).delete_item(Key={"id": capture})
    _compare([message])
    _compare([message])  # again: finished, nothing more refunded or told

    failed = _checks(record, monitor)[0]
    assert (failed["status"], failed["creditsCost"], failed["error"]["code"]) == (
        "failed", 0, "INTERNAL_SERVER_ERROR")
    assert "deleted before it was compared" in failed["error"]["message"]
    refunded = job_store.get_job(key.check_id)
    assert refunded is not None and refunded.credits_cost == 0 and remaining(record) == 9
    assert [(e["type"], e["checkId"]) for e in _events(shots_aws["WebhooksQueue"])] == [
        ("monitor.checked", _checks(record, monitor)[1]["checkId"]), ("monitor.failed", key.check_id)]
    assert sum(c["creditsCost"] for c in _checks(record, monitor)) == 10 - (remaining(record) or 0)


def _run_data(key: CheckKey) -> dict[str, Any]:
    results, _ = job_store.results_page(key.check_id, -1, 1)
    data: dict[str, Any] = results[0]["data"]
    return data


def test_a_comparison_is_given_up_after_every_attempt_and_an_earlier_capture_gone_starts_anew(
        shots_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, [])
    shots = Shots()
    _run(shots, _scheduled(monitor, "g-1"))
    _compare(receive_all(shots_aws["MonitorsCompareQueue"]))
    _run(shots, _scheduled(monitor, "g-2"))
    _compare(receive_all(shots_aws["MonitorsCompareQueue"]), receives=get_settings().job_max_receives + 1)
    gone = _checks(record, monitor)[0]
    assert (gone["status"], gone["creditsCost"]) == ("failed", 0)
    assert "on any attempt" in gone["error"]["message"] and remaining(record) == 9

    first = _checks(record, monitor)[1]  # the earlier capture deleted: the next check has nothing to compare
    boto3.resource("dynamodb").Table(get_settings().files_table).delete_item(Key={"id": first["data"]["fileId"]})
    _run(shots, _scheduled(monitor, "g-3"))
    _compare(receive_all(shots_aws["MonitorsCompareQueue"]))
    anew = _checks(record, monitor)[0]
    assert (anew["status"], anew["changeStatus"], anew["diff"], anew["creditsCost"]) == (
        "completed", "new", None, 1)


def test_a_finished_check_is_never_written_again(shots_aws: dict[str, str]) -> None:
    key = CheckKey("ada", "mon_x", "2026-11-27T08:00:00.000Z", "c-1")
    check_store.add_queued(key)
    assert check_store.finish(key, "completed", change_status="new", diff=None, data={"a": 1}, credits_cost=1,
                              error=None)
    assert not check_store.finish(key, "failed", change_status=None, diff=None, data=None, credits_cost=0,
                                  error={"code": "X", "message": "y"})
    assert not check_store.fail_refunded(key, {"code": "X", "message": "y"}, credits=1, refund_key=None)
    (check,) = check_store.checks_page("ada", "mon_x", 10, None)[0]
    assert (check["status"], check["data"], check["creditsCost"]) == ("completed", {"a": 1}, 1)
