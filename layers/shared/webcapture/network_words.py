"""A network failure in our own words: "connection refused", "timed out", never the socket's.

An exception's text names the errno, the address and the port (`[Errno 111] Connection refused`,
`HTTPConnectionPool(host='10.0.0.5', port=8443)`): handed to a caller, a map warning or a webhook delivery
record turns the service into a port scanner of any host it may reach, and an AI provider's words can name
its internal hosts. What reaches a caller is one of the phrases below, chosen from the exception's type
(and its causes'), never from its text.
"""

from __future__ import annotations

import socket
import ssl

_SEEN_CAUSES = 8


def _chain(error: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(found) < _SEEN_CAUSES and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
        # urllib3 keeps the socket's error as `reason` (NewConnectionError, MaxRetryError).
        reason = getattr(found[-1], "reason", None)
        if isinstance(reason, BaseException):
            current = reason
    return found


def network_words(error: BaseException) -> str:
    """What went wrong, in a few words that name no host, port or errno."""
    names = {type(link).__name__ for link in _chain(error)}
    for link in _chain(error):
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        if isinstance(link, (TimeoutError, socket.timeout)) or "Timeout" in type(link).__name__:
            return "timed out"
        if isinstance(link, ConnectionResetError | BrokenPipeError | ConnectionAbortedError):
            return "connection reset"
        if isinstance(link, ssl.SSLError) or "SSL" in type(link).__name__:
            return "TLS failed"
        if isinstance(link, socket.gaierror) or "NameResolution" in type(link).__name__:
            return "name not resolved"
    if any("Protocol" in name or "BadStatusLine" in name or "IncompleteRead" in name for name in names):
        return "broken answer"
    return "connection failed"
