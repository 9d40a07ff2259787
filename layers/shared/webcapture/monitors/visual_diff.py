"""A screenshot monitor's visual diff: the new capture against the last completed
check's, pixel by pixel, with Pillow doing the pixel work in C (docs/benchmarks.md, "Visual diff").

- A pixel has changed when any of its channels (red, green, blue, alpha) differs by more than
  `threshold` x 255: the default 0.1 lets a channel move by up to 25 (anti-aliasing, a JPEG's noise).
- `changedRatio`: changed pixels / all pixels of the new capture (and, when the page got shorter or
  narrower, of the previous capture's area the new one lost, which counts as changed).
- `boxes`: the changed pixels as at most 20 regions (webcapture.monitors.diff_regions: changes less than
  about 16 px apart are one box).
- `marked_png`: the new capture with each box outlined in red (3 px, just outside the box), always as PNG,
  written for speed (webcapture.monitors.png_rows: a 1280x8000 page's 1.5 MB capture marks to 1.7 MB).
  Nothing changed: the new capture's own bytes when it is a PNG.
- Captures of different sizes (the page grew or shrank, as a full-page capture does when a paragraph
  changes): compared where both have pixels, from the top left; the new capture's pixels the previous one
  never had are changed (boxed like any change), and the area the new capture lost counts as changed in
  `changedRatio` (it has no box: it is not in the new capture).

Inputs are the captures' bytes in any format a screenshot has (PNG, JPEG, WebP). Bytes that are no image are
a ValueError.

Two PNGs as Chromium writes them, of one size, are compared by their stored rows
(webcapture.monitors.png_rows): a row whose stored bytes are equal, below a settled row or not looking at the
row above, holds equal pixels; only the other rows are decoded and compared, and only the rows around the
boxes are drawn on and stored again. Anything else (JPEG, WebP, other PNGs, different sizes) is decoded
whole by Pillow. Memory at the peak: about 16 bytes a pixel decoded whole (150 MB for 1280x8000; 100
megapixels, a capture's largest, about 1.6 GB), about 7 by rows. Inflating, decoding and deflating run two
at once in threads: two vCPUs do them in about half the time.
"""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageChops, ImageDraw, UnidentifiedImageError

from webcapture.monitors.diff_regions import CELL_PX, MAX_BOXES, Box, changed_regions
from webcapture.monitors.png_rows import (
    UNCHAINED,
    PngRows,
    fast_png,
    png_from_parts,
    read_png_rows,
    unfiltered_rows,
)
from webcapture.pixel_limits import MAX_PIXELS

__all__ = ["DEFAULT_THRESHOLD", "MAX_BOXES", "Box", "VisualDiff", "visual_diff"]

DEFAULT_THRESHOLD = 0.1
MARK_COLOUR = (255, 0, 0)
MARK_WIDTH = 3

# Captures are at most MAX_PIXELS (webcapture.pixel_limits); Pillow's own bomb guard is lower and warns.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS


@dataclass(frozen=True)
class VisualDiff:
    changed_ratio: float
    boxes: tuple[Box, ...]
    marked_png: bytes
    width: int  # of the new capture
    height: int

    @property
    def changed(self) -> bool:
        return self.changed_ratio > 0

    def as_json(self) -> dict[str, Any]:
        """`{changedRatio, boxes}`: the diff's fields but `image`, which exists once marked_png is stored."""
        return {"changedRatio": self.changed_ratio, "boxes": [box.as_json() for box in self.boxes]}


def visual_diff(previous: bytes, new: bytes, threshold: float = DEFAULT_THRESHOLD) -> VisualDiff:
    """The new capture against the previous one (see the module's docstring); threshold in 0..1."""
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold must be between 0 and 1, not {threshold}")
    with ThreadPoolExecutor(2) as pool:
        reading = pool.submit(read_png_rows, previous)
        after = read_png_rows(new)
        before = reading.result()
    if before is not None and after is not None and _alike(before, after):
        return _by_rows(before, after, new, threshold)
    return _by_pixels(previous, new, threshold)


def _alike(before: PngRows, after: PngRows) -> bool:
    return (before.width, before.height, before.colour_type) == (after.width, after.height, after.colour_type)


def _by_rows(before: PngRows, after: PngRows, new: bytes, threshold: float) -> VisualDiff:
    width, height = after.width, after.height
    mask = Image.new("L", (width, height), 0)
    with ThreadPoolExecutor(1) as pool:  # Pillow decodes without the GIL: the two captures' rows at once
        for top, bottom in _unsettled_rows(before, after):
            decoding = pool.submit(before.decode, top, bottom)
            band = after.decode(top, bottom)
            difference = ImageChops.difference(decoding.result(), band)
            mask.paste(_over_threshold(difference, threshold), (0, top))
    changed = mask.histogram()[255]
    if not changed:
        return VisualDiff(0.0, (), new, width, height)
    boxes = changed_regions(mask)
    return VisualDiff(round(changed / (width * height), 6), boxes, _marked_rows(after, boxes), width, height)


def _unsettled_rows(before: PngRows, after: PngRows) -> list[tuple[int, int]]:
    """Runs of rows whose pixels may differ, as (top, bottom exclusive); runs less than a cell apart are one.
    A row is settled when its stored bytes are equal and the row above is settled or not looked at. Settled
    and equal, a whole cell-high strip is passed at once."""
    if before.filtered == after.filtered:
        return []
    runs: list[tuple[int, int]] = []
    settled, size = True, after.row_bytes
    for strip in range(0, after.height, CELL_PX):
        end = min(strip + CELL_PX, after.height)
        first, last = strip * size, end * size
        if settled and before.filtered[first:last] == after.filtered[first:last]:
            continue
        for y in range(strip, end):
            settled = before.row(y) == after.row(y) and (settled or after.filter_type(y) in UNCHAINED)
            if not settled:
                if runs and y - runs[-1][1] < CELL_PX:
                    runs[-1] = (runs[-1][0], y + 1)
                else:
                    runs.append((y, y + 1))
    return runs


def _marked_rows(after: PngRows, boxes: tuple[Box, ...]) -> bytes:
    """The new capture's stored rows, but those an outline crosses, and the one below each such run (whose
    filter looked at a row that changed), decoded, drawn on and stored again unfiltered."""
    spans: list[tuple[int, int]] = []
    for box in sorted(boxes, key=lambda box: box.y):
        top = max(box.y - MARK_WIDTH, 0)
        bottom = min(box.y + box.height + MARK_WIDTH + 1, after.height)
        if spans and top <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(bottom, spans[-1][1]))
        else:
            spans.append((top, bottom))
    stored, size = memoryview(after.filtered), after.row_bytes
    parts: list[bytes | memoryview] = []
    done = 0
    for top, bottom in spans:
        parts.append(stored[done * size : top * size])
        band = after.decode(top, bottom)
        _outline(band, boxes, top, after.height)
        parts += unfiltered_rows(band)
        done = bottom
    parts.append(stored[done * size :])
    return png_from_parts(after.width, after.height, after.colour_type, parts)


def _by_pixels(previous: bytes, new: bytes, threshold: float) -> VisualDiff:
    with ThreadPoolExecutor(2) as pool:  # Pillow decodes without the GIL
        decoding = pool.submit(_decoded, previous, "previous")
        after = _decoded(new, "new")
        before = decoding.result()
    width, height = after.size
    if before.mode != after.mode:  # without transparency against with: alpha 255 everywhere
        before, after = before.convert("RGBA"), after.convert("RGBA")
    shared = (min(before.width, width), min(before.height, height))
    lost = before.width * before.height - shared[0] * shared[1]  # the previous capture's, not in the new
    if before.size != after.size:
        canvas = Image.new(after.mode, after.size)
        canvas.paste(before.crop((0, 0, *shared)))
        before = canvas
    mask = _over_threshold(ImageChops.difference(before, after), threshold)
    _beyond_shared_changed(mask, shared)
    changed = mask.histogram()[255]
    if not changed and not lost:
        return VisualDiff(0.0, (), _unmarked(new, after), width, height)
    boxes = changed_regions(mask) if changed else ()
    marked = _marked(after, boxes) if boxes else _unmarked(new, after)
    # A change too small to show at 6 places is still a change.
    ratio = max(round((changed + lost) / (width * height + lost), 6), 0.000001)
    return VisualDiff(ratio, boxes, marked, width, height)


def _unmarked(new: bytes, after: Image.Image) -> bytes:
    """Nothing to mark: the new capture as it came, when it came as PNG."""
    return new if read_png_rows(new) is not None else fast_png(after)


def _beyond_shared_changed(mask: Image.Image, shared: tuple[int, int]) -> None:
    """The mask's pixels right of or below the area both captures have: changed (255)."""
    draw = ImageDraw.Draw(mask)
    if shared[0] < mask.width:
        draw.rectangle((shared[0], 0, mask.width - 1, mask.height - 1), fill=255)
    if shared[1] < mask.height:
        draw.rectangle((0, shared[1], mask.width - 1, mask.height - 1), fill=255)


def _decoded(data: bytes, which: str) -> Image.Image:
    """The capture as RGB, or RGBA when it has transparency (omitBackground)."""
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as error:
        raise ValueError(f"the {which} capture is not an image Pillow can read: {error}") from error
    mode = "RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB"
    return image if image.mode == mode else image.convert(mode)


def _over_threshold(difference: Image.Image, threshold: float) -> Image.Image:
    """Mode "L": 255 where any channel of the difference is over threshold x 255, 0 elsewhere."""
    channels = difference.split()
    folded = channels[0]
    for channel in channels[1:]:
        folded = ImageChops.lighter(folded, channel)
    return folded.point([255 if value > threshold * 255 else 0 for value in range(256)])


def _marked(image: Image.Image, boxes: tuple[Box, ...]) -> bytes:
    _outline(image, boxes, 0, image.height)  # the decoded capture is ours and not needed after this
    return fast_png(image)


def _outline(image: Image.Image, boxes: tuple[Box, ...], top: int, capture_height: int) -> None:
    """Each box outlined just outside it, clamped to the capture, drawn on `image`: the capture's rows from
    `top` on (the drawing clips to them)."""
    draw = ImageDraw.Draw(image)
    for box in boxes:
        left, upper = max(box.x - MARK_WIDTH, 0), max(box.y - MARK_WIDTH, 0)
        right = min(box.x + box.width + MARK_WIDTH - 1, image.width - 1)
        lower = min(box.y + box.height + MARK_WIDTH - 1, capture_height - 1)
        draw.rectangle((left, upper - top, right, lower - top), outline=MARK_COLOUR, width=MARK_WIDTH)
