"""What every `make` target that writes a committed file shares: write it, or with `--check` say it is out
of date and which target brings it up to date (the unit tests call the same render functions)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def write_or_check(target: Path, render: Callable[[], str], make_target: str, description: str,
                   argv: list[str] | None = None) -> int:
    """`python scripts/<writer>.py [--check]`: 0 when written or up to date, 1 when `--check` finds it
    out of date."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file is out of date")
    args = parser.parse_args(argv)
    text = render()
    shown = target.relative_to(REPO)
    if args.check:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            print(f"{shown} is out of date: run `make {make_target}`", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {shown}")
    return 0
