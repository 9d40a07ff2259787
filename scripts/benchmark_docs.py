"""The generated blocks of docs/benchmarks.md: each benchmark script owns the text between its two markers,
`<!-- NAME:start -->` and `<!-- NAME:end -->`, and rewrites only that; the prose around them is the report's.
"""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def markdown_table(head: str, rule: str, rows: list[str]) -> str:
    """A table from its header line, its alignment line and its rows, each already `| ... |`."""
    return "\n".join([head, rule, *rows])


def write_block(name: str, text: str, doc: Path = DOC) -> None:
    """Put `text` between the markers called `name`; where the document has no such block yet, it is
    added at the end, so a new benchmark's first run places it (and the report's prose can then move it)."""
    start, end = markers(name)
    block = f"{start}\n{text.strip(chr(10))}\n{end}"
    current = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    if start in current and end in current:
        head, rest = current.split(start, 1)
        current = head + block + rest.split(end, 1)[1]
    else:
        current = current.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(current, encoding="utf-8")
