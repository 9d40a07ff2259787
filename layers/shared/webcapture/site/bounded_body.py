"""A fetched body, bounded: at most so many bytes on the wire, and at most so many once inflated.

Sitemaps are often gzip files (`sitemap.xml.gz`), and some servers gzip whatever they send. A gzip
file expands about 1000 to 1, so a small download can stand for gigabytes: the body is inflated piece
by piece, each call asked for no more than what is left of the limit, and reading stops at the limit
(`cut` says so). Nothing larger than one piece is ever held. The inflating is the fast path's
(webcapture.fastpath.decoding), which undoes a declared Content-Encoding the same way.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from webcapture.fastpath.decoding import BrokenCoding, DecodedBody

# Served gzip without a Content-Encoding (a `.xml.gz` file) is known by its first two bytes.
GZIP_MAGIC: Final = b"\x1f\x8b"


@dataclass
class BoundedBody:
    """Iterate it once for the body's pieces; afterwards `cut` tells whether the byte limit stopped it,
    `timed_out` whether the deadline did."""

    pieces: Iterable[bytes]
    limit: int  # bytes after inflating
    deadline: float | None = None  # time.monotonic() instant: stop there (a piece inflates a thousandfold)
    cut: bool = False
    timed_out: bool = False
    broken: bool = False  # a gzip stream that does not inflate
    gzipped: bool = False

    def __iter__(self) -> Iterator[bytes]:
        source = iter(self.pieces)
        first = b""
        for piece in source:
            first = piece
            if piece:
                break
        self.gzipped = first[:2] == GZIP_MAGIC
        body = DecodedBody(_prepend(first, source), "gzip" if self.gzipped else "", self.limit)
        try:
            for piece in body:
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    self.timed_out = True
                    return
                yield piece
        except BrokenCoding:
            self.broken = True
        finally:
            self.cut = body.cut


def _prepend(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest
