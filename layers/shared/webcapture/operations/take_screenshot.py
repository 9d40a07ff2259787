"""POST /v1/web/screenshot (CONTRACT 7, 12): capture, answer as bytes, JSON, or a 303 to the stored file
(the forms: webcapture.answer_forms)."""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.answer_forms import FileAnswer, MadeFile, answer_with_file, stored_data
from webcapture.auth.caller import Caller
from webcapture.browser.screenshot import Screenshot, take_screenshot
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import ScreenshotRequest
from webcapture.stored_files import store_image


def _metadata(shot: Screenshot) -> dict[str, Any]:
    return {
        "width": shot.width,
        "height": shot.height,
        "format": shot.format,
        "size": shot.size,
        "url": shot.final_url,
        "timestamp": utc_timestamp(),
        "statusCode": shot.status_code,
        "requestedUrl": shot.requested_url,
    }


def _stored_data(caller: Caller, shot: Screenshot) -> dict[str, Any]:
    metadata = _metadata(shot)
    stored = store_image(user_id=caller.user_id, page_url=shot.final_url, image=shot.image,
                         image_format=shot.format, metadata=metadata)
    return stored_data(stored, metadata, shot.warnings)


def capture_screenshot(caller: Caller, request: ScreenshotRequest, accept: str | None) -> FileAnswer:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.SCREENSHOT)):
        shot = take_screenshot(request)
        made = MadeFile(shot.image, shot.content_type, "image", shot.warnings, shot.status_code)
        return answer_with_file(made,
                                wants_base64=request.wants_base64, accept=accept, binary_type="image/",
                                store=lambda: _stored_data(caller, shot))


def stored_screenshot_request(request: ScreenshotRequest) -> ScreenshotRequest:
    """A job's screenshot as the synchronous request it answers as: stored, no bytes inline (its answer to
    `Accept: application/json`, whose cache entry it shares)."""
    options = request.screenshotOptions.model_copy(update={"encoding": "binary"})
    return request.model_copy(update={"base64": False, "screenshotOptions": options})


def screenshot_job_item(caller: Caller, request: ScreenshotRequest) -> dict[str, Any]:
    """A job's screenshot (CONTRACT 17): always stored, answered as the JSON form (no bytes in a job)."""
    return capture_screenshot(caller, stored_screenshot_request(request), "application/json").data or {}
