"""The model provider: configuration, one cached `openai` client per container, and one Chat Completions call.

Configuration (docs/api.md#ai-extract): OPENAI_API_KEY, or OPENAI_API_KEY_SECRET naming a Secrets Manager
secret (read through Powertools parameters, cached for a few minutes so a rotated key is picked up without a
cold start); OPENAI_BASE_URL for any OpenAI-compatible server; WEBCAPTURE_AI_MODEL.

A local server (Ollama, vLLM, llama.cpp) usually needs no key, so OPENAI_BASE_URL alone is a complete
configuration: we send a placeholder key, because the client insists on one. Against OpenAI itself that
placeholder simply earns a 401, reported as AI_PROVIDER_ERROR.

Provider failures become AiProviderError (502) / AiProviderTimeout (504) carrying the provider's reason
with anything key-like removed.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

import openai
from aws_lambda_powertools.utilities.parameters import SecretsProvider
from botocore.config import Config
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from openai.types.chat.completion_create_params import ResponseFormat

from webcapture import request_scope
from webcapture.errors import AiNotConfigured, AiProviderError, AiProviderTimeout
from webcapture.network_words import network_words
from webcapture.settings import Settings

logger = logging.getLogger(__name__)

PLACEHOLDER_API_KEY = "sk-no-key-required"  # what llama.cpp's docs use; Ollama and vLLM ignore it
SECRET_MAX_AGE_S = 300
# Keys a JSON secret may hold the API key under (the Secrets Manager console stores key/value pairs).
_SECRET_JSON_KEYS = ("OPENAI_API_KEY", "openai_api_key", "api_key", "apiKey", "key")
# Leave room after the model call for building and sending the response.
_BUDGET_MARGIN_S = 3.0
_MIN_TIMEOUT_S = 1.0
_CLIENT_TIMEOUT_S = 30.0
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_*.\-]{4,}")
_REASON_MAX_CHARS = 300

NOT_CONFIGURED_MESSAGE = (
    "No AI provider is configured: set OPENAI_API_KEY (or OPENAI_API_KEY_SECRET, the name or ARN of a "
    "Secrets Manager secret holding the key) for OpenAI, or OPENAI_BASE_URL for an OpenAI-compatible server; "
    "WEBCAPTURE_AI_MODEL chooses the model"
)


@dataclass(frozen=True)
class ProviderConfig:
    api_key: str
    base_url: str | None
    model: str
    timeout_s: float

    def __repr__(self) -> str:  # never print the key, even in a traceback or a debug log
        return f"ProviderConfig(base_url={self.base_url!r}, model={self.model!r}, timeout_s={self.timeout_s})"


@dataclass(frozen=True)
class Completion:
    """The parts of a Chat Completions answer we use."""

    content: str | None
    refusal: str | None
    finish_reason: str | None
    model: str
    input_tokens: int
    output_tokens: int


def is_configured(settings: Settings) -> bool:
    return bool(settings.openai_api_key or settings.openai_api_key_secret or settings.openai_base_url)


def provider_config(settings: Settings) -> ProviderConfig:
    """The provider to call, or AiNotConfigured (503) saying what to set."""
    if not is_configured(settings):
        raise AiNotConfigured(NOT_CONFIGURED_MESSAGE)
    if settings.openai_api_key:
        api_key = settings.openai_api_key
    elif settings.openai_api_key_secret:
        api_key = _key_from_secret(settings.openai_api_key_secret)
    else:
        api_key = PLACEHOLDER_API_KEY
    # Inside a request, what is left of its deadline (which already keeps the answer's margin): the page
    # load came out of it already. Outside one, the configured budget less that margin.
    scope = request_scope.current()
    budget_s = (settings.request_budget_ms / 1000 - _BUDGET_MARGIN_S if scope is None
                else scope.remaining_ms() / 1000)
    timeout_s = max(min(settings.ai_timeout_s, budget_s), _MIN_TIMEOUT_S)
    return ProviderConfig(
        api_key=api_key, base_url=settings.openai_base_url, model=settings.ai_model, timeout_s=timeout_s
    )


@lru_cache(maxsize=1)
def _secrets() -> SecretsProvider:
    # Short timeouts: the key is fetched inside a request with a 29 s ceiling.
    config = Config(connect_timeout=3, read_timeout=5, retries={"max_attempts": 2, "mode": "standard"})
    return SecretsProvider(boto_config=config)


def _key_from_secret(name: str) -> str:
    try:
        value: Any = _secrets().get(name, max_age=SECRET_MAX_AGE_S)
    except Exception as error:
        # The AWS error names roles and accounts: log it, don't answer it.
        logger.warning("Could not read the OpenAI key secret %s: %s", name, error)
        raise AiNotConfigured(
            "The AI provider key could not be read from the Secrets Manager secret named in "
            "OPENAI_API_KEY_SECRET; check the secret exists and the function may read it"
        ) from None
    key = _key_from_secret_value(value)
    if not key:
        raise AiNotConfigured(
            "The Secrets Manager secret named in OPENAI_API_KEY_SECRET holds no API key: store the key "
            f"as plain text or as JSON with one of {', '.join(_SECRET_JSON_KEYS)}"
        )
    return key


def _key_from_secret_value(value: object) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if text.startswith("{"):
        try:
            parsed = json.loads(text)
        except ValueError:
            return ""
        if isinstance(parsed, dict):
            for name in _SECRET_JSON_KEYS:
                candidate = parsed.get(name)
                if isinstance(candidate, str) and candidate.strip():
                    return candidate.strip()
        return ""
    return text


@lru_cache(maxsize=4)
def _client(api_key: str, base_url: str | None) -> OpenAI:
    # Built once per container (per key, so a rotated secret gets a fresh client). No retries inside the
    # client: a retry after a timeout would blow the request budget, and 429/5xx go back to the caller,
    # whose credits are refunded. Every call passes its own timeout (what the request has left), so the
    # client's is only a backstop and not part of the cache key.
    return OpenAI(api_key=api_key, base_url=base_url, timeout=_CLIENT_TIMEOUT_S, max_retries=0)


def get_client(config: ProviderConfig) -> OpenAI:
    return _client(config.api_key, config.base_url)


def complete(
    config: ProviderConfig,
    messages: list[ChatCompletionMessageParam],
    response_format: dict[str, Any] | None,
    timeout_s: float,
) -> Completion:
    """One Chat Completions call, with provider failures mapped to the error catalogue."""
    client = get_client(config)
    try:
        if response_format is None:
            answer = client.chat.completions.create(model=config.model, messages=messages, timeout=timeout_s)
        else:
            answer = client.chat.completions.create(
                model=config.model,
                messages=messages,
                response_format=cast(ResponseFormat, response_format),
                timeout=timeout_s,
            )
    except openai.APITimeoutError:
        raise AiProviderTimeout(f"The AI provider did not answer within {timeout_s:g} s") from None
    except openai.APIStatusError as error:
        raise AiProviderError(_status_message(error, config)) from None
    except openai.APIConnectionError as error:
        _log_provider_words(error, config)
        raise AiProviderError(f"Could not reach the AI provider ({network_words(error)})") from None
    except openai.APIResponseValidationError:
        raise AiProviderError("The AI provider returned a malformed response") from None
    except openai.OpenAIError as error:
        _log_provider_words(error, config)
        raise AiProviderError("The AI provider call failed") from None

    if not answer.choices:
        raise AiProviderError("The AI provider returned no answer (no choices)")
    choice = answer.choices[0]
    usage = answer.usage
    return Completion(
        content=choice.message.content,
        refusal=choice.message.refusal,
        finish_reason=choice.finish_reason,
        model=answer.model or config.model,
        input_tokens=usage.prompt_tokens if usage else 0,
        output_tokens=usage.completion_tokens if usage else 0,
    )


def _status_message(error: openai.APIStatusError, config: ProviderConfig) -> str:
    """The provider's status, never its body: a provider's (or a proxy's) error text can name internal
    hosts and echo what it was sent. Its words go to our log, for the operator."""
    _log_provider_words(error, config)
    if error.status_code == 429:
        return "The AI provider is rate limiting or out of quota (429)"
    return f"The AI provider answered {error.status_code}"


def _log_provider_words(error: openai.OpenAIError, config: ProviderConfig) -> None:
    body = getattr(error, "body", None)
    reason = body.get("message") if isinstance(body, dict) else body
    words = reason if isinstance(reason, str) and reason.strip() else str(error)
    logger.warning("the AI provider call failed", extra={"provider_words": _redact(words, config)})


def _redact(text: str, config: ProviderConfig) -> str:
    """The provider's words without our key (some providers echo part of a rejected key)."""
    if config.api_key and config.api_key != PLACEHOLDER_API_KEY:
        text = text.replace(config.api_key, "[redacted]")
    text = _KEY_LIKE.sub("sk-[redacted]", text)
    text = " ".join(text.split())
    return text if len(text) <= _REASON_MAX_CHARS else text[: _REASON_MAX_CHARS - 1] + "…"
