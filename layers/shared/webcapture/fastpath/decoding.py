"""A fetched body made text: its content coding undone within a byte limit, then decoded with the charset
the header, the byte-order mark or a `<meta>` names (docs/fast-path.md#decoding).

Content codings are undone piece by piece, each step asked for no more than what is left of the limit, so
a small compressed download that stands for gigabytes stops at the limit (`cut`).
"""

from __future__ import annotations

import codecs
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final, Protocol

PIECE_BYTES: Final = 64 * 1024
ACCEPT_ENCODING: Final = "gzip, deflate, br"
# WHATWG: the <meta> charset is looked for in the first 1024 bytes; some pages put it later, 4096 is safe.
_META_SCAN_BYTES: Final = 4096
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.IGNORECASE)
_BOMS: Final = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                (codecs.BOM_UTF16_BE, "utf-16-be"))


class UnknownCoding(Exception):
    """A Content-Encoding this module cannot undo (the request did not offer it)."""


class BrokenCoding(Exception):
    """A compressed body that does not inflate."""


class _Inflater(Protocol):
    def feed(self, data: bytes, room: int) -> bytes: ...


class _Zlib:
    def __init__(self, wbits: int) -> None:
        self.wbits = wbits
        self.inflater = zlib.decompressobj(wbits)
        self.tail = b""

    def feed(self, data: bytes, room: int) -> bytes:
        data = self.tail + data
        try:
            out = self.inflater.decompress(data, room)
        except zlib.error as error:
            if self.wbits != zlib.MAX_WBITS or data.startswith(b"x"):
                raise BrokenCoding(str(error)) from None
            # "deflate" is meant to be zlib-wrapped, yet some servers send raw deflate.
            self.wbits, self.inflater = -zlib.MAX_WBITS, zlib.decompressobj(-zlib.MAX_WBITS)
            try:
                out = self.inflater.decompress(data, room)
            except zlib.error as raw_error:
                raise BrokenCoding(str(raw_error)) from None
        self.tail = self.inflater.unconsumed_tail
        if self.inflater.eof and self.inflater.unused_data and self.wbits > zlib.MAX_WBITS:
            rest = self.inflater.unused_data  # a second gzip member, read on as gzip does
            self.inflater, self.tail = zlib.decompressobj(self.wbits), rest
        return out


class _Brotli:
    def __init__(self) -> None:
        import brotli  # only when a server answers br

        self.inflater = brotli.Decompressor()
        self.pending = b""

    def feed(self, data: bytes, room: int) -> bytes:
        # output_buffer_limit bounds each step; until the decompressor can take input again it is asked
        # with none, and what arrived meanwhile waits here.
        import brotli

        self.pending += data
        given = b""
        if self.pending and self.inflater.can_accept_more_data():
            given, self.pending = self.pending, b""
        try:
            out: bytes = self.inflater.process(given, output_buffer_limit=room)
        except brotli.error as error:
            raise BrokenCoding(str(error)) from None
        return out


@dataclass
class DecodedBody:
    """Iterate once for the decoded bytes (at most `limit`); `cut` says the limit stopped it."""

    pieces: Iterable[bytes]
    coding: str
    limit: int
    cut: bool = False

    def __iter__(self) -> Iterator[bytes]:
        coding = self.coding.strip().lower()
        if coding in ("", "identity"):
            yield from self._plain()
            return
        inflater = _inflater(coding)
        left = self.limit
        for piece in self.pieces:
            data = piece
            while True:
                out = inflater.feed(data, min(PIECE_BYTES, left + 1))
                data = b""
                if len(out) > left:
                    if left:
                        yield out[:left]
                    self.cut = True
                    return
                left -= len(out)
                if not out:
                    break
                yield out

    def _plain(self) -> Iterator[bytes]:
        left = self.limit
        for piece in self.pieces:
            if len(piece) > left:
                if left:
                    yield piece[:left]
                self.cut = True
                return
            left -= len(piece)
            yield piece


def _inflater(coding: str) -> _Inflater:
    if coding in ("gzip", "x-gzip"):
        return _Zlib(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return _Zlib(zlib.MAX_WBITS)
    if coding == "br":
        return _Brotli()
    raise UnknownCoding(coding)


def header_charset(content_type: str) -> str | None:
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _known(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def charset_of(body: bytes, content_type: str) -> tuple[str, int]:
    """(codec, bytes to skip): a BOM wins (as browsers decide), then the header, then a <meta>; a page that
    names none is UTF-8 when its bytes are, else windows-1252, a browser's default for it."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, len(bom)
    named = _known(header_charset(content_type))
    if named is not None:
        return named, 0
    match = _META_CHARSET.search(body[:_META_SCAN_BYTES])
    meta = _known(match.group(1).decode("ascii", "replace")) if match else None
    # A page that says utf-16 in a <meta> was readable as ASCII, so it is not UTF-16 (WHATWG says so too).
    if meta is not None and not meta.startswith("utf-16"):
        return meta, 0
    return ("utf-8" if _is_utf8(body) else "cp1252"), 0


def _is_utf8(body: bytes) -> bool:
    """Whether the bytes are UTF-8 (ASCII is; a body cut at the byte limit may end inside a character)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start >= len(body) - 3 and error.reason == "unexpected end of data"
    return True


def decode_html(body: bytes, content_type: str) -> str:
    codec, skip = charset_of(body, content_type)
    return body[skip:].decode(codec, errors="replace")
