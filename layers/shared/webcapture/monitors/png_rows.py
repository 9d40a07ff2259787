"""A PNG's rows as they are stored (inflated, still filtered): two captures compared without decoding what
did not change, and a marked copy written without encoding again what was not drawn on.

Only what Chromium writes: 8-bit RGB or RGBA, not interlaced, no palette or transparent colour; anything
else reads as None (the caller decodes it whole). A row is decoded from the last row at or above it whose
filter does not look at the row above (type 0 or 1), or from the top: PNG's filters chain rows together.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from PIL import Image

from webcapture.pixel_limits import MAX_PIXELS

SIGNATURE = b"\x89PNG\r\n\x1a\n"
COLOUR_TYPES = {"RGB": 2, "RGBA": 6}
_CHANNELS = {2: 3, 6: 4}
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KB window, fastest level (the check bits make it a multiple of 31)
UNCHAINED = (0, 1)  # None and Sub: a row that does not look at the row above


@dataclass(frozen=True)
class PngRows:
    width: int
    height: int
    colour_type: int
    filtered: bytes  # height rows of (filter type, stride bytes)

    @property
    def row_bytes(self) -> int:
        return 1 + self.width * _CHANNELS[self.colour_type]

    @property
    def mode(self) -> str:
        return "RGBA" if self.colour_type == 6 else "RGB"

    def row(self, y: int) -> bytes:
        return self.filtered[y * self.row_bytes : (y + 1) * self.row_bytes]

    def filter_type(self, y: int) -> int:
        return self.filtered[y * self.row_bytes]

    def decode(self, top: int, bottom: int) -> Image.Image:
        """Rows top..bottom (exclusive) as pixels: from their chain's first row, by Pillow."""
        start = top
        while start > 0 and self.filter_type(start) not in UNCHAINED:
            start -= 1
        part = self.filtered[start * self.row_bytes : bottom * self.row_bytes]
        stored = png_from_parts(self.width, bottom - start, self.colour_type, [part], level=0)
        image = Image.open(io.BytesIO(stored))
        image.load()
        return image.crop((0, top - start, self.width, bottom - start))


def read_png_rows(data: bytes) -> PngRows | None:
    if not data.startswith(SIGNATURE):
        return None
    pos, header, idat = 8, b"", []
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IHDR":
            header = data[pos + 8 : pos + 8 + length]
        elif kind == b"IDAT":
            idat.append(data[pos + 8 : pos + 8 + length])
        elif kind in (b"PLTE", b"tRNS"):
            return None
        pos += 12 + length
    if len(header) != 13:
        return None
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour_type not in _CHANNELS or interlace != 0:
        return None
    if width * height > MAX_PIXELS:  # a capture is never larger: Pillow then refuses it by name
        return None
    expected = height * (1 + width * _CHANNELS[colour_type])
    try:  # never more than the rows' size inflated, whatever the stream holds
        filtered = zlib.decompressobj().decompress(b"".join(idat), expected + 1)
    except zlib.error:
        return None
    return PngRows(width, height, colour_type, filtered) if len(filtered) == expected else None


def png_from_parts(width: int, height: int, colour_type: int, parts: Sequence[bytes | memoryview],
                   level: int = 1) -> bytes:
    """A PNG whose IDAT holds `parts` one after the other (filtered rows, filter bytes included), deflated
    in two halves at once (zlib lets go of the GIL): the first half ends in a sync flush (byte-aligned, not
    final), so the second's blocks follow it as one stream."""
    half, total = 0, sum(len(part) for part in parts)
    running = 0
    while half < len(parts) and running < total // 2:
        running += len(parts[half])
        half += 1
    with ThreadPoolExecutor(2) as pool:
        second = pool.submit(_deflated, parts[half:], zlib.Z_FINISH, level)
        first = _deflated(parts[:half], zlib.Z_SYNC_FLUSH, level)
        checksum = 1
        for part in parts:
            checksum = zlib.adler32(part, checksum)
        stream = b"".join((_ZLIB_HEADER, first, second.result(), struct.pack(">I", checksum)))
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", stream), _chunk(b"IEND", b"")))


def fast_png(image: Image.Image) -> bytes:
    """An RGB or RGBA image as PNG, written for speed: every row unfiltered (type 0), deflated at level 1.
    Pillow's encoder tries every filter on every row, which costs about 4x the deflating on a 1280x8000
    capture; flat colour and text deflate about as small unfiltered (docs/benchmarks.md, "Visual diff")."""
    if image.mode not in COLOUR_TYPES:
        raise ValueError(f"fast_png writes RGB and RGBA images, not {image.mode}")
    return png_from_parts(image.width, image.height, COLOUR_TYPES[image.mode], unfiltered_rows(image))


def unfiltered_rows(image: Image.Image) -> list[bytes | memoryview]:
    """The image's rows, each after its filter type 0, without copying the rows."""
    samples = memoryview(image.tobytes())
    stride = image.width * len(image.getbands())
    parts: list[bytes | memoryview] = []
    for start in range(0, len(samples), stride):
        parts += (b"\0", samples[start : start + stride])
    return parts


def _deflated(parts: Sequence[bytes | memoryview], end: int, level: int) -> bytes:
    deflate = zlib.compressobj(level, zlib.DEFLATED, -15)
    out = [deflate.compress(part) for part in parts]
    out.append(deflate.flush(end))
    return b"".join(out)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
