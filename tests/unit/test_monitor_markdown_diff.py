"""A markdown monitor's diff (docs/monitors.md#checks): one changed paragraph is exactly one line removed and
one added; the same page is `same` with an empty diff; a huge diff is cut at 100 KB on a line boundary."""

from __future__ import annotations

from webcapture.monitors.markdown_diff import MAX_UNIFIED_BYTES, change_status, markdown_diff

PAGE = "# Pricing\n\nThe basic plan costs 10 euros.\n\nThe team plan costs 50 euros.\n\nContact us.\n"


def test_one_changed_paragraph_is_one_line_out_and_one_in() -> None:
    after = PAGE.replace("costs 10 euros", "costs 12 euros")
    assert change_status(PAGE, after) == "changed"
    diff = markdown_diff(PAGE, after)
    assert (diff["added"], diff["removed"], diff["truncated"]) == (1, 1, False)
    changed = [line for line in diff["unified"].splitlines()
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed == ["-The basic plan costs 10 euros.", "+The basic plan costs 12 euros."]
    assert diff["unified"].startswith("--- before\n+++ after\n@@ ")


def test_the_same_page_is_same_and_the_first_check_is_new() -> None:
    assert change_status(None, PAGE) == "new"
    assert change_status(PAGE, PAGE) == "same"
    assert markdown_diff(PAGE, PAGE) == {"added": 0, "removed": 0, "unified": "", "truncated": False}


def test_a_diff_over_100_kb_is_cut_on_a_line_boundary_and_counts_every_line() -> None:
    before = "\n".join(f"line {i} before" for i in range(20_000))
    after = "\n".join(f"line {i} after é" for i in range(20_000))
    diff = markdown_diff(before, after)
    assert diff["added"] == diff["removed"] == 20_000 and diff["truncated"] is True
    assert len(diff["unified"].encode()) <= MAX_UNIFIED_BYTES and diff["unified"].endswith("\n")
