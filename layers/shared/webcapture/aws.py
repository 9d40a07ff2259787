"""boto3 resources and clients, made once per container (and per time limit).

Endpoints come from boto3's own AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_S3, which is how the local
API and `sam local` point them at an emulator; no code here knows about emulators.

botocore fixes connect/read timeouts when a client is made, so each call takes the client whose timeouts
fit the time the request has left (request_scope): a few fixed steps, each made once per container,
rather than one 10 s client that could run a request past API Gateway's 29 s.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, cast

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

from webcapture import request_scope
from webcapture.errors import ServiceUnavailable

if TYPE_CHECKING:
    from mypy_boto3_cloudfront.client import CloudFrontClient
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.service_resource import Table
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_sqs.client import SQSClient

# Read timeouts a call may get, longest first. The shortest is a floor: releasing a slot or refunding a
# credit after the deadline still deserves one short try.
READ_TIMEOUT_STEPS_S = (10, 5, 2, 1)
_MAX_ATTEMPTS = 3

# Error codes AWS answers when it sheds load (botocore's standard retry mode retries exactly these as
# throttling); still there after the retries, they mean "try again later", not "this request is wrong".
THROTTLING_CODES = frozenset({
    "ProvisionedThroughputExceededException", "ThrottlingException", "Throttling", "RequestLimitExceeded",
    "TooManyRequestsException", "SlowDown", "RequestThrottled", "ServiceUnavailable", "InternalServerError",
})


def read_timeout_s(remaining_ms: float) -> int:
    """The longest step whose attempts (with botocore's retries) all fit in the time left."""
    for step in READ_TIMEOUT_STEPS_S:
        if step * _MAX_ATTEMPTS * 1000 <= remaining_ms:
            return step
    return READ_TIMEOUT_STEPS_S[-1]


def _config(read_timeout: int) -> Config:
    return Config(connect_timeout=min(3, read_timeout), read_timeout=read_timeout,
                  retries={"max_attempts": _MAX_ATTEMPTS, "mode": "standard"})


def _read_timeout() -> int:
    return read_timeout_s(request_scope.remaining_ms())


def dynamodb_table(name: str) -> Table:
    return _dynamodb_table(name, _read_timeout())


def s3_client() -> S3Client:
    return cast("S3Client", _client("s3", _read_timeout()))


def dynamodb_client() -> DynamoDBClient:
    """The low-level client, for what the table resource does not offer (TransactWriteItems)."""
    return cast("DynamoDBClient", _client("dynamodb", _read_timeout()))


def sqs_client() -> SQSClient:
    return cast("SQSClient", _client("sqs", _read_timeout()))


def scheduler_client() -> Any:
    """EventBridge Scheduler (monitors' schedules); boto3's own typing, no stubs package for it."""
    return _client("scheduler", _read_timeout())


def cloudfront_client() -> CloudFrontClient:
    return cast("CloudFrontClient", _client("cloudfront", _read_timeout()))


@lru_cache(maxsize=32)
def _dynamodb_table(name: str, read_timeout: int) -> Table:
    resource: Any = boto3.resource("dynamodb", config=_config(read_timeout))
    table: Table = resource.Table(name)
    return table


@lru_cache(maxsize=32)
def _client(service: Literal["s3", "dynamodb", "sqs", "cloudfront", "scheduler"], read_timeout: int) -> Any:
    return boto3.client(service, config=_config(read_timeout))


def reset_clients() -> None:
    """Forget cached clients (tests switch endpoints between moto instances)."""
    _dynamodb_table.cache_clear()
    _client.cache_clear()


def unavailable(error: BaseException) -> ServiceUnavailable | None:
    """The 503 for an AWS call that failed because AWS was throttling or out of reach after botocore's
    retries; None for every other error (those stay 500s)."""
    if isinstance(error, ClientError):
        code = error.response.get("Error", {}).get("Code", "")
        if code in THROTTLING_CODES:
            return ServiceUnavailable(f"The service is temporarily unavailable ({code}); retry shortly")
        return None
    if isinstance(error, ConnectionError | HTTPClientError):
        return ServiceUnavailable("The service's storage could not be reached; retry shortly")
    return None
