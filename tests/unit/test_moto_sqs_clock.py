"""moto's SQS with the local API's cheaper message clock (localapi/moto_sqs_clock.py) still keeps delayed
and in-flight messages out of sight, and counts them as SQS does."""

from __future__ import annotations

import time

import boto3
from moto import mock_aws

from localapi.moto_sqs_clock import make_sqs_message_clock_cheap


def _counts(sqs: object, url: str) -> tuple[int, int, int]:
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]  # type: ignore[attr-defined]
    return (int(attributes["ApproximateNumberOfMessages"]), int(attributes["ApproximateNumberOfMessagesDelayed"]),
            int(attributes["ApproximateNumberOfMessagesNotVisible"]))


def test_delayed_and_received_messages_stay_hidden_until_their_time() -> None:
    make_sqs_message_clock_cheap()
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="work")["QueueUrl"]
        sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(5)])
        sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=1)
        assert _counts(sqs, url) == (5, 1, 0)
        received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=1)["Messages"]
        assert sorted(m["Body"] for m in received) == [f"m{i}" for i in range(5)]
        assert _counts(sqs, url) == (0, 1, 5)
        time.sleep(1.2)
        assert _counts(sqs, url) == (6, 0, 0)  # the delay and the visibility timeout are over
