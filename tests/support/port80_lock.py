"""Port 80 on the 127.0.8.x addresses, taken in turns by every process that serves a site there.

The sample sites listen on port 80 (the default port, so `http://host/` and `http://host:80/` are spellings of
one page), which an ephemeral port cannot stand in for. Test modules that serve them may run at the same
time: in two pytest-xdist workers, or in two checkouts' suites on one machine. One lock file for all the
port-80 addresses (a test module may serve two of them at once, and two locks taken in different orders
could deadlock): a process takes it when its first port-80 site starts and gives it back when its last
one stops; another process waits its turn instead of failing on a taken address.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import threading
from pathlib import Path

_LOCK_FILE = Path(tempfile.gettempdir()) / "webcapture-tests-port80.lock"
_guard = threading.Lock()
_holders = 0
_fd: int | None = None


def take() -> None:
    """Blocks until this process holds port 80's turn (re-entrant within the process)."""
    global _holders, _fd
    with _guard:
        if _holders == 0:
            fd = os.open(_LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o666)
            fcntl.flock(fd, fcntl.LOCK_EX)
            _fd = fd
        _holders += 1


def give_back() -> None:
    """Ends one holder's turn; the last one lets other processes in."""
    global _holders, _fd
    with _guard:
        _holders -= 1
        if _holders == 0 and _fd is not None:
            fcntl.flock(_fd, fcntl.LOCK_UN)
            os.close(_fd)
            _fd = None
