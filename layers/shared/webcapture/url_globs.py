"""Page control's URL globs (`rejectRequestPattern`): Playwright's glob grammar, matched by
webcapture.glob_match in linear time instead of by the regular expression Playwright would build.

The grammar is Playwright's (its `globToRegexPattern`): `*` is any run of characters but `/`, `**` any run;
`**/` after a `/` is "nothing, or something ending in `/`" and elsewhere "anything ending in `/`";
`{a,b}` is one of the alternatives (not nested); `\\` makes the next character literal; every other
character, `?` included, stands for itself. The whole URL must match. A glob with more wildcards than
MAX_GLOB_WILDCARDS, or more characters than MAX_GLOB_LENGTH, is refused before any page is loaded.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from webcapture.glob_match import (
    MAX_GLOB_LENGTH,
    MAX_GLOB_WILDCARDS,
    Either,
    GlobMatcher,
    Maybe,
    One,
    Run,
    Step,
    wildcard_count,
)


class GlobRefused(ValueError):
    """The glob is not one this grammar reads, or passes a limit; the message says which."""


def url_glob_steps(glob: str) -> tuple[Step, ...]:
    """The steps of one glob, read exactly as Playwright reads it."""
    top: list[Step] = []
    branches: list[list[Step]] | None = None  # inside {...}: the alternatives so far

    def emit(step: Step) -> None:
        (branches[-1] if branches is not None else top).append(step)

    index = 0
    while index < len(glob):
        char = glob[index]
        if char == "\\" and index + 1 < len(glob):
            emit(One(glob[index + 1]))
            index += 1
        elif char == "*":
            before = glob[index - 1] if index > 0 else None
            stars = 1
            while index + 1 < len(glob) and glob[index + 1] == "*":
                stars += 1
                index += 1
            if stars == 1:
                emit(Run("not-slash"))
            elif index + 1 < len(glob) and glob[index + 1] == "/":
                if before == "/":
                    emit(Maybe((One(kind="any"), Run("any"), One("/"))))
                else:
                    emit(Run("any"))
                    emit(One("/"))
                index += 1
            else:
                emit(Run("any"))
        elif char == "{":
            if branches is not None:
                raise GlobRefused("a '{' inside '{...}' (alternatives do not nest)")
            branches = [[]]
        elif char == "}":
            if branches is None:
                raise GlobRefused("a '}' without its '{'")
            group = Either(tuple(tuple(branch) for branch in branches))
            branches = None
            top.append(group)
        elif char == "," and branches is not None:
            branches.append([])
        else:
            emit(One(char))
        index += 1
    if branches is not None:
        raise GlobRefused("a '{' without its '}'")
    return tuple(top)


def check_url_glob(glob: str) -> str:
    """The glob, when this grammar reads it within the limits; GlobRefused otherwise."""
    if len(glob) > MAX_GLOB_LENGTH:
        raise GlobRefused(f"a glob has at most {MAX_GLOB_LENGTH} characters")
    wildcards = wildcard_count(url_glob_steps(glob))
    if wildcards > MAX_GLOB_WILDCARDS:
        raise GlobRefused(f"a glob has at most {MAX_GLOB_WILDCARDS} wildcards (*, **, {{a,b}} alternatives); "
                          f"this one has {wildcards}")
    return glob


@lru_cache(maxsize=64)
def url_matcher(globs: tuple[str, ...]) -> GlobMatcher:
    """One matcher for all the globs: a URL matches when any of them does."""
    return GlobMatcher(url_glob_steps(glob) for glob in globs)


def matches_any(globs: Iterable[str], url: str) -> bool:
    return url_matcher(tuple(globs)).matches(url)
