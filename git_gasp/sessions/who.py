"""Which sessions and runs last changed the lines of a file: ``git gasp who
PATH[:LINE]`` runs ``git blame`` and answers for the commits that last changed
the file's lines what :mod:`git_gasp.sessions.query` answers for a range, with
the run from their ``Run-Id`` trailer; for a line of ``state/events.jsonl`` it
also names the event.

It reads the history with one ``git blame`` and one ``git log --no-walk``, and
the notes with one read of the notes ref; it starts no process per commit.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from git_gasp.errors import USAGE, GaspError
from git_gasp.sessions.query import (
    CommitSessions,
    all_notes,
    commit_sessions,
    commit_value,
    sessions_text,
)

WHO_FORMAT = "git-gasp.who/1"
EVENTS_PATH = "state/events.jsonl"
_BLAME_HEADER = re.compile(r"([0-9a-f]{40}|[0-9a-f]{64}) (\d+) (\d+)(?: (\d+))?")


class BlamedLine(NamedTuple):
    commit: str
    line: int  # in the file at the blamed revision, 1-based
    text: str
    filename: str  # the file's path from the top of the repository, in that commit


class Event(NamedTuple):
    id: str | None
    kind: str | None
    run: str | None  # its correlation_id


class Who(NamedTuple):
    path: str
    line: int | None
    commits: tuple[CommitSessions, ...]  # in order of first line
    lines: Mapping[str, tuple[tuple[int, int], ...]]  # commit -> its line ranges
    event: Event | None  # for one line of state/events.jsonl
    #: commits where a shallow clone's history is cut: blame gives them the
    #: lines older commits made, so their runs and sessions say nothing of those
    cut: frozenset[str] = frozenset()


def parse_target(target: str) -> tuple[str, int | None]:
    """``PATH`` or ``PATH:LINE`` (a line is a positive decimal number)."""
    path, sep, line = target.rpartition(":")
    if sep and path and line.isdecimal():
        number = int(line)
        if number < 1:
            raise GaspError(
                f"{target}: lines are numbered from 1", f"the first line is {path}:1", USAGE
            )
        return path, number
    return target, None


def parse_blame(out: bytes) -> list[BlamedLine]:
    """The lines of ``git blame --porcelain`` output with their commits."""
    lines: list[BlamedLine] = []
    commit, final = "", 0
    names: dict[str, str] = {}
    for raw in out.split(b"\n"):
        if raw.startswith(b"\t"):
            text = raw[1:].decode("utf-8", "replace")
            lines.append(BlamedLine(commit, final, text, names.get(commit, "")))
        elif raw.startswith(b"filename "):
            names[commit] = raw[len(b"filename ") :].decode("utf-8", "replace")
        elif match := _BLAME_HEADER.fullmatch(raw.decode("ascii", "replace")):
            commit, final = match.group(1), int(match.group(3))
    return lines


def line_ranges(numbers: Iterable[int]) -> tuple[tuple[int, int], ...]:
    ranges: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if ranges and ranges[-1][1] + 1 == n:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
    return tuple(ranges)


def event_of(text: str) -> Event:
    """The id, kind and run of one log line (whatever of them it has)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return Event(None, None, None)
    if not isinstance(value, dict):
        return Event(None, None, None)

    def text_of(key: str) -> str | None:
        item = value.get(key)
        return item if isinstance(item, str) else None

    return Event(text_of("id"), text_of("kind"), text_of("correlation_id"))


def _blame(root: str, path: str, line: int | None) -> bytes:
    from git_gasp import git

    try:
        return git.blame_porcelain(root, path, line)
    except git.GitError as exc:
        message = exc.message.removeprefix("fatal: ")
        if "bad revision 'HEAD'" in message:
            raise GaspError("HEAD names no commit yet", "commit the file first", USAGE) from None
        if "no such path" in message:
            inside = git.attempt(root, ["ls-tree", "--name-only", "HEAD", "--", f"{path}/"])
            files = inside.out.decode("utf-8", "surrogateescape").splitlines()
            if inside.code == 0 and files:  # git blames files; a directory is "no such path"
                raise GaspError(
                    f"{path} is a directory at HEAD, not a file",
                    f"name a file in it: git gasp who {shlex.quote(files[0])}",
                    USAGE,
                ) from None
            head, sep, tail = path.rpartition(":")
            hint = (
                f"a line number is a positive number: {head}:12"
                if sep and head and not tail.isdecimal()
                else "name a file committed at HEAD"
            )
            raise GaspError(f"{path} is not in HEAD", hint, USAGE) from None
        has_only = re.search(r"has only (\d+) lines?", message)
        if has_only:
            raise GaspError(
                f"{path}:{line}: out of range, the file has {has_only.group(1)} "
                f"line{'s' * (has_only.group(1) != '1')} at HEAD",
                f"the last line is {path}:{has_only.group(1)}",
                USAGE,
            ) from None
        if "not a git repository" in message:
            raise  # git's own error, with the shell's hint for it
        hint = "name a file committed at HEAD (and a line in it)"
        raise GaspError(exc.reason(), hint, USAGE) from None


def who(root: str, target: str) -> Who:
    """Which commits, runs and sessions produced ``PATH`` or ``PATH:LINE`` at HEAD."""
    from git_gasp import git

    path, line = parse_target(target)
    blamed = parse_blame(_blame(root, path, line))
    if line is not None and not blamed:
        raise GaspError(f"{path}:{line}: out of range", None, USAGE)
    order = list(dict.fromkeys(b.commit for b in blamed))
    messages = git.messages_of(root, order)
    notes = all_notes(root) if order else {}
    commits = tuple(commit_sessions(c, messages.get(c, ""), notes.get(c)) for c in order)
    by_commit: dict[str, list[int]] = {}
    for b in blamed:
        by_commit.setdefault(b.commit, []).append(b.line)
    event = None
    if line is not None and _is_events_log(blamed[0].filename):
        event = event_of(blamed[0].text)
    ranges = {c: line_ranges(n) for c, n in by_commit.items()}
    cut = frozenset(order) & _shallow_commits(root) if order else frozenset()
    return Who(path, line, commits, ranges, event, cut)


def _shallow_commits(root: str) -> frozenset[str]:
    """The commits where this clone's history is cut (its ``shallow`` file);
    empty in a full clone."""
    from git_gasp import git

    try:
        where = git.run(root, ["rev-parse", "--git-path", "shallow"]).decode().strip()
        with open(os.path.join(root, where), encoding="ascii", errors="replace") as fh:
            return frozenset(fh.read().split())
    except (git.GitError, OSError, UnicodeDecodeError):
        return frozenset()


def _is_events_log(path: str) -> bool:
    """``state/events.jsonl`` at the top of the repository or of an agent in a
    subdirectory (blame names files from the top)."""
    return path == EVENTS_PATH or path.endswith(f"/{EVENTS_PATH}")


def _ranges_text(ranges: Iterable[tuple[int, int]]) -> str:
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)


def who_value(found: Who) -> dict[str, Any]:
    commits = []
    for c in found.commits:
        value = commit_value(c)
        value["lines"] = [list(r) for r in found.lines.get(c.commit, ())]
        value["shallow_boundary"] = c.commit in found.cut
        commits.append(value)
    return {
        "format": WHO_FORMAT,
        "path": found.path,
        "line": found.line,
        "commits": commits,
        "event": found.event._asdict() if found.event is not None else None,
    }


_CUT = (
    "history cut here (a shallow clone): older commits may have made these lines; "
    "git fetch --unshallow"
)


def _lines_text(ranges: tuple[tuple[int, int], ...]) -> str:
    """``line 7`` for one line, ``lines 3-5,9`` for more."""
    one = len(ranges) == 1 and ranges[0][0] == ranges[0][1]
    return f"{'line' if one else 'lines'} {_ranges_text(ranges)}"


def who_text(found: Who) -> str:
    """One line per commit: id, lines, run, sessions, subject; then the event."""
    out = []
    for c in found.commits:
        where = (
            f"{found.path}:{found.line}"
            if found.line
            else _lines_text(found.lines.get(c.commit, ()))
        )
        if c.commit in found.cut:
            out.append(f"{c.commit[:12]}  {where}  {_CUT}")
            continue
        run = ",".join(c.runs) or "-"
        out.append(f"{c.commit[:12]}  {where}  run {run}  {sessions_text(c)}  {c.subject}")
    if found.event is not None:
        e = found.event
        out.append(f"event {e.id or '-'}  {e.kind or '-'}  run {e.run or '-'}")
    return "\n".join(out)
