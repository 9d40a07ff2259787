"""The template's jobs table and queues on the unit tests' moto, as the fixture `jobs_aws` (load with
`pytest_plugins = ["tests.support.jobs_moto"]`); what the tests read there is in jobs_records."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest

from localapi.aws_emulator import create_template_queues
from localapi.cfn_template import Resolver, load_template
from webcapture.settings import get_settings


@pytest.fixture
def jobs_aws(aws_resources: None, settings_env: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The template's jobs table (created by aws_resources under its logical id) and its queues."""
    settings_env.setenv("JOBS_TABLE", "JobsTable")
    sqs = boto3.client("sqs")
    template = load_template()
    names = {}
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] == "AWS::SQS::Queue":
            names[logical_id] = f"https://sqs.us-east-1.amazonaws.com/123456789012/webcapture-local-{logical_id}"
    attributes = {f"{n}.Arn": f"arn:aws:sqs:us-east-1:123456789012:webcapture-local-{n}" for n in names}
    create_template_queues(sqs, template, Resolver(template, physical_names=names, attributes=attributes))
    urls = {n: sqs.get_queue_url(QueueName=f"webcapture-local-{n}")["QueueUrl"] for n in names}
    settings_env.setenv("JOBS_QUEUE_SCREENSHOT_URL", urls["ScreenshotJobsQueue"])
    settings_env.setenv("WEBHOOKS_QUEUE_URL", urls["WebhooksQueue"])
    get_settings.cache_clear()
    yield urls


@pytest.fixture
def links_queue(jobs_aws: dict[str, str], settings_env: pytest.MonkeyPatch) -> Iterator[str]:
    """The links operation's job queue, its busy items sent back without delay."""
    settings_env.setenv("JOBS_QUEUE_LINKS_URL", jobs_aws["LinksJobsQueue"])
    settings_env.setenv("WEBCAPTURE_JOB_BUSY_DELAY_S", "0")
    get_settings.cache_clear()
    yield jobs_aws["LinksJobsQueue"]
