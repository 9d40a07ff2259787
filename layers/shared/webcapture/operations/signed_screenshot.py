"""GET /v1/render/screenshot (CONTRACT 19): a screenshot from a signed link, without an Authorization
header. The link's query is the request; its signer's key pays, as for a POST."""

from __future__ import annotations

from webcapture.answer_forms import FileAnswer
from webcapture.auth.caller import Caller
from webcapture.errors import InvalidSignature, Unauthorized
from webcapture.models.requests import ScreenshotRequest
from webcapture.operations.take_screenshot import capture_screenshot
from webcapture.signing.links import verify
from webcapture.signing.query_fields import body_from_query
from webcapture.validation import validate_request

# A link in a page is fetched again and again: a day of cached answers unless the link says otherwise.
SIGNED_LINK_MAX_AGE_S = 86_400


def signed_request(params: dict[str, str]) -> tuple[Caller, ScreenshotRequest]:
    """The verified link's caller and request; 403 before anything else is read, then 422 as for a body."""
    link = verify(params)
    body = body_from_query(link.fields, ScreenshotRequest)
    body.setdefault("maxAge", SIGNED_LINK_MAX_AGE_S)
    request = validate_request(ScreenshotRequest, body)
    # The link answers the image's bytes: the JSON forms' switches do not apply.
    options = request.screenshotOptions.model_copy(update={"encoding": "binary"})
    return link.caller, request.model_copy(update={"base64": False, "screenshotOptions": options})


def capture_signed_screenshot(caller: Caller, request: ScreenshotRequest) -> FileAnswer:
    try:
        return capture_screenshot(caller, request, accept=None)
    except Unauthorized:
        # The signer's key was disabled, expired or deleted since: the link no longer holds.
        raise InvalidSignature() from None
