"""The pixels of the PNGs Chromium writes, read with zlib alone, so no imaging library is needed."""

from __future__ import annotations

import struct
import zlib

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from the IHDR chunk."""
    assert data[:8] == PNG_MAGIC
    width, height = struct.unpack(">II", data[16:24])
    return width, height


class Pixels:
    """The pixels of an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes). Rows are unfiltered
    on demand, top down, so looking near the top of a tall image stays cheap in pure Python."""

    def __init__(self, data: bytes) -> None:
        assert data[:8] == PNG_MAGIC
        pos, idat, header = 8, b"", b""
        while pos < len(data):
            (length,) = struct.unpack(">I", data[pos : pos + 4])
            kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
            if kind == b"IHDR":
                header = body
            elif kind == b"IDAT":
                idat += body
            pos += 12 + length
        self.width, self.height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
        assert depth == 8 and colour in (2, 6) and interlace == 0
        self.channels = 4 if colour == 6 else 3
        self.raw = zlib.decompress(idat)
        self.stride = self.width * self.channels
        assert len(self.raw) == self.height * (self.stride + 1)  # the bytes hold exactly this many pixels
        self.rows: list[bytes] = []

    def _row(self, y: int) -> bytes:
        while len(self.rows) <= y:
            self.rows.append(self._unfilter(len(self.rows)))
        return self.rows[y]

    def _unfilter(self, y: int) -> bytes:
        stride, channels = self.stride, self.channels
        kind = self.raw[y * (stride + 1)]
        line = bytearray(self.raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        previous = self.rows[y - 1] if y else bytes(stride)
        if kind == 0:
            return bytes(line)
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            else:
                corner = previous[i - channels] if i >= channels else 0
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        return bytes(line)

    def at(self, x: int, y: int) -> tuple[int, ...]:
        """(r, g, b, a) of one pixel; a is 255 for an image without alpha."""
        px = tuple(self._row(y)[x * self.channels : (x + 1) * self.channels])
        return px if self.channels == 4 else (*px, 255)

    def region(self, x0: int, y0: int, x1: int, y1: int) -> list[tuple[int, ...]]:
        return [self.at(x, y) for y in range(y0, y1) for x in range(x0, x1)]


def decode_png(data: bytes) -> Pixels:
    return Pixels(data)
