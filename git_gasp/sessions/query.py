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

``git gasp who PATH[:LINE]`` (:mod:`git_gasp.sessions.who`) answers the same
question for the lines of a file.

It reads the history with one ``git log`` and the notes with one read of the
notes ref; it starts no process per commit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from git_gasp.core.notes import NoteRecord, parse_note
from git_gasp.core.trailers import Trailer, parse_trailers, sessions_of, values

SESSIONS_FORMAT = "git-gasp.sessions/1"
SESSION_KEYS = frozenset({"agent-session", "copilot-session", "claude-session", "agent-logs-url"})
SQUASH_MARKER = "Squashed commit of the following:"
_LINE_TRAILER = re.compile(r"([A-Za-z0-9-]+)[ \t]*:[ \t]*(\S.*)")

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


def all_notes(root: str) -> Mapping[str, bytes]:
    """Every session note by commit, those fetched from remotes included."""
    from git_gasp.sessions import notes as sessionnotes

    return sessionnotes.notes_by_commit(root, fetched=True)


def list_sessions(root: str, rev_range: str = "HEAD") -> list[CommitSessions]:
    """The commits of ``rev_range``, newest first, each with its sessions."""
    from git_gasp import git

    messages = git.commit_messages(root, rev_range)
    notes = all_notes(root) if messages else {}
    return [commit_sessions(c, m, notes.get(c)) for c, m in messages]
