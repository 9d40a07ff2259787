"""Upstream proxies (docs/actions-and-blocked-pages.md#actions-and-blocked-pages): named pools the operator
configures, one chosen per request with `proxy`.

The chain is Chromium -> our egress proxy -> the upstream proxy -> the target. Each pool gets its own egress
proxy (same code, same policy), whose connector opens a CONNECT tunnel through the pool's proxy instead of
a socket to the target. So the target is resolved and judged by our proxy first (docs/api.md#egress-policy),
the upstream proxy is asked for the address that was checked (an IP literal: it has no name to look up again),
and a refused target never reaches it.

The pools come from WEBCAPTURE_UPSTREAM_PROXIES (JSON: {"us": "http://user:pass@host:port"}) or, deployed,
from the Secrets Manager secret WEBCAPTURE_UPSTREAM_PROXIES_SECRET names (upstream_config). Credentials go
to the upstream proxy only: they are never logged, answered, or put in an error message.
"""

from __future__ import annotations

import asyncio
import base64
import threading
from ipaddress import IPv6Address

from webcapture.egress.addresses import IPAddress
from webcapture.egress.http1 import HEAD_LIMIT
from webcapture.egress.proxy import Connector, EgressProxy, Streams
from webcapture.egress.upstream_config import UpstreamProxy, upstream_proxies

# The upstream proxy's answer to CONNECT: a status line and headers, nothing more before the tunnel.
_MAX_ANSWER_LINES = 100


class UpstreamRefused(OSError):
    """The upstream proxy did not open the tunnel (its status is kept; its words are not, they may echo
    what we sent)."""


def _authority(address: IPAddress, port: int) -> str:
    return f"[{address}]:{port}" if isinstance(address, IPv6Address) else f"{address}:{port}"


def tunnel_connector(upstream: UpstreamProxy) -> Connector:
    """A connector for EgressProxy: a CONNECT tunnel through `upstream` to exactly the checked address."""

    async def connect(address: IPAddress, port: int) -> Streams:
        reader, writer = await asyncio.open_connection(upstream.host, upstream.port, limit=HEAD_LIMIT)
        try:
            authority = _authority(address, port)
            head = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n"
            if upstream.username is not None:
                token = base64.b64encode(f"{upstream.username}:{upstream.password or ''}".encode()).decode()
                head += f"Proxy-Authorization: Basic {token}\r\n"
            writer.write((head + "\r\n").encode("latin-1"))
            await writer.drain()
            status_line = await reader.readline()
            parts = status_line.split(b" ", 2)
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            for _ in range(_MAX_ANSWER_LINES):
                line = await reader.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
            if status != 200:
                raise UpstreamRefused(f"the upstream proxy {upstream.name!r} answered {status or 'nothing'}")
        except BaseException:
            writer.close()
            raise
        return reader, writer

    return connect


class PoolProxy(EgressProxy):
    """An egress proxy whose connections leave through one upstream proxy."""

    def __init__(self, upstream: UpstreamProxy) -> None:
        super().__init__(connector=tunnel_connector(upstream))
        self.upstream = upstream


_proxies: dict[str, PoolProxy] = {}
_lock = threading.Lock()


def pool_names() -> tuple[str, ...]:
    return tuple(upstream_proxies())


def upstream_pool_proxy(name: str) -> PoolProxy:
    """The egress proxy that sends through pool `name`, started on first use; a request's context opens its
    own scope on it (EgressProxy.open_scope). The name was validated against pool_names()."""
    pool = upstream_proxies()[name]
    with _lock:
        proxy = _proxies.get(name)
        if proxy is None or proxy.upstream != pool:
            if proxy is not None:
                proxy.stop()
            proxy = _proxies[name] = PoolProxy(pool)
        proxy.start()
        return proxy
