"""POST /v1/web/ai-extract: structured data or text from a page, by an OpenAI-compatible model."""

# First of all: start unpacking and launching the browser while the imports below run.
import webcapture.warm_start  # noqa: F401

# isort: split

from typing import Any

from aws_lambda_powertools.event_handler import Response

from webcapture.cached_responses import cached_response, json_answer
from webcapture.credits import Operation
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, request_body
from webcapture.jobs.item_worker import ItemRunner
from webcapture.models.requests import AiExtractRequest
from webcapture.monitors.check_worker import MonitorChecks
from webcapture.observability import tracer
from webcapture.operations.extract_from_page import extract_from_page

app = create_resolver()


@app.post("/v1/web/ai-extract")
@tracer.capture_method
def ai_extract() -> Response[Any]:
    request = request_body(app, AiExtractRequest)
    caller = current_caller(app)
    return cached_response(app, caller, Operation.AI_EXTRACT, request,
                           lambda: json_answer(extract_from_page(caller, request)))


# The same work for the items of a batch, from the function's SQS event source (docs/jobs.md#jobs).
# Batch items and monitors' checks alike (docs/monitors.md#checks).
lambda_handler = entry_point(app, MonitorChecks(ItemRunner(Operation.AI_EXTRACT, extract_from_page)))
