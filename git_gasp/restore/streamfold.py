"""Restore's careful fold, streaming the log line by line (bounded memory).

What :func:`git_gasp.restore.seededfold.fold_log` does when no snapshot
seeds the quick path (or ``--at``, ``--verify-snapshot``): the log is read
once, line by line, never whole. Each snapshot's integrity record is checked
as the stream passes the line it covers (a running sha256 of the physical
lines, the events counted, the last event's id); at that point a snapshot
that verifies replaces the fold so far with its graph, exactly as seeding
from the newest usable snapshot does (the newest wins, being passed last).
With ``verify_snapshot`` the graph must also equal the fold at that point.
Memory: the fold's graph, one line, and the snapshots' records; the ids of
the events only with ``--at`` (for "did you mean" on an unknown one).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from typing import IO, NamedTuple

from git_gasp.core.event import Event
from git_gasp.core.fold import Folder
from git_gasp.core.graph import Graph, GraphError, graphs_equal, parse_graph
from git_gasp.core.jsonvalue import JsonError, loads
from git_gasp.core.log import LogReader, describe_error, gc_paused
from git_gasp.core.restorereport import FoldInfo
from git_gasp.core.resume import ResumedRun, resumed_run
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store import seeding
from git_gasp.store.worktree import MAX_SNAPSHOT_BYTES, inside


class Record(NamedTuple):
    """A snapshot's integrity record: what the stream checks it against."""

    name: str
    lines: int  # the physical lines it covers
    sha256: str
    event_id: str | None
    digest: str  # of the snapshot file
    graph_value: object


def records(root: str) -> tuple[list[Record], dict[str, str]]:
    """The snapshots with an integrity record to check, and the notes of
    those passed over already (by name)."""
    base = os.path.join(root, "snapshots")
    found: list[Record] = []
    notes: dict[str, str] = {}
    if not os.path.isdir(base) or not inside(root, base):
        return found, notes
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name, "graph.json")
        if not os.path.isfile(path) or not inside(root, path):
            continue
        if os.path.getsize(path) > MAX_SNAPSHOT_BYTES:
            notes[name] = f"snapshot {name}: over the size cap (not used)"
            continue
        with open(path, "rb") as fh:
            raw = fh.read()
        try:
            value = loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, JsonError):
            notes[name] = f"snapshot {name}: not JSON (not used)"
            continue
        record = value.get("integrity") if isinstance(value, dict) else None
        count = record.get("line_count") if isinstance(record, dict) else None
        sha = record.get("sha256") if isinstance(record, dict) else None
        event_id = record.get("event_id") if isinstance(record, dict) else None
        if type(count) is not int or not isinstance(sha, str) or count <= 0:
            notes[name] = f"snapshot {name}: integrity record missing or out of range (not used)"
            continue
        assert isinstance(value, dict)
        digest = hashlib.sha256(raw).hexdigest()
        ident = event_id if isinstance(event_id, str) else None
        found.append(Record(name, count, sha, ident, digest, value.get("graph")))
    return found, notes


class _Lines:
    """The file's physical lines, hashed as they pass: the sha256 of the
    first ``n`` lines is kept for each ``n`` a record covers."""

    def __init__(self, fh: IO[bytes], points: set[int]) -> None:
        self._fh = fh
        self._points = points
        self._hash = hashlib.sha256() if points else None
        self.count = 0
        self.last = b""  # the last line read (ends with "\n" unless the log does not)
        self.digests: dict[int, str] = {}

    def __iter__(self) -> Iterator[bytes]:
        """Each line without its ``\n`` (and an empty one after a final
        ``\n``), as ``split(b"\n")`` gives them."""
        for line in self._fh:
            self.count += 1
            self.last = line
            if self._hash is not None:
                self._hash.update(line)
                if self.count in self._points:
                    self.digests[self.count] = self._hash.hexdigest()
            yield line[:-1] if line.endswith(b"\n") else line
        if self.last.endswith(b"\n") or not self.count:
            yield b""


class _Seed(NamedTuple):
    record: Record
    events: int
    how: str

    @property
    def key(self) -> tuple[int, str]:
        """Newer snapshots sort after (as seeding orders them)."""
        return self.events, self.record.name


class _Stream:
    """The fold as the stream goes, with the snapshots' verdicts."""

    def __init__(self, root: str, found: list[Record], at: str | None, verify: bool) -> None:
        self.common = seeding.common_dir(root)
        self.cached = seeding.verified_digests(self.common)
        self.pending = sorted(found, key=lambda r: (r.lines, r.name))
        self.at, self.verify = at, verify
        self.folder = Folder()
        self.events = 0  # events read
        self.limit: int | None = None  # events folded, once ``at`` is reached
        self.last_id: str | None = None
        self.resumed: ResumedRun | None = None
        self.ids: list[str] = []
        self.notes: dict[str, str] = {}  # integrity verdicts, by name
        # graph verdicts by (events, name): reported for snapshots newer than the seed
        self.graph_notes: dict[tuple[int, str], str] = {}
        self.seed: _Seed | None = None

    def passed(self, lines: _Lines, upto: int) -> None:
        """Judge the records covering fewer than ``upto`` lines (all read)."""
        while self.pending and self.pending[0].lines < upto:
            record = self.pending.pop(0)
            self._judge(record, lines.digests.get(record.lines))

    def _judge(self, record: Record, digest: str | None) -> None:
        name = record.name
        if digest != record.sha256:
            self.notes[name] = f"snapshot {name}: integrity hash mismatch (not used)"
        elif record.event_id is not None and (self.events == 0 or self.last_id != record.event_id):
            self.notes[name] = (
                f"snapshot {name}: event_id is not the last event of its prefix (not used)"
            )
        elif self.limit is None:  # at or before --at
            self._seed(record)

    def _seed(self, record: Record) -> None:
        try:
            graph = parse_graph(record.graph_value)
        except GraphError as exc:
            self.graph_notes[(self.events, record.name)] = (
                f"snapshot {record.name}: graph does not parse: {exc} (not used)"
            )
            return
        if self.cached.get(record.digest) == self.events:
            how = "cache"
        elif not self.verify:
            how = "integrity record"
        elif not graphs_equal(self.folder.graph(), graph):
            self.graph_notes[(self.events, record.name)] = (
                f"snapshot {record.name}: differs from folding its log prefix (not used)"
            )
            return
        else:
            how = "fold of prefix"
        self.folder = _seeded(graph, self.events)
        self.seed = _Seed(record, self.events, how)

    def take(self, event: Event) -> None:
        self.events += 1
        self.last_id = event.id
        if self.at is not None:
            self.ids.append(event.id)
        if self.limit is not None:
            return  # after --at: parsed (every line must), not folded
        self.folder.apply(event)
        self.resumed = resumed_run((event,), self.resumed)
        if event.id == self.at:
            self.limit = self.events


def _seeded(graph: Graph, events: int) -> Folder:
    folder = Folder.from_graph(graph)
    folder.events = events
    return folder


def fold_streaming(
    root: str, fh: IO[bytes], log_rel: str, at: str | None, verify_snapshot: bool
) -> tuple[FoldInfo, Folder]:
    """Fold the open log ``fh`` through ``at`` (see the module's docstring)."""
    found, notes = records(root)
    state = _Stream(root, found, at, verify_snapshot)
    lines = _Lines(fh, {r.lines for r in found})
    reader = LogReader()  # each line as parse_log reads it (orjson's fast path first)
    with gc_paused():
        for event in reader.events(lines):
            if reader.errors:
                continue  # the fold fails: the first error is reported below
            state.passed(lines, lines.count)
            state.take(event)
        state.passed(lines, lines.count + 1)
    parsed = reader.parsed((), lines.last)
    if parsed.errors:
        what = describe_error(log_rel, parsed.errors[0])
        raise GaspError(what, "check it with: git gasp check", FINDINGS)
    for record in state.pending:  # beyond the log's end
        notes[record.name] = (
            f"snapshot {record.name}: integrity record missing or out of range (not used)"
        )
    if at is not None and state.limit is None:
        raise GaspError(
            f"unknown event id: {at}",
            did_you_mean(at, state.ids) or f"--at takes the `id` of an event in {log_rel}",
            USAGE,
        )
    return _info(state, notes), state.folder


def _info(state: _Stream, notes: dict[str, str]) -> FoldInfo:
    """The fold's account: integrity notes by snapshot name, then the graph
    notes of the snapshots newer than the seed, newest first (as seeding
    from the newest usable one reports them)."""
    limit = state.limit if state.limit is not None else state.events
    whole = limit == state.events
    judged = {**notes, **state.notes}
    said = [judged[name] for name in sorted(judged)]
    seed = state.seed
    newest_first = sorted(state.graph_notes, key=lambda k: k, reverse=True)
    said += [state.graph_notes[k] for k in newest_first if seed is None or k > seed.key]
    state.folder.events = limit
    if seed is None:
        return FoldInfo(limit, state.at, None, 0, None, tuple(said), state.resumed, whole)
    record = seed.record
    if seed.how == "fold of prefix":
        verdict = seeding.Seed(record.name, record.digest, 0, seed.events, "", "", True)
        seeding.remember(state.common, verdict)
    return FoldInfo(
        limit, state.at, record.name, seed.events, seed.how, tuple(said), state.resumed, whole
    )
