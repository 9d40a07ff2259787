"""`make bench-globs`: the page-control glob that backtracks (`**/` then `*a` pairs then `*b`, against a
URL ending in a run of `a`) matched by webcapture.glob_match's automaton and by the regular expression
Playwright builds from the same glob, side by side in one run; then the automaton alone on ever longer
URLs, to show its time grows with the URL's length only.

The regular expression's time multiplies with each pair, so it runs only up to --regex-pairs (the issue's
probe: 8 pairs took 1.6 s, 10 pairs past API Gateway's 29 s). Medians of --runs, fresh matchers each run
(no remembered transitions carried over).

    python scripts/bench_globs.py [--runs 5] [--regex-pairs 6] [--write-docs]
"""

from __future__ import annotations

import argparse
import functools
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "layers" / "shared"), str(REPO)]

from playwright._impl.isomorphic.url_match import glob_to_regex_pattern  # noqa: E402

from scripts.benchmark_docs import markdown_table, write_block  # noqa: E402
from webcapture.glob_match import MAX_GLOB_WILDCARDS, GlobMatcher  # noqa: E402
from webcapture.url_globs import url_glob_steps  # noqa: E402

PAGE = "http://127.0.0.1:8000/"


def probe(pairs: int) -> str:
    return "**/" + "*a" * pairs + "*b"


def median_ms(run: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def automaton_ms(glob: str, url: str, runs: int) -> float:
    steps = url_glob_steps(glob)
    return median_ms(lambda: GlobMatcher([steps]).matches(url), runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--regex-pairs", type=int, default=6)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()

    url = PAGE + "a" * 40
    pair_rows = []
    for pairs in range(4, MAX_GLOB_WILDCARDS - 1):
        glob = probe(pairs)
        ours = automaton_ms(glob, url, args.runs)
        if pairs <= args.regex_pairs:
            search = re.compile(glob_to_regex_pattern(glob)).search
            theirs = median_ms(functools.partial(search, url), max(1, args.runs // 2))
            cells = f"{theirs:,.1f} | {theirs / ours:,.0f}x"
        else:
            cells = "not run (x10 a pair) | -"
        pair_rows.append(f"| {pairs} | {ours:.2f} | {cells} |")
        print(pair_rows[-1], flush=True)

    widest = probe(MAX_GLOB_WILDCARDS - 2)
    length_rows = []
    base = None
    for length in (10_000, 100_000, 1_000_000):
        ms = automaton_ms(widest, PAGE + "a" * length, args.runs)
        per_char_us = ms * 1000 / length
        base = base or per_char_us
        length_rows.append(f"| {length:,} | {ms:,.1f} | {per_char_us:.2f} | {per_char_us / base:.2f} |")
        print(length_rows[-1], flush=True)

    text = "\n\n".join([
        f"The probe glob `**/` + n x `*a` + `*b` against `{PAGE}` + 40 `a` (ms, median of {args.runs}):",
        markdown_table("| pairs | automaton ms | Playwright's regex ms | regex / automaton |",
                       "|---:|---:|---:|---:|", pair_rows),
        f"The widest accepted glob ({MAX_GLOB_WILDCARDS} wildcards: `{widest}`) against ever longer URLs "
        "of `a`:",
        markdown_table("| URL characters | ms | us per character | per character / first row's |",
                       "|---:|---:|---:|---:|", length_rows),
    ])
    if args.write_docs:
        write_block("globs", text)


if __name__ == "__main__":
    main()
