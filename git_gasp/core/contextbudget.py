"""The ``--context`` document within a budget of characters.

The document is a list of sections, each a heading and items (a file, a
goal, a run line). They are given room in priority order, not in the order
they are printed: identity first, then the skills, the active memory, the
open goals and runs, then the latest runs, and the open tasks last. A
section takes its items in order while they fit; the first that does not
ends it (a text too long for what is left is cut at a line, with a mark),
and one line at the end of the document says what was cut.

Embedded files keep their words but not their heading levels: every
Markdown heading in them is pushed below the document's own (``# x`` in an
identity file becomes ``#### x`` under its ``### path``), so a file's
``## Principles`` cannot pass for one of the document's sections. Fenced
code blocks are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

#: About 6,000 tokens: a fraction of any agent's context window.
DEFAULT_BUDGET = 24_000
#: What the line saying what was cut takes at most.
CUT_RESERVE = 400
MIN_BUDGET = 2_000

_HEADING = re.compile(r"^(#{1,6})(?=\s|$)")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


class Section(NamedTuple):
    heading: str  # "## Identity" (empty: the document's head)
    items: tuple[str, ...]  # blocks, each ending without a newline
    priority: int  # lower is given room first
    what: str  # how the cut line names its items: "open tasks"
    empty: str = "none"  # printed when the section has no items
    cuttable: bool = False  # an item too long may be cut (a file's text)


def demote(text: str, levels: int) -> str:
    """Every ATX heading of ``text`` outside fenced code ``levels`` deeper
    (at most ``######``; deeper ones stay bold-free text at level 6)."""
    out = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            match = _HEADING.match(line)
            if match:
                depth = min(len(match.group(1)) + levels, 6)
                line = "#" * depth + line[match.end() :]
        out.append(line)
    return "\n".join(out)


_OPENER = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _open_fence(text: str) -> str | None:
    """The fence a cut ``text`` leaves open, if any (so it can be closed)."""
    opened: str | None = None
    for line in text.split("\n"):
        match = _OPENER.match(line)
        if match is None:
            continue
        fence = match.group(1)
        if opened is None:
            opened = fence
        elif fence[0] == opened[0] and len(fence) >= len(opened) and not line.strip()[len(fence) :]:
            opened = None
    return opened


def _cut_text(item: str, room: int) -> str:
    """``item`` cut at the last line that fits in ``room``, with a mark (a
    fence the cut leaves open is closed first)."""
    mark = "\n… (cut here: the rest is over the --budget)"
    keep = item[: max(room - len(mark) - 12, 0)]
    if "\n" in keep:
        keep = keep[: keep.rfind("\n")]
    fence = _open_fence(keep)
    if fence is not None:
        keep += "\n" + fence
    return keep + mark if keep else ""


def fit(sections: Sequence[Section], budget: int | None) -> tuple[str, list[str]]:
    """The document (sections in their order, each within what the budget
    gave it) and one note per section that lost items."""
    rendered: list[list[str]] = [[] for _ in sections]
    notes: list[str] = []
    left = (budget - CUT_RESERVE) if budget is not None else None
    if left is not None:  # the headings and empty markers are always printed
        left -= sum(len(s.heading) + len(s.empty) + 4 for s in sections)
    for index in sorted(range(len(sections)), key=lambda i: (sections[i].priority, i)):
        section = sections[index]
        for n, item in enumerate(section.items):
            size = len(item) + 1
            if left is None or size <= left:
                rendered[index].append(item)
                left = None if left is None else left - size
                continue
            partial = ""
            if section.cuttable and left is not None and left > 200:
                partial = _cut_text(item, left)
                if partial:
                    rendered[index].append(partial)
                    left -= len(partial) + 1
            total, missing = len(section.items), len(section.items) - n
            if partial:
                rest = f", and {missing - 1} more whole" if missing > 1 else ""
                notes.append(f"the end of 1 of {total} {section.what}{rest}")
            else:
                notes.append(f"{missing} of {total} {section.what}")
            break
    out: list[str] = []
    for section, items in zip(sections, rendered, strict=True):
        if section.heading:
            out += [section.heading, ""]
        out += items
        if not section.items and section.empty:
            out.append(section.empty)
        elif section.items and not items:
            out.append("(over the --budget: see the line at the end)")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n", notes


def cut_line(notes: Sequence[str], budget: int) -> str:
    return (
        f"_Cut to the --budget of {budget:,} characters: left out {'; '.join(notes)} "
        "(see `git gasp nodes`, `git gasp runs`, or raise --budget)._"
    )
