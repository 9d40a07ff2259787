"""Format and pixel size of an encoded image, read from its header.

Screenshot metadata reports what was actually produced (docs/api.md#screenshot), so width/height come from the
bytes, not from the options that asked for them. Only the three formats the screenshot endpoint produces.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Literal

ImageFormat = Literal["png", "jpeg", "webp"]

CONTENT_TYPES: dict[ImageFormat, str] = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
FILE_EXTENSIONS: dict[ImageFormat, str] = {"png": "png", "jpeg": "jpg", "webp": "webp"}

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic); C4, C8 and CC are not frames.
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


@dataclass(frozen=True)
class ImageInfo:
    format: ImageFormat
    width: int
    height: int

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES[self.format]


def image_info(data: bytes) -> ImageInfo:
    """Raise ValueError when the bytes are not a PNG, JPEG or WebP image this reader understands."""
    if data.startswith(_PNG_SIGNATURE):
        return _png(data)
    if data.startswith(b"\xff\xd8"):
        return _jpeg(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data)
    raise ValueError("not a PNG, JPEG or WebP image")


def _png(data: bytes) -> ImageInfo:
    # IHDR is always the first chunk: length(4) "IHDR"(4) width(4) height(4).
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise ValueError("PNG without IHDR")
    width, height = struct.unpack(">II", data[16:24])
    return ImageInfo("png", width, height)


def _jpeg(data: bytes) -> ImageInfo:
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise ValueError("corrupt JPEG marker stream")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte before a marker
            pos += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length field
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if marker in _JPEG_SOF:
            if pos + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return ImageInfo("jpeg", width, height)
        if marker == 0xDA:  # start of scan: no frame header came first
            break
        pos += 2 + length
    raise ValueError("JPEG without a frame header")


def _webp(data: bytes) -> ImageInfo:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        # Extended format: 24-bit canvas width-1 and height-1, little endian.
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return ImageInfo("webp", width, height)
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        # Lossy key frame: 14-bit width and height after the start code (top 2 bits are scaling).
        width, height = struct.unpack("<HH", data[26:30])
        return ImageInfo("webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        # Lossless: 14-bit width-1 then 14-bit height-1, packed little endian after the 0x2f signature.
        bits = int.from_bytes(data[21:25], "little")
        return ImageInfo("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    raise ValueError("unrecognised WebP chunk")
