"""A PNG's stored rows and the marked image's writer: what it writes reads back pixel for pixel with Pillow and
with a plain zlib reader (which checks the Adler-32, so the two halves deflated apart make one valid stream);
rows are read only from the PNGs Chromium writes, and never inflated past their size."""

from __future__ import annotations

import io
import struct

import pytest
from PIL import Image

from tests.support.png_pixels import decode_png
from webcapture.monitors.png_rows import fast_png, png_from_parts, read_png_rows


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("size", [(1, 1), (3, 5), (640, 333)])
def test_it_reads_back_pixel_for_pixel(mode: str, size: tuple[int, int]) -> None:
    image = Image.merge(mode, [Image.effect_noise(size, 80) for _ in mode])
    data = fast_png(image)
    back = Image.open(io.BytesIO(data))
    back.load()
    assert (back.mode, back.size) == (mode, size)
    assert back.tobytes() == image.tobytes()
    pixels = decode_png(data)  # zlib.decompress: a wrong checksum or a broken join raises here
    corner = (size[0] - 1, size[1] - 1)
    assert pixels.at(*corner)[: len(mode)] == image.getpixel(corner)


def test_other_modes_are_refused() -> None:
    with pytest.raises(ValueError, match="RGB and RGBA"):
        fast_png(Image.new("L", (4, 4)))


def test_rows_read_back_only_from_what_chromium_writes() -> None:
    image = Image.merge("RGB", [Image.effect_noise((20, 10), 80) for _ in "RGB"])
    rows = read_png_rows(fast_png(image))
    assert rows is not None and (rows.width, rows.height, rows.mode) == (20, 10, "RGB")
    assert rows.decode(3, 7).tobytes() == image.crop((0, 3, 20, 7)).tobytes()
    palette = io.BytesIO()
    image.convert("P").save(palette, format="PNG")
    assert read_png_rows(palette.getvalue()) is None
    assert read_png_rows(b"not a png") is None


def test_a_stream_inflating_past_its_rows_is_not_read() -> None:
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    rows = b"\0" + bytes(6)
    oversized = png_from_parts(2, 2, 2, [rows * 2 + bytes(10_000_000)])
    assert oversized[16:29] == header
    assert read_png_rows(oversized) is None
    assert read_png_rows(png_from_parts(2, 2, 2, [rows * 2])) is not None
