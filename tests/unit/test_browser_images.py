"""webcapture.images: size and format from the headers of PNG, JPEG and WebP bytes."""

from __future__ import annotations

import struct
import zlib

import pytest

from webcapture.images import image_info


def png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def jpeg(width: int, height: int, *, progressive: bool = False) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    dqt = b"\xff\xdb" + struct.pack(">H", 4) + b"\x00\x00"
    sof = b"\xff" + (b"\xc2" if progressive else b"\xc0") + struct.pack(">HBHHB", 11, 8, height, width, 1)
    sof += b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + b"\xff\xff" + dqt + sof + b"\xff\xda\x00\x02"


def riff(chunk: bytes, payload: bytes) -> bytes:
    body = b"WEBP" + chunk + struct.pack("<I", len(payload)) + payload
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_png() -> None:
    info = image_info(png(1280, 3022))
    assert (info.format, info.width, info.height, info.content_type) == ("png", 1280, 3022, "image/png")


@pytest.mark.parametrize("progressive", [False, True])
def test_jpeg_skips_segments_and_fill_bytes(progressive: bool) -> None:
    info = image_info(jpeg(2560, 1600, progressive=progressive))
    assert (info.format, info.width, info.height) == ("jpeg", 2560, 1600)


def test_webp_lossy() -> None:
    frame = b"\x00\x00\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", 300, 150 | (1 << 14))  # scale bits set
    info = image_info(riff(b"VP8 ", frame))
    assert (info.format, info.width, info.height) == ("webp", 300, 150)


def test_webp_lossless() -> None:
    bits = (640 - 1) | ((480 - 1) << 14)
    info = image_info(riff(b"VP8L", b"\x2f" + bits.to_bytes(4, "little")))
    assert (info.width, info.height) == (640, 480)


def test_webp_extended() -> None:
    payload = b"\x10\x00\x00\x00" + (3840 - 1).to_bytes(3, "little") + (21600 - 1).to_bytes(3, "little")
    info = image_info(riff(b"VP8X", payload))
    assert (info.width, info.height) == (3840, 21600)


@pytest.mark.parametrize(
    "data", [b"", b"GIF89a....", png(1, 1)[:20], jpeg(5, 5)[:30], b"RIFF\0\0\0\0WEBPVP8 "]
)
def test_unknown_or_truncated_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        image_info(data)
