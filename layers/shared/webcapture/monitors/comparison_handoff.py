"""A screenshot monitor's completed check, handed to the function that compares it
(docs/monitors.md#screenshot-comparison).

The screenshot function cannot compare two captures: the image library (Pillow, 20 MB unzipped) does not fit
beside Chromium. It sends the check's key to the comparison queue instead; the monitors' comparison function
(webcapture.monitors.screenshot_compare, which ships Pillow) takes it from there. This module imports no
image library: the screenshot function imports it.
"""

from __future__ import annotations

import json

from webcapture.aws import sqs_client
from webcapture.errors import ServiceUnavailable
from webcapture.monitors.check_store import CheckKey
from webcapture.settings import get_settings

# The comparison queue's message: {"screenshotCheck": {userId, monitorId, queuedAt, checkId}}.
COMPARISON_MESSAGE_KEY = "screenshotCheck"


def send_for_comparison(key: CheckKey) -> None:
    queue = get_settings().monitor_compare_queue
    if not queue:
        # Raised in the work function's settle: the record is delivered again, and the check waits queued.
        raise ServiceUnavailable(
            "Screenshot monitors are not configured on this deployment (no comparison queue)")
    sqs_client().send_message(QueueUrl=queue, MessageBody=json.dumps({COMPARISON_MESSAGE_KEY: key.as_dict()}))
