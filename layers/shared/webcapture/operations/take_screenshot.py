"""POST /v1/web/screenshot (CONTRACT 7, 12): capture, answer as bytes, JSON, or a 303 to the stored file."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Literal

from webcapture import egress
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.browser.screenshot import Screenshot, take_screenshot
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import ScreenshotRequest
from webcapture.response_limits import fits_inline_base64
from webcapture.stored_files import store_image

TOO_LARGE_INLINE = "The image is too large to return inline; fetch it from permanentUrl."


@dataclass(frozen=True)
class ScreenshotAnswer:
    form: Literal["binary", "json", "redirect"]
    image: bytes = b""
    content_type: str = ""
    data: dict[str, Any] | None = None
    location: str = ""
    warnings: tuple[str, ...] = ()  # the binary form's X-Webcapture-Warning (JSON forms: data.warning)


def prefers_json(accept: str | None, binary_type: str = "image/") -> bool:
    """Whether the Accept header ranks application/json above the binary type (ties go to the binary).

    `binary_type` is a media type, or a prefix ending in "/" for a whole family ("image/").
    """
    json_q, image_q = 0.0, 0.0
    for part in (accept or "").split(","):
        media, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        media = media.lower()
        if media == "application/json":
            json_q = max(json_q, quality)
        elif media == "*/*" or media == f"{binary_type.split('/')[0]}/*" or (
            media.startswith(binary_type) if binary_type.endswith("/") else media == binary_type
        ):
            image_q = max(image_q, quality)
    return json_q > 0 and json_q > image_q


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
    return with_warnings({"metadata": metadata, "permanentUrl": stored.public_url, "fileId": stored.file_id},
                         shot.warnings)


def capture_screenshot(caller: Caller, request: ScreenshotRequest, accept: str | None) -> ScreenshotAnswer:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.SCREENSHOT)):
        shot = take_screenshot(request)
        if request.wants_base64:
            data = _stored_data(caller, shot)
            if fits_inline_base64(len(shot.image)):
                data = {"image": base64.b64encode(shot.image).decode(), **data}
            else:
                data = with_warnings(data, [TOO_LARGE_INLINE])
            return ScreenshotAnswer("json", data=data)
        if prefers_json(accept):
            return ScreenshotAnswer("json", data=_stored_data(caller, shot))
        if fits_inline_base64(len(shot.image)):
            return ScreenshotAnswer(
                "binary", image=shot.image, content_type=shot.content_type, warnings=shot.warnings
            )
        data = _stored_data(caller, shot)
        return ScreenshotAnswer("redirect", data=data, location=data["permanentUrl"])
