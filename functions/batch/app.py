"""POST /v1/batch: many requests of one operation as one asynchronous job (202, then GET /v1/jobs/{jobId})."""

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, json_payload
from webcapture.jobs.accepted import job_accepted
from webcapture.jobs.idempotency import HEADER
from webcapture.jobs.submit import submit_batch
from webcapture.observability import tracer
from webcapture.settings import get_settings

app = create_resolver()


@app.post("/v1/batch")
@tracer.capture_method
def batch() -> Response[str]:
    payload = json_payload(app, get_settings().batch_max_body_bytes)
    key = app.current_event.get_header_value(HEADER, case_sensitive=False)
    submitted = submit_batch(current_caller(app), payload, key)
    return job_accepted(app, submitted.job, submitted.repeated)


lambda_handler = entry_point(app)
