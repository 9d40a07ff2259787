"""Globs are matched by an automaton read once over the URL (webcapture.glob_match): the same answers as the
grammars' regular expressions gave, without their backtracking, and a glob past the limits is a 422."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from playwright._impl.isomorphic.url_match import glob_to_regex_pattern

from webcapture.errors import RequestValidationError
from webcapture.glob_match import MAX_GLOB_WILDCARDS, GlobMatcher
from webcapture.models.requests import LinksRequest
from webcapture.models.site_requests import CrawlRequest
from webcapture.path_globs import PathGlobs, path_glob_steps
from webcapture.url_globs import GlobRefused, check_url_glob, url_glob_steps, url_matcher
from webcapture.validation import validate_request

# Every glob of up to four characters over these, against every text of up to four characters over
# those: the grammar's corners (runs next to "/", "**/" after a "/" or not, alternatives, escapes).
_URL_GLOB_CHARS = "a/*{,}\\?"
_PATH_GLOB_CHARS = "a/*?."
_TEXT_CHARS = "a/.?"


def _all(chars: str, longest: int) -> list[str]:
    return ["".join(letters) for size in range(longest + 1) for letters in itertools.product(chars, repeat=size)]


TEXTS = _all(_TEXT_CHARS, 4)


def _playwright_regex(glob: str) -> re.Pattern[str] | None:
    try:
        return re.compile(glob_to_regex_pattern(glob))
    except Exception:  # Playwright's own refusal of the glob (unbalanced braces)
        return None


def test_url_globs_answer_as_playwright_s_regular_expressions() -> None:
    compared = 0
    for glob in _all(_URL_GLOB_CHARS, 4)[1:]:
        regex = _playwright_regex(glob)
        if regex is None:
            with pytest.raises(GlobRefused):
                url_glob_steps(glob)
            continue
        matcher = url_matcher((glob,))
        for text in TEXTS:
            assert matcher.matches(text) == bool(regex.search(text)), (glob, text)
            compared += 1
    assert compared > 500_000


def _old_path_regex(pattern: str) -> re.Pattern[str]:
    # The regular expression crawl path globs used to become (the grammar's reference).
    if not pattern.startswith(("/", "*")):
        pattern = "/" + pattern
    parts = [".*" if token == "**" else "[^/]*" if token == "*" else "[^/]" if token == "?" else re.escape(token)
             for token in re.findall(r"\*\*|.", pattern, re.DOTALL)]
    return re.compile("".join(parts), re.DOTALL)


def test_path_globs_answer_as_their_regular_expressions_did() -> None:
    for glob in _all(_PATH_GLOB_CHARS, 4)[1:]:
        regex = _old_path_regex(glob)
        matcher = GlobMatcher([path_glob_steps(glob)])
        for text in TEXTS:
            assert matcher.matches(text) == bool(regex.fullmatch(text)), (glob, text)


def test_several_globs_match_when_any_does() -> None:
    matcher = url_matcher(("**/*.css", "**/media/**"))
    assert matcher.matches("http://h/a/b.css") and matcher.matches("http://h/media/x.mp4")
    assert not matcher.matches("http://h/a/b.js")
    paths = PathGlobs.of(include=["/blog/**"], exclude=["**/draft-*"])
    assert paths.allows("/blog/2024/post") and not paths.allows("/blog/draft-1") and not paths.allows("/about")


def test_the_backtracking_glob_reads_each_character_once() -> None:
    # The probe's glob (8 pairs) against a long run of "a": a regular expression backtracks through every
    # split of the run; the automaton meets a handful of state sets and then only looks them up.
    glob = "**/" + "*a" * 7 + "*b"
    matcher = url_matcher((glob,))
    assert not matcher.matches("http://127.0.0.1:8000/" + "a" * 100_000)
    assert len(matcher._moves) < 64  # the remembered transitions bound the work


def _issues(model: Any, payload: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(RequestValidationError) as caught:
        validate_request(model, payload)
    return caught.value.issues


def test_a_glob_with_too_many_wildcards_is_a_422_naming_the_limit() -> None:
    probe = "**/" + "*a" * MAX_GLOB_WILDCARDS + "*b"  # "**/" is one wildcard, each "*" another
    [issue] = _issues(LinksRequest, {"url": "https://example.com/", "rejectRequestPattern": ["**/*.css", probe]})
    assert issue["path"] == ["rejectRequestPattern", 1] and f"at most {MAX_GLOB_WILDCARDS} wildcards" in issue["message"]
    [issue] = _issues(CrawlRequest, {"url": "https://example.com/", "excludePaths": ["*a" * MAX_GLOB_WILDCARDS + "*"]})
    assert issue["path"] == ["excludePaths", 0] and f"at most {MAX_GLOB_WILDCARDS} wildcards" in issue["message"]
    # Within the limit, accepted.
    check_url_glob("**/" + "*a" * (MAX_GLOB_WILDCARDS - 2) + "*b")
    validate_request(CrawlRequest, {"url": "https://example.com/", "includePaths": ["*a" * MAX_GLOB_WILDCARDS]})


def test_a_glob_playwright_cannot_read_is_a_422() -> None:
    [issue] = _issues(LinksRequest, {"url": "https://example.com/", "rejectRequestPattern": ["**/{a,{b}}"]})
    assert issue["path"] == ["rejectRequestPattern", 0] and "do not nest" in issue["message"]
