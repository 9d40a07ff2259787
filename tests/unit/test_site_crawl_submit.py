"""Submitting a crawl over moto (in process): validated first, a refused start URL answered before any
job or reservation, `limit x cost` reserved with the job and its start page in one transaction (or
nothing at all), the start page queued; the crawl's messages, and the CLI's file names for its pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from localapi.aws_emulator import create_template_queues
from localapi.cfn_template import Resolver, load_template
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.errors import RequestValidationError, UrlNotAllowed, UsageExceeded
from webcapture.jobs import job_store
from webcapture.settings import get_settings
from webcapture.site.crawl_messages import PageMessage
from webcapture.site.crawl_store import claimed_by, job_pk
from webcapture.site.crawl_submit import submit_crawl
from webcapture_client.crawl import file_name

START = "http://127.0.0.1:9/docs/"


@pytest.fixture
def crawl_aws(aws_resources: None, settings_env: pytest.MonkeyPatch) -> Iterator[str]:
    """The template's jobs table and crawl queue; loopback allowed, as the fixture server is."""
    settings_env.setenv("JOBS_TABLE", "JobsTable")
    settings_env.setenv("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.1/32")
    sqs = boto3.client("sqs")
    template = load_template()
    names = {logical_id: f"https://sqs.us-east-1.amazonaws.com/123456789012/webcapture-local-{logical_id}"
             for logical_id, resource in template["Resources"].items()
             if resource["Type"] == "AWS::SQS::Queue"}
    attributes = {f"{n}.Arn": f"arn:aws:sqs:us-east-1:123456789012:webcapture-local-{n}" for n in names}
    create_template_queues(sqs, template, Resolver(template, physical_names=names, attributes=attributes))
    url = sqs.get_queue_url(QueueName="webcapture-local-CrawlJobsQueue")["QueueUrl"]
    settings_env.setenv("CRAWL_QUEUE_URL", url)
    get_settings.cache_clear()
    yield url


def _caller(remaining: int) -> tuple[Caller, str]:
    _key, record = api_keys.create_key("u", "k", remaining=remaining)
    return Caller(user_id="u", kind="api_key", key_id=record.id, key_hash=record.key_hash), record.key_hash


def _remaining(key_hash: str) -> Any:
    record = api_keys.get_by_hash(key_hash)
    assert record is not None
    return record.public()["remaining"]


def _queued(url: str) -> list[dict[str, Any]]:
    answer = boto3.client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10)
    return [json.loads(message["Body"]) for message in answer.get("Messages", [])]


def test_a_crawl_reserves_its_limit_and_queues_its_start_page(crawl_aws: str) -> None:
    caller, key_hash = _caller(100)
    submitted = submit_crawl(caller, {"url": START + "#top", "limit": 40, "formats": ["links"]}, None)
    job = submitted.job
    assert (job.operation, job.status, job.total, job.reserved, job.cost_each) == ("crawl", "queued", 1, 40, 1)
    assert _remaining(key_hash) == 60
    (message,) = _queued(crawl_aws)
    assert (message["jobId"], message["index"], message["url"], message["depth"]) == (job.job_id, 0, START, 0)
    assert message["request"] == {"url": START + "#top", "limit": 40, "formats": ["links"]}
    stored = job_store.get_job(job.job_id)
    assert stored is not None and stored.total == 1
    item = boto3.resource("dynamodb").Table("JobsTable").query(
        KeyConditionExpression="pk = :pk AND begins_with(sk, :url)",
        ExpressionAttributeValues={":pk": job_pk(job.job_id), ":url": "url#"})["Items"]
    assert [(i["url"], i["index"], i["parent"]) for i in item] == [(START, 0, -1)]
    assert claimed_by(job.job_id, -1)[0].url == START


def test_nothing_is_written_or_queued_for_a_refused_or_unaffordable_crawl(crawl_aws: str) -> None:
    caller, key_hash = _caller(10)
    with pytest.raises(RequestValidationError):
        submit_crawl(caller, {"url": START, "limit": 0, "maxDepth": 21}, None)
    with pytest.raises(UrlNotAllowed):
        submit_crawl(caller, {"url": "http://10.0.0.1/"}, None)
    with pytest.raises(UrlNotAllowed):  # the webhook too, before anything is reserved
        submit_crawl(caller, {"url": START, "limit": 1, "webhook": {"url": "http://169.254.169.254/"}}, None)
    with pytest.raises(UsageExceeded):
        submit_crawl(caller, {"url": START, "limit": 11}, None)
    assert _remaining(key_hash) == 10 and _queued(crawl_aws) == []


def test_the_same_idempotency_key_and_body_answer_the_same_crawl(crawl_aws: str) -> None:
    caller, key_hash = _caller(10)
    first = submit_crawl(caller, {"url": START, "limit": 3}, "once")
    again = submit_crawl(caller, {"url": START, "limit": 3}, "once")
    assert again.repeated and again.job.job_id == first.job.job_id and _remaining(key_hash) == 7
    assert len(_queued(crawl_aws)) == 1


def test_a_page_message_round_trips_and_names_its_siblings() -> None:
    message = PageMessage("j", 0, "http://a.test/", 0, "u", None, None, {"url": "http://a.test/"})
    assert PageMessage.from_json(message.to_json()) == message
    child = message.page(7, "http://a.test/b", 1)
    assert (child.job_id, child.index, child.url, child.depth, child.request) == (
        "j", 7, "http://a.test/b", 1, message.request)


def test_the_cli_names_a_pages_file_by_its_index_and_path() -> None:
    assert file_name(0, "http://a.test/", "md") == "0000-index.md"
    assert file_name(7, "http://a.test/docs/start", "md") == "0007-docs_start.md"
    assert file_name(12, "http://a.test/p?b=2&a=1", "json") == "0012-p_b_2_a_1.json"
    assert len(file_name(1, "http://a.test/" + "x" * 500, "md")) == len("0001-.md") + 100
