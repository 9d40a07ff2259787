"""A fetched body, bounded: at most so many bytes on the wire, and at most so many once inflated.

Sitemaps are often gzip files (`sitemap.xml.gz`), and some servers gzip whatever they send. A gzip
file expands about 1000 to 1, so a small download can stand for gigabytes: the body is inflated piece
by piece, each call asked for no more than what is left of the limit, and reading stops at the limit
(`cut` says so). Nothing larger than one piece is ever held.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

GZIP_MAGIC: Final = b"\x1f\x8b"
PIECE_BYTES: Final = 64 * 1024


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
        chain = _prepend(first, source)
        for piece in self._inflated(chain) if self.gzipped else self._plain(chain):
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.timed_out = True
                return
            yield piece

    def _plain(self, source: Iterator[bytes]) -> Iterator[bytes]:
        left = self.limit
        for piece in source:
            if len(piece) >= left:
                if piece[:left]:
                    yield piece[:left]
                self.cut = len(piece) > left or _more(source)
                return
            left -= len(piece)
            yield piece

    def _inflated(self, source: Iterator[bytes]) -> Iterator[bytes]:
        left = self.limit
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        for piece in source:
            data = piece
            while data:
                try:
                    out = inflater.decompress(data, min(PIECE_BYTES, left + 1))
                except zlib.error:
                    self.broken = True
                    return
                data = inflater.unconsumed_tail
                if len(out) > left:
                    if left:
                        yield out[:left]
                    self.cut = True
                    return
                left -= len(out)
                if out:
                    yield out
                if inflater.eof:
                    # A second gzip member (concatenated files) is read on as gzip does.
                    rest = inflater.unused_data
                    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    data = rest
        tail = inflater.flush()
        if len(tail) > left:
            self.cut = True
            tail = tail[:left]
        if tail:
            yield tail


def _prepend(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _more(source: Iterator[bytes]) -> bool:
    return any(piece for piece in source)
