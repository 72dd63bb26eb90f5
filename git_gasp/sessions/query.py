"""Which agent sessions and runs produced which commits and lines.

``git gasp sessions [REV-RANGE]`` lists the commits of a range with the sessions
linked to each, from three sources:

* ``trailer``: ``Agent-Session`` in the final trailer block, parsed as
  ``git log --format=%(trailers)`` parses it (``git gasp runs`` reads the same);
* ``alias``: ``Copilot-Session``, ``Claude-Session`` and ``Agent-Logs-Url`` in
  that block, normalised to ``<agent>:<id>`` (read, never written);
* ``squash-body``: for a squash commit only, session trailers found anywhere
  else in the message. A squash (``git merge --squash``'s "Squashed commit of
  the following:", or a message with an earlier paragraph made only of trailer
  lines, as GitHub's and ``rebase -i``'s squashes leave) concatenates the
  messages of the commits it replaces, so their links sit in the body. This is
  read-only discovery, marked as such: a line in a body is prose anyone could
  write, never a link that git-gasp validates or acts on;
* ``note``: the records of the commit's note in ``refs/notes/agent-sessions``.

``git gasp who PATH[:LINE]`` runs ``git blame`` and answers the same question
for the commits that last changed the file's lines, with the run from their
``Run-Id`` trailer; for a line of ``state/events.jsonl`` it also names the event.

Every command reads the history with one ``git log`` (or one ``git blame`` and
one ``git log --no-walk``) and the notes with one read of the notes ref; none
starts a process per commit.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from git_gasp.core.notes import NoteRecord, parse_note
from git_gasp.core.trailers import Trailer, parse_trailers, sessions_of, values
from git_gasp.errors import USAGE, GaspError

SESSIONS_FORMAT = "git-gasp.sessions/1"
WHO_FORMAT = "git-gasp.who/1"
EVENTS_PATH = "state/events.jsonl"
SESSION_KEYS = frozenset({"agent-session", "copilot-session", "claude-session", "agent-logs-url"})
SQUASH_MARKER = "Squashed commit of the following:"
_LINE_TRAILER = re.compile(r"([A-Za-z0-9-]+)[ \t]*:[ \t]*(\S.*)")
_BLAME_HEADER = re.compile(r"([0-9a-f]{40}|[0-9a-f]{64}) (\d+) (\d+)(?: (\d+))?")

Source = Literal["trailer", "alias", "squash-body", "note"]


class Link(NamedTuple):
    """One reason to say a commit belongs to a session."""

    session: str
    source: Source
    key: str | None = None  # the trailer key as written (trailer, alias, squash-body)
    record: NoteRecord | None = None  # the note record (note)


class CommitSessions(NamedTuple):
    commit: str
    subject: str
    runs: tuple[str, ...]  # the Run-Id trailer first, then runs named by note records
    squash: bool
    links: tuple[Link, ...]
    note_problems: tuple[str, ...]  # why lines of the commit's note were not read

    @property
    def sessions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(link.session for link in self.links))


# -- pure: one message and one note ------------------------------------------------


def subject_of(message: str) -> str:
    """The subject as ``%s`` prints it: the first paragraph, lines joined by a space."""
    lines: list[str] = []
    for line in message.split("\n"):
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.strip())
    return " ".join(lines)


def _paragraphs(message: str) -> list[list[str]]:
    paragraphs: list[list[str]] = [[]]
    for raw in message.split("\n"):
        line = raw.strip(" \t\r")
        if line.startswith("#"):
            continue
        if not line:
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        paragraphs[-1].append(line)
    return [p for p in paragraphs if p]


def _line_trailer(line: str) -> Trailer | None:
    match = _LINE_TRAILER.fullmatch(line.strip(" \t\r"))
    return Trailer(match.group(1), match.group(2).strip()) if match else None


def is_squash(message: str) -> bool:
    """A message that concatenates others: git's squash marker, or a paragraph
    before the last one made only of trailer lines, one of them a session's."""
    paragraphs = _paragraphs(message)
    if any(SQUASH_MARKER in p for p in paragraphs):
        return True
    for paragraph in paragraphs[1:-1]:
        found = [_line_trailer(line) for line in paragraph]
        if all(found) and any(t.key.lower() in SESSION_KEYS for t in found if t):
            return True
    return False


def _source(key: str) -> Source:
    return "trailer" if key.lower() == "agent-session" else "alias"


def trailer_links(trailers: Iterable[Trailer]) -> list[Link]:
    links: list[Link] = []
    for trailer in trailers:
        for ref in sessions_of([trailer]):
            links.append(Link(ref, _source(trailer.key), trailer.key))
    return links


def squash_links(message: str, known: Iterable[str]) -> list[Link]:
    """Session trailers anywhere in the message (lines as written, indented or
    not) that the final block does not already give: read-only discovery."""
    seen = set(known)
    links: list[Link] = []
    for paragraph in _paragraphs(message):
        for line in paragraph:
            trailer = _line_trailer(line)
            if trailer is None or trailer.key.lower() not in SESSION_KEYS:
                continue
            for ref in sessions_of([trailer]):
                if ref not in seen:
                    seen.add(ref)
                    links.append(Link(ref, "squash-body", trailer.key))
    return links


def note_links(note: bytes | None) -> tuple[list[Link], list[str]]:
    """The links a note's valid records give, and its problems."""
    if note is None:
        return [], []
    records, problems = parse_note(note)
    return [Link(r.session, "note", None, r) for r in records], [str(p) for p in problems]


def commit_sessions(commit: str, message: str, note: bytes | None) -> CommitSessions:
    """Everything that links ``commit`` to sessions and runs."""
    trailers = parse_trailers(message, divider=False)
    links = trailer_links(trailers)
    squash = is_squash(message)
    if squash:
        links += squash_links(message, [link.session for link in links])
    noted, problems = note_links(note)
    run_ids = values(trailers, "Run-Id")[:1] + [r.run for r in noted_records(noted) if r.run]
    return CommitSessions(
        commit,
        subject_of(message),
        tuple(dict.fromkeys(run_ids)),
        squash,
        tuple(links + noted),
        tuple(problems),
    )


def noted_records(links: Iterable[Link]) -> list[NoteRecord]:
    return [link.record for link in links if link.record is not None]


# -- pure: rendering -----------------------------------------------------------------


def _source_text(link: Link) -> str:
    if link.source == "note" and link.record is not None:
        return f"note {link.record.kind}"
    if link.source == "alias":
        return f"alias {link.key}"
    if link.source == "squash-body":
        return f"squash body {link.key}, unverified"
    return "trailer"


def sessions_text(found: CommitSessions) -> str:
    """``ref (source, source)`` for each session, or ``-``."""
    sources: dict[str, list[str]] = {}
    for link in found.links:
        text = _source_text(link)
        if text not in sources.setdefault(link.session, []):
            sources[link.session].append(text)
    return ", ".join(f"{ref} ({', '.join(s)})" for ref, s in sources.items()) or "-"


def link_value(link: Link) -> dict[str, Any]:
    value: dict[str, Any] = {"session": link.session, "source": link.source}
    if link.key is not None:
        value["key"] = link.key
    if link.record is not None:
        record = link.record._asdict()
        skip = ("session", "v")
        value.update({k: v for k, v in record.items() if k not in skip and v is not None})
    return value


def commit_value(found: CommitSessions) -> dict[str, Any]:
    return {
        "commit": found.commit,
        "subject": found.subject,
        "runs": list(found.runs),
        "squash": found.squash,
        "sessions": list(found.sessions),
        "links": [link_value(link) for link in found.links],
        "note_problems": list(found.note_problems),
    }


def sessions_value(rev_range: str, found: Sequence[CommitSessions]) -> dict[str, Any]:
    return {
        "format": SESSIONS_FORMAT,
        "range": rev_range,
        "commits": [commit_value(c) for c in found],
    }


def sessions_lines(found: Sequence[CommitSessions]) -> str:
    """One line per commit: id, subject, the sessions with their sources."""
    return "\n".join(f"{c.commit[:12]}  {c.subject}  {sessions_text(c)}" for c in found)


# -- the service: sessions over a range ----------------------------------------------


def _notes(root: str) -> Mapping[str, bytes]:
    from git_gasp.sessions import notes as sessionnotes

    return sessionnotes.notes_by_commit(root, fetched=True)


def list_sessions(root: str, rev_range: str = "HEAD") -> list[CommitSessions]:
    """The commits of ``rev_range``, newest first, each with its sessions."""
    from git_gasp import git

    messages = git.commit_messages(root, rev_range)
    notes = _notes(root) if messages else {}
    return [commit_sessions(c, m, notes.get(c)) for c, m in messages]


# -- who: blame → commits → runs and sessions ----------------------------------------


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
            raise GaspError(f"{target}: lines are numbered from 1", None, USAGE)
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
                None,
                USAGE,
            ) from None
        if "not a git repository" in message:
            raise  # git's own error, with the shell's hint for it
        hint = "name a file committed at HEAD (and a line in it)"
        raise GaspError(message, hint, USAGE) from None


def who(root: str, target: str) -> Who:
    """Which commits, runs and sessions produced ``PATH`` or ``PATH:LINE`` at HEAD."""
    from git_gasp import git

    path, line = parse_target(target)
    blamed = parse_blame(_blame(root, path, line))
    if line is not None and not blamed:
        raise GaspError(f"{path}:{line}: out of range", None, USAGE)
    order = list(dict.fromkeys(b.commit for b in blamed))
    messages = git.messages_of(root, order)
    notes = _notes(root) if order else {}
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


def who_text(found: Who) -> str:
    """One line per commit: id, lines, run, sessions, subject; then the event."""
    out = []
    for c in found.commits:
        where = (
            f"{found.path}:{found.line}"
            if found.line
            else (f"lines {_ranges_text(found.lines.get(c.commit, ()))}")
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
