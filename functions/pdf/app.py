"""POST /v1/web/pdf: a page printed to PDF (bytes, base64 JSON, or stored with a URL)."""

# First of all: start unpacking and launching the browser while the imports below run.
import webcapture.warm_start  # noqa: F401

# isort: split

from typing import Any

from aws_lambda_powertools.event_handler import Response

from webcapture.browser.pdf import CONTENT_TYPE
from webcapture.cached_responses import cached_response, file_form
from webcapture.credits import Operation
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, request_body
from webcapture.jobs.item_worker import ItemRunner
from webcapture.models.requests import PdfRequest
from webcapture.observability import tracer
from webcapture.operations.print_pdf import capture_pdf, pdf_job_item, stored_pdf_request

app = create_resolver()


@app.post("/v1/web/pdf")
@tracer.capture_method
def pdf() -> Response[Any]:
    request = request_body(app, PdfRequest)
    caller, accept = current_caller(app), app.current_event.headers.get("Accept")
    return cached_response(app, caller, Operation.PDF, request, lambda: capture_pdf(caller, request, accept),
                           form=file_form(request.base64, accept, CONTENT_TYPE))


# The same work for the items of a batch, from the function's SQS event source (CONTRACT 17); an item
# shares the cache entry of the stored JSON answer.
items = ItemRunner(Operation.PDF, pdf_job_item, sync_request=stored_pdf_request, form="json")
lambda_handler = entry_point(app, items)
