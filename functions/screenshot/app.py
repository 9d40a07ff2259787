"""POST /v1/web/screenshot: a page as png, jpeg or webp (bytes, base64 JSON, or stored with a URL)."""

# First of all: start unpacking and launching the browser while the imports below run.
import webcapture.warm_start  # noqa: F401

# isort: split

from typing import Any

from aws_lambda_powertools.event_handler import Response

from webcapture.api import create_resolver, current_caller, entry_point, file_response, request_body
from webcapture.credits import Operation
from webcapture.jobs.item_worker import ItemRunner
from webcapture.models.requests import ScreenshotRequest
from webcapture.observability import tracer
from webcapture.operations.take_screenshot import capture_screenshot, screenshot_job_item

app = create_resolver()


@app.post("/v1/web/screenshot")
@tracer.capture_method
def screenshot() -> Response[Any]:
    request = request_body(app, ScreenshotRequest)
    answer = capture_screenshot(current_caller(app), request, app.current_event.headers.get("Accept"))
    return file_response(app, answer, Operation.SCREENSHOT)


# The same work for the items of a batch, from the function's SQS event source (CONTRACT 17).
lambda_handler = entry_point(app, ItemRunner(Operation.SCREENSHOT, screenshot_job_item))
