"""A screenshot monitor's visual diff: a 100x100 box changing colour on a 1280x800
capture is about 0.98 % of the pixels in one box around it; identical captures are 0 with no box; two
changes far apart are two boxes; differences within the threshold are no change; captures of different
sizes are compared where both have pixels, what one has beyond the other changed; and the marked image is the new capture with a red outline around each box."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from tests.support.png_pixels import decode_png
from webcapture.monitors.visual_diff import MAX_BOXES, Box, _by_pixels, visual_diff

WIDTH, HEIGHT = 1280, 800
PAGE_COLOUR = (245, 245, 240)


def capture(*boxes: tuple[int, int, int, int, tuple[int, int, int]], size: tuple[int, int] = (WIDTH, HEIGHT),
            fmt: str = "PNG") -> bytes:
    """A page-like capture: text-like stripes on a light background, and the given filled boxes."""
    image = Image.new("RGB", size, PAGE_COLOUR)
    draw = ImageDraw.Draw(image)
    for y in range(40, size[1] - 20, 24):
        draw.rectangle((60, y, size[0] - 300, y + 10), fill=(40, 40, 40))
    for x, y, width, height, colour in boxes:
        draw.rectangle((x, y, x + width - 1, y + height - 1), fill=colour)
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def near(box: Box, x: int, y: int, width: int, height: int, slack: int = 4) -> bool:
    return all(abs(a - b) <= slack for a, b in zip((box.x, box.y, box.width, box.height),
                                                   (x, y, width, height), strict=True))


def test_a_100px_box_changing_colour_is_one_box_and_about_one_percent() -> None:
    before = capture((400, 300, 100, 100, (30, 90, 200)))
    after = capture((400, 300, 100, 100, (220, 60, 40)))
    diff = visual_diff(before, after)
    assert diff.changed_ratio == pytest.approx(100 * 100 / (WIDTH * HEIGHT), rel=0.10)
    assert abs(diff.changed_ratio - 0.0098) <= 0.00098
    assert len(diff.boxes) == 1 and near(diff.boxes[0], 400, 300, 100, 100)
    assert diff.as_json() == {"changedRatio": diff.changed_ratio,
                              "boxes": [{"x": 400, "y": 300, "width": 100, "height": 100}]}
    assert (diff.width, diff.height, diff.changed) == (WIDTH, HEIGHT, True)


def test_identical_captures_are_no_change_and_no_box() -> None:
    page = capture((400, 300, 100, 100, (30, 90, 200)))
    diff = visual_diff(page, page)
    assert (diff.changed_ratio, diff.boxes, diff.changed) == (0, (), False)
    assert diff.marked_png == page  # nothing to mark: the new capture as it came


def test_two_changes_far_apart_are_two_boxes() -> None:
    before = capture((100, 100, 80, 60, (0, 128, 0)), (900, 600, 120, 90, (0, 0, 128)))
    after = capture((100, 100, 80, 60, (255, 200, 0)), (900, 600, 120, 90, (128, 0, 128)))
    diff = visual_diff(before, after)
    assert len(diff.boxes) == 2
    assert near(diff.boxes[0], 100, 100, 80, 60) and near(diff.boxes[1], 900, 600, 120, 90)
    assert diff.changed_ratio == pytest.approx((80 * 60 + 120 * 90) / (WIDTH * HEIGHT), rel=0.01)


def test_changes_within_the_threshold_are_the_same_and_a_lower_threshold_sees_them() -> None:
    before = capture((400, 300, 100, 100, (100, 100, 100)))
    after = capture((400, 300, 100, 100, (120, 100, 100)))  # 20 of 255: under the default 0.1
    assert visual_diff(before, after).boxes == ()
    strict = visual_diff(before, after, threshold=0.05)
    assert len(strict.boxes) == 1 and near(strict.boxes[0], 400, 300, 100, 100)


def test_the_marked_image_outlines_each_box_in_red_and_keeps_the_rest() -> None:
    before = capture((400, 300, 100, 100, (30, 90, 200)))
    after = capture((400, 300, 100, 100, (220, 60, 40)))
    marked = decode_png(visual_diff(before, after).marked_png)
    assert (marked.width, marked.height) == (WIDTH, HEIGHT)
    assert marked.at(398, 350)[:3] == (255, 0, 0)  # left edge, just outside the box
    assert marked.at(450, 401)[:3] == (255, 0, 0)  # bottom edge, just below the box
    assert marked.at(450, 350)[:3] == (220, 60, 40)  # inside: the new capture
    assert marked.at(1200, 20)[:3] == PAGE_COLOUR


def test_a_lone_changed_pixel_is_a_one_pixel_box() -> None:
    before = capture()
    image = Image.open(io.BytesIO(before))
    image.putpixel((1279, 799), (0, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    diff = visual_diff(before, out.getvalue())
    assert diff.boxes == (Box(1279, 799, 1, 1),)
    assert diff.changed_ratio == round(1 / (WIDTH * HEIGHT), 6)


def test_many_scattered_changes_are_merged_into_at_most_20_boxes_covering_all() -> None:
    spots = [(x, y, 10, 10, (200, 0, 0)) for x in range(20, 1260, 120) for y in range(30, 780, 150)]
    diff = visual_diff(capture(), capture(*spots))
    assert 0 < len(diff.boxes) <= MAX_BOXES
    for x, y, width, height, _ in spots:
        assert any(box.x <= x and box.y <= y and x + width <= box.x + box.width
                   and y + height <= box.y + box.height for box in diff.boxes), (x, y)


# capture()'s stripes start every 24 px from y 40 until 20 px from the bottom: an 800 px capture's last at
# 760, a 1200 px one's also at 784, inside the first 800 rows.
GREW_FROM = 784


def test_a_page_that_grew_is_changed_where_it_grew_not_everywhere() -> None:
    diff = visual_diff(capture(), capture(size=(WIDTH, 1200)))
    [box] = diff.boxes
    assert near(box, 0, GREW_FROM, WIDTH, 1200 - GREW_FROM)
    stripe = 11 * (WIDTH - 300 - 60 + 1)
    assert diff.changed_ratio == pytest.approx((stripe + 400 * WIDTH) / (WIDTH * 1200), abs=1e-6)
    assert Image.open(io.BytesIO(diff.marked_png)).size == (WIDTH, 1200)


def test_a_page_that_shrank_counts_what_it_lost() -> None:
    diff = visual_diff(capture(size=(WIDTH, 1200)), capture())
    [box] = diff.boxes  # the stripe the taller capture had at 784, which the shorter one has not
    assert near(box, 60, GREW_FROM, WIDTH - 300 - 60 + 1, 11)
    stripe = 11 * (WIDTH - 300 - 60 + 1)
    assert diff.changed_ratio == pytest.approx((stripe + 400 * WIDTH) / (WIDTH * 1200), abs=1e-6)
    assert Image.open(io.BytesIO(diff.marked_png)).size == (WIDTH, HEIGHT)


def test_a_page_cut_short_with_nothing_else_changed_is_still_changed() -> None:
    def plain(height: int) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (WIDTH, height), PAGE_COLOUR).save(out, format="PNG")
        return out.getvalue()

    diff = visual_diff(plain(1000), plain(HEIGHT))
    assert diff.changed and diff.boxes == ()
    assert diff.changed_ratio == pytest.approx(200 / 1000, abs=1e-6)
    assert diff.marked_png == plain(HEIGHT)


def test_jpeg_captures_are_compared_and_marked_as_png() -> None:
    before = capture((400, 300, 100, 100, (30, 90, 200)), fmt="JPEG")
    after = capture((400, 300, 100, 100, (220, 60, 40)), fmt="JPEG")
    diff = visual_diff(before, after)
    assert len(diff.boxes) == 1 and near(diff.boxes[0], 400, 300, 100, 100)
    assert diff.marked_png.startswith(b"\x89PNG")


def test_a_transparent_capture_against_an_opaque_one_compares_alpha_and_stays_transparent() -> None:
    opaque = Image.new("RGBA", (200, 100), (*PAGE_COLOUR, 255))
    see_through = opaque.copy()
    see_through.paste((0, 0, 0, 0), (50, 20, 90, 60))  # a transparent hole, 40x40
    rgb, rgba = io.BytesIO(), io.BytesIO()
    opaque.convert("RGB").save(rgb, format="PNG")
    see_through.save(rgba, format="PNG")
    diff = visual_diff(rgb.getvalue(), rgba.getvalue())
    assert diff.boxes == (Box(50, 20, 40, 40),)
    assert Image.open(io.BytesIO(diff.marked_png)).mode == "RGBA"


@pytest.mark.parametrize(("previous", "new", "message"), [
    (b"not an image", capture(), "the previous capture is not an image"),
    (capture(), b"\x89PNG\r\n\x1a\ntruncated", "the new capture is not an image"),
])
def test_bytes_that_are_no_image_are_a_value_error(previous: bytes, new: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        visual_diff(previous, new)


def test_a_threshold_outside_0_to_1_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="threshold must be between 0 and 1"):
        visual_diff(capture(), capture(), threshold=1.5)


SCENES = {
    "a box in the text": [(400, 300, 100, 100, (220, 60, 40))],
    "the top rows and the bottom rows (outlines clamped)": [(0, 0, 50, 5, (0, 0, 0)), (1200, 790, 80, 10, (9, 9, 9))],
    "a solid area, rows chained far up": [(1100, 500, 40, 40, (120, 120, 120))],
    "boxes whose outlines share rows": [(100, 600, 30, 30, (1, 2, 3)), (700, 610, 30, 30, (1, 2, 3))],
    "one pixel": [(640, 400, 1, 1, (0, 0, 0))],
}


@pytest.mark.parametrize("scene", SCENES)
def test_comparing_stored_rows_gives_what_decoding_whole_gives(scene: str) -> None:
    before = capture((1100, 500, 40, 40, PAGE_COLOUR))
    after = capture(*SCENES[scene])
    by_rows = visual_diff(before, after)
    whole = _by_pixels(before, after, 0.1)
    assert (by_rows.changed_ratio, by_rows.boxes) == (whole.changed_ratio, whole.boxes)
    assert by_rows.boxes
    marked_rows, marked_whole = (Image.open(io.BytesIO(d.marked_png)) for d in (by_rows, whole))
    assert marked_rows.tobytes() == marked_whole.tobytes()
    assert marked_rows.tobytes() != Image.open(io.BytesIO(after)).tobytes()
