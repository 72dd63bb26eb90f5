"""Native transcript files as records, and what a projection could not read.

A transcript is JSON Lines written while the agent runs, so its last line
may be torn (a write in flight): that line is ignored and not counted as
read, so a later import reads it whole. A line that is not JSON anywhere
else is corrupt: it is reported with its line number and the rest is
projected. Pure: text in, values out.

A file is read chunk by chunk (:func:`capped`), never held whole in a form
that grows with what it cannot use: a line over ``LINE_CAP`` bytes is
dropped as it is read (its place kept by an empty line, and reported with
its line number and size), and a run of blank lines is kept as one (the
physical lines it stands for noted), so line numbers stay the file's and
blank lines are counted in the diagnostics.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from git_gasp.core.event import Event

LINE_CAP = 32 << 20  # bytes of one line an import reads; git-gasp-import(1) documents it
CHUNK = 1 << 20  # bytes a reader takes at a time (at most LINE_CAP)
# a newline, then blank lines (ASCII whitespace, each ending in a newline); one
# character class, not a repeated group: sre takes a MiB of newlines in 1.5 ms
_BLANKS = re.compile(rb"\n[ \t\r\f\v\n]*\n")


class Source(NamedTuple):
    """One native file: a name to report it by and its text, as :func:`capped`
    read it: ``gaps`` are (line of the text, physical lines it stands for
    beyond itself) for each run of blank lines kept as one, ``long`` are (line
    of the text, its size in bytes) for each line over the cap, kept empty."""

    name: str
    text: str
    gaps: tuple[tuple[int, int], ...] = ()
    long: tuple[tuple[int, int], ...] = ()

    def tail(self, offset: int) -> Source:
        """The text from ``offset`` (a line's start) on, its gaps and long lines too."""
        if not (self.gaps or self.long):
            return Source(self.name, self.text[offset:])
        first = self.text.count("\n", 0, offset)
        gaps = tuple((i - first, n) for i, n in self.gaps if i >= first)
        long = tuple((i - first, n) for i, n in self.long if i >= first)
        return Source(self.name, self.text[offset:], gaps, long)

    def physical(self, start: int, end: int) -> int:
        """The file's lines that the text's complete lines in ``[start, end)`` stand for."""
        lines = self.text.count("\n", start, end)
        if self.gaps:
            first = self.text.count("\n", 0, start)
            lines += sum(n for i, n in self.gaps if first <= i < first + lines)
        return lines


def capped(chunks: Iterable[bytes], cap: int = LINE_CAP) -> tuple[bytes, list[Any], list[Any]]:
    """A file's bytes from ``chunks`` (each at most ``cap`` bytes) with each
    line over ``cap`` bytes (its newline aside) made empty and each run of
    blank lines made one, never holding more than ``cap`` bytes of a line;
    and the ``gaps`` and ``long`` lines of :class:`Source`."""
    out: list[bytes] = []
    gaps: list[tuple[int, int]] = []
    long: list[tuple[int, int]] = []
    lines = 0  # the complete lines in ``out``
    pending: list[bytes] = []  # the line being read, in pieces, while within the cap
    held = 0  # their size; once over the cap, the size so far of the line dropped
    for chunk in chunks:
        start = 0
        if held:
            nl = chunk.find(b"\n")
            if nl < 0:
                held += len(chunk)
                if held > cap:
                    pending = []  # dropped: only its size is kept
                else:
                    pending.append(chunk)
                continue
            if held + nl > cap:
                long.append((lines, held + nl))
                out.append(b"\n")
            else:
                out.append(b"".join([*pending, chunk[: nl + 1]]))
            lines, start, held, pending = lines + 1, nl + 1, 0, []
        end = chunk.rfind(b"\n") + 1
        if end > start:
            lines = _blanks_as_one(chunk[start:end], out, gaps, lines)
            start = end
        if start < len(chunk):
            held, pending = len(chunk) - start, [chunk[start:]]
            pending = [] if held > cap else pending
    if held > cap:
        long.append((lines, held))
        out.append(b"\n")
    elif held:
        out.append(b"".join(pending))
    return b"".join(out), gaps, long


def _blanks_as_one(body: bytes, out: list[bytes], gaps: list[Any], lines: int) -> int:
    """Append ``body`` (whole lines) to ``out``, each run of blank lines as one
    (noted in ``gaps``); the complete lines in ``out`` then."""
    at = 0
    for m in _BLANKS.finditer(b"\n" + body):  # a newline before: a run may open the body
        start, end = m.start(), m.end() - 1  # in ``body``: the run's first blank line, its end
        blank = body.count(b"\n", start, end)
        if blank < 2:
            continue
        head = body[at:start]
        out.append(head)
        lines += head.count(b"\n")
        gaps.append((lines, blank - 1))
        out.append(b"\n")
        lines, at = lines + 1, end
    out.append(body[at:])
    return lines + body.count(b"\n", at)


class Record(NamedTuple):
    line: int  # 1-based physical line number in its file
    value: dict[str, Any]


@dataclass
class Diagnostics:
    """What a projection saw but did not project, counted; never a crash."""

    versions: set[str] = field(default_factory=set)
    untested: list[str] = field(default_factory=list)  # warnings about versions
    unknown_types: Counter[str] = field(default_factory=Counter)
    unknown_fields: Counter[str] = field(default_factory=Counter)
    ignored: Counter[str] = field(default_factory=Counter)
    injected: Counter[str] = field(default_factory=Counter)
    corrupt: list[str] = field(default_factory=list)  # "<file>:<line>: <why>"
    long: list[str] = field(default_factory=list)  # "<file>:<line>: <size> over the cap"
    blank: int = 0  # blank lines (no record, not an error)
    torn: list[str] = field(default_factory=list)
    copied: int = 0  # records a child file copied from its parent (never the child's)
    abandoned: int = 0  # records of rewound branches, not projected
    unfinished_calls: int = 0  # tool calls with no result
    recognised: int = 0  # records that became (or fed) an event

    def warnings(self) -> list[str]:
        """One line for each thing the user should know about."""
        out = list(self.untested)
        out += [f"{where} (skipped)" for where in self.corrupt + self.long]
        if self.unknown_types:
            shown = ", ".join(f"{k} ({n})" for k, n in sorted(self.unknown_types.items()))
            out.append(f"unknown record types counted, not projected: {shown}")
        if self.unfinished_calls:
            out.append(f"{self.unfinished_calls} tool call(s) have no result: kept as unfinished")
        return out

    def seen(self, file: str = "") -> str:
        """What was read but not projected, in a few words (for a file
        nothing was recognised in): the kinds of line, with the first of
        each (``file``'s own lines by their number alone)."""
        parts = []

        def first(found: list[str]) -> str:
            where = found[0]
            return f"line {where.removeprefix(f'{file}:')}" if file else where

        if self.corrupt:
            parts.append(f"{_lines(len(self.corrupt), 'corrupt line')} ({first(self.corrupt)})")
        if self.long:
            parts.append(f"{_lines(len(self.long), 'line')} over the cap ({first(self.long)})")
        if self.unknown_types:
            kinds = sorted(self.unknown_types)
            shown = ", ".join(kinds[:3]) + (f" and {len(kinds) - 3} more" if len(kinds) > 3 else "")
            total = sum(self.unknown_types.values())
            parts.append(f"{_lines(total, 'record')} of types it does not know ({shown})")
        if self.blank:
            parts.append(_lines(self.blank, "blank line"))
        return "; ".join(parts) or "nothing"

    def to_value(self) -> dict[str, Any]:
        return {
            "versions": sorted(self.versions),
            "untested": list(self.untested),
            "recognised": self.recognised,
            "unknown_types": dict(sorted(self.unknown_types.items())),
            "unknown_fields": dict(sorted(self.unknown_fields.items())),
            "ignored": dict(sorted(self.ignored.items())),
            "injected": dict(sorted(self.injected.items())),
            "corrupt_lines": list(self.corrupt),
            "long_lines": list(self.long),
            "blank_lines": self.blank,
            "torn_last_line": list(self.torn),
            "copied_records": self.copied,
            "abandoned_records": self.abandoned,
            "unfinished_tool_calls": self.unfinished_calls,
        }


def _lines(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def file_cursor(source: Source) -> dict[str, Any]:
    """How far ``source`` can be read: its complete lines and their digest."""
    text = source.text
    end = text.rfind("\n") + 1
    complete = text[:end]
    if end < len(text) and _parses(text[end:]):
        complete = text  # a last line without its newline that is whole
    digest = hashlib.sha256(complete.encode("utf-8", "surrogatepass")).hexdigest()
    lines = complete.count("\n") + sum(n for _, n in source.gaps)
    return {"file": source.name, "lines": lines, "sha256": digest}


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


#: a ``\\uD800``-``\\uDFFF`` escape: JSON allows one alone, a Python string holds it, UTF-8 cannot
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _scrubbed(value: Any) -> Any:
    """``value`` with every lone surrogate (in keys and strings) made U+FFFD,
    so what is projected from it can be encoded; walked without recursion."""

    def fix(text: Any) -> Any:
        return _SURROGATE.sub("\ufffd", text) if isinstance(text, str) else text

    top: list[Any] = [fix(value)]
    stack: list[tuple[Any, Any]] = [(top, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, dict):
            holder[key] = item = {fix(k): fix(v) for k, v in item.items()}
            stack += [(item, k) for k in item]
        elif isinstance(item, list):
            item[:] = [fix(v) for v in item]
            stack += [(item, i) for i in range(len(item))]
    return top[0]


def records(source: Source, diag: Diagnostics, first_line: int = 1) -> list[Record]:
    """The JSON objects of ``source`` in file order; bad lines go to ``diag``.
    ``first_line`` numbers its first line (a tail read from a resume point).
    A lone surrogate escape (valid JSON, not text) is read as U+FFFD."""
    out: list[Record] = []
    lines = source.text.split("\n")
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    torn_possible = not source.text.endswith("\n")
    gaps, long = dict(source.gaps), dict(source.long)
    shift = first_line  # the physical number of the text's line 0, plus the gaps passed
    for index, raw in enumerate(lines):
        if not raw.strip():
            if index in long:
                where = f"{source.name}:{index + shift}"
                diag.long.append(f"{where}: {long[index]} bytes, over the {LINE_CAP}-byte cap")
            elif index < len(lines) - 1 or raw:  # not the nothing after the last newline
                diag.blank += 1 + gaps.get(index, 0)
            shift += gaps.get(index, 0)
            continue
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            if index == last and torn_possible:
                diag.torn.append(f"{source.name}:{index + shift}")
                continue
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deep"
            diag.corrupt.append(f"{source.name}:{index + shift}: not JSON ({why})")
            continue
        if "\\u" in raw and _SURROGATE_ESCAPE.search(raw):
            value = _scrubbed(value)
        if not isinstance(value, dict):
            diag.corrupt.append(f"{source.name}:{index + shift}: not a JSON object")
            continue
        out.append(Record(index + shift, value))
    return out


def note_fields(value: dict[str, Any], known: frozenset[str], diag: Diagnostics) -> None:
    for key in value:
        if key not in known:
            diag.unknown_fields[key] += 1


def version_tuple(text: str) -> tuple[int, ...] | None:
    parts = text.split(".")
    try:
        return tuple(int(p.split("-")[0]) for p in parts[:3])
    except ValueError:
        return None


def check_versions(
    agent: str, diag: Diagnostics, low: tuple[int, ...], high: tuple[int, ...]
) -> None:
    """Warn (never fail) for versions outside the range the projector was tested on."""
    tested = f"{'.'.join(map(str, low))} to {'.'.join(map(str, high))}"
    for text in sorted(diag.versions):
        parsed = version_tuple(text)
        if parsed is None or not low <= parsed <= high:
            diag.untested.append(
                f"{agent} {text} is outside the versions this projector was tested on "
                f"({tested}): what it recognises is projected, the rest is counted"
            )


class Projection(NamedTuple):
    agent: str
    session: str
    run_id: str
    events: list[Event]  # only what the log does not hold yet, run.started first
    cursor: list[dict[str, Any]]
    diagnostics: Diagnostics
    outcome: str
    task: str
    state: dict[str, Any] | None = None  # where the next projection may resume


class Empty(NamedTuple):
    """An import's session with nothing to project and nothing unknown: its
    files are empty, or hold session metadata only (the stubs Claude Code
    leaves for a session that never had a conversation). No run is written."""

    files: str
    unchanged: bool = False
    warnings: tuple[str, ...] = ()
