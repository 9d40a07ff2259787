"""The largest image a capture may produce (docs/api.md#limits): 16,384 px a side, 100 megapixels.

Chromium allocates the whole bitmap before encoding it; a 38,400 x 21,600 capture (a 4K viewport at
deviceScaleFactor 10) takes the browser down with it. Sizes here are in output pixels: CSS pixels times
every scale that applies (deviceScaleFactor, clip.scale).
"""

from __future__ import annotations

import math

MAX_SIDE_PX = 16_384
MAX_PIXELS = 100_000_000


def output_px(css_px: float, scale: float) -> int:
    """Output pixels of `css_px` CSS pixels at `scale` (rounded to 6 places first: 0.1 x 10 is not 1.0)."""
    return math.ceil(round(css_px * scale, 6))


def too_large(width: int, height: int) -> bool:
    return width > MAX_SIDE_PX or height > MAX_SIDE_PX or width * height > MAX_PIXELS


def limit_message(width: int, height: int) -> str:
    return (f"The image would be {width}x{height} px; at most {MAX_SIDE_PX} px a side and "
            f"{MAX_PIXELS // 1_000_000} megapixels (after deviceScaleFactor and clip.scale)")


def largest_css_size(width: int, height: int, scale: float) -> tuple[int, int]:
    """The largest CSS width and height, at most the given ones, whose output at `scale` fits the limits.
    The width is kept whole where it can be: a full page is cut at the bottom."""
    width = min(width, math.floor(MAX_SIDE_PX / scale))
    if width < 1:
        return width, height
    height = min(height, math.floor(MAX_SIDE_PX / scale), math.floor(MAX_PIXELS / (width * scale * scale)))
    while width and too_large(output_px(width, scale), output_px(height, scale)):
        height -= 1  # only float rounding at the edge gets here
    return width, height
