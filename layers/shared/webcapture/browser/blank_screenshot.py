"""A blank screenshot (docs/actions-and-blocked-pages.md#actions-and-blocked-pages): one flat colour while the
page has visible text or images.

Chromium sometimes captures before the page has painted what it holds (a late web font, a fade-in, a
compositor with no frame yet). Such a capture is retried once after a short wait (browser/screenshot.py);
still blank, it is answered with a warning.

Deciding costs nothing on an ordinary capture: a flat image compresses to almost nothing, so only an image
small for its pixel count is looked at. That look is a second capture of the same region at a scale of at
most 128 x 128 pixels, as PNG, decoded here (zlib and the five PNG row filters: no imaging library in the
functions for one question).
"""

from __future__ import annotations

import math
import struct
import zlib

# Bytes per pixel under which an image may be flat (a flat 1280x800 PNG is about 4 KB, a JPEG about 15 KB;
# a real page's capture is ten times that), plus a fixed allowance for headers.
_SUSPICIOUS_BYTES_PER_PIXEL = 1 / 40
_SUSPICIOUS_BASE_BYTES = 2048
PROBE_PIXELS = 128 * 128
RETRY_WAIT_MS = 500

WARNING = ("The screenshot came out as one flat colour although the page has visible text or images "
           f"(captured twice, {RETRY_WAIT_MS} ms apart); it is answered as it is")

# Whether anything a reader would see is in the captured region (CSS px of the page): an image that loaded
# or text in a visible element. What lies outside the region (text below a viewport capture) does not count.
PAGE_HAS_CONTENT_JS = """
([x, y, width, height]) => {
  const body = document.body;
  if (!body) return false;
  const dx = window.scrollX, dy = window.scrollY;
  const inside = (box) => box.width > 0 && box.height > 0 && box.right + dx > x && box.left + dx < x + width
    && box.bottom + dy > y && box.top + dy < y + height;
  const shown = (element) => element.checkVisibility({opacityProperty: true, visibilityProperty: true});
  for (const image of document.images) {
    if (image.naturalWidth > 0 && shown(image) && inside(image.getBoundingClientRect())) return true;
  }
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(), seen = 0; node && seen < 20000; node = walker.nextNode(), seen++) {
    if (!node.textContent.trim() || !node.parentElement || !shown(node.parentElement)) continue;
    range.selectNodeContents(node);
    if (inside(range.getBoundingClientRect())) return true;
  }
  return false;
}
"""


def may_be_flat(size: int, width: int, height: int) -> bool:
    return size < _SUSPICIOUS_BASE_BYTES + width * height * _SUSPICIOUS_BYTES_PER_PIXEL


def probe_scale(width: float, height: float) -> float:
    """The factor that brings a width x height region down to PROBE_PIXELS (never up)."""
    area = max(width * height, 1.0)
    return min(1.0, math.sqrt(PROBE_PIXELS / area))


def is_flat_png(data: bytes) -> bool | None:
    """Whether every pixel of an 8-bit RGB/RGBA PNG (as Chromium writes them) is the same; None when the
    image is not one this reader knows."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    position, idat, header = 8, bytearray(), None
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        position += 12 + length
    if header is None:
        return None
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        return None
    bpp = 3 if colour == 2 else 4
    try:
        raw = zlib.decompress(bytes(idat))
    except zlib.error:
        return None
    stride = width * bpp
    if len(raw) < height * (stride + 1):
        return None
    previous = bytearray(stride)
    first: bytes | None = None
    for row in range(height):
        start = row * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1:start + 1 + stride]), previous, bpp)
        if line is None:
            return None
        pixel = bytes(line[:bpp])
        first = first or pixel
        if pixel != first or line != first * width:
            return False
        previous = line
    return True


def _unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> bytearray | None:
    if kind == 0:
        return line
    for index in range(len(line)):
        left = line[index - bpp] if index >= bpp else 0
        up = previous[index]
        if kind == 1:
            add = left
        elif kind == 2:
            add = up
        elif kind == 3:
            add = (left + up) // 2
        elif kind == 4:
            corner = previous[index - bpp] if index >= bpp else 0
            guess = left + up - corner
            distances = (abs(guess - left), abs(guess - up), abs(guess - corner))
            add = left if distances[0] <= distances[1] and distances[0] <= distances[2] else (
                up if distances[1] <= distances[2] else corner)
        else:
            return None
        line[index] = (line[index] + add) & 0xFF
    return line
