"""The operator's upstream proxy pools (docs/actions-and-blocked-pages.md#actions-and-blocked-pages), read
from the environment or Secrets Manager.

WEBCAPTURE_UPSTREAM_PROXIES holds the JSON itself (`make dev`, tests); deployed, the JSON lives in the
Secrets Manager secret WEBCAPTURE_UPSTREAM_PROXIES_SECRET names, read with a short cache so a rotated secret
is picked up. A configuration that cannot be used is logged (without its credentials) and offers no pools,
so a request naming one gets the 422 that lists what is configured.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urlsplit

from webcapture.models.page_actions import use_pool_names
from webcapture.settings import get_settings

log = logging.getLogger(__name__)

SECRET_MAX_AGE_S = 300
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


@dataclass(frozen=True)
class UpstreamProxy:
    name: str
    host: str
    port: int
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    def __str__(self) -> str:  # what may be logged: never the credentials
        return f"{self.name} ({self.host}:{self.port})"


def parse_pools(text: str) -> dict[str, UpstreamProxy]:
    """The pools of the JSON text; ValueError (naming the pool, never its URL) when one is unusable."""
    try:
        raw: Any = json.loads(text)
    except ValueError:
        raise ValueError("the upstream proxy configuration is not JSON") from None
    if not isinstance(raw, dict):
        raise ValueError("the upstream proxy configuration must be a JSON object of name -> proxy URL")
    pools: dict[str, UpstreamProxy] = {}
    for name, url in raw.items():
        if not name or len(name) > 64 or not set(name) <= _NAME_CHARS:
            raise ValueError(f"upstream proxy name {name[:64]!r} must be 1..64 letters, digits, - _ or .")
        if not isinstance(url, str):
            raise ValueError(f"upstream proxy {name!r} must be a URL string")
        pools[name] = _pool(name, url)
    return pools


def _pool(name: str, url: str) -> UpstreamProxy:
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    # Plain http: the proxy is spoken to with CONNECT; the page's own TLS runs inside the tunnel.
    if parts.scheme.lower() != "http" or not parts.hostname or port is None:
        raise ValueError(f"upstream proxy {name!r} must be http://[user:pass@]host:port")
    username = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return UpstreamProxy(name=name, host=parts.hostname, port=port, username=username, password=password)


def upstream_proxies() -> dict[str, UpstreamProxy]:
    settings = get_settings()
    if settings.upstream_proxies:
        return _parsed(settings.upstream_proxies)
    if settings.upstream_proxies_secret:
        bucket = int(time.monotonic() // SECRET_MAX_AGE_S)  # a rotated secret is read again within 5 min
        return _parsed(_secret_text(settings.upstream_proxies_secret, bucket))
    return {}


@lru_cache(maxsize=4)
def _parsed(text: str) -> dict[str, UpstreamProxy]:
    try:
        return parse_pools(text)
    except ValueError as error:
        log.error("upstream proxies not configured: %s", error)
        return {}


@lru_cache(maxsize=2)
def _secret_text(name: str, _bucket: int) -> str:
    # Imported here: only deployments with the secret pay for importing the AWS SDK.
    from aws_lambda_powertools.utilities.parameters import SecretsProvider
    from botocore.config import Config

    config = Config(connect_timeout=3, read_timeout=5, retries={"max_attempts": 2, "mode": "standard"})
    try:
        value: Any = SecretsProvider(boto_config=config).get(name)
    except Exception as error:
        # The AWS error names roles and accounts: logged, never answered.
        log.error("could not read the upstream proxy secret %s: %s", name, type(error).__name__)
        return "{}"
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


# Requests name a pool with `proxy`: checked against these (webcapture.models.page_actions).
use_pool_names(lambda: list(upstream_proxies()))
