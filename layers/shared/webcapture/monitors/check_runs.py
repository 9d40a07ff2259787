"""`POST /v1/monitors/{id}/run` (docs/monitors.md#checks): a check now, queued on the operation's work queue
as the schedule's message is, with its id and time chosen here so the answer can name it. The check's item
is written `queued` first, so the checks list shows it at once."""

from __future__ import annotations

import json
import uuid

from webcapture.aws import sqs_client
from webcapture.envelopes import utc_timestamp
from webcapture.errors import ServiceUnavailable
from webcapture.monitors import check_store
from webcapture.monitors.check_store import CheckKey
from webcapture.monitors.schedules import CHECK_MESSAGE_KEY
from webcapture.monitors.store import Monitor
from webcapture.settings import get_settings


def queue_check(monitor: Monitor) -> CheckKey:
    key = CheckKey(monitor.user_id, monitor.monitor_id, utc_timestamp(), str(uuid.uuid4()))
    check_store.add_queued(key)
    message = {CHECK_MESSAGE_KEY: {"userId": key.user_id, "monitorId": key.monitor_id,
                                   "checkId": key.check_id, "queuedAt": key.queued_at}}
    queues = dict(get_settings().monitor_queues)
    if monitor.operation not in queues:
        raise ServiceUnavailable("Monitors are not configured on this deployment (no work queue for checks)")
    sqs_client().send_message(QueueUrl=queues[monitor.operation], MessageBody=json.dumps(message))
    return key
