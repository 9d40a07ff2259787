"""A screenshot monitor's check compared, stored and told, in the monitors' comparison function
(docs/monitors.md#screenshot-comparison), which ships the image library the screenshot function has no
room for.

The screenshot function settles the check's job and sends the check's key here
(webcapture.monitors.comparison_handoff); the check stays `queued` until this finishes it. The new capture
is compared with the capture of the monitor's last completed check (webcapture.monitors.visual_diff, with
the monitor's threshold): `same` or `changed`, the diff `{changedRatio, boxes, image}`, `image` the new
capture with the changed regions marked, stored as the user's file like any screenshot (the capture itself
when nothing changed). The first completed check is `new`, as is one whose earlier capture no longer
exists (deleted, or expired): there is nothing to compare it with.

A check is finished once: a second delivery of the message finds it finished and does nothing. A comparison
that cannot be made (the new capture was deleted before it was compared, or bytes that are no image) fails
the check, free: its credits are refunded; AWS trouble is delivered again, and fails the check the same way
after WEBCAPTURE_JOB_MAX_RECEIVES deliveries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_table, s3_client
from webcapture.envelopes import utc_timestamp
from webcapture.jobs import job_store
from webcapture.jobs.item_delivery import receive_count
from webcapture.jobs.job_store import Job
from webcapture.jobs.sqs_records import handle_each_record
from webcapture.monitors import check_events, check_store, store
from webcapture.monitors.check_compare import Comparison
from webcapture.monitors.check_store import CheckKey
from webcapture.monitors.comparison_handoff import COMPARISON_MESSAGE_KEY
from webcapture.monitors.store import Monitor
from webcapture.monitors.visual_diff import DEFAULT_THRESHOLD, visual_diff
from webcapture.observability import logger
from webcapture.settings import get_settings
from webcapture.stored_files import SCREENSHOTS, store_file


class ComparisonImpossible(Exception):
    """The check cannot be compared, now or later: it fails (refunded) with this message."""


@dataclass(frozen=True)
class Compared:
    data: dict[str, Any]  # the screenshot's answer, stored on the check
    comparison: Comparison


def handle(event: dict[str, Any]) -> dict[str, Any]:
    """The comparison queue's records, each a check to compare; the ones to deliver again as the partial
    batch response."""
    return handle_each_record(event, _record, "screenshot check comparison")


def _record(record: dict[str, Any]) -> None:
    key = CheckKey.from_dict(json.loads(record["body"])[COMPARISON_MESSAGE_KEY])
    if not check_store.is_queued(key):
        return  # finished already: this message was delivered twice
    job = job_store.get_job(key.check_id)
    if job is None:
        logger.warning("a screenshot check to compare has no job", extra={"checkId": key.check_id})
        return
    monitor = store.find(key.user_id, key.monitor_id)
    if receive_count(record) > get_settings().job_max_receives:
        _fail(job, key, monitor, "The screenshot could not be compared on any attempt")
        return
    try:
        compared = compare_check(job, key, monitor)
    except ComparisonImpossible as impossible:
        _fail(job, key, monitor, str(impossible))
        return
    if check_store.finish(key, "completed", change_status=compared.comparison.change_status,
                          diff=compared.comparison.diff, data=compared.data, credits_cost=job.credits_cost,
                          error=None):
        check_events.check_completed(job, key, monitor, compared.comparison)


def _fail(job: Job, key: CheckKey, monitor: Monitor | None, message: str) -> None:
    error = {"code": "INTERNAL_SERVER_ERROR", "message": f"{message}; the check is not charged"}
    refund_key = job.key_hash if job.charged else None
    if check_store.fail_refunded(key, error, credits=job.credits_cost, refund_key=refund_key):
        check_events.check_failed(job, key, monitor, error)


def compare_check(job: Job, key: CheckKey, monitor: Monitor | None) -> Compared:
    """The check's screenshot against the last completed check's, its marked capture stored."""
    results, _ = job_store.results_page(job.job_id, -1, 1, budget_bytes=1 << 62)
    if not results or results[0]["status"] != "completed":
        raise ComparisonImpossible("The check's screenshot has no completed result")
    data: dict[str, Any] = results[0]["data"]
    previous = check_store.last_completed_data(key)
    if previous is None:
        return Compared(data, Comparison("new", None))
    if previous.get("fileId") == data.get("fileId"):  # one stored capture (the answer cache, maxAge)
        unchanged = {"changedRatio": 0.0, "boxes": [], "image": _image(data)}
        return Compared(data, Comparison("same", unchanged))
    new = _capture(key.user_id, data.get("fileId"))
    if new is None:
        raise ComparisonImpossible("The check's screenshot was deleted before it was compared")
    earlier = _capture(key.user_id, previous.get("fileId"))
    if earlier is None:
        return Compared(data, Comparison("new", None))  # the earlier capture is gone: a new start
    threshold = monitor.threshold if monitor is not None else DEFAULT_THRESHOLD
    try:
        visual = visual_diff(earlier, new, threshold)
    except ValueError as unreadable:
        raise ComparisonImpossible(str(unreadable)) from unreadable
    if not visual.changed:
        return Compared(data, Comparison("same", {**visual.as_json(), "image": _image(data)}))
    page_url = str((data.get("metadata") or {}).get("url") or "")
    metadata = {"width": visual.width, "height": visual.height, "format": "png",
                "size": len(visual.marked_png), "url": page_url, "timestamp": utc_timestamp(),
                "monitorId": key.monitor_id, "checkId": key.check_id}
    marked = store_file(user_id=key.user_id, page_url=page_url, body=visual.marked_png, folder=SCREENSHOTS,
                        extension="png", content_type="image/png", metadata=metadata)
    image = {"permanentUrl": marked.public_url, "fileId": marked.file_id}
    return Compared(data, Comparison("changed", {**visual.as_json(), "image": image}))


def _image(data: dict[str, Any]) -> dict[str, Any]:
    return {"permanentUrl": data.get("permanentUrl"), "fileId": data.get("fileId")}


def _capture(user_id: str, file_id: Any) -> bytes | None:
    """A stored screenshot's bytes, or None when its record or object is gone (deleted, or expired)."""
    if not isinstance(file_id, str) or not file_id:
        return None
    settings = get_settings()
    files = dynamodb_table(settings.files_table)
    record = files.get_item(Key={"id": file_id}, ConsistentRead=True).get("Item")
    if record is None or record.get("userId") != user_id:
        return None
    try:
        body = s3_client().get_object(Bucket=settings.files_bucket, Key=str(record["storage_key"]))["Body"]
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise
    content: bytes = body.read()
    return content
