"""Asynchronous jobs and batches (docs/jobs.md#jobs): many pages, or pages longer than API Gateway's 29 s.

A batch is one job; each of its requests is an item, sent as one SQS message to the queue of its
operation and run by the function that serves the same operation synchronously (its SQS event source).

- batch_request: the `POST /v1/batch` body, validated item by item;
- job_store: jobs, items and results in DynamoDB (kept 7 days): the whole batch reserved at submit, each
  item claimed before it runs and finished once (its refund in the same transaction);
- idempotency: `Idempotency-Key` on submit;
- work_queue: the SQS messages (items, delayed retries, webhook events);
- item_delivery: one delivery of an item, claimed, run once and finished (a batch's items and a crawl's
  pages alike);
- job_cancel: DELETE: `cancelling`, the items not started finished and refunded at once (the handler's
  entry, which also settles a crawl, is webcapture.site.crawl_cancel);
- submit, item_worker, job_view: what the handlers call;
- webhook_secrets, webhook_delivery: Standard Webhooks signing and delivery through the egress guard.
"""
