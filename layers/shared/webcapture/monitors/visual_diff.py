"""A screenshot monitor's visual diff (docs/monitors.md#checks): the new capture against the last completed
check's, pixel by pixel, with Pillow doing the pixel work in C (docs/benchmarks.md, "Visual diff").

- A pixel has changed when any of its channels (red, green, blue, alpha) differs by more than
  `threshold` x 255: the default 0.1 lets a channel move by up to 25 (anti-aliasing, a JPEG's noise).
- `changedRatio`: changed pixels / all pixels of the new capture.
- `boxes`: the changed pixels as regions. The mask is cut into 16 px cells; cells holding a changed pixel that
  touch (edges or corners) are one region, so changes less than about 16 px apart (the words of a paragraph)
  are one box. Each box is the exact bounds of its region's changed pixels. More than 20 regions: the cells
  are doubled in size until 20 or fewer remain, so every changed pixel stays inside a box.
- `marked_png`: the new capture with each box outlined in red (3 px, just outside the box), always as PNG,
  written for speed (webcapture.monitors.fast_png: a 1280x8000 page's 1.5 MB capture marks to 1.7 MB).
  Nothing changed: the new capture's own bytes when it is a PNG.
- Captures of different sizes (the page grew or shrank): every pixel counts as changed (`changedRatio` 1)
  and the one box is the whole new capture.

Inputs are the captures' bytes in any format a screenshot has (PNG, JPEG, WebP). Bytes that are no image are
a ValueError. Memory at the peak: about 16 bytes a pixel (150 MB for 1280x8000; a capture's largest, 100
megapixels, about 1.6 GB). The two captures are decoded at once and the marked image deflated in two halves
at once, in threads: a function with two vCPUs does both in about half the time.
"""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageChops, ImageDraw, UnidentifiedImageError

from webcapture.monitors.fast_png import SIGNATURE, fast_png
from webcapture.pixel_limits import MAX_PIXELS

DEFAULT_THRESHOLD = 0.1
MAX_BOXES = 20
CELL_PX = 16
MARK_COLOUR = (255, 0, 0)
MARK_WIDTH = 3

# Captures are at most MAX_PIXELS (webcapture.pixel_limits); Pillow's own bomb guard is lower and warns.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    width: int
    height: int

    def as_json(self) -> dict[str, int]:
        return {"x": self.x, "y": self.y, "width": self.width, "height": self.height}


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
    # Pillow decodes without the GIL: the two captures at once where the function has two cores.
    with ThreadPoolExecutor(2) as pool:
        decoding = pool.submit(_decoded, previous, "previous")
        after = _decoded(new, "new")
        before = decoding.result()
    width, height = after.size
    if before.size != after.size:
        everything = Box(0, 0, width, height)
        return VisualDiff(1.0, (everything,), _marked(after, (everything,)), width, height)
    mask = _changed_mask(before, after, threshold)
    changed = mask.histogram()[255]
    if not changed:  # nothing to mark: the new capture as it came, when it came as PNG
        unmarked = new if new.startswith(SIGNATURE) else fast_png(after)
        return VisualDiff(0.0, (), unmarked, width, height)
    boxes = _regions(mask)
    return VisualDiff(round(changed / (width * height), 6), boxes, _marked(after, boxes), width, height)


def _decoded(data: bytes, which: str) -> Image.Image:
    """The capture as RGB, or RGBA when it has transparency (omitBackground)."""
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as error:
        raise ValueError(f"the {which} capture is not an image Pillow can read: {error}") from error
    mode = "RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB"
    return image if image.mode == mode else image.convert(mode)


def _changed_mask(before: Image.Image, after: Image.Image, threshold: float) -> Image.Image:
    """Mode "L": 255 where any channel differs by more than threshold x 255, 0 elsewhere. The channels are
    folded only in the strips of rows that differ at all (a monitor's page mostly stays as it was). A capture
    without transparency against one with it: its alpha is 255 everywhere."""
    if before.mode != after.mode:
        before, after = before.convert("RGBA"), after.convert("RGBA")
    table = [255 if value > threshold * 255 else 0 for value in range(256)]
    difference = ImageChops.difference(before, after)
    mask = Image.new("L", after.size, 0)
    for top, bottom in _changed_rows(difference):
        channels = difference.crop((0, top, after.width, bottom)).split()
        band = channels[0]
        for channel in channels[1:]:
            band = ImageChops.lighter(band, channel)
        mask.paste(band.point(table), (0, top))
    return mask


def _changed_rows(difference: Image.Image) -> list[tuple[int, int]]:
    """Runs of cell-high strips holding a difference, as (top, bottom exclusive); strips that touch are
    one run."""
    if difference.getbbox(alpha_only=False) is None:
        return []
    runs: list[tuple[int, int]] = []
    for top in range(0, difference.height, CELL_PX):
        bottom = min(top + CELL_PX, difference.height)
        if difference.crop((0, top, difference.width, bottom)).getbbox(alpha_only=False) is not None:
            if runs and runs[-1][1] == top:
                runs[-1] = (runs[-1][0], bottom)
            else:
                runs.append((top, bottom))
    return runs


def _regions(mask: Image.Image) -> tuple[Box, ...]:
    cell, grid = CELL_PX, _coarser(mask, CELL_PX)
    cells = _components(grid)
    while len(cells) > MAX_BOXES:
        cell, grid = cell * 2, _coarser(grid, 2)
        cells = _components(grid)
    boxes = []
    for left, top, right, bottom in cells:
        area = (left * cell, top * cell, min(right * cell, mask.width), min(bottom * cell, mask.height))
        bounds = mask.crop(area).getbbox()
        if bounds is not None:
            x0, y0, x1, y1 = bounds
            boxes.append(Box(area[0] + x0, area[1] + y0, x1 - x0, y1 - y0))
    return tuple(sorted(boxes, key=lambda box: (box.y, box.x)))


def _coarser(image: Image.Image, factor: int) -> Image.Image:
    """One pixel per factor x factor square: 255 where any pixel of the square is not 0. reduce() averages
    with rounding, so even one 255 among 256 pixels leaves a 1; the edges are padded with 0 first."""
    columns, rows = -(-image.width // factor), -(-image.height // factor)
    whole = image.crop((0, 0, columns * factor, rows * factor))
    return whole.reduce(factor).point([0] + [255] * 255)


def _components(grid: Image.Image) -> list[tuple[int, int, int, int]]:
    """Each group of touching marked cells (edges or corners) as its bounds in cells: left, top, right,
    bottom, the last two exclusive."""
    columns, rows = grid.size
    marked = {index for index, value in enumerate(grid.tobytes()) if value}
    found = []
    while marked:
        stack = [marked.pop()]
        left, top, right, bottom = columns, rows, 0, 0
        while stack:
            y, x = divmod(stack.pop(), columns)
            left, top, right, bottom = min(left, x), min(top, y), max(right, x + 1), max(bottom, y + 1)
            for near_y in range(max(y - 1, 0), min(y + 2, rows)):
                for near_x in range(max(x - 1, 0), min(x + 2, columns)):
                    near = near_y * columns + near_x
                    if near in marked:
                        marked.discard(near)
                        stack.append(near)
        found.append((left, top, right, bottom))
    return found


def _marked(image: Image.Image, boxes: tuple[Box, ...]) -> bytes:
    """The capture with each box outlined just outside it (clamped to the image), as PNG."""
    draw = ImageDraw.Draw(image)  # the decoded capture is ours and not needed after this
    for box in boxes:
        left, top = max(box.x - MARK_WIDTH, 0), max(box.y - MARK_WIDTH, 0)
        right = min(box.x + box.width + MARK_WIDTH - 1, image.width - 1)
        bottom = min(box.y + box.height + MARK_WIDTH - 1, image.height - 1)
        draw.rectangle((left, top, right, bottom), outline=MARK_COLOUR, width=MARK_WIDTH)
    return fast_png(image)
