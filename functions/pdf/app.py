"""POST /v1/web/pdf: a page printed to PDF (bytes, base64 JSON, or stored with a URL)."""

# First of all: start unpacking and launching the browser while the imports below run.
import webcapture.warm_start  # noqa: F401

# isort: split

from typing import Any

from aws_lambda_powertools.event_handler import Response

from webcapture.api import (
    binary,
    create_resolver,
    current_caller,
    entry_point,
    request_body,
    see_other,
    success,
)
from webcapture.browser.pdf import CONTENT_TYPE
from webcapture.credits import Operation
from webcapture.models.requests import PdfRequest
from webcapture.observability import tracer
from webcapture.operations.print_pdf import capture_pdf

app = create_resolver()


@app.post("/v1/web/pdf")
@tracer.capture_method
def pdf() -> Response[Any]:
    request = request_body(app, PdfRequest)
    answer = capture_pdf(current_caller(app), request, app.current_event.headers.get("Accept"))
    if answer.form == "binary":
        return binary(app, answer.document, CONTENT_TYPE, answer.warnings)
    if answer.form == "redirect":
        return see_other(app, answer.location, answer.data or {}, Operation.PDF)
    return success(app, answer.data or {}, Operation.PDF)


lambda_handler = entry_point(app)
