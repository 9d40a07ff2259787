"""A bounded memo of moto's expression parses (localapi/moto_conditions.py, localapi/moto_handler_parses.py),
shared by the threads of moto's server: when it is full, the parse used longest ago is dropped."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

Parsed = TypeVar("Parsed")
KEPT = 512  # distinct forms of each kind: the service writes a few dozen


class Kept(Generic[Parsed]):
    def __init__(self, size: int = KEPT) -> None:
        self.size = size
        self._parses: OrderedDict[str, Parsed] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Parsed | None:
        with self._lock:
            found = self._parses.get(key)
            if found is not None:
                self._parses.move_to_end(key)
            return found

    def put(self, key: str, parsed: Parsed) -> None:
        with self._lock:
            self._parses[key] = parsed
            self._parses.move_to_end(key)
            if len(self._parses) > self.size:
                self._parses.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._parses)
