"""Changed pixels as regions (a screenshot monitor's boxes): the mask is cut into 16 px cells; cells holding a
changed pixel that touch (edges or corners) are one region, so changes less than about 16 px apart (the words
of a paragraph) are one box. Each box is the exact bounds of its region's changed pixels. More than 20
regions: the cells are doubled in size until 20 or fewer remain, so every changed pixel stays inside a box.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

MAX_BOXES = 20
CELL_PX = 16


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    width: int
    height: int

    def as_json(self) -> dict[str, int]:
        return {"x": self.x, "y": self.y, "width": self.width, "height": self.height}



def changed_regions(mask: Image.Image) -> tuple[Box, ...]:
    """The changed pixels of a mode "L" mask (not 0: changed) as at most MAX_BOXES boxes."""
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
