"""POST /v1/web/ai-extract: structured data or text from a page, by an OpenAI-compatible model."""

# First of all: start unpacking and launching the browser while the imports below run.
import webcapture.warm_start  # noqa: F401

# isort: split

from aws_lambda_powertools.event_handler import Response

from webcapture.api import create_resolver, current_caller, entry_point, request_body, success
from webcapture.credits import Operation
from webcapture.jobs.item_worker import ItemRunner
from webcapture.models.requests import AiExtractRequest
from webcapture.observability import tracer
from webcapture.operations.extract_from_page import extract_from_page

app = create_resolver()


@app.post("/v1/web/ai-extract")
@tracer.capture_method
def ai_extract() -> Response[str]:
    request = request_body(app, AiExtractRequest)
    return success(app, extract_from_page(current_caller(app), request), Operation.AI_EXTRACT)


# The same work for the items of a batch, from the function's SQS event source (CONTRACT 17).
lambda_handler = entry_point(app, ItemRunner(Operation.AI_EXTRACT, extract_from_page))
