"""Compile filter lists into the serialized, compressed adblock engine the service loads (build time only).

    python scripts/build_filter_engine.py OUT LIST [LIST ...]

Called by scripts/fetch_page_filters.sh with the lists it fetched; see
webcapture.browser.filters.filter_lists.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from webcapture.browser.filters.filter_lists import compile_engine, engine_from


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, lists = Path(argv[0]), [Path(name) for name in argv[1:]]
    started = time.perf_counter()
    data = compile_engine(path.read_text(encoding="utf-8") for path in lists)
    engine_from(data)  # what cannot be loaded back must not ship
    out.write_bytes(data)
    took = time.perf_counter() - started
    print(f"  {len(lists)} lists -> {out.name}: {len(data) / 1e6:.2f} MB in {took:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
