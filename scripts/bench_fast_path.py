"""`make bench-fast-path`: the fast path against the browser, side by side in one run, over the local API on
loopback, on a real documentation site (Debian's python3.11-doc: 530 Sphinx pages, no sitemap) served as
files; written to docs/benchmarks.md.

- A 300-page crawl of the site with `engine: auto` against the same crawl with `engine: browser` (same
  stack, same containers, in turns): pages per second, and each page's Markdown compared between the two.
  The target's measure is the docs-fidelity score of scripts/bench_docs.py (scripts/crawl_fidelity.py):
  each side's Markdown of a page is scored against the page's HTML as the site serves it (the file under
  the served folder that the URL's path names, the Sphinx navigation set apart), and a page is within
  target when the two scores are within 0.01; the pages outside it are named with the part that differs
  and how many of the served page's items each side lacks, and the mean absolute difference is reported.
  Beside it, two stricter measures: how many pages' Markdown is exactly equal, and a token F1 between the
  two Markdowns.
- One warm `markdown` request with `engine: http` against the same with `engine: browser` (medians of
  --runs, alternated, after one untimed request of each); then each engine's --runs back to back. Beside
  them, this machine's pause penalty: the Markdown step of the same page in this process, back to back
  against after a pause of PAUSE_S (a process that waited runs its next CPU-bound work slower here; an
  alternated `http` request follows the browser's).
- A re-crawl of the same pages with `since` the `auto` crawl (nothing changed): its time against the first
  crawl's, and its credits (a `same` page is free).
- A fresh process's cold start and memory on each path: importing the crawl worker and the endpoints'
  operations and answering one page over `http`, against the same with `engine: browser` (which imports
  the browser's modules and launches Chromium): seconds, and the proportional memory (PSS) of the process
  and every process it started.

    python scripts/bench_fast_path.py [--pages 300] [--runs 9] [--write-docs]
    python scripts/bench_fast_path.py --parts markdown,crawl   # some parts only (printed, never written)
    python scripts/bench_fast_path.py --parts crawl,browser-crawl --pages 30   # the crawls, compared
    python scripts/bench_fast_path.py --parts crawl,browser-crawl --site git-doc   # on another generator
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.bench_docs import SITES, Site  # noqa: E402
from scripts.benchmark_docs import write_block  # noqa: E402
from scripts.crawl_fidelity import compare, summary, target_row  # noqa: E402
from scripts.deployed_api import DeployedApi  # noqa: E402
from scripts.fast_path_costs import Crawled, Measured, cost_block, result_kb  # noqa: E402
from tests.support.docs_site import GIT_DOCS, POSTGRES_DOCS, PYTHON_DOCS, SPHINX_DOCS, DocsServer  # noqa: E402
from tests.support.jobs_client import all_results, wait_until_settled  # noqa: E402
from tests.support.local_api import LocalApi, start_local_api  # noqa: E402
from webcapture.browser.launch import processes  # noqa: E402

ADDRESS = "127.0.4.2"
CRAWL_TARGET = 10.0
MARKDOWN_TARGET = 0.1
SINCE_TARGET = 20.0
PARTS = ("cold", "markdown", "crawl", "browser-crawl")
PAUSE_S = 0.5
_WORD = re.compile(r"\w+")
# The sites the crawls can compare on (--site): each Debian documentation package's served folder and its
# entry in scripts/bench_docs.py, whose navigation the docs-fidelity score sets apart. The docs' figures are
# python3-doc's; the others check the comparison on other generators.
CRAWL_SITES = {
    "python3-doc": PYTHON_DOCS,
    "sphinx-doc": SPHINX_DOCS,
    "git-doc": GIT_DOCS,
    "postgresql-doc-15": POSTGRES_DOCS,
    "debian-handbook": Path("/usr/share/doc/debian-handbook/html/en-US"),
    "doxygen-doc": Path("/usr/share/doc/doxygen/html"),
    "libaom-doc": Path("/usr/share/doc/libaom-dev/html"),
    "libcommons-lang3-java-doc": Path("/usr/share/doc/libcommons-lang3-java/api"),
    "python-django-doc": Path("/usr/share/doc/python-django-doc/html"),
    "rust-doc": Path("/usr/share/doc/rust-doc/html/book"),
    "rust-doc-std": Path("/usr/share/doc/rust-doc/html/std"),
    "libffi-dev": Path("/usr/share/doc/libffi8/html"),
    "libglib2.0-doc": Path("/usr/share/doc/libglib2.0-doc/glib"),
    "ghc-doc": next(Path("/usr/share/doc/ghc-doc/html/libraries").glob("base-*"), Path("/nonexistent")),
    "erlang-doc": next(Path("/usr/share/doc/erlang-doc/lib").glob("stdlib-*/doc/html"), Path("/nonexistent")),
    "docutils-doc": Path("/usr/share/doc/docutils-doc/docs"),
}
# Sites the crawls compare on that scripts/bench_docs.py's sample leaves out (so its figures stay
# comparable between runs): the navigation their score sets apart.
_DOXYGEN_NAVIGATION = ("//div[@id='top'] | //div[@id='side-nav'] | //div[contains(@class,'navpath')]"
                       " | //div[@class='summary'] | //address[@class='footer']")
CRAWL_ONLY_SITES = (
    Site("doxygen-doc (Doxygen)", (), _DOXYGEN_NAVIGATION),
    Site("libaom-doc (Doxygen, tree view)", (), _DOXYGEN_NAVIGATION),
    Site("libcommons-lang3-java-doc (javadoc)", (), "//header | //nav | //footer"),
    Site("python-django-doc (Sphinx, Django's theme)", (),
         "//div[@id='hd'] | //div[@id='ft'] | //div[@role='complementary'] | //div[@class='nav']"),
    Site("rust-doc (mdBook: The Rust Programming Language)", (),
         "//nav | //div[@id='menu-bar'] | //div[@id='sidebar-scrollbox']"),
    Site("rust-doc-std (rustdoc: the standard library)", (), "//nav | //div[@class='sub-container']"),
    Site("libffi-dev (Texinfo, a page per node)", (), "//div[@class='header'] | //div[@class='nav-panel']"),
    Site("libglib2.0-doc (GTK-Doc)", (), "//table[@class='navigation'] | //div[@class='footer']"),
    Site("ghc-doc (Haddock: GHC's base library)", (), "//div[@id='package-header'] | //div[@id='footer']"),
    Site("erlang-doc (Erlang/OTP's docs: STDLIB)", (), "//div[@id='leftnav'] | //div[@class='footer']"),
    Site("docutils-doc (Docutils)", (), "//div[@class='header'] | //div[@class='footer']"),
)


def scoring_site(name: str) -> Site:
    """scripts/bench_docs.py's entry for a --site name: the navigation its docs-fidelity score sets apart."""
    return next(site for site in (*SITES, *CRAWL_ONLY_SITES) if site.name.startswith(name))


def _f1(a: str, b: str) -> float:
    left, right = Counter(_WORD.findall(a)), Counter(_WORD.findall(b))
    common = sum((left & right).values())
    if not left and not right:
        return 1.0
    if not common:
        return 0.0
    precision, recall = common / sum(right.values()), common / sum(left.values())
    return 2 * precision * recall / (precision + recall)


def timed_crawl(api: LocalApi | DeployedApi, url: str, pages: int, engine: str, **more: Any,
           ) -> tuple[float, dict[str, str], dict[str, Any]]:
    pid = None if api.process is None else api.process.pid  # a deployed stack's CPU is not ours to read
    cpu_before = _cpu_split(pid)
    started = time.perf_counter()
    answer = api.call("POST", "/v1/web/crawl", json={"url": url, "limit": pages, "sitemap": "skip",
                                                     "maxConcurrency": 3, "engine": engine, **more})
    if answer.status_code != 202:
        raise RuntimeError(f"crawl refused: {answer.status_code} {answer.text[:300]}")
    job_id = answer.json()["data"]["jobId"]
    for attempt in range(60):  # on a machine this busy a status read can time out; the crawl goes on
        try:
            job = wait_until_settled(api, job_id, give_up_s=3_600)
            break
        except AssertionError as error:
            print(f"status read failed ({error}); reading again", flush=True)
            if attempt == 59:
                raise
            time.sleep(10)
    polled = time.perf_counter() - started
    cpu = [after - before for before, after in zip(cpu_before, _cpu_split(pid), strict=True)]
    # The crawl's own record times it: from its creation to the write that made it final. A status read
    # every 0.5 s would add up to half a second to a re-crawl of one or two, and reading more often
    # loads the machine the crawl runs on.
    seconds = _seconds_between(job["createdAt"], job["updatedAt"])
    if not 0 < seconds <= polled:
        raise RuntimeError(f"crawl {job_id}: createdAt..updatedAt {seconds:.3f} s, polled {polled:.3f} s")
    markdown = {r["data"]["url"]: r["data"].get("markdown", "") for r in all_results(api, job_id, 100)
                if "data" in r}
    engines = Counter(r["data"].get("metadata", {}).get("engine") for r in all_results(api, job_id, 100)
                      if "data" in r)
    return seconds, markdown, {"job": job, "engines": dict(engines), "id": job_id, "cpu": cpu}


def _cpu_s(pid: int) -> float:
    """CPU seconds (user and system) a process has used so far; 0 once it has ended."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_split(local_api_pid: int | None) -> tuple[float, float]:
    """CPU seconds so far of the local API's own process (moto's DynamoDB, SQS and S3, the emulated
    gateway and pollers: one Python process) and of the processes under it (the function containers and
    their browsers), each counted while it lives; none for a deployed stack (no pid of ours)."""
    if local_api_pid is None:
        return 0.0, 0.0
    return _cpu_s(local_api_pid), sum(map(_cpu_s, processes.descendants(local_api_pid)))


def _seconds_between(created: str, final: str) -> float:
    """Seconds between two of the service's timestamps (ISO 8601 UTC with milliseconds and `Z`)."""
    moments = [datetime.fromisoformat(stamp.replace("Z", "+00:00")) for stamp in (created, final)]
    return (moments[1] - moments[0]).total_seconds()


# One page answered by a fresh interpreter, as a cold function would: the imports a crawl worker and the
# endpoints need, then one page on the given engine; what it took and the memory of its process tree.
_COLD_PAGE = """
import os, sys, time
started = time.perf_counter()
from webcapture.models.site_requests import CrawlRequest
from webcapture.operations import collect_page_links, extract_from_page, page_markdown, rendered_content
from webcapture.site import crawl_worker
from webcapture.site.crawl_page import crawl_page
imported = time.perf_counter()
url, engine = sys.argv[1], sys.argv[2]
page = crawl_page(url, 0, CrawlRequest.model_validate({"url": url, "engine": engine}))
assert page.data["metadata"]["engine"] == engine and page.data["markdown"], page.data
answered = time.perf_counter()
warm = []  # then the larger page, warm: the same steps in process, no request path around them
for _ in range(int(sys.argv[4])):
    before = time.perf_counter()
    crawl_page(sys.argv[3], 0, CrawlRequest.model_validate({"url": sys.argv[3], "engine": engine}))
    warm.append(time.perf_counter() - before)

def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:  # it ended meanwhile
        return None

def tree(pid):
    children = [int(p) for p in os.listdir("/proc") if p.isdigit() and parent(p) == pid]
    return [pid] + [q for c in children for q in tree(c)]

def pss_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return sum(int(line.split()[1]) for line in f if line.startswith("Pss:"))
    except OSError:
        return 0

processes = tree(os.getpid())
print("COLD", imported - started, answered - imported, sum(map(pss_kb, processes)) / 1024, len(processes),
      sorted(warm)[len(warm) // 2] if warm else 0.0)
"""


def _cold(url: str, engine: str, warm_url: str, warm_runs: int) -> tuple[float, float, float, int, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "layers" / "shared"), "WEBCAPTURE_WARM_START": "0",
           "WEBCAPTURE_EGRESS_ALLOW": f"{ADDRESS}/32", "AWS_DEFAULT_REGION": "us-east-1"}
    ran = subprocess.run([sys.executable, "-c", _COLD_PAGE, url, engine, warm_url, str(warm_runs)], env=env,
                         capture_output=True,
                         text=True, timeout=600, check=False)
    line = next((line for line in ran.stdout.splitlines() if line.startswith("COLD ")), None)
    if ran.returncode != 0 or line is None:
        raise RuntimeError(f"cold {engine}: {ran.stderr[-2000:]}")
    imported, answered, pss, processes, warm = line.split()[1:]
    return float(imported), float(answered), float(pss), int(processes), float(warm)


def pause_penalty(path: Path, url: str, runs: int) -> tuple[float, float]:
    """Median ms of the page's Markdown step in this process, back to back and after a pause of PAUSE_S."""
    from webcapture.content.markdown import html_to_markdown

    html = path.read_text(encoding="utf-8")
    medians = []
    for pause in (0.0, PAUSE_S):
        html_to_markdown(html, url)
        times = []
        for _ in range(runs):
            time.sleep(pause)
            started = time.perf_counter()
            html_to_markdown(html, url)
            times.append((time.perf_counter() - started) * 1000)
        medians.append(statistics.median(times))
    return medians[0], medians[1]


def markdown_request_ms(api: LocalApi | DeployedApi, url: str, engine: str) -> float:
    started = time.perf_counter()
    answer = api.call("POST", "/v1/web/markdown", json={"url": url, "engine": engine})
    elapsed = (time.perf_counter() - started) * 1000
    if answer.status_code != 200 or answer.json()["data"]["metadata"]["engine"] != engine:
        raise RuntimeError(f"markdown {engine}: {answer.status_code} {answer.text[:300]}")
    return elapsed


class _Synthetic(BaseHTTPRequestHandler):
    """Page n links to pages 2n and 2n+1 (and back to 1): a site of any size, each page ~6 KB."""

    def log_message(self, *_: Any) -> None:
        pass

    def do_GET(self) -> None:
        number = int(self.path.strip("/").removeprefix("p").split(".")[0] or "1")
        links = "".join(f"<a href='/p{n}'>page {n}</a> " for n in (1, 2 * number, 2 * number + 1))
        text = f"<p>Page {number} of the synthetic site: a paragraph a reader reads. </p>" * 60
        body = (f"<!doctype html><title>Page {number}</title><nav>{links}</nav><main><h1>Page {number}</h1>"
                f"{text}</main>").encode()
        send_numbered_page(self, number, body)


def send_numbered_page(handler: BaseHTTPRequestHandler, number: int, body: bytes) -> None:
    """A synthetic site's page n: HTML with its number as ETag."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("ETag", f'"{number}"')
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def synthetic(pages: int, formats: list[str]) -> str:
    """The crawl's page work with engine http (webcapture.site.crawl_page: fetch through the egress guard,
    links, Markdown) for `pages` pages of a synthetic site in one process, timed and measured per thousand.
    No browser and no local API: what a crawl function spends on each page; the bookkeeping around it is a
    constant number of DynamoDB and SQS calls per page (docs/crawl-and-map.md#a-crawl-of-100000-pages)."""
    os.environ["WEBCAPTURE_EGRESS_ALLOW"] = f"{ADDRESS}/32"
    from webcapture.models.site_requests import CrawlRequest
    from webcapture.settings import get_settings
    from webcapture.site.crawl_page import crawl_page

    get_settings.cache_clear()
    server = ThreadingHTTPServer((ADDRESS, 0), _Synthetic)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://{ADDRESS}:{server.server_address[1]}"
    request = CrawlRequest.model_validate({"url": origin + "/p1", "engine": "http", "formats": formats})
    rates: list[float] = []
    cpu_ms: list[float] = []
    memory: list[float] = []
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        for number in range(1, pages + 1):
            page = crawl_page(f"{origin}/p{number}", 0, request)
            if not set(formats) <= set(page.data) or page.data["metadata"]["engine"] != "http":
                raise RuntimeError(f"page {number}: {page.data}")
            if number % 1000 == 0:
                now, cpu_now = time.perf_counter(), time.process_time()
                rates.append(1000 / (now - started))
                cpu_ms.append(cpu_now - cpu_started)  # seconds per 1,000 = ms per page
                memory.append(_rss_mb())
                started, cpu_started = now, cpu_now
                print(f"pages {number - 999}-{number}: {rates[-1]:.0f} pages/s, "
                      f"{cpu_ms[-1]:.2f} CPU ms/page, "
                      f"RSS {memory[-1]:.0f} MB", flush=True)
    finally:
        server.shutdown()
        server.server_close()
    return "\n".join([
        f"`python scripts/bench_fast_path.py --synthetic {pages} --formats {','.join(formats)}`: the crawl's "
        "page work with `engine: http` (fetch through the egress guard, the page's links for discovery, "
        f"the formats {', '.join(formats)}; webcapture.site.crawl_page) for {pages:,} pages of a synthetic "
        f"site on {ADDRESS}, one process, one page at a time.",
        "",
        "| pages | pages/s (wall, shared machine) | CPU ms per page (this process) | CPU-bound pages/s "
        "| RSS |",
        "|---|---|---|---|---|",
        *(f"| {1000 * i + 1:,}-{1000 * (i + 1):,} | {rate:.0f} | {cpu:.2f} | {1000 / cpu:.0f} | {mb:.0f} MB |"
          for i, (rate, cpu, mb) in enumerate(zip(rates, cpu_ms, memory, strict=True))
          if i < 3 or i >= len(rates) - 3),
        "",
        f"Last thousand against the first: {cpu_ms[0] / cpu_ms[-1]:.2f}x the CPU-bound pages/s "
        f"(CPU time per page: {cpu_ms[0]:.2f} ms, then {cpu_ms[-1]:.2f} ms; "
        f"wall {rates[-1] / rates[0]:.2f}x, "
        "moved by the other work on the machine), "
        f"{memory[-1] - memory[0]:+.0f} MB RSS (median of all thousands {statistics.median(rates):.0f} "
        f"pages/s; lowest {min(rates):.0f}, highest {max(rates):.0f}).",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--synthetic", type=int, default=0,
                        help="instead: the http engine's page work on a synthetic site of this many pages")
    parser.add_argument("--formats", default="markdown", help="the synthetic crawl's formats")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"which to run, of {','.join(PARTS)} (all of them to write the docs)")
    parser.add_argument("--site", choices=sorted(CRAWL_SITES), default="python3-doc",
                        help="the site the crawls compare on (another than python3-doc: the crawl parts "
                             "only, printed)")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    if not parts <= set(PARTS) or (args.write_docs and parts != set(PARTS)):
        parser.error(f"--parts: some of {','.join(PARTS)}; --write-docs needs all of them")
    if args.site != "python3-doc" and (args.write_docs or not parts <= {"crawl", "browser-crawl"}):
        parser.error("--site: another site than python3-doc runs the crawl parts only, and writes nothing")
    if args.synthetic:
        text = synthetic(args.synthetic, args.formats.split(","))
        print(text)
        if args.write_docs:
            write_block("fast-path-synthetic", text)
        return 0
    root = CRAWL_SITES[args.site]
    if not (root / "index.html").is_file():
        parser.error(f"--site {args.site}: {root} is not there (apt-get install {args.site})")
    site = DocsServer(root, ADDRESS)
    stack = start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": f"{ADDRESS}/32", "WEBCAPTURE_WARM_START": "0",
         "WEBCAPTURE_DEFAULT_MAX_CONCURRENCY": str(args.workers + 1)},
        demo_credits=-1,
        extra_args=["--max-containers", str(args.workers), "--parameter",
                    f"JobsWorkerConcurrency={args.workers}"])
    start = site.origin + "/index.html"
    page = site.origin + "/library/functions.html"
    cold_page = site.origin + "/library/json.html"
    cold: dict[str, list[tuple[float, float, float, int, float]]] = {"browser": [], "http": []}
    for _ in range(args.cold_runs if "cold" in parts else 0):
        for engine in ("browser", "http"):
            cold[engine].append(_cold(cold_page, engine, page, args.runs))
    if "cold" in parts:
        cold_median = {engine: [statistics.median(run[i] for run in runs) for i in range(5)]
                       for engine, runs in cold.items()}
        print(f"cold: {cold_median}", flush=True)
    try:
        with stack.errors_shown():
            http_ms: list[float] = []
            browser_ms: list[float] = []
            back_to_back: dict[str, list[float]] = {"browser": [], "http": []}
            if "markdown" in parts:
                for engine in ("browser", "http"):
                    markdown_request_ms(stack, page, engine)  # untimed: a warm container and browser for each
                for _ in range(args.runs):
                    browser_ms.append(markdown_request_ms(stack, page, "browser"))
                    http_ms.append(markdown_request_ms(stack, page, "http"))
                print(f"markdown: browser {statistics.median(browser_ms):.0f} ms, http "
                      f"{statistics.median(http_ms):.0f} ms "
                      f"({statistics.median(http_ms) / statistics.median(browser_ms):.3f}x)", flush=True)
                for engine, times in back_to_back.items():
                    times += [markdown_request_ms(stack, page, engine) for _ in range(args.runs)]
                print(f"markdown back to back: browser {statistics.median(back_to_back['browser']):.0f} ms, "
                      f"http {statistics.median(back_to_back['http']):.0f} ms", flush=True)
                paused = pause_penalty(root / "library" / "functions.html", page, args.runs)
                print(f"pause penalty, Markdown step in process: {paused[0]:.1f} ms back to back, "
                      f"{paused[1]:.1f} ms after {PAUSE_S} s", flush=True)
            if "crawl" in parts:
                auto_s, auto_md, auto_info = timed_crawl(stack, start, args.pages, "auto")
                print(f"crawl auto: {auto_s:.1f} s {auto_info['engines']}; CPU s (local API, containers) "
                      f"{auto_info['cpu']}", flush=True)
                since_s, _, since_info = timed_crawl(stack, start, args.pages, "auto", since=auto_info["id"])
                print(f"re-crawl since: {since_s:.1f} s ({auto_s / since_s:.1f}x faster) "
                      f"{since_info['job'].get('changes')} credits {since_info['job'].get('creditsCost')}; "
                      f"CPU s (local API, containers) {since_info['cpu']}",
                      flush=True)
            if "browser-crawl" in parts:
                browser_s, browser_md, browser_info = timed_crawl(stack, start, args.pages, "browser")
                print(f"crawl browser: {browser_s:.1f} s {browser_info['engines']}", flush=True)
    finally:
        stack.stop()
        site.stop()
    if not {"crawl", "browser-crawl"} <= parts:
        return 0
    auto_rate, browser_rate = len(auto_md) / auto_s, len(browser_md) / browser_s
    fidelity, unserved = compare(auto_md, browser_md, root, scoring_site(args.site))
    both = sorted(set(auto_md) & set(browser_md))
    equal = sum(auto_md[url] == browser_md[url] for url in both)
    scores = [_f1(browser_md[url], auto_md[url]) for url in both]
    worst = sorted(zip(scores, both, strict=True))[:3]
    compared = [
        f"| crawl of {args.pages} pages (`engine: auto` vs `browser`), pages/s | {browser_rate:.2f} "
        f"({browser_s:.0f} s) | {auto_rate:.2f} ({auto_s:.1f} s) | {auto_rate / browser_rate:.1f}x | "
        f">= {CRAWL_TARGET:.0f}x |",
        target_row(fidelity),
    ]
    comparison = [
        summary(fidelity, unserved, site=scoring_site(args.site)),
        "",
        f"Stricter, on the same {len(both)} pages: {equal} exactly equal Markdown; token F1 between the two "
        f"mean {statistics.mean(scores):.4f}, lowest {min(scores):.4f} "
        f"({', '.join(f'{url.removeprefix(site.origin)} {score:.3f}' for score, url in worst)}). "
        f"Engines that ran under auto: {auto_info['engines']}.",
    ]
    if parts != set(PARTS):
        print("\n".join(["| what | browser | fast path | ratio | target |", "|---|---|---|---|---|",
                         *compared, "", *comparison]))
        return 0
    http_median, browser_median = statistics.median(http_ms), statistics.median(browser_ms)
    back_http, back_browser = (statistics.median(back_to_back[engine]) for engine in ("http", "browser"))
    changes = since_info["job"].get("changes") or {}
    first_cost, since_cost = auto_info["job"].get("creditsCost"), since_info["job"].get("creditsCost")
    cb, ch = cold_median["browser"], cold_median["http"]
    text = "\n".join([
        "`make bench-fast-path` (scripts/bench_fast_path.py), over the local API on loopback, on Debian's "
        f"python3.11-doc (530 Sphinx pages, no sitemap) served as files on {ADDRESS}; {args.workers} "
        "function containers and queue pollers; the engines in turns within one run.",
        "",
        "| what | browser | fast path | ratio | target |",
        "|---|---|---|---|---|",
        *compared,
        f"| one warm `markdown` of library/functions.html (`http` vs `browser`), median of {args.runs} | "
        f"{browser_median:.0f} ms | {http_median:.0f} ms | {http_median / browser_median:.3f}x | "
        f"<= {MARKDOWN_TARGET}x |",
        f"| the same, each engine's {args.runs} requests back to back | {back_browser:.0f} ms | "
        f"{back_http:.0f} ms | {back_http / back_browser:.3f}x | |",
        f"| re-crawl with `since` the `auto` crawl, nothing changed (vs that first crawl) | | "
        f"{since_s:.2f} s "
        f"vs {auto_s:.1f} s; {since_cost} credits (first: {first_cost}) | {auto_s / since_s:.1f}x faster | "
        f">= {SINCE_TARGET:.0f}x, free |",
        f"| fresh process: imports of the crawl worker and the endpoints' operations, median of "
        f"{args.cold_runs} | {cb[0]:.2f} s | {ch[0]:.2f} s | {ch[0] / cb[0]:.2f}x | |",
        f"| the same process: its first page (library/json.html), Markdown | {cb[1]:.2f} s (Chromium "
        f"launched) | {ch[1]:.2f} s | {ch[1] / cb[1]:.2f}x | |",
        f"| the same process: memory (PSS of it and the processes it started) | {cb[2]:.0f} MB "
        f"({cb[3]:.0f} processes) | {ch[2]:.0f} MB ({ch[3]:.0f} process) | {ch[2] / cb[2]:.2f}x | |",
        f"| the same process, warm: library/functions.html as a crawl's page (its Markdown and links; no "
        f"request path around it), median of {args.runs}, median of the {args.cold_runs} processes | "
        f"{cb[4] * 1000:.0f} ms | {ch[4] * 1000:.0f} ms | {ch[4] / cb[4]:.3f}x | |",
        "",
        f"This machine's pause penalty: the Markdown step of library/functions.html in the benchmark's own "
        f"process took {paused[0]:.1f} ms back to back and {paused[1]:.1f} ms after a pause of {PAUSE_S} s "
        f"(medians of {args.runs}); an alternated `http` request follows a browser request of several "
        "hundred milliseconds.",
        "",
        f"The re-crawl's changes: {changes}. CPU while each crawl ran, the local API's own process "
        "(moto's DynamoDB and SQS, the emulated gateway and pollers: one Python process) and the function "
        "containers: "
        f"the `auto` crawl {auto_info['cpu'][0]:.2f} s and {auto_info['cpu'][1]:.2f} s in {auto_s:.1f} s; "
        f"the re-crawl {since_info['cpu'][0]:.2f} s and {since_info['cpu'][1]:.2f} s in {since_s:.2f} s.",
        "",
        *comparison,
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work), Python "
        f"{platform.python_version()}.",
    ])
    costs = cost_block(Measured(
        markdown_browser_ms=browser_median, markdown_http_ms=http_median, first_page_browser_s=cb[1],
        first_page_http_s=ch[1], pss_browser_mb=cb[2], pss_http_mb=ch[2],
        auto=Crawled(auto_s, len(auto_md), auto_info["cpu"][1], result_kb(list(auto_md.values())),
                     messages=False, text_kb=result_kb(list(auto_md.values()), as_kept=False)),
        browser=Crawled(browser_s, len(browser_md), browser_info["cpu"][1],
                        result_kb(list(browser_md.values())), messages=True,
                        text_kb=result_kb(list(browser_md.values()), as_kept=False)),
        since=Crawled(since_s, sum(changes.values()) or args.pages, since_info["cpu"][1], result_kb([""]),
                      messages=False, text_kb=result_kb([""], as_kept=False)),
        workers=args.workers))
    print(text, costs, sep="\n\n")
    if args.write_docs:
        write_block("fast-path", text)
        write_block("cost-fast-path", costs, REPO / "docs" / "cost.md")
        print("wrote docs/benchmarks.md and docs/cost.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
