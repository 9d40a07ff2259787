"""GET /v1/jobs/{jobId}: a job's status and its results, a page at a time; DELETE cancels it."""

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller
from webcapture.edge.responses import answer
from webcapture.jobs.job_view import job_data, owned_job
from webcapture.observability import tracer
from webcapture.site.crawl_cancel import cancel_job_or_crawl

app = create_resolver()


@app.get("/v1/jobs/<job_id>")
@tracer.capture_method
def get_job(job_id: str) -> Response[str]:
    job = owned_job(current_caller(app), job_id)
    event = app.current_event
    data = job_data(
        job, limit=event.get_query_string_value("limit"), cursor=event.get_query_string_value("cursor")
    )
    return answer(app, data, 0)


@app.delete("/v1/jobs/<job_id>")
@tracer.capture_method
def cancel_job(job_id: str) -> Response[str]:
    job = owned_job(current_caller(app), job_id)
    cancel_job_or_crawl(job)  # an ended job stays as it is
    return answer(app, job_data(owned_job(current_caller(app), job_id)), 0)


lambda_handler = entry_point(app)
