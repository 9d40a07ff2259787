"""Citations of the rules the code relies on, as anchors of the repository's own docs.

Code, tests and docs cite a rule by the doc section that states it: `docs/jobs.md#jobs`,
`docs/api.md#limits`. `python scripts/cite_docs.py` rewrites the older numbered citations (the word
CONTRACT in capitals, then a section number, a list or a range of them, "section" allowed between) to
those anchors; run again, it changes nothing.
tests/unit/test_doc_citations.py fails on a citation whose file or anchor does not exist.

    python scripts/cite_docs.py [--check]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Each numbered section of the wire contract, and the doc section of ours that states its rules.
ANCHORS: dict[int, str] = {
    1: "docs/api.md#basics",
    2: "docs/api.md#envelopes",
    3: "docs/api.md#credits",
    4: "docs/api.md#authentication",
    5: "docs/api.md#validation",
    6: "docs/api.md#errors",
    7: "docs/api.md#screenshot",
    8: "docs/api.md#links",
    9: "docs/api.md#ai-extract",
    10: "docs/api.md#files-delete",
    11: "docs/api.md#api-keys-list",
    12: "docs/api.md#stored-files",
    13: "docs/api.md#egress-policy",
    14: "docs/api.md#page-control",
    15: "docs/api.md#more-outputs",
    16: "docs/api.md#limits",
    17: "docs/jobs.md#jobs",
    18: "docs/crawl-and-map.md#crawl-and-map",
    19: "docs/cache-and-signed-links.md#cache-and-signed-links",
    20: "docs/actions-and-blocked-pages.md#actions-and-blocked-pages",
}

_NUMBERS = r"\d+(?:\s*-\s*\d+)?(?:\s*(?:,|and)\s*\d+(?:\s*-\s*\d+)?)*"
NUMBERED = re.compile(rf"CONTRACT(?: sections?)? ({_NUMBERS})")
LINE_WIDTH = 110  # ruff's line-length (pyproject.toml)
CITATION = re.compile(r"docs/([\w./-]+\.md)#([\w-]+)")
# What is cited from: everything tracked but the vendored benchmark and generated documents.
_SKIPPED = ("benchmarks/main-content/", "docs/openapi.json", "requirements", ".lock")


def _sections(numbers: str) -> list[int]:
    sections: list[int] = []
    for part in re.split(r"\s*(?:,|and)\s*", numbers.strip()):
        first, _, last = part.partition("-")
        sections.extend(range(int(first), int(last or first) + 1))
    return sections


def cite(text: str) -> str:
    """`text` with every numbered citation replaced by its doc anchors."""
    def replace(match: re.Match[str]) -> str:
        return ", ".join(dict.fromkeys(ANCHORS[n] for n in _sections(match.group(1))))
    return NUMBERED.sub(replace, text)


def cite_python(source: str, width: int = LINE_WIDTH) -> str:
    """`cite` for Python source, keeping ruff's line width: a trailing comment the longer anchors push past
    it goes above its code; a comment or docstring line is cut at its last space that fits, and the rest
    begins the next line of the same paragraph (or a line of its own when the paragraph ends there)."""
    lines = source.split("\n")
    out = cite(source).split("\n")
    if len(lines) != len(out):
        return cite(source)
    kinds = _line_kinds(lines)
    changed = [old != new for old, new in zip(lines, out, strict=True)]  # only those are touched
    for index in range(len(out) - 1, -1, -1):
        start = _trailing_comment(out[index])
        code, comment = out[index][:start], out[index][start + 4:]
        if changed[index] and kinds[index] == "code" and start >= 0 and len(out[index]) > width:
            indent = code[:len(code) - len(code.lstrip())]
            out[index:index + 1] = [f"{indent}# {comment}", code.rstrip()]
            kinds[index:index + 1] = ["comment", "code"]
            changed[index:index + 1] = [True, False]
    index = 0
    while index < len(out):
        line, kind = out[index], kinds[index]
        if changed[index] and len(line) > width and kind != "code":
            indent = line[:len(line) - len(line.lstrip())]
            lead = indent + ("# " if kind == "comment" else "")
            cut = line.rfind(" ", len(lead) + 1, width + 1)
            if cut > len(lead):
                head, tail = line[:cut], line[cut + 1:]
                following = out[index + 1] if index + 1 < len(out) else ""
                same_paragraph = (
                    index + 1 < len(out) and kinds[index + 1] == kind and following.startswith(lead)
                    and following[len(lead):len(lead) + 1] not in ("", " ", "-", "*", "#", "`")
                    and not _closes_docstring(line) and not following.lstrip().startswith('"""'))
                out[index] = head
                if same_paragraph:
                    out[index + 1] = lead + tail + " " + following[len(lead):]
                    changed[index + 1] = True
                else:
                    out.insert(index + 1, lead + tail)
                    kinds.insert(index + 1, kind)
                    changed.insert(index + 1, True)
        index += 1
    return "\n".join(out)


def _trailing_comment(line: str) -> int:
    """Where a line of code's trailing comment (`  # `) starts, or -1: a `#` inside a string is not one."""
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif line.startswith("  # ", index):
            return index
        index += 1
    return -1


def _line_kinds(lines: list[str]) -> list[str]:
    """Per line: "comment", "docstring" (a line of a triple-quoted string) or "code"."""
    kinds: list[str] = []
    in_docstring = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#") and not in_docstring:
            kinds.append("comment")
        elif in_docstring or stripped.startswith(('"""', 'r"""')):
            kinds.append("docstring")
        else:
            kinds.append("code")
        if line.count('"""') % 2:
            in_docstring = not in_docstring
    return kinds


def _closes_docstring(line: str) -> bool:
    opens_only = line.lstrip().startswith(('"""', 'r"""')) and line.count('"""') == 1
    return '"""' in line and not opens_only


def tracked_files(root: Path = REPO) -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    return [root / name for name in names.splitlines()
            if not any(skip in name for skip in _SKIPPED) and (root / name).is_file()]


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors_of(markdown: str) -> set[str]:
    """Every anchor a Markdown file has: explicit `<a id=...>` / `<a name=...>`, and each heading's slug
    (a repeated one numbered as GitHub numbers it)."""
    found = set(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", markdown))
    seen: dict[str, int] = {}
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and (heading := re.match(r"#{1,6} (.+)", line)):
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_citations(files: Iterable[Path], root: Path = REPO) -> list[str]:
    """"path:line: docs/x.md#anchor" for each citation whose file or anchor does not exist."""
    anchors: dict[str, set[str] | None] = {}
    broken: list[str] = []
    for path in files:
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in CITATION.finditer(line):
                doc, anchor = match.groups()
                if doc not in anchors:
                    target = root / "docs" / doc
                    is_doc = target.is_file()
                    anchors[doc] = anchors_of(target.read_text(encoding="utf-8")) if is_doc else None
                known = anchors[doc]
                if known is None or anchor not in known:
                    broken.append(f"{path.relative_to(root)}:{number}: {match.group(0)}")
    return broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a numbered citation is left")
    args = parser.parse_args()
    left = 0
    for path in tracked_files():
        text = _text(path)
        if text is None or not NUMBERED.search(text):
            continue
        left += 1
        if args.check:
            print(f"numbered citation left: {path.relative_to(REPO)}", file=sys.stderr)
        else:
            path.write_text(cite_python(text) if path.suffix == ".py" else cite(text), encoding="utf-8")
    return 1 if args.check and left else 0


if __name__ == "__main__":
    sys.exit(main())
