"""Shared fixtures: a clean environment, moto in-process with the template's own tables and bucket."""

from __future__ import annotations

import os
from collections.abc import Iterator

import boto3
import pytest
from hypothesis import settings
from moto import mock_aws

from localapi.aws_emulator import create_template_resources
from localapi.cfn_template import Resolver, load_template
from localapi.moto_atomicity import make_dynamodb_writes_atomic
from localapi.moto_conditions import make_conditions_parse_once
from localapi.moto_dynamodb_answers import make_item_answers_plain_json
from localapi.moto_handler_parses import make_handler_parses_once
from localapi.moto_item_size import make_item_size_summed_once
from localapi.moto_queries import make_queries_read_their_partition
from localapi.moto_sqs_clock import make_sqs_message_clock_cheap
from tests.support.fixture_server import stop_server
from tests.support.stack_stores import stores_environment

# Nothing in the tests may reach real AWS: fake credentials, a fixed region, no X-Ray.
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SECURITY_TOKEN="testing",
    AWS_SESSION_TOKEN="testing",
    AWS_DEFAULT_REGION="us-east-1",
    POWERTOOLS_TRACE_DISABLED="true",
    POWERTOOLS_METRICS_NAMESPACE="webcapture-tests",
)
for _name in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE"):
    os.environ.pop(_name, None)

make_dynamodb_writes_atomic()
make_queries_read_their_partition()
make_conditions_parse_once()
make_handler_parses_once()
make_item_size_summed_once()
make_item_answers_plain_json()
make_sqs_message_clock_cheap()

TABLES = {"ApiKeysTable": "test-api-keys", "FilesTable": "test-files", "FilesBucket": "test-files-bucket",
          "SigningSecretsTable": "test-signing-secrets"}

# Properties are checked for what they assert, never for how long an example takes: hypothesis's 200 ms
# deadline failed examples on a loaded machine. A test's own @settings builds on this profile.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@pytest.fixture(scope="session", autouse=True)
def _stop_fixture_server() -> Iterator[None]:
    """The loopback fixture server starts on first use by any test; it stops when the session ends."""
    yield
    stop_server()


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Environment changes that the cached settings and clients pick up, undone afterwards."""
    values = {"API_KEYS_TABLE": TABLES["ApiKeysTable"], "FILES_TABLE": TABLES["FilesTable"],
              "FILES_BUCKET": TABLES["FilesBucket"], "SIGNING_SECRETS_TABLE": TABLES["SigningSecretsTable"],
              "PUBLIC_BASE_URL": "https://files.example.test"}
    with stores_environment(monkeypatch, values):
        yield monkeypatch


@pytest.fixture
def aws_resources(settings_env: pytest.MonkeyPatch) -> Iterator[None]:
    """moto in-process, with the tables and bucket exactly as template.yaml defines them."""
    with mock_aws():
        template = load_template()
        resolver = Resolver(template, physical_names=TABLES)
        create_template_resources(boto3.client("dynamodb"), boto3.client("s3"), template, resolver)
        yield
