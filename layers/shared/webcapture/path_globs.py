"""The path patterns of a crawl (`includePaths`, `excludePaths`): globs, never regular expressions.

`*` is any run of characters but `/`, `**` any run including `/`, `?` one character but `/`; every
other character stands for itself. So a regular expression given here is read as a glob whose dots,
brackets, carets and dollars are literal: `^/blog/.*$` matches only a path spelled exactly that way
(the docs say so). A pattern matches the whole path (no query); one without a leading `/` or `*` gets a
`/` in front. Matching is webcapture.glob_match's: linear in the path, whatever the pattern.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from pydantic_core import PydanticCustomError

from webcapture.glob_match import MAX_GLOB_WILDCARDS, GlobMatcher, One, Run, Step, wildcard_count


def path_glob_steps(pattern: str) -> tuple[Step, ...]:
    if not pattern.startswith(("/", "*")):
        pattern = "/" + pattern
    steps: list[Step] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**", index):
            steps.append(Run("any"))
            index += 2
            continue
        steps.append(Run("not-slash") if char == "*" else One(kind="not-slash") if char == "?" else One(char))
        index += 1
    return tuple(steps)


def check_path_glob(pattern: str) -> str:
    """A request model's check: more wildcards than MAX_GLOB_WILDCARDS are refused (422)."""
    wildcards = wildcard_count(path_glob_steps(pattern))
    if wildcards > MAX_GLOB_WILDCARDS:
        message = f"A path glob has at most {MAX_GLOB_WILDCARDS} wildcards (*, **, ?); this has {wildcards}"
        raise PydanticCustomError("custom", message)
    return pattern


@lru_cache(maxsize=256)
def path_matcher(patterns: tuple[str, ...]) -> GlobMatcher:
    return GlobMatcher(path_glob_steps(pattern) for pattern in patterns)


def matches(pattern: str, path: str) -> bool:
    return path_matcher((pattern,)).matches(path)


@dataclass(frozen=True)
class PathGlobs:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    _matchers: tuple[GlobMatcher, GlobMatcher] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_matchers", (path_matcher(self.include), path_matcher(self.exclude)))

    @classmethod
    def of(cls, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> PathGlobs:
        return cls(tuple(include), tuple(exclude))

    def allows(self, path: str) -> bool:
        """In when no include pattern is given or one matches, and no exclude pattern matches."""
        include, exclude = self._matchers
        if self.include and not include.matches(path):
            return False
        return not (self.exclude and exclude.matches(path))
