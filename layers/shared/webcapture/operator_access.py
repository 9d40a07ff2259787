"""How the operator CLI (`webcapture keys ...`) reaches the keys table, and how it fails.

Against the local API's moto (`--endpoint-url http://127.0.0.1:4566`) it needs no AWS environment: moto
checks no credentials, so a loopback endpoint gets fixed dummy ones and the local region when none are set,
and the local stack's table name when no other is given. Every failure is one line and an exit code, never
a traceback (docs/deploy.md#api-keys).
"""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
)

LOCAL_REGION = "us-east-1"
# The local stack's name for the ApiKeys table (localapi names each table webcapture-local-<logical id>).
LOCAL_API_KEYS_TABLE = "webcapture-local-ApiKeysTable"
_DUMMY_CREDENTIAL = "local"

# Exit codes, as the client commands use them (README.md, "The CLI").
USAGE, SERVICE_FAILED, UNREACHABLE = 2, 7, 8


def is_loopback(endpoint_url: str) -> bool:
    host = urlsplit(endpoint_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def use_endpoint(endpoint_url: str | None, table: str | None) -> None:
    """Point the key store at `endpoint_url` and `table` through the environment settings read."""
    if table:
        os.environ["API_KEYS_TABLE"] = table
    if not endpoint_url:
        return
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint_url
    if is_loopback(endpoint_url):
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            os.environ.setdefault(name, _DUMMY_CREDENTIAL)
        if not (os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")):
            os.environ["AWS_DEFAULT_REGION"] = LOCAL_REGION
        os.environ.setdefault("API_KEYS_TABLE", LOCAL_API_KEYS_TABLE)


def failure(error: BaseException, table: str) -> tuple[str, int] | None:
    """One line saying what went wrong and what to do, and the exit code; None for what is not AWS's."""
    if isinstance(error, NoRegionError):
        return ("no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or a profile's region); a local "
                "emulator: --endpoint-url http://127.0.0.1:4566", USAGE)
    if isinstance(error, NoCredentialsError | PartialCredentialsError):
        return ("no AWS credentials: set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; a local "
                "emulator: --endpoint-url http://127.0.0.1:4566", USAGE)
    if isinstance(error, EndpointConnectionError):
        where = error.kwargs.get("endpoint_url", "the endpoint")
        return f"could not reach {where}: is it running?", UNREACHABLE
    if isinstance(error, ClientError):
        code = error.response.get("Error", {}).get("Code", "")
        if code == "ResourceNotFoundException":
            return (f"no table {table!r} there: give the stack's ApiKeysTableName output with --table",
                    USAGE)
        message = error.response.get("Error", {}).get("Message", "")
        return f"AWS refused: {code}: {message}".rstrip(": "), SERVICE_FAILED
    if isinstance(error, BotoCoreError):
        return f"AWS call failed: {error}", SERVICE_FAILED
    return None
