"""Webhook delivery (docs/jobs.md#jobs), by the Standard Webhooks specification: `webhook-id` (the same on
every attempt of one event), `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256>`, signed by
the
`standardwebhooks` package with the user's secret.

Every attempt goes through the egress policy (docs/api.md#egress-policy): the host is resolved and judged, and
the connection is made to the judged address itself (a name that resolves elsewhere a moment later, DNS
rebinding, changes nothing). Redirects are not followed: anything but a 2xx is a failed attempt, retried
later as a delayed message (webcapture.jobs.webhook_events).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import urllib3
from standardwebhooks import Webhook

from webcapture.egress.hosts import HostError, parse_url
from webcapture.egress.policy import EgressRefused, route
from webcapture.egress.resolver import HostUnresolved
from webcapture.network_words import network_words
from webcapture.unicode_text import well_formed

USER_AGENT = "webcapture-webhooks/1"


@dataclass(frozen=True)
class Attempt:
    ok: bool
    status: int | None  # the receiver's HTTP status, None when there was no answer
    error: str | None = None


def signed_headers(secret: str, event_id: str, body: str, moment: datetime) -> dict[str, str]:
    signature = Webhook(secret).sign(msg_id=event_id, timestamp=moment, data=body)
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": signature,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
    }


def deliver(url: str, secret: str, event_id: str, payload: dict[str, Any], timeout_s: float) -> Attempt:
    """POST the event once."""
    body = well_formed(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))
    try:
        target = parse_url(url)
        allowed = route(target.host, target.port)
    except (HostError, EgressRefused):
        return Attempt(False, None, "URL_NOT_ALLOWED: the webhook URL is refused by the egress policy")
    except HostUnresolved:
        return Attempt(False, None, "the webhook host could not be resolved")
    if not allowed.addresses:
        return Attempt(False, None, "URL_NOT_ALLOWED: the webhook URL is refused by the egress policy")
    address = str(allowed.addresses[0])
    headers = {**signed_headers(secret, event_id, body, datetime.now(UTC)), "Host": target.authority}
    timeout = urllib3.Timeout(connect=min(timeout_s, 5.0), read=timeout_s)
    pool: urllib3.HTTPConnectionPool
    if target.scheme == "https":
        hostname = target.host_text
        pool = urllib3.HTTPSConnectionPool(
            address,
            target.port,
            timeout=timeout,
            retries=False,
            server_hostname=hostname,
            assert_hostname=hostname,
        )
    else:
        pool = urllib3.HTTPConnectionPool(address, target.port, timeout=timeout, retries=False)
    try:
        answer = pool.urlopen(
            "POST", target.path, body=body.encode(), headers=headers, redirect=False, preload_content=True
        )
    except urllib3.exceptions.HTTPError as error:
        # Recorded in deliveries[].error, which the job's owner reads: our words, never the socket's
        # (an errno, the address and port would make webhooks a port scanner).
        return Attempt(False, None, network_words(error))
    finally:
        pool.close()
    return Attempt(
        200 <= answer.status < 300,
        answer.status,
        None if 200 <= answer.status < 300 else f"HTTP {answer.status}",
    )
