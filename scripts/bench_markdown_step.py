"""The Markdown step (webcapture.content.markdown.html_to_markdown) of this tree against a git revision's,
side by side in one run, on real documentation pages (Debian's sphinx-doc, git-doc, postgresql-doc-15 and
python3.11-doc, every page or an even sample): each revision's CPU time in a child process of its own,
in turns, and whether the two produced the same Markdown for every page (main content and whole page).

    python scripts/bench_markdown_step.py [--base main] [--rounds 3] [--write-docs --note "..."]
    python scripts/bench_markdown_step.py --only /usr/share/doc/python3.11/html/library/json.html --repeat 20
    python scripts/bench_markdown_step.py --crawl-page   # what a crawled page does: Markdown and links
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark_docs import write_block  # noqa: E402

_PAGES = """
import glob
pages = (sorted(glob.glob("/usr/share/doc/sphinx-doc/html/**/*.html", recursive=True))
         + sorted(glob.glob("/usr/share/doc/git-doc/*.html"))
         + sorted(glob.glob("/usr/share/doc/postgresql-doc-15/html/*.html"))[::12]
         + sorted(glob.glob("/usr/share/doc/python3.11/html/**/*.html", recursive=True))[::5])
"""
_RUN = """
import hashlib, json, sys, time
from webcapture.content.markdown import html_to_markdown, markdown_and_links
only, repeat, crawl_page = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
pages = only or pages
cpu, digests = 0.0, {}
for path in pages:
    html = open(path, encoding="utf-8", errors="replace").read()
    for main in (True, False):
        for _ in range(repeat):
            started = time.process_time()
            if crawl_page:  # its links read from the same parse, as a crawl's page is (both in the digest)
                markdown, links = markdown_and_links(html, "http://127.0.0.1/" + path, only_main_content=main)
                markdown = "\\n".join(links) + "\\n" + markdown
            else:
                markdown = html_to_markdown(html, "http://127.0.0.1/" + path, only_main_content=main)
            cpu += time.process_time() - started
        digests[f"{path} {main}"] = hashlib.sha256(markdown.encode()).hexdigest()
print(json.dumps({"cpu": cpu, "pages": len(pages), "digests": digests}))
"""


def _run(shared: Path, only: list[str], repeat: int, crawl_page: bool) -> dict[str, object]:
    env = {"PYTHONPATH": str(shared), "PATH": "/usr/bin:/bin"}
    script = ("pages = []\n" if only else _PAGES) + _RUN
    ran = subprocess.run([sys.executable, "-c", script, json.dumps(only), str(repeat),
                          "1" if crawl_page else "0"], env=env,
                         capture_output=True, text=True, check=True)
    answer: dict[str, object] = json.loads(ran.stdout.splitlines()[-1])
    return answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", default=[], help="these pages instead (repeatable)")
    parser.add_argument("--repeat", type=int, default=1, help="convert each page this many times a round")
    parser.add_argument("--crawl-page", action="store_true",
                        help="each page's Markdown and links from one parse, as a crawl's page does")
    parser.add_argument("--write-docs", action="store_true", help="the result into docs/benchmarks.md")
    parser.add_argument("--note", default="", help="what the base is, said in the docs with the result")
    args = parser.parse_args(argv)
    if args.write_docs and (args.only or args.repeat != 1):
        parser.error("--write-docs: the documented run is every page once a round")
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "archive", args.base, "layers/shared"], cwd=REPO,
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        trees = {args.base: Path(folder) / "layers" / "shared", "this tree": REPO / "layers" / "shared"}
        runs: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, shared in trees.items():
                runs[name].append(_run(shared, args.only, args.repeat, args.crawl_page))
    base, new = runs[args.base], runs["this tree"]
    digests_base, digests_new = base[0]["digests"], new[0]["digests"]
    assert isinstance(digests_base, dict) and isinstance(digests_new, dict)
    differ = sorted(key for key in digests_base if digests_base[key] != digests_new.get(key))
    cpu_base = statistics.median(float(str(run["cpu"])) for run in base)
    cpu_new = statistics.median(float(str(run["cpu"])) for run in new)
    result = (f"{base[0]['pages']} pages, main content and whole page each"
              + (", as a crawl's page (Markdown and links)" if args.crawl_page else "")
              + (f", {args.repeat} times" if args.repeat != 1 else "")
              + f": {args.base} {cpu_base:.2f} s CPU, this tree {cpu_new:.2f} s CPU "
              f"({cpu_new / cpu_base:.2f}x; median of {args.rounds} rounds, in turns); "
              f"Markdown different on {len(differ)} of {len(digests_base)}"
              + (f": {differ[:5]}" if differ else ""))
    print(result)
    if args.write_docs and not differ:
        load = "-".join(f"{value:.0f}" for value in sorted({os.getloadavg()[0], os.getloadavg()[2]}))
        command = f"python scripts/bench_markdown_step.py --base {args.base} --rounds {args.rounds}"
        note = f"{args.note}; " if args.note else ""
        block = "markdown-step-crawl-page" if args.crawl_page else "markdown-step"
        command += " --crawl-page" if args.crawl_page else ""
        write_block(block, f"`{command}` ({note}load average {load}): {result}.")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
