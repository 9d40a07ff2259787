"""An RGB or RGBA image as PNG, written for speed: rows unfiltered (filter type 0), deflated at level 1.

Pillow's PNG encoder picks a filter for each row by trying them all; on a 1280x8000 capture that costs
about 4x the deflating itself (docs/benchmarks.md, "Visual diff"). Screenshots are flat colour and text,
which deflate finds again unfiltered: the file comes out no larger than Pillow's at level 1.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPES = {"RGB": 2, "RGBA": 6}


def fast_png(image: Image.Image) -> bytes:
    if image.mode not in _COLOUR_TYPES:
        raise ValueError(f"fast_png writes RGB and RGBA images, not {image.mode}")
    stride = image.width * len(image.getbands())
    # The rows' bytes as an image one byte a sample, pasted one column in: column 0 (zeros) is each row's
    # filter type, so Pillow lays out the whole IDAT stream in C.
    samples = Image.frombytes("L", (stride, image.height), image.tobytes())
    rows = Image.new("L", (stride + 1, image.height), 0)
    rows.paste(samples, (1, 0))
    header = struct.pack(">IIBBBBB", image.width, image.height, 8, _COLOUR_TYPES[image.mode], 0, 0, 0)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)),
                     _chunk(b"IEND", b"")))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
