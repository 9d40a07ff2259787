"""boto3 resources and clients, made once per container.

Endpoints come from boto3's own AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL_S3, which is how the local
API and `sam local` point them at an emulator; no code here knows about emulators.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

from webcapture.errors import ServiceUnavailable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import Table
    from mypy_boto3_s3.client import S3Client

# Error codes AWS answers when it sheds load (botocore's standard retry mode retries exactly these as
# throttling); still there after the retries, they mean "try again later", not "this request is wrong".
THROTTLING_CODES = frozenset({
    "ProvisionedThroughputExceededException", "ThrottlingException", "Throttling", "RequestLimitExceeded",
    "TooManyRequestsException", "SlowDown", "RequestThrottled", "ServiceUnavailable", "InternalServerError",
})

# Short timeouts and few retries: a request has a 29 s ceiling and the browser needs most of it.
_CONFIG = Config(connect_timeout=3, read_timeout=10, retries={"max_attempts": 3, "mode": "standard"})


@lru_cache(maxsize=8)
def dynamodb_table(name: str) -> Table:
    resource: Any = boto3.resource("dynamodb", config=_CONFIG)
    table: Table = resource.Table(name)
    return table


@lru_cache(maxsize=1)
def s3_client() -> S3Client:
    client: S3Client = boto3.client("s3", config=_CONFIG)
    return client


def reset_clients() -> None:
    """Forget cached clients (tests switch endpoints between moto instances)."""
    dynamodb_table.cache_clear()
    s3_client.cache_clear()


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
