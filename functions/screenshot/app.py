"""POST /v1/web/screenshot: a page as png, jpeg or webp (bytes, base64 JSON, or stored with a URL); and
GET /v1/render/screenshot, the same from a signed link (no Authorization header)."""

# First of all: start unpacking and launching the browser while the imports below run.
import webcapture.warm_start  # noqa: F401

# isort: split

from typing import Any

from aws_lambda_powertools.event_handler import Response

from webcapture.cached_responses import cached_response, file_form
from webcapture.credits import Operation
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, request_body
from webcapture.errors import InvalidSignature, Unauthorized
from webcapture.jobs.item_worker import ItemRunner
from webcapture.models.requests import ScreenshotRequest
from webcapture.monitors.check_worker import MonitorChecks
from webcapture.monitors.comparison_handoff import send_for_comparison
from webcapture.observability import tracer
from webcapture.operations.signed_screenshot import capture_signed_screenshot, signed_request
from webcapture.operations.take_screenshot import (
    capture_screenshot,
    screenshot_job_item,
    stored_screenshot_request,
)
from webcapture.signing.links import single_values

app = create_resolver()


@app.post("/v1/web/screenshot")
@tracer.capture_method
def screenshot() -> Response[Any]:
    request = request_body(app, ScreenshotRequest)
    caller, accept = current_caller(app), app.current_event.headers.get("Accept")
    return cached_response(app, caller, Operation.SCREENSHOT, request,
                           lambda: capture_screenshot(caller, request, accept),
                           form=file_form(request.wants_base64, accept, "image/"))


@app.get("/v1/render/screenshot")
@tracer.capture_method
def signed_screenshot() -> Response[Any]:
    caller, request = signed_request(single_values(app.current_event.raw_event))
    try:
        response = cached_response(app, caller, Operation.SCREENSHOT, request,
                                   lambda: capture_signed_screenshot(caller, request), form="bytes")
    except Unauthorized:
        # A cached image of a signer whose key was disabled or deleted since: the link no longer holds.
        raise InvalidSignature() from None
    # For CloudFront and browsers: the same link is the same image for as long as the cache keeps it.
    response.headers["Cache-Control"] = f"public, max-age={request.maxAge}"
    return response


# The same work for the items of a batch, from the function's SQS event source (docs/jobs.md#jobs), and for
# monitors' checks (docs/monitors.md#checks); an item shares the cache entry of the stored JSON answer. A
# check's capture is compared by the monitors' comparison function, where the image library fits
# (docs/monitors.md#screenshot-comparison).
items = ItemRunner(Operation.SCREENSHOT, screenshot_job_item,
                   sync_request=stored_screenshot_request, form="json")
lambda_handler = entry_point(app, MonitorChecks(items, hand_off=send_for_comparison))
