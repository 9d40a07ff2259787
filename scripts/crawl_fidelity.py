"""Two crawls of one documentation site compared page by page on the docs-fidelity score of
scripts/bench_docs.py: each crawl's Markdown of a page is scored against that page's served HTML (read
from the folder the site is served from, by the URL's path, the site's navigation set apart), so two
Markdowns that differ in wording but keep the same structure score the same, and a page where they differ
names the part and how many of the served page's items each side lacks."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from scripts.bench_docs import SITES, Expected, Site, expected_structure, score

TOLERANCE = 0.01
# scripts/bench_docs.py's entry for python3-doc: its Sphinx navigation XPath, the page's body as its article.
PYTHON_SITE = next(site for site in SITES if site.name.startswith("python3-doc"))
# What each part counts on the served page, for the sentence that says what one side lacks.
_ITEMS = {"inline code": "inline code texts", "fenced": "<pre> blocks", "language": "<pre> languages named",
          "cells": "table cells", "headings": "headings", "navigation": "navigation phrases"}


@dataclass(frozen=True)
class PageFidelity:
    path: str
    auto: dict[str, float]  # part -> score of the `auto` crawl's Markdown
    browser: dict[str, float]
    totals: dict[str, int]  # part -> how many items the served page has for it

    @property
    def auto_score(self) -> float | None:
        return statistics.mean(self.auto.values()) if self.auto else None

    @property
    def browser_score(self) -> float | None:
        return statistics.mean(self.browser.values()) if self.browser else None

    @property
    def difference(self) -> float:
        """`auto` less browser; 0 for a page that has none of the parts (both sides score alike there)."""
        if self.auto_score is None or self.browser_score is None:
            return 0.0
        return self.auto_score - self.browser_score

    def reasons(self) -> list[str]:
        """Each part the two score differently, with how many of the served page's items each side lacks
        (for navigation: how many of its phrases each side carries)."""
        said = []
        for part, auto in self.auto.items():
            browser, total = self.browser[part], self.totals[part]
            if auto == browser:
                continue
            auto_n, browser_n = round((1 - auto) * total), round((1 - browser) * total)
            verb = "carries" if part == "navigation" else "lacks"
            said.append(f"{part} {auto:.2f} against {browser:.2f}: of the served page's {total} "
                        f"{_ITEMS[part]}, the browser's Markdown {verb} {browser_n}, `auto`'s {auto_n}")
        return said


def _totals(expected: Expected) -> dict[str, int]:
    return {"inline code": len(expected.inline_code), "fenced": len(expected.pres),
            "language": sum(1 for _, language in expected.pres if language), "cells": len(expected.cells),
            "headings": len(expected.headings), "navigation": len(expected.navigation)}


def served_file(root: Path, url: str) -> Path | None:
    """The file under `root` that the URL's path names (a folder's index.html), or None."""
    path = unquote(urlsplit(url).path)
    path = path + "index.html" if path.endswith("/") else path
    candidate = (root / path.lstrip("/")).resolve()
    inside = candidate.is_relative_to(root.resolve())
    return candidate if inside and candidate.is_file() else None


def compare(auto_md: dict[str, str], browser_md: dict[str, str], root: Path,
            site: Site = PYTHON_SITE) -> tuple[list[PageFidelity], list[str]]:
    """Every URL both crawls answered, scored on both sides; and the URLs with no served file to score."""
    pages, unserved = [], []
    for url in sorted(set(auto_md) & set(browser_md)):
        file = served_file(root, url)
        if file is None:
            unserved.append(url)
            continue
        expected = expected_structure(file.read_text(encoding="utf-8", errors="replace"), site)
        pages.append(PageFidelity(urlsplit(url).path, score(auto_md[url], expected),
                                  score(browser_md[url], expected), _totals(expected)))
    return pages, unserved


def _navigation_of(site: Site) -> str:
    """What the score sets apart as the site's navigation, named by the site's generator."""
    generator = site.name.split("(", 1)[-1].split(",")[0].rstrip(")") if "(" in site.name else site.name
    return f"the {generator} navigation"


def _named(page: PageFidelity) -> str:
    return (f"{page.path}: `auto` {page.auto_score:.3f}, browser {page.browser_score:.3f} "
            f"({'; '.join(page.reasons())})")


def target_row(pages: list[PageFidelity]) -> str:
    """The benchmark table's row: each side's mean fidelity, and how many pages are within the tolerance."""
    scored = [page for page in pages if page.auto_score is not None]
    within = sum(abs(page.difference) <= TOLERANCE for page in pages)
    auto_mean = statistics.mean(page.auto_score or 0.0 for page in scored) if scored else 0.0
    browser_mean = statistics.mean(page.browser_score or 0.0 for page in scored) if scored else 0.0
    return (f"| docs-fidelity of each page's Markdown against its served HTML (scripts/bench_docs.py), "
            f"the {len(pages)} pages both crawls completed, `auto` vs `browser` | mean {browser_mean:.4f} | "
            f"mean {auto_mean:.4f} | {within} of {len(pages)} within {TOLERANCE} | each page within "
            f"{TOLERANCE} |")


def summary(pages: list[PageFidelity], unserved: list[str], shown: int = 5, site: Site = PYTHON_SITE) -> str:
    """The paragraph under the table: how many pages are within the tolerance, the mean absolute
    difference, each page outside it by name with the part that differs and what each side lacks, and
    the largest differences within it."""
    if not pages:
        return "Docs-fidelity: no page both crawls completed has a served file to score."
    within = [page for page in pages if abs(page.difference) <= TOLERANCE]
    outside = sorted((page for page in pages if abs(page.difference) > TOLERANCE),
                     key=lambda page: -abs(page.difference))
    auto_more = [page for page in outside if page.difference > 0]
    auto_less = [page for page in outside if page.difference < 0]
    unscored = sum(page.auto_score is None for page in pages)
    differing = sorted((page for page in within if page.difference),
                       key=lambda page: -abs(page.difference))[:shown]
    text = [f"Docs-fidelity (scripts/bench_docs.py's score: inline code, fenced, language, cells, headings, "
            f"navigation; each page's Markdown against the page's served HTML, {_navigation_of(site)} set "
            f"apart) of the {len(pages)} pages both crawls completed: {len(within)} within {TOLERANCE}, mean "
            f"absolute difference {statistics.mean(abs(page.difference) for page in pages):.4f}"
            + (f" ({unscored} with none of the parts, scored alike)" if unscored else "")
            + (f"; {len(unserved)} without a served file, not scored" if unserved else "") + "."]
    if outside:
        text.append(f"Outside {TOLERANCE}: {len(auto_more)} where `auto`'s Markdown keeps more of the served "
                    f"HTML than the browser's, {len(auto_less)} where it keeps less. "
                    + " ".join(f"{_named(page)}." for page in outside))
    if differing:
        text.append(f"Largest differences within {TOLERANCE}: "
                    + " ".join(f"{_named(page)}." for page in differing))
    return " ".join(text)
