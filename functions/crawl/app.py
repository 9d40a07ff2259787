"""POST /v1/web/crawl: a whole site as an asynchronous job (202, then GET /v1/jobs/{jobId}); the same
function crawls its pages, one message per page, from its SQS event source."""

# First of all: start unpacking and launching the browser while the imports below run.
import webcapture.warm_start  # noqa: F401

# isort: split

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, json_payload
from webcapture.jobs.accepted import job_accepted
from webcapture.jobs.idempotency import HEADER
from webcapture.observability import tracer
from webcapture.site.crawl_submit import submit_crawl
from webcapture.site.crawl_worker import CrawlWorker

app = create_resolver()


@app.post("/v1/web/crawl")
@tracer.capture_method
def crawl() -> Response[str]:
    payload = json_payload(app)
    key = app.current_event.get_header_value(HEADER, case_sensitive=False)
    submitted = submit_crawl(current_caller(app), payload, key)
    # `limit x cost` is reserved now, and charged as the 202's creditsCost.
    return job_accepted(app, submitted.job, submitted.repeated)


lambda_handler = entry_point(app, CrawlWorker())
