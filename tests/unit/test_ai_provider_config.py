"""Where the provider key comes from: the environment, or a Secrets Manager secret via Powertools."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from tests.support.ai_pages import PRODUCT_PAGE
from tests.support.fake_openai import FakeOpenAI, authorization_sha256, completion
from webcapture.ai import check_provider, run_extraction
from webcapture.errors import AiNotConfigured
from webcapture.models.requests import AiExtractRequest
from webcapture.settings import Settings, get_settings

SECRET_KEY = "sk-from-secrets-manager-0123456789"
REQUEST = AiExtractRequest.model_validate({"url": "https://shop.example/", "responseType": "text"})


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    # The provider keeps read secrets for SECRET_MAX_AGE_S, by name or ARN, as a container does: each test
    # reads its secret by the ARN moto gives it, which no other test shares.
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="us-east-1")


def test_environment_configuration_through_get_settings(
    fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("WEBCAPTURE_AI_MODEL", "model-from-env")
    monkeypatch.delenv("OPENAI_API_KEY_SECRET", raising=False)
    get_settings.cache_clear()
    try:
        fake.script(completion("ok"))
        run_extraction(REQUEST, PRODUCT_PAGE, "https://shop.example/")
    finally:
        get_settings.cache_clear()
    [sent] = fake.requests
    assert sent.body["model"] == "model-from-env"
    assert sent.authorization_sha256 == authorization_sha256("sk-env-key-0123456789")


@pytest.mark.parametrize(
    "secret_string",
    [
        SECRET_KEY,
        f"  {SECRET_KEY}\n",
        json.dumps({"OPENAI_API_KEY": SECRET_KEY}),
        json.dumps({"apiKey": SECRET_KEY}),
    ],
    ids=["plain", "whitespace", "json-OPENAI_API_KEY", "json-apiKey"],
)
def test_key_from_a_secrets_manager_secret(fake: FakeOpenAI, secrets: object, secret_string: str) -> None:
    client = boto3.client("secretsmanager", region_name="us-east-1")
    arn = client.create_secret(Name="webcapture/openai", SecretString=secret_string)["ARN"]
    fake.script(completion("ok"))
    settings = Settings(openai_api_key_secret=arn, openai_base_url=fake.base_url)
    run_extraction(REQUEST, PRODUCT_PAGE, "https://shop.example/", settings=settings)
    assert fake.requests[0].authorization_sha256 == authorization_sha256(SECRET_KEY)


def test_the_secret_is_cached_between_requests(fake: FakeOpenAI, secrets: object) -> None:
    client = boto3.client("secretsmanager", region_name="us-east-1")
    arn = client.create_secret(Name="webcapture/openai", SecretString=SECRET_KEY)["ARN"]
    settings = Settings(openai_api_key_secret=arn, openai_base_url=fake.base_url)
    assert check_provider(settings).api_key == SECRET_KEY
    client.put_secret_value(SecretId=arn, SecretString="sk-rotated-but-not-yet-seen")
    # Within max_age the cached value is used: no Secrets Manager call per request.
    assert check_provider(settings).api_key == SECRET_KEY


def test_an_environment_key_wins_over_the_secret(secrets: object) -> None:
    settings = Settings(openai_api_key="sk-env-wins-0123", openai_api_key_secret="does-not-exist")
    assert check_provider(settings).api_key == "sk-env-wins-0123"


def test_unreadable_secret_is_503_without_aws_details(secrets: object) -> None:
    with pytest.raises(AiNotConfigured) as caught:
        check_provider(
            Settings(openai_api_key_secret="arn:aws:secretsmanager:us-east-1:123456789012:secret:nope")
        )
    assert caught.value.status == 503
    assert "OPENAI_API_KEY_SECRET" in caught.value.message
    assert "123456789012" not in caught.value.message
    assert "ResourceNotFound" not in caught.value.message


def test_a_secret_without_a_key_is_503(secrets: object) -> None:
    client = boto3.client("secretsmanager", region_name="us-east-1")
    arn = client.create_secret(Name="webcapture/openai", SecretString=json.dumps({"username": "x"}))["ARN"]
    with pytest.raises(AiNotConfigured, match="holds no API key"):
        check_provider(Settings(openai_api_key_secret=arn))
