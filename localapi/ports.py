"""A port the local stack needs that something else already holds is a clear error before anything starts.

Without this check moto's server thread dies on the taken port and its starter waits forever for it to be
ready; the gateway's would exit halfway, with function containers already started.
"""

from __future__ import annotations

import socket


class PortTaken(RuntimeError):
    pass


def ensure_free(host: str, port: int, what: str, option: str) -> None:
    """PortTaken naming the option that moves `what` elsewhere; port 0 (any free one) always passes."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As the servers bind: a port left in TIME_WAIT by the last run is free, one listening is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise PortTaken(f"{what} cannot listen on {host}:{port} ({error.strerror or error}); "
                            f"another program (LocalStack, another make dev) holds it: choose another "
                            f"port with {option}") from None
