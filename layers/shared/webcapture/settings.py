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


def _count(name: str, default: int) -> int:
    """A whole number >= 0 (0 turns the feature off); anything else is a configuration error, said at once."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ValueError(f"{name} must be a whole number >= 0 (0 turns it off), not {raw!r}")
    return int(raw)


def _list(name: str) -> tuple[str, ...]:
    raw = os.environ.get(name, "")
    return tuple(part.strip() for part in raw.replace(";", ",").split(",") if part.strip())


def _flag(name: str, default: bool) -> bool:
    """On unless set to 0, false or no (any case); unset: the default."""
    raw = os.environ.get(name, "").strip().lower()
    return default if not raw else raw not in ("0", "false", "no")


def _optional(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


# The work queue of each operation a batch can run (CONTRACT 17), from JOBS_QUEUE_<OPERATION>_URL.
JOB_OPERATIONS = ("screenshot", "links", "ai-extract", "markdown", "content", "pdf")


def _job_queues() -> tuple[tuple[str, str], ...]:
    found = ((op, os.environ.get(f"JOBS_QUEUE_{op.upper().replace('-', '_')}_URL", "").strip())
             for op in JOB_OPERATIONS)
    return tuple((op, url) for op, url in found if url)


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
    signing_secrets_table: str = "SigningSecrets"
    files_bucket: str = "webcapture-files"
    public_base_url: str = ""
    file_retention_days: int = 30
    # The CloudFront distribution in front of the bucket, to invalidate a deleted file; none locally.
    files_distribution_id: str | None = None

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
    # When API Gateway answers 504 on its own (its integration timeout); the request's deadline keeps clear.
    gateway_timeout_ms: int = 29_000
    # Per-key in-flight limit (CONTRACT 16) for keys whose record sets none.
    default_max_concurrency: int = 5
    inline_response_limit_bytes: int = 6 * 1024 * 1024

    # Browser
    chromium_path: str | None = None
    chromium_pack_dir: str | None = None
    cache_dir: Path = field(default_factory=_default_cache_dir)
    # blockAds / blockCookieBanners: the folder scripts/fetch_page_filters.sh makes (/opt/page-filters on
    # Lambda, <repo>/.cache/page-filters elsewhere when unset).
    page_filters_dir: str | None = None
    # Browser functions unpack and launch at import (webcapture.warm_start); WEBCAPTURE_WARM_START=0: not.
    warm_start: bool = True
    # Stop and restart Playwright's driver and the browser after this many requests (0: never). The driver
    # grows across contexts (about 0.12 MB a request, docs/benchmarks.md); with 500 it peaks about 60 MB
    # over a fresh start, the same in every cycle, for one recycle (about 1 s) per 500 requests.
    browser_recycle_after: int = 500
    # A context and page made between requests for the next one (webcapture.browser.page.spare_context);
    # WEBCAPTURE_SPARE_CONTEXT=0: every request makes its own.
    spare_context: bool = True
    # A navigation a page starts by script within this long of its capture beginning (after the load and
    # waitTime) is followed, and the page captured where it lands (webcapture.browser.page.page_motion).
    script_navigation_window_ms: int = 50

    # Egress policy (CONTRACT 13): CIDRs or address:port entries allowed in development and tests only.
    egress_allow: tuple[str, ...] = ()
    # "address:port" of a DNS server the egress guard asks instead of the system resolver (development and
    # tests: a loopback server that maps test names, answers slowly or rebinds). Unset in production.
    egress_dns_server: str | None = None

    # AI provider (CONTRACT 9)
    openai_api_key: str | None = None
    openai_api_key_secret: str | None = None
    openai_base_url: str | None = None
    ai_model: str = "gpt-4.1-mini"
    ai_timeout_s: float = 20.0
    ai_content_budget_chars: int = 60_000
    # The rendered HTML read from the browser for extraction, at most (longer pages are cut, with a warning).
    # html.parser and markdownify take about 15 us a character of dense markup here (README, Decisions).
    max_html_chars: int = 1_000_000

    # Asynchronous jobs (CONTRACT 17): the jobs table, one work queue per operation, the webhooks queue.
    jobs_table: str = "Jobs"
    job_queues: tuple[tuple[str, str], ...] = ()  # (operation, queue URL)
    webhooks_queue: str = ""
    # A crawl's pages (CONTRACT 18): one message per page, on the crawl function's own queue.
    crawl_queue: str = ""
    # A batch body carries up to 1,000 request bodies: its own size limit (API Gateway allows 10 MB).
    batch_max_body_bytes: int = 1024 * 1024
    # Deliveries of one SQS message before the work function gives its item a failed result (the queue's
    # own maxReceiveCount in template.yaml is higher, so the dead-letter queue only sees what never ran).
    job_max_receives: int = 4
    # How long an item waits (a delayed message) while its key's maxConcurrency is taken.
    job_busy_delay_s: int = 2
    # Webhook retries after a failed delivery (CONTRACT 17: about 5 s, 30 s, 2 min, 10 min, 1 h).
    webhook_retry_delays_s: tuple[int, ...] = (5, 30, 120, 600, 3600)
    webhook_timeout_s: float = 10.0
    # Upstream proxies (CONTRACT 20): named pools as JSON ({"us": "http://user:pass@host:port"}), or the
    # name of a Secrets Manager secret holding that JSON (deployed). Read by webcapture.egress.upstream.
    upstream_proxies: str | None = None
    upstream_proxies_secret: str | None = None

    # Observability
    service_name: str = "webcapture"
    metrics_namespace: str = "webcapture"

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ.get
        return cls(
            api_keys_table=env("API_KEYS_TABLE", cls.api_keys_table),
            files_table=env("FILES_TABLE", cls.files_table),
            signing_secrets_table=env("SIGNING_SECRETS_TABLE", cls.signing_secrets_table),
            files_bucket=env("FILES_BUCKET", cls.files_bucket),
            public_base_url=env("PUBLIC_BASE_URL", "").rstrip("/"),
            file_retention_days=_int("FILE_RETENTION_DAYS", cls.file_retention_days),
            files_distribution_id=_optional("FILES_DISTRIBUTION_ID"),
            jwt_jwks_url=_optional("JWT_JWKS_URL"),
            jwt_hs256_secret=_optional("JWT_HS256_SECRET"),
            jwt_algorithms=_list("JWT_ALGORITHMS") or cls.jwt_algorithms,
            jwt_issuer=_optional("JWT_ISSUER"),
            jwt_audience=_optional("JWT_AUDIENCE"),
            max_body_bytes=_int("WEBCAPTURE_MAX_BODY_BYTES", cls.max_body_bytes),
            request_budget_ms=_int("WEBCAPTURE_REQUEST_BUDGET_MS", cls.request_budget_ms),
            gateway_timeout_ms=_int("WEBCAPTURE_GATEWAY_TIMEOUT_MS", cls.gateway_timeout_ms),
            default_max_concurrency=_int("WEBCAPTURE_DEFAULT_MAX_CONCURRENCY", cls.default_max_concurrency),
            inline_response_limit_bytes=_int(
                "WEBCAPTURE_INLINE_RESPONSE_LIMIT_BYTES", cls.inline_response_limit_bytes
            ),
            chromium_path=_optional("WEBCAPTURE_CHROMIUM"),
            chromium_pack_dir=_optional("WEBCAPTURE_CHROMIUM_PACK"),
            cache_dir=Path(env("WEBCAPTURE_CACHE_DIR", "") or _default_cache_dir()),
            page_filters_dir=_optional("WEBCAPTURE_PAGE_FILTERS"),
            warm_start=_flag("WEBCAPTURE_WARM_START", cls.warm_start),
            browser_recycle_after=_count("WEBCAPTURE_BROWSER_RECYCLE_AFTER", cls.browser_recycle_after),
            spare_context=_flag("WEBCAPTURE_SPARE_CONTEXT", cls.spare_context),
            script_navigation_window_ms=_int(
                "WEBCAPTURE_SCRIPT_NAVIGATION_WINDOW_MS", cls.script_navigation_window_ms
            ),
            egress_allow=_list("WEBCAPTURE_EGRESS_ALLOW"),
            egress_dns_server=_optional("WEBCAPTURE_EGRESS_DNS_SERVER"),
            openai_api_key=_optional("OPENAI_API_KEY"),
            openai_api_key_secret=_optional("OPENAI_API_KEY_SECRET"),
            openai_base_url=_optional("OPENAI_BASE_URL"),
            ai_model=env("WEBCAPTURE_AI_MODEL", "") or cls.ai_model,
            ai_timeout_s=float(env("WEBCAPTURE_AI_TIMEOUT_S", "") or cls.ai_timeout_s),
            ai_content_budget_chars=_int("WEBCAPTURE_AI_CONTENT_BUDGET_CHARS", cls.ai_content_budget_chars),
            max_html_chars=_int("WEBCAPTURE_MAX_HTML_CHARS", cls.max_html_chars),
            jobs_table=env("JOBS_TABLE", cls.jobs_table),
            job_queues=_job_queues(),
            webhooks_queue=env("WEBHOOKS_QUEUE_URL", cls.webhooks_queue),
            crawl_queue=env("CRAWL_QUEUE_URL", cls.crawl_queue),
            batch_max_body_bytes=_int("WEBCAPTURE_BATCH_MAX_BODY_BYTES", cls.batch_max_body_bytes),
            job_max_receives=_int("WEBCAPTURE_JOB_MAX_RECEIVES", cls.job_max_receives),
            job_busy_delay_s=_int("WEBCAPTURE_JOB_BUSY_DELAY_S", cls.job_busy_delay_s),
            webhook_retry_delays_s=tuple(int(d) for d in _list("WEBCAPTURE_WEBHOOK_RETRY_DELAYS_S"))
            or cls.webhook_retry_delays_s,
            webhook_timeout_s=float(env("WEBCAPTURE_WEBHOOK_TIMEOUT_S", "") or cls.webhook_timeout_s),
            upstream_proxies=_optional("WEBCAPTURE_UPSTREAM_PROXIES"),
            upstream_proxies_secret=_optional("WEBCAPTURE_UPSTREAM_PROXIES_SECRET"),
            service_name=env("POWERTOOLS_SERVICE_NAME", cls.service_name),
            metrics_namespace=env("POWERTOOLS_METRICS_NAMESPACE", cls.metrics_namespace),
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.from_env()


@dataclass(frozen=True)
class ClientSettings:
    """What the client CLI (`webcapture shot|links|extract|...`) reads: where the API is, and the key."""

    api_url: str = "http://127.0.0.1:3000"
    api_key: str | None = None


def client_settings() -> ClientSettings:
    return ClientSettings(
        api_url=(os.environ.get("WEBCAPTURE_API_URL", "") or ClientSettings.api_url).rstrip("/"),
        api_key=_optional("WEBCAPTURE_API_KEY"),
    )
