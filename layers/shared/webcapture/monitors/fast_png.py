"""An RGB or RGBA image as PNG, written for speed: rows unfiltered (filter type 0), deflated at level 1.

Pillow's PNG encoder picks a filter for each row by trying them all; on a 1280x8000 capture that costs
about 4x the deflating itself (docs/benchmarks.md, "Visual diff"). Screenshots are flat colour and text,
which deflate finds again unfiltered: the file comes out no larger than Pillow's at level 1.
"""

from __future__ import annotations

import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPES = {"RGB": 2, "RGBA": 6}
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KB window, fastest level (the check bits make it a multiple of 31)


def fast_png(image: Image.Image) -> bytes:
    if image.mode not in _COLOUR_TYPES:
        raise ValueError(f"fast_png writes RGB and RGBA images, not {image.mode}")
    stride = image.width * len(image.getbands())
    samples = memoryview(image.tobytes())
    rows = [samples[start : start + stride] for start in range(0, len(samples), stride)]
    # The two halves deflated at once (zlib lets go of the GIL), each its own raw stream: the first ends in
    # a sync flush (byte-aligned, not final), so the second's blocks follow it as one stream.
    half = (len(rows) + 1) // 2
    with ThreadPoolExecutor(2) as pool:
        second = pool.submit(_deflated, rows[half:], zlib.Z_FINISH)
        first = _deflated(rows[:half], zlib.Z_SYNC_FLUSH)
        checksum = 1
        for row in rows:
            checksum = zlib.adler32(row, zlib.adler32(b"\0", checksum))
        stream = b"".join((_ZLIB_HEADER, first, second.result(), struct.pack(">I", checksum)))
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, _COLOUR_TYPES[image.mode], 0, 0, 0)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", stream), _chunk(b"IEND", b"")))


def _deflated(rows: list[memoryview], end: int) -> bytes:
    """Each row as its filter type (0) and its bytes, without copying the rows, as raw deflate."""
    deflate = zlib.compressobj(1, zlib.DEFLATED, -15)
    parts: list[bytes] = []
    for row in rows:
        parts += (deflate.compress(b"\0"), deflate.compress(row))
    parts.append(deflate.flush(end))
    return b"".join(parts)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
