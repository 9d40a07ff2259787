"""POST /v1/web/links: the links of a rendered page."""

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
from webcapture.models.requests import LinksRequest
from webcapture.observability import tracer
from webcapture.operations.collect_page_links import collect_page_links

app = create_resolver()


@app.post("/v1/web/links")
@tracer.capture_method
def links() -> Response[Any]:
    request = request_body(app, LinksRequest)
    caller = current_caller(app)
    return cached_response(app, caller, Operation.LINKS, request,
                           lambda: json_answer(collect_page_links(caller, request)), large=True)


# The same work for the items of a batch, from the function's SQS event source (CONTRACT 17).
lambda_handler = entry_point(app, ItemRunner(Operation.LINKS, collect_page_links))
