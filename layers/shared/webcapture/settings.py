"""Every environment variable webcapture reads, in one place.

Each setting is one field of `Settings`, declared with the variable it is read from and how (`_env`).
Functions call `get_settings()`; tests that change the environment call `get_settings.cache_clear()`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def _text(name: str, default: str) -> str:
    return os.environ.get(name, default)


def _text_or_default(name: str, default: str) -> str:
    """Set and not empty, else the default."""
    return os.environ.get(name, "") or default


def _base_url(name: str, default: str) -> str:
    return os.environ.get(name, default).rstrip("/")


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def _float(name: str, default: float) -> float:
    return float(os.environ.get(name, "") or default)


def _count(name: str, default: int) -> int:
    """A whole number >= 0 (0 turns the feature off); anything else is a configuration error, said at once."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ValueError(f"{name} must be a whole number >= 0 (0 turns it off), not {raw!r}")
    return int(raw)


def _words(name: str) -> tuple[str, ...]:
    raw = os.environ.get(name, "")
    return tuple(part.strip() for part in raw.replace(";", ",").split(",") if part.strip())


def _list(name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """Comma- (or semicolon-) separated words; none: the default."""
    return _words(name) or default


def _ints(name: str, default: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(word) for word in _words(name)) or default


def _flag(name: str, default: bool) -> bool:
    """On unless set to 0, false or no (any case); unset: the default."""
    raw = os.environ.get(name, "").strip().lower()
    return default if not raw else raw not in ("0", "false", "no")


def _optional(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or default


def _env(name: str, read: Callable[[str, T], T], default: T) -> T:
    """A setting read from the environment variable `name` by `read`, which is given the default."""
    return field(default=default, metadata={"env": name, "read": read})


# The work queue of each operation a batch can run (docs/jobs.md#jobs), from JOBS_QUEUE_<OPERATION>_URL.
JOB_OPERATIONS = ("screenshot", "links", "ai-extract", "markdown", "content", "pdf")


def _job_queues() -> tuple[tuple[str, str], ...]:
    found = ((op, os.environ.get(f"JOBS_QUEUE_{op.upper().replace('-', '_')}_URL", "").strip())
             for op in JOB_OPERATIONS)
    return tuple((op, url) for op, url in found if url)


# The operations a monitor can watch (docs/monitors.md), each with its work queue's ARN for the schedules.
MONITOR_OPERATIONS = ("screenshot", "markdown", "ai-extract")


def _monitor_targets() -> tuple[tuple[str, str], ...]:
    found = ((op, os.environ.get(f"MONITORS_TARGET_{op.upper().replace('-', '_')}_ARN", "").strip())
             for op in MONITOR_OPERATIONS)
    return tuple((op, arn) for op, arn in found if arn)


def _default_cache_dir() -> Path:
    # Lambda only lets us write to /tmp; elsewhere keep unpacked browsers out of the repo's way.
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return Path("/tmp")  # noqa: S108 - Lambda's only writable place
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "webcapture"


@dataclass(frozen=True)
class Settings:
    # Storage
    api_keys_table: str = _env("API_KEYS_TABLE", _text, "ApiKeys")
    files_table: str = _env("FILES_TABLE", _text, "Files")
    signing_secrets_table: str = _env("SIGNING_SECRETS_TABLE", _text, "SigningSecrets")
    files_bucket: str = _env("FILES_BUCKET", _text, "webcapture-files")
    public_base_url: str = _env("PUBLIC_BASE_URL", _base_url, "")
    file_retention_days: int = _env("FILE_RETENTION_DAYS", _int, 30)
    # The CloudFront distribution in front of the bucket, to invalidate a deleted file; none locally.
    files_distribution_id: str | None = _env("FILES_DISTRIBUTION_ID", _optional, None)
    # Profiles (docs/profiles.md): their metadata, and the stack's KMS key their states are encrypted with
    # (none: S3's own aws/s3 key, still SSE-KMS).
    profiles_table: str = _env("PROFILES_TABLE", _text, "Profiles")
    profiles_kms_key: str | None = _env("PROFILES_KMS_KEY_ID", _optional, None)
    # Monitors (docs/monitors.md): their table, the stack's EventBridge Scheduler group their schedules live
    # in, the role the scheduler sends to the work queues with, and each operation's work queue ARN
    # (MONITORS_TARGET_<OPERATION>_ARN), what a schedule targets.
    monitors_table: str = _env("MONITORS_TABLE", _text, "Monitors")
    monitors_schedule_group: str = _env("MONITORS_SCHEDULE_GROUP", _text, "default")
    monitors_scheduler_role_arn: str = _env("MONITORS_SCHEDULER_ROLE_ARN", _text, "")
    monitor_targets: tuple[tuple[str, str], ...] = ()  # (operation, queue ARN)

    # Authentication (docs/api.md#authentication)
    jwt_jwks_url: str | None = _env("JWT_JWKS_URL", _optional, None)
    jwt_hs256_secret: str | None = _env("JWT_HS256_SECRET", _optional, None)
    jwt_algorithms: tuple[str, ...] = _env("JWT_ALGORITHMS", _list, ("EdDSA", "ES256", "RS256"))
    jwt_issuer: str | None = _env("JWT_ISSUER", _optional, None)
    jwt_audience: str | None = _env("JWT_AUDIENCE", _optional, None)

    # Requests
    max_body_bytes: int = _env("WEBCAPTURE_MAX_BODY_BYTES", _int, 100 * 1024)
    # API Gateway gives up at 29 s; leave room for storing the result and answering.
    request_budget_ms: int = _env("WEBCAPTURE_REQUEST_BUDGET_MS", _int, 25_000)
    # When API Gateway answers 504 on its own (its integration timeout); the request's deadline keeps clear.
    gateway_timeout_ms: int = _env("WEBCAPTURE_GATEWAY_TIMEOUT_MS", _int, 29_000)
    # Per-key in-flight limit (docs/api.md#limits) for keys whose record sets none.
    default_max_concurrency: int = _env("WEBCAPTURE_DEFAULT_MAX_CONCURRENCY", _int, 5)
    inline_response_limit_bytes: int = _env("WEBCAPTURE_INLINE_RESPONSE_LIMIT_BYTES", _int, 6 * 1024 * 1024)

    # Browser
    chromium_path: str | None = _env("WEBCAPTURE_CHROMIUM", _optional, None)
    chromium_pack_dir: str | None = _env("WEBCAPTURE_CHROMIUM_PACK", _optional, None)
    cache_dir: Path = field(default_factory=_default_cache_dir)
    # blockAds / blockCookieBanners: the folder scripts/fetch_page_filters.sh makes (/opt/page-filters on
    # Lambda, <repo>/.cache/page-filters elsewhere when unset).
    page_filters_dir: str | None = _env("WEBCAPTURE_PAGE_FILTERS", _optional, None)
    # Browser functions unpack and launch at import (webcapture.warm_start); WEBCAPTURE_WARM_START=0: not.
    warm_start: bool = _env("WEBCAPTURE_WARM_START", _flag, True)
    # Stop and restart Playwright's driver and the browser after this many requests (0: never). The driver
    # grows across contexts (about 0.12 MB a request, docs/benchmarks.md); with 500 it peaks about 60 MB
    # over a fresh start, the same in every cycle, for one recycle (about 1 s) per 500 requests.
    browser_recycle_after: int = _env("WEBCAPTURE_BROWSER_RECYCLE_AFTER", _count, 500)
    # A context and page made between requests for the next one (webcapture.browser.page.spare_context);
    # WEBCAPTURE_SPARE_CONTEXT=0: every request makes its own.
    spare_context: bool = _env("WEBCAPTURE_SPARE_CONTEXT", _flag, True)
    # A navigation a page starts by script within this long of its capture beginning (after the load and
    # waitTime) is followed, and the page captured where it lands (webcapture.browser.page.page_motion).
    script_navigation_window_ms: int = _env("WEBCAPTURE_SCRIPT_NAVIGATION_WINDOW_MS", _int, 50)

    # Egress policy (docs/api.md#egress-policy): CIDRs or address:port entries allowed in development and
    # tests only.
    egress_allow: tuple[str, ...] = _env("WEBCAPTURE_EGRESS_ALLOW", _list, ())

    # AI provider (docs/api.md#ai-extract)
    openai_api_key: str | None = _env("OPENAI_API_KEY", _optional, None)
    openai_api_key_secret: str | None = _env("OPENAI_API_KEY_SECRET", _optional, None)
    openai_base_url: str | None = _env("OPENAI_BASE_URL", _optional, None)
    ai_model: str = _env("WEBCAPTURE_AI_MODEL", _text_or_default, "gpt-4.1-mini")
    ai_timeout_s: float = _env("WEBCAPTURE_AI_TIMEOUT_S", _float, 20.0)
    ai_content_budget_chars: int = _env("WEBCAPTURE_AI_CONTENT_BUDGET_CHARS", _int, 60_000)
    # The rendered HTML read from the browser for extraction, at most (longer pages are cut, with a warning):
    # 10 MiB, what the http engine reads of a served page (fastpath.http_page.MAX_BODY_BYTES), so a page
    # either engine reads whole, the other does too (docs/decisions.md).
    max_html_chars: int = _env("WEBCAPTURE_MAX_HTML_CHARS", _int, 10 * 1024 * 1024)

    # Asynchronous jobs (docs/jobs.md#jobs): the jobs table, one work queue per operation, the webhooks queue.
    jobs_table: str = _env("JOBS_TABLE", _text, "Jobs")
    job_queues: tuple[tuple[str, str], ...] = ()  # (operation, queue URL)
    # The work queues of the operations a monitor runs (operation, URL): where `run` queues a check.
    monitor_queues: tuple[tuple[str, str], ...] = ()
    webhooks_queue: str = _env("WEBHOOKS_QUEUE_URL", _text, "")
    # A screenshot monitor's completed check, sent from the screenshot function to the function that compares
    # it (docs/monitors.md#screenshot-comparison).
    monitor_compare_queue: str = _env("MONITORS_COMPARE_QUEUE_URL", _text, "")
    # A crawl's pages (docs/crawl-and-map.md#crawl-and-map): one message per page its finder did not crawl,
    # on the crawl function's own queue.
    crawl_queue: str = _env("CRAWL_QUEUE_URL", _text, "")
    # A batch body carries up to 1,000 request bodies: its own size limit (API Gateway allows 10 MB).
    batch_max_body_bytes: int = _env("WEBCAPTURE_BATCH_MAX_BODY_BYTES", _int, 1024 * 1024)
    # Deliveries of one SQS message before the work function gives its item a failed result (the queue's
    # own maxReceiveCount in template.yaml is higher, so the dead-letter queue only sees what never ran).
    job_max_receives: int = _env("WEBCAPTURE_JOB_MAX_RECEIVES", _int, 4)
    # How long an item waits (a delayed message) while its key's maxConcurrency is taken.
    job_busy_delay_s: int = _env("WEBCAPTURE_JOB_BUSY_DELAY_S", _int, 2)
    # Webhook retries after a failed delivery (docs/jobs.md#jobs: about 5 s, 30 s, 2 min, 10 min, 1 h).
    webhook_retry_delays_s: tuple[int, ...] = _env(
        "WEBCAPTURE_WEBHOOK_RETRY_DELAYS_S", _ints, (5, 30, 120, 600, 3600))
    webhook_timeout_s: float = _env("WEBCAPTURE_WEBHOOK_TIMEOUT_S", _float, 10.0)
    # Upstream proxies (docs/actions-and-blocked-pages.md#actions-and-blocked-pages): named pools as JSON
    # ({"us": "http://user:pass@host:port"}), or the name of a Secrets Manager secret holding that JSON
    # (deployed). Read by webcapture.egress.upstream.
    upstream_proxies: str | None = _env("WEBCAPTURE_UPSTREAM_PROXIES", _optional, None)
    upstream_proxies_secret: str | None = _env("WEBCAPTURE_UPSTREAM_PROXIES_SECRET", _optional, None)

    # Observability
    service_name: str = _env("POWERTOOLS_SERVICE_NAME", _text, "webcapture")
    metrics_namespace: str = _env("POWERTOOLS_METRICS_NAMESPACE", _text, "webcapture")

    @classmethod
    def from_env(cls) -> Settings:
        # Every field declared with _env, then the three whose reading is their own.
        read = {f.name: f.metadata["read"](f.metadata["env"], f.default) for f in fields(cls) if f.metadata}
        return cls(
            cache_dir=Path(os.environ.get("WEBCAPTURE_CACHE_DIR", "") or _default_cache_dir()),
            job_queues=_job_queues(),
            monitor_queues=tuple((op, url) for op, url in _job_queues() if op in MONITOR_OPERATIONS),
            monitor_targets=_monitor_targets(),
            **read,
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.from_env()
