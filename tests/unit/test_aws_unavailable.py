"""Which AWS failures are a 503 to retry (throttling, unreachable) and which stay 500s."""

from __future__ import annotations

import socket

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from webcapture import aws
from webcapture.errors import ServiceUnavailable


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "m"}}, "UpdateItem")


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ThrottlingException",
                                  "SlowDown", "RequestLimitExceeded"])
def test_throttling_is_a_503_naming_the_code(code: str) -> None:
    error = aws.unavailable(client_error(code))
    assert isinstance(error, ServiceUnavailable)
    assert (error.status, error.code, error.headers) == (503, "SERVICE_UNAVAILABLE", {"Retry-After": "1"})
    assert code in error.message


@pytest.mark.parametrize("code", ["ConditionalCheckFailedException", "NoSuchBucket", "AccessDenied",
                                  "ValidationException"])
def test_other_aws_errors_are_not_unavailability(code: str) -> None:
    assert aws.unavailable(client_error(code)) is None


def test_other_exceptions_are_not_unavailability() -> None:
    assert aws.unavailable(ValueError("x")) is None


def test_an_endpoint_nobody_listens_on_is_a_503() -> None:
    with socket.socket() as probe:  # a loopback port that is free: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                          config=Config(retries={"max_attempts": 1}, connect_timeout=1))
    with pytest.raises(Exception) as raised:
        client.list_tables()
    error = aws.unavailable(raised.value)
    assert isinstance(error, ServiceUnavailable) and error.status == 503
