"""One pass over the log for ``git gasp check``: parse, check 1's findings,
the ops, the fold and check 2's prefix comparisons, line by line.

What the other checks read of each event is kept, nothing more: the id, the
kind and the causation (check 5), a paired event's ``id`` and ``status``
(check 7), a run event's ``run_id`` (check 5's run lifecycle); of each ops
event, its CreateNode and CreateRelation ops, with only a ``status`` prop
(checks 3 and 7). The fold's graph holds the rest. The log is read from its
file line by line, so memory holds the graph and those slim records, never
the log's bytes nor every event whole.
"""

from __future__ import annotations

import codecs
import hashlib
import sys
from collections.abc import Callable, Iterator
from typing import IO, NamedTuple

from git_gasp.core.checks import PAIRED_KINDS, ParsedOps
from git_gasp.core.event import OPS_APPLIED, Actor, Event
from git_gasp.core.fold import Folder, FoldError
from git_gasp.core.graph import graphs_equal
from git_gasp.core.jsonvalue import Json
from git_gasp.core.log import LogReader, ParsedLog, gc_paused
from git_gasp.core.ops import CreateNode, CreateRelation, Op, OpsError, parse_ops
from git_gasp.core.repochecks import (
    FoldOutcome,
    Prefixes,
    SnapshotFile,
    prefix_counts,
    snapshot_graph,
)
from git_gasp.core.resume import RUN_FINISHED, RUN_STARTED

_NOBODY = Actor("", "")  # what no check reads
_RUN_KINDS = (RUN_STARTED, RUN_FINISHED)


class LogPass(NamedTuple):
    log: ParsedLog  # its events slim (see the module's docstring)
    ops: list[ParsedOps]  # each event's ops, slim
    outcome: FoldOutcome
    prefixes: Prefixes  # what check 2 reads of the log's bytes
    prefix_equal: dict[str, bool]  # check 2's verdict by snapshot name


class _NotUtf8(ValueError):
    pass


class _Lines:
    """The log's physical lines as ``split(b"\\n")`` gives them, checked as
    UTF-8, counted, hashed through each line count a snapshot covers; when
    the pass has taken a line a snapshot ends at, ``at_point`` is called."""

    def __init__(self, fh: IO[bytes], points: dict[int, list[str]], reader: LogReader) -> None:
        self._fh, self._points, self._reader = fh, points, reader
        self._hash = hashlib.sha256() if points else None
        self.count = 0
        self.last = b""
        self.at: dict[int, tuple[str, int]] = {}
        self.at_point: Callable[[list[str]], None] = lambda names: None

    def _passed(self, digest: str) -> None:
        self.at[self.count] = (digest, self._reader.count)
        self.at_point(self._points[self.count])

    def __iter__(self) -> Iterator[bytes]:
        decoder = codecs.getincrementaldecoder("utf-8")()
        digest = None
        for line in self._fh:
            if digest is not None:
                self._passed(digest)  # the pass took the line that ends the prefix
                digest = None
            try:
                decoder.decode(line)
            except UnicodeDecodeError:
                raise _NotUtf8() from None
            self.count += 1
            self.last = line
            if self._hash is not None:
                self._hash.update(line)
                if self.count in self._points:
                    digest = self._hash.hexdigest()
            yield line[:-1] if line.endswith(b"\n") else line
        try:
            decoder.decode(b"", final=True)  # a sequence cut off at the end
        except UnicodeDecodeError:
            raise _NotUtf8() from None
        if self.last.endswith(b"\n") or not self.count:
            yield b""
        if digest is not None:
            self._passed(digest)


def read_pass(fh: IO[bytes], snapshots: list[SnapshotFile] | None) -> LogPass | None:
    """Read the open log once (see the module's docstring); None when it is
    not UTF-8."""
    points = prefix_counts(snapshots)
    by_name = {s.name: s for s in snapshots or ()}
    reader = LogReader()
    lines = _Lines(fh, points, reader)
    folder = Folder()
    failed: FoldError | None = None
    events: list[Event] = []
    ops: list[ParsedOps] = []
    equal: dict[str, bool] = {}

    def compare(names: list[str]) -> None:
        for name in names:
            graph = snapshot_graph(by_name[name])
            if graph is not None:
                equal[name] = graphs_equal(folder.graph(), graph)

    lines.at_point = compare
    try:
        with gc_paused():
            for event in reader.events(lines):
                parsed = _ops_of(event)
                if failed is None:
                    folder.events += 1
                    if isinstance(parsed, OpsError):
                        failed = FoldError(
                            f"invalid event payload for {OPS_APPLIED}: {parsed}", event.id
                        )
                    elif parsed is not None:
                        folder.apply_ops(parsed, event.id)
                events.append(_slim(event))
                ops.append(_slim_ops(parsed))
    except _NotUtf8:
        return None
    log = reader.parsed(tuple(events), lines.last)
    prefixes = Prefixes(lines.count, lines.at)
    return LogPass(log, ops, failed or folder.result(), prefixes, equal)


def _ops_of(event: Event) -> ParsedOps:
    if event.kind != OPS_APPLIED:
        return None
    try:
        return parse_ops(event.payload)
    except OpsError as exc:
        return exc


_NO_PROPS: dict[str, Json] = {}  # shared by every slim op without a status (never written)


def _shared(value: Json) -> Json:
    """One string object for equal strings (ids, statuses): they repeat."""
    return sys.intern(value) if type(value) is str else value


def _slim(event: Event) -> Event:
    payload = event.payload
    kept: Json = None
    if isinstance(payload, dict):
        if event.kind in PAIRED_KINDS:
            kept = {k: _shared(payload[k]) for k in ("id", "status") if k in payload}
        elif event.kind in _RUN_KINDS and "run_id" in payload:
            kept = {"run_id": _shared(payload["run_id"])}
    cause = event.causation_id
    return Event(
        sys.intern(event.id),
        event.schema_version,
        0,
        _NOBODY,
        sys.intern(event.kind),
        kept,
        sys.intern(cause) if cause is not None else None,
        None,
    )


def _slim_ops(parsed: ParsedOps) -> ParsedOps:
    if parsed is None or isinstance(parsed, OpsError):
        return parsed
    kept: list[Op] = []
    for op in parsed:
        if isinstance(op, CreateNode):
            props = op.props
            status = _NO_PROPS
            if isinstance(props, dict) and "status" in props:
                status = {"status": _shared(props["status"])}
            kept.append(CreateNode(sys.intern(op.id), sys.intern(op.kind), status))
        elif isinstance(op, CreateRelation):  # its rel (check 3); from_ names it there
            kept.append(CreateRelation(sys.intern(op.from_), sys.intern(op.rel), "", _NO_PROPS))
    return tuple(kept)
