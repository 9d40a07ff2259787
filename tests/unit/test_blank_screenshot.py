"""The flat-colour test of a capture (docs/actions-and-blocked-pages.md#actions-and-blocked-pages) on PNGs
written with every row filter."""

from __future__ import annotations

import struct
import zlib

import pytest

from webcapture.browser.blank_screenshot import is_flat_png, may_be_flat, probe_scale


def _png(rows: list[bytes], width: int, colour: int = 6, filters: tuple[int, ...] = (0,)) -> bytes:
    bpp = 4 if colour == 6 else 3
    raw = bytearray()
    previous = bytes(width * bpp)
    for index, row in enumerate(rows):
        kind = filters[index % len(filters)]
        raw.append(kind)
        out = bytearray(len(row))
        for i, value in enumerate(row):
            left = row[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            guess = {0: 0, 1: left, 2: up, 3: (left + up) // 2}.get(kind)
            if guess is None:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            out[i] = (value - guess) & 0xFF
        raw += out
        previous = row

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, len(rows), 8, colour, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw)))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize("filters", [(0,), (1,), (2,), (3,), (4,), (0, 1, 2, 3, 4)])
def test_flat_and_not_flat_images_under_every_filter(filters: tuple[int, ...]) -> None:
    white = bytes([255, 255, 255, 255]) * 8
    assert is_flat_png(_png([white] * 6, 8, filters=filters)) is True
    dotted = [white] * 3 + [white[:12] + bytes([200, 200, 200, 255]) + white[16:]] + [white] * 2
    assert is_flat_png(_png(dotted, 8, filters=filters)) is False


def test_rgb_images_are_read_too() -> None:
    grey = bytes([30, 30, 30]) * 5
    assert is_flat_png(_png([grey] * 4, 5, colour=2, filters=(4,))) is True
    assert is_flat_png(_png([grey] * 3 + [bytes([30, 30, 31]) + grey[3:]], 5, colour=2)) is False


def test_what_is_not_a_png_it_knows_is_no_answer() -> None:
    assert is_flat_png(b"\xff\xd8\xff\xe0 jpeg") is None
    assert is_flat_png(b"\x89PNG\r\n\x1a\n") is None


def test_only_small_captures_are_suspected_and_probes_stay_small() -> None:
    assert may_be_flat(4_000, 1280, 800)
    assert not may_be_flat(300_000, 1280, 800)
    scale = probe_scale(1280, 20_000)
    assert 1280 * 20_000 * scale * scale <= 128 * 128 + 1
    assert probe_scale(50, 50) == 1.0
