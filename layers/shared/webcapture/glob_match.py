"""Globs matched in time linear in the text, whatever the pattern: no regular expression, no backtracking.

A regular expression made from a glob backtracks: `**/*a*a*a*a*a*a*a*a*b` against a URL of forty `a`s
takes seconds per pair of wildcards, and a regular expression search holds the GIL, so nothing else in the
process (the watchdog included) runs meanwhile. Here a glob is parsed into a few kinds of steps (a literal
character, one character of a class, a run of a class, alternatives, an optional part), the steps are
compiled to a nondeterministic automaton, and the text is read once, character by character, carrying the
set of states reached. The sets met are remembered per character (a lazy DFA, as RE2 does), so a text
that repeats itself costs a dictionary look-up per character. Each character costs at most the
automaton's size, which the limits below bound: the time is linear in the text.

The two grammars that use it (a crawl's path globs, page control's URL globs) parse their own syntax into
these steps: `webcapture.path_globs` and `webcapture.url_globs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

# A glob of more wildcards than this is refused (422), whatever its length: the automaton's state sets,
# and with them the time per character, grow with the wildcards.
MAX_GLOB_WILDCARDS: Final = 16
MAX_GLOB_LENGTH: Final = 500

# One character: a literal, any character, or any character but "/".
CharClass = Literal["any", "not-slash"]


@dataclass(frozen=True)
class One:
    """One character: `char` itself, or any of `kind`."""

    char: str | None = None
    kind: CharClass | None = None

    def accepts(self, char: str) -> bool:
        if self.char is not None:
            return char == self.char
        return self.kind == "any" or char != "/"


@dataclass(frozen=True)
class Run:
    """Any number of characters of `kind` (none included)."""

    kind: CharClass


@dataclass(frozen=True)
class Either:
    """One of the alternatives."""

    alternatives: tuple[tuple[Step, ...], ...]


@dataclass(frozen=True)
class Maybe:
    """The steps, or nothing."""

    steps: tuple[Step, ...]


Step = One | Run | Either | Maybe


def wildcard_count(steps: Iterable[Step]) -> int:
    """The steps that match more than one thing: runs, classes, alternatives and optional parts."""
    count = 0
    for step in steps:
        if isinstance(step, Run) or (isinstance(step, One) and step.char is None):
            count += 1
        elif isinstance(step, Either):
            count += len(step.alternatives) - 1 + sum(wildcard_count(branch) for branch in step.alternatives)
        elif isinstance(step, Maybe):
            count += 1 + wildcard_count(step.steps)
    return count


class _Automaton:
    """Thompson's construction, built back to front: a node either reads one character (`reads`, then
    goes to `after`) or moves on without reading (`also`: epsilon edges). Node 0 is the match."""

    def __init__(self) -> None:
        self.reads: list[One | None] = [None]
        self.after: list[int] = [-1]
        self.also: list[tuple[int, ...]] = [()]

    def _node(self, reads: One | None, after: int = -1, also: tuple[int, ...] = ()) -> int:
        self.reads.append(reads)
        self.after.append(after)
        self.also.append(also)
        return len(self.reads) - 1

    def steps(self, steps: Sequence[Step], then: int) -> int:
        for step in reversed(steps):
            then = self._step(step, then)
        return then

    def _step(self, step: Step, then: int) -> int:
        if isinstance(step, One):
            return self._node(step, then)
        if isinstance(step, Run):
            loop = self._node(None)
            read = self._node(One(kind=step.kind), loop)
            self.also[loop] = (read, then)
            return loop
        if isinstance(step, Either):
            return self._node(None, also=tuple(self.steps(branch, then) for branch in step.alternatives))
        return self._node(None, also=(self.steps(step.steps, then), then))

    def closure(self, starts: Iterable[int]) -> frozenset[int]:
        """The reading nodes (and the match) reachable from `starts` without reading."""
        seen: set[int] = set()
        found: set[int] = set()
        pending = list(starts)
        while pending:
            node = pending.pop()
            if node in seen:
                continue
            seen.add(node)
            if node == 0 or self.reads[node] is not None:
                found.add(node)
            pending.extend(self.also[node])
        return frozenset(found)


# Past this many remembered transitions the memory is dropped and rebuilt as the text is read: the time
# per character stays bounded by the automaton's size either way.
_MAX_REMEMBERED: Final = 4096


class GlobMatcher:
    """Whether a text matches any of the globs (each parsed to steps), read once, left to right. A set of
    states is an int, one bit per reading node (bit 0: the match)."""

    def __init__(self, globs: Iterable[Sequence[Step]]) -> None:
        automaton = _Automaton()
        starts = [automaton.steps(steps, 0) for steps in globs]
        self._start = _bits(automaton.closure(starts))
        # What each reading node leads to, and which nodes read what.
        self._after = [_bits(automaton.closure((after,))) if step is not None else 0
                       for step, after in zip(automaton.reads, automaton.after, strict=True)]
        self._literals: dict[str, int] = {}
        self._any = self._not_slash = 0
        for node, step in enumerate(automaton.reads):
            if step is None:
                continue
            if step.char is not None:
                self._literals[step.char] = self._literals.get(step.char, 0) | 1 << node
            elif step.kind == "any":
                self._any |= 1 << node
            else:
                self._not_slash |= 1 << node
        self._moves: dict[tuple[int, str], int] = {}

    def _move(self, states: int, char: str) -> int:
        reading = states & (self._literals.get(char, 0) | self._any | (self._not_slash if char != "/" else 0))
        reached = 0
        after = self._after
        while reading:
            lowest = reading & -reading
            reached |= after[lowest.bit_length() - 1]
            reading ^= lowest
        return reached

    def matches(self, text: str) -> bool:
        states = self._start
        moves = self._moves
        for char in text:
            if not states:
                return False
            key = (states, char)
            following = moves.get(key)
            if following is None:
                if len(moves) >= _MAX_REMEMBERED:
                    moves.clear()
                following = moves[key] = self._move(states, char)
            states = following
        return bool(states & 1)


def _bits(nodes: Iterable[int]) -> int:
    mask = 0
    for node in nodes:
        mask |= 1 << node
    return mask
