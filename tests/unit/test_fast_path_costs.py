"""docs/cost.md's measured block: Lambda's charge from a duration and the memory template.yaml bills, and
the other services' from the writes each operation makes."""

from __future__ import annotations

import pytest

from scripts.fast_path_costs import Crawled, Measured, cost_block, memory_mb, per_thousand, result_kb


def test_lambda_charges_gigabyte_seconds_and_requests() -> None:
    assert per_thousand(1.0, 1024) == pytest.approx(0.0166667 + 0.0002)
    assert per_thousand(0.5, 2048, requests=False) == pytest.approx(0.0166667)


def test_the_memory_billed_is_the_templates() -> None:
    assert memory_mb("MarkdownFunction") == 2048
    assert memory_mb("CrawlFunction") == 2048


def test_a_result_counts_its_kilobytes_as_kept_with_its_metadata() -> None:
    # {"data":{"markdown":...}} and ~1 KB of metadata: an empty result passes one unit.
    assert result_kb([""]) == 2
    assert result_kb(["x" * 1024, "x" * 3000], as_kept=False) == (3 + 4) / 2
    assert result_kb(["x" * 1024, "x" * 3000]) == 2  # kept compressed: a few dozen bytes each


def test_the_block_prices_each_row_from_its_measures() -> None:
    block = cost_block(Measured(
        markdown_browser_ms=300, markdown_http_ms=30, first_page_browser_s=1.0, first_page_http_s=0.1,
        pss_browser_mb=380, pss_http_mb=120, workers=3,
        auto=Crawled(6.0, 300, 9.0, 11.0, messages=False),
        browser=Crawled(90.0, 300, 150.0, 11.0, messages=True),
        since=Crawled(1.0, 300, 0.6, 1.0, messages=False)))
    rows = [line for line in block.splitlines() if line.startswith("| ") and "MB |" in line]
    assert len(rows) == 7
    http = next(line for line in rows if "| http | 2,048 MB | 30 ms |" in line)
    # 0.03 s at 2 GB: $0.0010 and $0.0002 of requests; API Gateway $0.0035 and two writes $0.00125.
    assert http.endswith("| $0.0012 | $0.0047 | $0.0060 |")
    auto = next(line for line in rows if "| auto | 2,048 MB |" in line)
    # 60 ms of worker time a page at 2 GB: $0.0020 ($0.0010 from its 30 ms of CPU); 4 + 2 x 11 write units.
    assert "30 ms CPU, 60 ms of worker time" in auto and "| $0.0020 ($0.0010) | $0.0163 |" in auto
    browser = next(line for line in rows if "| browser | 2,048 MB | 500 ms CPU" in line)
    assert "| $0.0175 |" in browser  # the same writes and its three messages a page: $0.0012 more
