"""The one writer of docs/benchmarks.md's generated blocks: it replaces its own block and nothing else."""

from __future__ import annotations

from pathlib import Path

from scripts.benchmark_docs import DOC, markers, write_block


def test_a_block_is_replaced_and_the_prose_around_it_kept(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    start, end = markers("load")
    doc.write_text(f"# Benchmarks\n\nWhat load means.\n\n{start}\nold table\n{end}\n\nAfter.\n")
    write_block("load", "new table\n", doc)
    assert doc.read_text() == f"# Benchmarks\n\nWhat load means.\n\n{start}\nnew table\n{end}\n\nAfter.\n"


def test_a_missing_block_is_added_at_the_end(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n")
    write_block("soak", "figures", doc)
    start, end = markers("soak")
    assert doc.read_text() == f"# Benchmarks\n\n{start}\nfigures\n{end}\n"


def test_every_script_block_stands_in_the_report_once() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in ("bench", "bench-page-filters", "bench-scroll-page", "bench-docs", "gl", "main-content", "warm",
                 "package-sizes", "load", "soak"):
        start, end = markers(name)
        assert text.count(start) == 1 and text.count(end) == 1, name
        assert text.index(start) < text.index(end), name
