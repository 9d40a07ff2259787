"""`make bench-docs`: how much of a documentation page's structure each HTML-to-Markdown converter keeps.

Real documentation nobody here wrote, from Debian's documentation packages (DocBook, AsciiDoc, two Sphinx
themes, Node.js's generator, Publican), is served on loopback and fetched over HTTP like any page. Each page's
own structure is read from its HTML, in the page's article (the site's navigation, named per site below,
set apart), and each converter's Markdown is parsed by markdown-it-py (CommonMark with GFM tables) and scored
against it:

- inline code: the texts of <code>/<tt>/<kbd>/<samp> outside <pre> that come back as code spans;
- fenced: the <pre> blocks that come back in a fenced code block (a <pre> in a table cell is scored as
  the cell: a GFM table cell holds one line);
- language: of the <pre> blocks whose page names a language (`language-*`, `lang-*`, `highlight-*`,
  `data-lang`, `brush:`), those whose fence carries it;
- cells: the cells of the article's data tables that come back as a cell of a Markdown table;
- headings: the <h1>-<h6> texts, less their permalink marks, that come back as headings (an admonition's
  title is its label, not a heading: docs/markdown.md#admonitions);
- navigation: 1 minus the share of the navigation's phrases (its link texts) that leak into the Markdown.

A page's fidelity is the mean of the parts it has; a site's is the mean over its pages. The converters run
in turns on each page in this one invocation. The converter the service had before (`--baseline-ref`, a git
revision of this repository) runs in a child process from that revision's files, on the same pages, and
both are timed on one 100 KB page for the ratio.

    python scripts/bench_docs.py [--baseline-ref REV] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from pathlib import Path

from lxml import etree
from lxml.html import document_fromstring
from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark_docs import write_block  # noqa: E402

DOCS_ROOT = Path("/usr/share/doc")
# The converter before this one: the last revision with markdownify behind trafilatura's HTML output.
DEFAULT_BASELINE_REF = "2ebf4d2"
TIMED_PAGE = "python3-doc/html/library/json.html"  # 107,870 bytes
TIMING_RUNS = 5
Converter = Callable[[str, str], str]


@dataclass(frozen=True)
class Site:
    name: str  # the Debian package and its generator
    pages: tuple[str, ...]  # under /usr/share/doc
    navigation: str  # XPath of the site's navigation on its pages
    article: str = "//body"  # XPath of the article region, navigation excluded


SPHINX_NAVIGATION = ("//div[contains(@class,'related')] | //div[contains(@class,'sphinxsidebar')]"
                     " | //div[@class='footer'] | //div[@class='pageheader'] | //div[@class='mobile-nav']")
SITES = (
    Site("postgresql-doc-15 (DocBook)",
         tuple(f"postgresql-doc-15/html/{name}.html"
               for name in ("sql-select", "functions-json", "datatype-numeric", "tutorial-join")),
         "//div[@class='navheader'] | //div[@class='navfooter']"),
    Site("git-doc (AsciiDoc)",
         tuple(f"git-doc/{name}.html" for name in ("git-add", "git-rebase", "gitignore", "git-log")),
         "//div[@id='footer']"),
    Site("sphinx-doc (Sphinx, sphinx13 theme)",
         tuple(f"sphinx-doc/html/{name}.html" for name in (
             "usage/quickstart", "usage/restructuredtext/directives", "usage/extensions/autodoc",
             "tutorial/first-steps")),
         SPHINX_NAVIGATION),
    Site("python3-doc (Sphinx, python-docs-theme)",
         tuple(f"python3-doc/html/{name}.html" for name in (
             "library/json", "library/itertools", "library/pathlib", "tutorial/datastructures")),
         SPHINX_NAVIGATION),
    Site("nodejs-doc (Node.js doc generator)",
         tuple(f"nodejs/api/{name}.html" for name in ("path", "url", "events", "child_process")),
         "//div[@id='column2'] | //div[@id='toc'] | //header",
         "//div[@id='apicontent']"),
    Site("debian-handbook (Publican)",
         tuple(f"debian-handbook/html/en-US/{name}.html" for name in (
             "sect.apt-get", "sect.apt-cache", "apt", "sect.package-meta-information")),
         "//p[@id='title'] | //ul[contains(@class,'docnav')]"),
)

ADMONITIONS = {"admonition", "note", "warning", "tip", "caution", "important", "danger", "hint"}
PARTS = ("inline code", "fenced", "language", "cells", "headings", "navigation")
_SPACE = re.compile(r"\s+")
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight)-(.+)$")
_BRUSH = re.compile(r"brush:\s*([\w+#.-]+)")
MARKDOWN = MarkdownIt("commonmark").enable("table")


def norm(text: str) -> str:
    return _SPACE.sub(" ", text.replace("\u200b", "").replace("¶", "")).strip()


# The page's structure, read from its HTML.


@dataclass
class Expected:
    inline_code: set[str]
    pres: list[tuple[str, str]]  # (text, language the page names or "")
    cells: list[str]
    headings: list[str]
    navigation: list[str]


def named_language(pre: etree._Element) -> str:
    candidates = [pre, *pre.iterchildren("code")]
    ancestor = pre.getparent()
    for _ in range(3):
        if ancestor is None or ancestor.tag in ("body", "td"):
            break
        candidates.append(ancestor)
        ancestor = ancestor.getparent()
    for element in candidates:
        if element.get("data-lang"):
            return str(element.get("data-lang"))
        cls = element.get("class") or ""
        if brush := _BRUSH.search(cls):
            return brush.group(1)
        for token in cls.split():
            if (match := _LANGUAGE_CLASS.match(token)) and match.group(1) not in ("default", "none"):
                return match.group(1)
    return ""


def expected_structure(html: str, site: Site) -> Expected:
    tree = document_fromstring(html.encode("utf-8"))
    for junk in tree.xpath("//script | //style"):
        junk.getparent().remove(junk)
    navigation = tree.xpath(site.navigation)
    phrases = []
    for element in navigation:
        for link in element.iter("a"):
            phrase = norm(link.text_content())
            if len(phrase) >= 3 and phrase not in phrases:
                phrases.append(phrase)
        element.getparent().remove(element)
    article = tree.xpath(site.article)[0]
    for permalink in article.xpath(".//a[starts-with(@href,'#')]"):
        if norm(permalink.text_content()) in ("", "#", "¶", "§"):
            permalink.drop_tree()
    article_text = norm(article.text_content()).lower()
    inline = {
        norm(code.text_content()) for code in article.iter("code", "tt", "kbd", "samp")
        if not any(a.tag in ("pre", "code", "tt", "kbd", "samp") for a in code.iterancestors())
        and norm(code.text_content())
    }
    pres = [
        (norm(pre.text_content()), named_language(pre)) for pre in article.iter("pre")
        if "linenos" not in (pre.getparent().get("class") or "") and norm(pre.text_content())
        and not any(a.tag in ("td", "th") for a in pre.iterancestors())
    ]
    cells = [
        norm(cell.text_content()) for table in article.iter("table")
        if not table.xpath(".//table | ancestor::*[contains(@class,'admonitionblock')]")
        and "highlighttable" not in (table.get("class") or "")
        for cell in table.iter("td", "th") if norm(cell.text_content())
    ]
    headings = [norm(h.text_content()) for h in article.iter("h1", "h2", "h3", "h4", "h5", "h6")
                if norm(h.text_content()) and not any(ADMONITIONS & set((a.get("class") or "").split())
                                                      for a in h.iterancestors())]
    leaked_already = [phrase for phrase in phrases if phrase.lower() not in article_text]
    return Expected(inline, pres, cells, headings, leaked_already)


# The Markdown's structure, as a CommonMark renderer reads it.


def _inline_text(token: object) -> str:
    children = getattr(token, "children", None) or []
    return norm("".join(child.content for child in children if child.type in ("text", "code_inline")))


def score(markdown: str, expected: Expected) -> dict[str, float]:
    tokens = MARKDOWN.parse(markdown)
    spans: set[str] = set()
    fences: list[tuple[str, str]] = []
    cells: set[str] = set()
    headings: list[str] = []
    for index, token in enumerate(tokens):
        if token.type == "inline":
            for child in token.children or []:
                if child.type == "code_inline":
                    spans.add(norm(child.content))
            if index and tokens[index - 1].type in ("th_open", "td_open"):
                cells.add(_inline_text(token))
            if index and tokens[index - 1].type == "heading_open":
                headings.append(_inline_text(token))
        elif token.type == "fence":
            fences.append((norm(token.content), token.info.split(" ")[0] if token.info else ""))
    parts: dict[str, float] = {}
    if expected.inline_code:
        parts["inline code"] = sum(code in spans for code in expected.inline_code) / len(expected.inline_code)
    if expected.pres:
        fenced = [next((info for text, info in fences if pre[:200] in text), None)
                  for pre, _ in expected.pres]
        parts["fenced"] = sum(info is not None for info in fenced) / len(fenced)
        named = [(info, language)
                 for info, (_, language) in zip(fenced, expected.pres, strict=True) if language]
        if named:
            parts["language"] = sum(info == language for info, language in named) / len(named)
    if expected.cells:
        parts["cells"] = sum(cell in cells for cell in expected.cells) / len(expected.cells)
    if expected.headings:
        parts["headings"] = sum(
            any(heading == found or heading in found for found in headings) for heading in expected.headings
        ) / len(expected.headings)
    if expected.navigation:
        lowered = norm(markdown).lower()
        leaked = sum(phrase.lower() in lowered for phrase in expected.navigation)
        parts["navigation"] = 1 - leaked / len(expected.navigation)
    return parts


# The converters.


def converters() -> dict[str, Converter]:
    import html2text
    import markdownify
    import trafilatura

    from webcapture.content.markdown import html_to_markdown

    def with_html2text(html: str, url: str) -> str:
        converter = html2text.HTML2Text(baseurl=url, bodywidth=0)
        return str(converter.handle(html))

    def with_markdownify(html: str, url: str) -> str:
        return str(markdownify.markdownify(html, heading_style="ATX", bullets="-"))

    def with_trafilatura(html: str, url: str) -> str:
        return trafilatura.extract(html, url=url, output_format="markdown", include_comments=False,
                                   favor_precision=True, include_tables=True, include_links=True,
                                   include_formatting=True) or ""

    return {
        "**webcapture** (main content)": html_to_markdown,
        "webcapture (whole page)": partial(html_to_markdown, only_main_content=False),
        f"trafilatura {trafilatura.__version__} (Markdown, tables, links, formatting)": with_trafilatura,
        f"html2text {_version('html2text')}": with_html2text,
        f"markdownify {_version('markdownify')} (ATX headings)": with_markdownify,
    }


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


@contextmanager
def served_docs() -> Iterator[str]:
    """/usr/share/doc over HTTP on a loopback port, as a site would serve it."""
    handler = partial(_QuietHandler, directory=str(DOCS_ROOT))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return str(response.read().decode("utf-8", "replace"))


def timed(convert: Converter, html: str, url: str) -> float:
    """Median seconds of one conversion, after a warm-up."""
    convert(html, url)
    runs = []
    for _ in range(TIMING_RUNS):
        started = time.perf_counter()
        convert(html, url)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


# The service's converter before this one, from a git revision, in a child process.


def baseline_run(ref: str, base: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="bench-docs-baseline-") as folder:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "layers/shared/webcapture"],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        answer = subprocess.run(
            [sys.executable, __file__, "--baseline-child", base],
            check=True, capture_output=True, text=True,
            env={"PYTHONPATH": str(Path(folder) / "layers" / "shared"), "PATH": "/usr/bin:/bin"},
        )
    return dict(json.loads(answer.stdout))


def baseline_child(base: str) -> None:
    from webcapture.content.main_content import main_content_markdown

    pages = {page: main_content_markdown(fetch(base + page), base + page)
             for site in SITES for page in site.pages}
    html = fetch(base + TIMED_PAGE)
    print(json.dumps({"pages": pages, "seconds": timed(main_content_markdown, html, base + TIMED_PAGE)}))


APT_PACKAGES = "postgresql-doc-15 git-doc sphinx-doc python3-doc nodejs-doc debian-handbook"


def measure(baseline_ref: str) -> str:
    missing = [page for site in SITES for page in site.pages if not (DOCS_ROOT / page).is_file()]
    if missing:
        raise SystemExit(f"{len(missing)} sample pages are missing ({missing[0]}, ...): "
                         f"apt-get install {APT_PACKAGES}")
    candidates = converters()
    before = f"webcapture before ({baseline_ref}: trafilatura's HTML through markdownify)"
    results: dict[str, dict[str, list[dict[str, float]]]] = {site.name: {} for site in SITES}
    with served_docs() as base:
        baseline = baseline_run(baseline_ref, base)
        old_pages = baseline["pages"]
        assert isinstance(old_pages, dict)
        for site in SITES:
            for page in site.pages:
                html = fetch(base + page)
                expected = expected_structure(html, site)
                outputs = {name: convert(html, base + page) for name, convert in candidates.items()}
                outputs[before] = str(old_pages[page])
                for name, markdown in outputs.items():
                    results[site.name].setdefault(name, []).append(score(markdown, expected))
        html = fetch(base + TIMED_PAGE)
        seconds = timed(candidates["**webcapture** (main content)"], html, base + TIMED_PAGE)
    old_seconds = float(str(baseline["seconds"]))
    return report(results, seconds, old_seconds)


def report(results: dict[str, dict[str, list[dict[str, float]]]], seconds: float, old_seconds: float) -> str:
    lines = ["| site | converter | fidelity | " + " | ".join(PARTS) + " |",
             "|---|---|---|" + "---|" * len(PARTS)]
    for site, by_converter in results.items():
        for name, pages in by_converter.items():
            fidelity = statistics.mean(statistics.mean(parts.values()) for parts in pages if parts)
            cells = []
            for part in PARTS:
                values = [parts[part] for parts in pages if part in parts]
                cells.append(f"{statistics.mean(values):.2f}" if values else "-")
            lines.append(f"| {site} | {name} | **{fidelity:.3f}** | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"Main-content Markdown of `{TIMED_PAGE}` (107,870 bytes), median of {TIMING_RUNS} runs: "
                 f"{seconds * 1000:.0f} ms now, {old_seconds * 1000:.0f} ms before "
                 f"({seconds / old_seconds:.2f}x).")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline-ref", default=DEFAULT_BASELINE_REF,
                        help="git revision of the converter before")
    parser.add_argument("--write-docs", action="store_true", help="replace the block in docs/benchmarks.md")
    parser.add_argument("--baseline-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_child:
        baseline_child(args.baseline_child)
        return
    text = measure(args.baseline_ref)
    print(text)
    if args.write_docs:
        write_block("bench-docs", text)


if __name__ == "__main__":
    main()
