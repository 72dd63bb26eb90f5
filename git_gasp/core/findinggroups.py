"""Findings grouped for people: one group per rule and hint, in the order
they were found, with a count, the first location and the range of lines
in that file. A few findings of a kind are shown one by one; more are
summed up in one line (``233× [facts] 2dd29d0 memory/facts.jsonl:1–233 ...``).
"""

from collections.abc import Sequence
from typing import NamedTuple

from git_gasp.core.finding import Judged

SHOWN_ONE_BY_ONE = 3  # a group of at most this many prints each finding


class Group(NamedTuple):
    rule: str
    hint: str
    items: tuple[Judged, ...]

    @property
    def first(self) -> Judged:
        return self.items[0]

    def where(self) -> str:
        """The first finding's file, with the span of lines the group's
        findings hold in that file (``path:1–233``)."""
        first = self.first.finding
        lines = [
            j.finding.line
            for j in self.items
            if j.finding.path == first.path and j.finding.line is not None
        ]
        if not lines:
            return first.path
        low, high = min(lines), max(lines)
        return f"{first.path}:{low}" if low == high else f"{first.path}:{low}–{high}"

    def summary(self) -> str:
        """One line: count, rule, first commit, where, message (with how many
        other messages the group holds, and the next) and hint."""
        step = f"{self.first.step[:7]} " if self.first.step else ""
        commits = len({j.step for j in self.items})
        more = f" (in {commits} commits)" if commits > 1 else ""
        said = list(dict.fromkeys(j.finding.message for j in self.items))
        others = len(said) - 1  # "10× missing field `id`" must not hide the nine other fields
        plural = "s" * (others != 1)
        also = f" (and {others} other message{plural}, e.g. {said[1]})" if others else ""
        return (
            f"{len(self.items)}× [{self.rule}] {step}{self.where()} "
            f"{said[0]}{also}{more} (hint: {self.hint})"
        )


def group(found: Sequence[Judged]) -> list[Group]:
    """``found`` by rule and hint, groups in order of their first finding."""
    keyed: dict[tuple[str, str], list[Judged]] = {}
    for judged in found:
        keyed.setdefault((judged.finding.rule, judged.finding.hint), []).append(judged)
    return [Group(rule, hint, tuple(items)) for (rule, hint), items in keyed.items()]


def per_rule(found: Sequence[Judged]) -> dict[str, int]:
    """How many findings each rule has, in order of the first."""
    counts: dict[str, int] = {}
    for judged in found:
        counts[judged.finding.rule] = counts.get(judged.finding.rule, 0) + 1
    return counts
