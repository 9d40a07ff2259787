"""Every environment variable webcapture reads, in one place.

Functions call `get_settings()`; tests that change the environment call `get_settings.cache_clear()`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def _list(name: str) -> tuple[str, ...]:
    raw = os.environ.get(name, "")
    return tuple(part.strip() for part in raw.replace(";", ",").split(",") if part.strip())


def _optional(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def _default_cache_dir() -> Path:
    # Lambda only lets us write to /tmp; elsewhere keep unpacked browsers out of the repo's way.
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return Path("/tmp")  # noqa: S108 - Lambda's only writable place
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "webcapture"


@dataclass(frozen=True)
class Settings:
    # Storage
    api_keys_table: str = "ApiKeys"
    files_table: str = "Files"
    files_bucket: str = "webcapture-files"
    public_base_url: str = ""
    file_retention_days: int = 30

    # Authentication (CONTRACT 4)
    jwt_jwks_url: str | None = None
    jwt_hs256_secret: str | None = None
    jwt_algorithms: tuple[str, ...] = ("EdDSA", "ES256", "RS256")
    jwt_issuer: str | None = None
    jwt_audience: str | None = None

    # Requests
    max_body_bytes: int = 100 * 1024
    # API Gateway gives up at 29 s; leave room for storing the result and answering.
    request_budget_ms: int = 25_000
    inline_response_limit_bytes: int = 6 * 1024 * 1024

    # Browser
    chromium_path: str | None = None
    chromium_pack_dir: str | None = None
    cache_dir: Path = field(default_factory=_default_cache_dir)
    # Browser functions unpack and launch at import (webcapture.warm_start); WEBCAPTURE_WARM_START=0: not.
    warm_start: bool = True

    # Egress policy (CONTRACT 13): CIDRs allowed in development and tests only.
    egress_allow: tuple[str, ...] = ()

    # AI provider (CONTRACT 9)
    openai_api_key: str | None = None
    openai_api_key_secret: str | None = None
    openai_base_url: str | None = None
    ai_model: str = "gpt-4.1-mini"
    ai_timeout_s: float = 20.0
    ai_content_budget_chars: int = 60_000

    # Observability
    service_name: str = "webcapture"
    metrics_namespace: str = "webcapture"

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ.get
        return cls(
            api_keys_table=env("API_KEYS_TABLE", cls.api_keys_table),
            files_table=env("FILES_TABLE", cls.files_table),
            files_bucket=env("FILES_BUCKET", cls.files_bucket),
            public_base_url=env("PUBLIC_BASE_URL", "").rstrip("/"),
            file_retention_days=_int("FILE_RETENTION_DAYS", cls.file_retention_days),
            jwt_jwks_url=_optional("JWT_JWKS_URL"),
            jwt_hs256_secret=_optional("JWT_HS256_SECRET"),
            jwt_algorithms=_list("JWT_ALGORITHMS") or cls.jwt_algorithms,
            jwt_issuer=_optional("JWT_ISSUER"),
            jwt_audience=_optional("JWT_AUDIENCE"),
            max_body_bytes=_int("WEBCAPTURE_MAX_BODY_BYTES", cls.max_body_bytes),
            request_budget_ms=_int("WEBCAPTURE_REQUEST_BUDGET_MS", cls.request_budget_ms),
            inline_response_limit_bytes=_int(
                "WEBCAPTURE_INLINE_RESPONSE_LIMIT_BYTES", cls.inline_response_limit_bytes
            ),
            chromium_path=_optional("WEBCAPTURE_CHROMIUM"),
            chromium_pack_dir=_optional("WEBCAPTURE_CHROMIUM_PACK"),
            cache_dir=Path(env("WEBCAPTURE_CACHE_DIR", "") or _default_cache_dir()),
            warm_start=env("WEBCAPTURE_WARM_START", "1").strip().lower() not in ("0", "false", "no"),
            egress_allow=_list("WEBCAPTURE_EGRESS_ALLOW"),
            openai_api_key=_optional("OPENAI_API_KEY"),
            openai_api_key_secret=_optional("OPENAI_API_KEY_SECRET"),
            openai_base_url=_optional("OPENAI_BASE_URL"),
            ai_model=env("WEBCAPTURE_AI_MODEL", "") or cls.ai_model,
            ai_timeout_s=float(env("WEBCAPTURE_AI_TIMEOUT_S", "") or cls.ai_timeout_s),
            ai_content_budget_chars=_int("WEBCAPTURE_AI_CONTENT_BUDGET_CHARS", cls.ai_content_budget_chars),
            service_name=env("POWERTOOLS_SERVICE_NAME", cls.service_name),
            metrics_namespace=env("POWERTOOLS_METRICS_NAMESPACE", cls.metrics_namespace),
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.from_env()
