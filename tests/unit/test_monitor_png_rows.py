"""The marked image's PNG writer: what it writes reads back pixel for pixel with Pillow and with a plain zlib
reader (which checks the stream's Adler-32, so the two halves deflated apart make one valid stream)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.support.png_pixels import decode_png
from webcapture.monitors.png_rows import fast_png


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
