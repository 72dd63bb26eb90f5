"""The one merge rule for append-only files, on lines: the pre-receive hook,
pre-push, the pre-commit hook on a merge and ``git gasp check`` all judge a
merge by :func:`merge_verdict` (see git-gasp-check(1), "Merges").

Let B be what every parent that has the file shares at its start, cut back
to a line end, and T the merged version after B. The merge is accepted when:

* the merged version starts with B (nothing before or inside it changes);
* every line of every parent is in T, as often as that parent has it;
* each parent's lines are in T in that parent's order, whatever the
  interleaving with the other parents' lines, except between two lines
  another parent holds in the other order (a criss-cross merge: two earlier
  merges put the same lines in different orders; either order is kept);
* lines no parent holds (the merge's own appends) come after every parent's
  lines.

A line dropped or edited is refused. Pairing and causation stay valid in the
fold: each event keeps its place after the events of its own history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import NamedTuple, TypeVar

L = TypeVar("L", bound=Hashable)

EDITS_BASE = -1  # the merged version does not start with what the parents share
NEW_LINE_FIRST = -2  # a line no parent holds comes before a parent's lines


class Verdict(NamedTuple):
    problem: int | None  # None: accepted; a parent's index; EDITS_BASE; NEW_LINE_FIRST
    end: int  # lines of the tail that hold the parents' lines (the merge's own follow)


def _crossed(ours: Sequence[L], theirs: Sequence[L]) -> set[L]:
    """Lines (each once in both) that ``theirs`` holds in another order than ``ours``."""
    once_ours = {line for line, n in Counter(ours).items() if n == 1}
    once_theirs = {line for line, n in Counter(theirs).items() if n == 1}
    where = {line: i for i, line in enumerate(theirs) if line in once_theirs}
    shared = [line for line in ours if line in once_ours and line in where]
    positions = [where[line] for line in shared]
    out: set[L] = set()
    highest = -1
    for line, pos in zip(shared, positions, strict=True):
        if pos < highest:
            out.add(line)
        highest = max(highest, pos)
    lowest = len(theirs)
    for line, pos in zip(reversed(shared), reversed(positions), strict=True):
        if pos > lowest:
            out.add(line)
        lowest = min(lowest, pos)
    return out


def _matched_end(required: Sequence[L], tail: Sequence[L]) -> int | None:
    """Where a greedy match of ``required`` as a subsequence of ``tail`` ends."""
    pos = 0
    for line in required:
        while pos < len(tail) and tail[pos] != line:
            pos += 1
        if pos == len(tail):
            return None
        pos += 1
    return pos


def merge_verdict(parents: Sequence[Sequence[L]], tail: Sequence[L]) -> Verdict:
    """Judge the merged ``tail`` (the lines after the shared start) against
    each parent's lines after it (the module docstring's rule)."""
    end = 0
    for i, ours in enumerate(parents):
        crossed: set[L] = set()
        for j, theirs in enumerate(parents):
            if j != i:
                crossed |= _crossed(ours, theirs)
        matched = _matched_end([line for line in ours if line not in crossed], tail)
        if matched is None:
            return Verdict(i, 0)
        end = max(end, matched)
    needed: Counter[L] = Counter()
    for ours in parents:
        needed |= Counter(ours)
    missing = sum(needed.values())
    for pos, line in enumerate(tail):
        if missing == 0:
            break
        if needed[line] > 0:
            needed[line] -= 1
            missing -= 1
            end = max(end, pos + 1)
    if missing:
        gone = next(line for line, n in needed.items() if n > 0)
        return Verdict(next(i for i, p in enumerate(parents) if gone in p), 0)
    held = set().union(*(set(p) for p in parents)) if parents else set()
    if any(line not in held for line in tail[:end]):
        return Verdict(NEW_LINE_FIRST, end)
    return Verdict(None, end)


def shared_start(texts: Sequence[bytes]) -> int:
    """The length of what every version starts with, cut back to a line end."""
    if not texts:
        return 0
    lo, hi = min(texts), max(texts)
    n = 0
    while n < len(lo) and lo[n] == hi[n]:
        n += 1
    return lo.rfind(b"\n", 0, n) + 1
