"""One AI extraction: page to Markdown, prompt, model call, checked output, the `data` of
docs/api.md#ai-extract.

JSON answers are parsed and validated here whatever the provider promised (a local server may ignore
`response_format`); an unusable answer earns exactly one retry that tells the model what was wrong,
then AI_PROVIDER_ERROR. Token counts add up across that retry, because both calls were paid for.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator, validators
from openai.types.chat import ChatCompletionMessageParam

from webcapture.ai.page_content import PageContent, page_to_markdown
from webcapture.ai.prompt import build_prompt, retry_messages
from webcapture.ai.provider import Completion, ProviderConfig, complete, provider_config
from webcapture.ai.response_format import OutputSpec, validate_ai_request
from webcapture.envelopes import utc_timestamp
from webcapture.errors import AiAnswerMismatch, AiProviderError, AiProviderTimeout
from webcapture.models.requests import AiExtractRequest
from webcapture.settings import Settings, get_settings

_MAX_PROBLEMS = 5
_MIN_CALL_S = 1.0  # below this a model call cannot succeed; say so instead of timing out
_REFUSAL_MAX_CHARS = 500
# A JSON reply longer than this is not checked against the caller's schema: its patterns could take
# polynomial time on long strings (ai/safe_patterns.py refuses the exponential ones).
MAX_JSON_REPLY_CHARS = 100_000


@dataclass(frozen=True)
class ExtractionMetadata:
    url: str
    timestamp: str
    model: str
    fieldsExtracted: int  # wire names (docs/api.md#ai-extract)
    inputTokens: int
    outputTokens: int


@dataclass(frozen=True)
class ExtractionResult:
    """`extracted` for json, `text` for text (never both); `warning` when the page was cut."""

    metadata: ExtractionMetadata
    extracted: dict[str, Any] | None = None
    text: str | None = None
    warning: str | None = None

    def to_data(self) -> dict[str, Any]:
        """The response's `data` (docs/api.md#ai-extract, interface spec 2.5)."""
        data: dict[str, Any] = {}
        if self.extracted is not None:
            data["extracted"] = self.extracted
        else:
            data["text"] = self.text or ""
        data["metadata"] = {
            "url": self.metadata.url,
            "timestamp": self.metadata.timestamp,
            "model": self.metadata.model,
            "fieldsExtracted": self.metadata.fieldsExtracted,
            "inputTokens": self.metadata.inputTokens,
            "outputTokens": self.metadata.outputTokens,
        }
        if self.warning:
            data["warning"] = self.warning
        return data


class _Unusable(Exception):
    """The model's JSON answer cannot be used; the message tells the model why."""


def check_provider(settings: Settings | None = None) -> ProviderConfig:
    """AiNotConfigured (503) now, before the page is loaded and credits are spent, if nothing is set up."""
    return provider_config(settings or get_settings())


def run_extraction(
    request: AiExtractRequest,
    html: str,
    page_url: str,
    *,
    settings: Settings | None = None,
    deadline: float | None = None,
) -> ExtractionResult:
    """Extract from the rendered page `html`, finally at `page_url`.

    `deadline` is a `time.monotonic()` instant by which the model must have answered (the endpoint's
    remaining budget); each call's timeout is the configured one or what is left, whichever is shorter.
    """
    settings = settings or get_settings()
    output = validate_ai_request(request)
    config = provider_config(settings)
    page = page_to_markdown(html, page_url, settings.ai_content_budget_chars)
    prompt = build_prompt(page, output, prompt=request.prompt, instructions=request.instructions)

    first = _call(config, prompt.messages, output, deadline)
    if output.mode == "text":
        _raise_if_refused(first)
        text = (first.content or "").strip()
        if not text:
            raise AiProviderError("The model returned an empty answer")
        return _result(page, first, text=text, extra_warning=_cut_off(first))

    try:
        extracted = _parse_json(first, output)
        final, input_tokens, output_tokens = first, first.input_tokens, first.output_tokens
    except _Unusable as problem:
        left = _time_left(deadline)
        if left is not None and left < _MIN_CALL_S:
            raise AiAnswerMismatch(
                "The model's answer did not match the requested format and no time was left to retry "
                f"(the request is charged: the model answered): {problem}"
            ) from None
        second = _call(config, retry_messages(prompt, first.content or "", str(problem)), output, deadline)
        input_tokens = first.input_tokens + second.input_tokens
        output_tokens = first.output_tokens + second.output_tokens
        try:
            extracted = _parse_json(second, output)
        except _Unusable as again:
            raise AiAnswerMismatch(
                "The model's answer did not match the requested format after one retry (the request is "
                f"charged: the model answered twice): {again}"
            ) from None
        final = second
    return _result(page, final, extracted=extracted, tokens=(input_tokens, output_tokens))


def _time_left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


def _call(
    config: ProviderConfig,
    messages: list[ChatCompletionMessageParam],
    output: OutputSpec,
    deadline: float | None,
) -> Completion:
    timeout_s = config.timeout_s
    left = _time_left(deadline)
    if left is not None:
        if left < _MIN_CALL_S:
            raise AiProviderTimeout("No time was left in the request budget to ask the AI provider")
        timeout_s = min(timeout_s, left)
    return complete(config, messages, output.openai_response_format(), timeout_s)


def _raise_if_refused(answer: Completion) -> None:
    if answer.refusal and answer.refusal.strip():
        text = " ".join(answer.refusal.split())[:_REFUSAL_MAX_CHARS]
        raise AiProviderError(f"The model refused to answer: {text}")
    if answer.finish_reason == "content_filter":
        raise AiProviderError("The model refused to answer: its content filter stopped the answer")


def _cut_off(answer: Completion) -> str | None:
    if answer.finish_reason == "length":
        return "The model's answer was cut off at its output limit"
    return None


def _parse_json(answer: Completion, output: OutputSpec) -> dict[str, Any]:
    # A refusal is the model's decision, not a formatting slip: asking again would not change it.
    _raise_if_refused(answer)
    text = _strip_code_fence((answer.content or "").strip())
    if not text:
        raise _Unusable("the reply was empty")
    if len(text) > MAX_JSON_REPLY_CHARS:
        raise _Unusable(f"the reply was longer than {MAX_JSON_REPLY_CHARS} characters")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except ValueError as error:
        raise _Unusable(f"the reply was not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise _Unusable(f"the reply must be a JSON object, not {type(value).__name__}")
    if output.schema is not None:
        validator_cls = validators.validator_for(output.schema, default=Draft202012Validator)
        errors = sorted(validator_cls(output.schema).iter_errors(value), key=lambda e: list(e.path))
        if errors:
            described = "; ".join(_describe(error) for error in errors[:_MAX_PROBLEMS])
            more = f" (and {len(errors) - _MAX_PROBLEMS} more)" if len(errors) > _MAX_PROBLEMS else ""
            raise _Unusable(f"the JSON does not match the response schema: {described}{more}")
    return value


def _describe(error: Any) -> str:
    where = "/".join(str(part) for part in error.absolute_path)
    return f"at /{where}: {error.message[:200]}" if where else f"at the top level: {error.message[:200]}"


def _reject_constant(name: str) -> float:
    # NaN and Infinity are not JSON; letting them through would break our own response body.
    raise ValueError(f"{name} is not allowed in JSON")


def _strip_code_fence(text: str) -> str:
    # Models without enforced JSON mode (many local servers) like to wrap JSON in ```json fences.
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        return text[text.index("\n") + 1 : -3].strip()
    return text


def _result(
    page: PageContent,
    answer: Completion,
    *,
    extracted: dict[str, Any] | None = None,
    text: str | None = None,
    tokens: tuple[int, int] | None = None,
    extra_warning: str | None = None,
) -> ExtractionResult:
    input_tokens, output_tokens = tokens or (answer.input_tokens, answer.output_tokens)
    warnings = []
    if page.truncated:
        warnings.append(
            f"The page's content was longer than the {page.budget_chars} characters given to the model "
            "and was cut; the answer covers only the first part"
        )
    if extra_warning:
        warnings.append(extra_warning)
    metadata = ExtractionMetadata(
        url=page.url,
        timestamp=utc_timestamp(),
        model=answer.model,
        fieldsExtracted=len(extracted) if extracted is not None else 0,
        inputTokens=input_tokens,
        outputTokens=output_tokens,
    )
    return ExtractionResult(
        metadata=metadata, extracted=extracted, text=text, warning="; ".join(warnings) or None
    )
