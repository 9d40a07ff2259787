"""DELETE /v1/jobs/{jobId} for a batch and a crawl alike (docs/jobs.md#cancelling): the cancel is the job
engine's (webcapture.jobs.job_cancel); what differs is how the job then settles, and a crawl settles with
its unused credits given back (webcapture.site.crawl_credits), so the choice lives here, above both.
"""

from __future__ import annotations

from webcapture.jobs import job_store, webhook_events
from webcapture.jobs.job_cancel import cancel
from webcapture.jobs.job_store import Job
from webcapture.site.crawl_credits import settle_crawl


def cancel_job_or_crawl(job: Job) -> None:
    """DELETE /v1/jobs/{jobId}: cancel it, and send its `job.cancelled` event when nothing was running."""
    crawl = job.operation == "crawl"
    settled = cancel(job, settle_crawl if crawl else job_store.settle, "crawl" if crawl else "job")
    if settled is not None:
        webhook_events.job_finished(settled)
