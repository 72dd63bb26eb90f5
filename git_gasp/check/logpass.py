"""One pass over the log for ``git gasp check``: parse, check 1's findings,
the ops, the fold, check 2's prefix comparisons and checks 3, 5 (with the run
lifecycle) and 7, line by line.

The log is read from its file line by line, and no event is kept whole nor
in a list: checks 3 and 5 judge each event as it passes; check 7 keeps, until
the end, a domain event's line, id and payload ``id``/``status``, an ops
event's id, cause and CreateNode ops (id, kind, a shared ``status`` prop),
since an ops event may claim a domain event anywhere in the log; check 2
keeps the last event id of each snapshot's prefix. Memory holds the fold's
graph and those records, never the log's bytes.

A pass over a log ending in a newline (with no snapshot for check 2 and a
fold that did not fail) also returns where it stood after the last line
(:class:`PassState`); :func:`read_pass` given that state and the lines after
those it read goes on from there, with the same verdicts as a full pass
(:mod:`git_gasp.check.logmemo` keeps it between checks).
"""

from __future__ import annotations

import codecs
import hashlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from git_gasp.core.checks import (
    PAIRED_KINDS,
    Pairing,
    ParsedOps,
    causation_findings,
    vocabulary_findings,
)
from git_gasp.core.event import OPS_APPLIED, Actor, Event
from git_gasp.core.fold import Folder, FoldError
from git_gasp.core.graph import graphs_equal
from git_gasp.core.jsonvalue import Json
from git_gasp.core.log import LogReader, ParsedLog, gc_paused
from git_gasp.core.ops import CreateNode, Op, OpsError, parse_ops
from git_gasp.core.pack import Pack, vocabulary
from git_gasp.core.repochecks import (
    FoldOutcome,
    Prefixes,
    SnapshotFile,
    prefix_counts,
    snapshot_graph,
)
from git_gasp.core.report import CheckReport
from git_gasp.core.resume import RUN_FINISHED, RUN_STARTED
from git_gasp.core.runlifecycle import Lifecycle

_NOBODY = Actor("", "")  # what no check reads
_RUN_KINDS = (RUN_STARTED, RUN_FINISHED)


class PassState(NamedTuple):
    """Where a pass stood after the last line of a log ending in a newline:
    each part's fields (plain values and git-gasp's named tuples only)."""

    lines: int  # physical lines read
    last: bytes  # the last of them
    vocabulary: tuple[frozenset[str], frozenset[str]]  # check 3's, from the packs
    reader: dict[str, Any]  # the :class:`LogReader`'s, but its parser and its choice of parser
    folder: dict[str, Any]
    judge: dict[str, Any]  # the :class:`_Judge`'s, but the vocabulary and the two below
    lifecycle: dict[str, Any]
    pairing: dict[str, Any]


class LogPass(NamedTuple):
    log: ParsedLog  # its events not kept (``events`` is empty)
    outcome: FoldOutcome
    prefixes: Prefixes  # what check 2 reads of the log's bytes
    prefix_equal: dict[str, bool]  # check 2's verdict by snapshot name
    judged: tuple[CheckReport, CheckReport, CheckReport]  # checks 3, 5 and 7
    state: PassState | None = None  # where it ended, when a later pass may go on from it


class _Judge:
    """Checks 3, 5 (with the run lifecycle, :mod:`git_gasp.core.runlifecycle`)
    and 7, fed each event in line order."""

    def __init__(self, packs: list[Pack]) -> None:
        self._kinds, self._rels = vocabulary(packs)
        self._vocabulary: list[str] = []
        self._causation: list[str] = []
        self._ids: dict[str, str] = {}  # the ids of the lines so far, each one object
        self._lifecycle = Lifecycle()
        self._pairing = Pairing()
        self.count = 0

    def add(self, event: Event, parsed: ParsedOps) -> None:
        self.count = n = self.count + 1
        self._vocabulary.extend(vocabulary_findings(n, parsed, self._kinds, self._rels))
        slim = _slim(event, self._ids)
        self._causation.extend(causation_findings(n, slim, self._ids))
        self._ids.setdefault(slim.id, slim.id)
        self._lifecycle.add(n, slim)
        self._pairing.add(n, slim, _slim_ops(parsed))

    def state(self) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Its fields, the run lifecycle's and check 7's (copies of the dicts)."""
        mine = {k: v for k, v in vars(self).items() if k not in _JUDGE_OWN}
        return mine, dict(vars(self._lifecycle)), dict(vars(self._pairing))

    def resume(self, state: PassState) -> None:
        vars(self).update(state.judge)
        vars(self._lifecycle).update(state.lifecycle)
        vars(self._pairing).update(state.pairing)

    def reports(self, problems: list[str]) -> tuple[CheckReport, CheckReport, CheckReport]:
        causation = (*self._causation, *self._lifecycle.findings)
        vocabulary = (*problems, *self._vocabulary)
        return CheckReport(3, vocabulary), CheckReport(5, causation), self._pairing.report()


_JUDGE_OWN = frozenset({"_kinds", "_rels", "_lifecycle", "_pairing"})


class _NotUtf8(ValueError):
    pass


class _Lines:
    """The log's physical lines as ``split(b"\\n")`` gives them, checked as
    UTF-8, counted, hashed through each line count a snapshot covers; when
    the pass has taken a line a snapshot ends at, ``at_point`` is called."""

    def __init__(
        self, fh: Iterable[bytes], points: dict[int, list[str]], reader: LogReader
    ) -> None:
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


# long: one loop over the lines, check 2's comparisons at the snapshots' ends inside it
def read_pass(
    fh: Iterable[bytes],
    snapshots: list[SnapshotFile] | None,
    packs: list[Pack] | None = None,
    problems: list[str] | None = None,
    start: PassState | None = None,
) -> LogPass | None:
    """Read the open log once (see the module's docstring), judging check 3
    with ``packs`` (and their ``problems``); None when it is not UTF-8. With
    ``start``, ``fh`` holds the lines after those that state was taken at
    (the caller makes sure they are the same bytes; see :func:`can_resume`)."""
    points = prefix_counts(snapshots)
    by_name = {s.name: s for s in snapshots or ()}
    reader = LogReader()
    lines = _Lines(fh, points, reader)
    folder = Folder()
    failed: FoldError | None = None
    judge = _Judge(packs or [])
    equal: dict[str, bool] = {}
    last_ids: dict[int, str] = {}
    last_id = [""]
    if start is not None:
        assert not points and start.vocabulary == (judge._kinds, judge._rels)
        vars(reader).update(start.reader)
        vars(folder).update(start.folder)
        judge.resume(start)
        lines.count, lines.last = start.lines, start.last

    def compare(names: list[str]) -> None:
        if reader.count:
            last_ids[reader.count] = last_id[0]
        for name in names:
            graph = snapshot_graph(by_name[name])
            if graph is not None:
                equal[name] = graphs_equal(folder.graph(), graph)

    lines.at_point = compare
    try:
        with gc_paused():
            for event in reader.events(lines, lines.count + 1):
                parsed = _ops_of(event)
                if failed is None:
                    folder.events += 1
                    if isinstance(parsed, OpsError):
                        failed = FoldError(
                            f"invalid event payload for {OPS_APPLIED}: {parsed}", event.id
                        )
                    elif parsed is not None:
                        folder.apply_ops(parsed, event.id)
                judge.add(event, parsed)
                last_id[0] = event.id
    except _NotUtf8:
        return None
    state = None
    if not points and failed is None and lines.last.endswith(b"\n"):
        state = _state_of(lines, judge, reader, folder)
    log = reader.parsed((), lines.last)
    prefixes = Prefixes(lines.count, lines.at, last_ids)
    outcome = failed or folder.result()
    return LogPass(log, outcome, prefixes, equal, judge.reports(problems or []), state)


def can_resume(state: PassState, snapshots: list[SnapshotFile] | None, packs: list[Pack]) -> bool:
    """Whether a pass may go on from ``state`` with these snapshots and packs:
    none of the snapshots is compared with a prefix of the log, and check 3's
    vocabulary is the one the state was judged with."""
    return not prefix_counts(snapshots) and state.vocabulary == vocabulary(packs)


def _state_of(lines: _Lines, judge: _Judge, reader: LogReader, folder: Folder) -> PassState:
    """The pass's state after its last line (before :meth:`LogReader.parsed`
    marks a torn last line: a later line may follow it)."""
    mine, lifecycle, pairing = judge.state()
    read = {k: v for k, v in vars(reader).items() if k not in ("parser", "fast")}
    read["errors"], read["envelope"] = list(reader.errors), list(reader.envelope)
    kept = (judge._kinds, judge._rels)
    return PassState(
        lines.count, lines.last, kept, read, dict(vars(folder)), mine, lifecycle, pairing
    )


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


def _slim(event: Event, ids: dict[str, str]) -> Event:
    """What checks 5 and 7 and the run lifecycle read of ``event``; its id
    and cause are the string objects ``ids`` holds for them, when it does."""
    payload = event.payload
    kept: Json = None
    if isinstance(payload, dict):
        if event.kind in PAIRED_KINDS:
            kept = {k: _shared(payload[k]) for k in ("id", "status") if k in payload}
        elif event.kind in _RUN_KINDS and "run_id" in payload:
            kept = {"run_id": _shared(payload["run_id"])}
    cause = event.causation_id
    return Event(
        ids.get(event.id, event.id),
        event.schema_version,
        0,
        _NOBODY,
        sys.intern(event.kind),
        kept,
        ids.get(cause, cause) if cause is not None else None,
        None,
    )


_NO_OPS: tuple[Op, ...] = ()
_STATUS: dict[str, dict[str, Json]] = {}  # one ``{"status": s}`` per status string (never written)


def _slim_ops(parsed: ParsedOps) -> ParsedOps:
    """What check 7 reads of an event's ops: its CreateNode ops' id, kind and
    ``status`` prop (a dict shared by every op with that status)."""
    if parsed is None or isinstance(parsed, OpsError):
        return parsed
    kept: list[Op] = []
    for op in parsed:
        if isinstance(op, CreateNode):
            props = op.props
            status = _NO_PROPS
            if isinstance(props, dict) and "status" in props:
                status = _status_prop(props["status"])
            kept.append(CreateNode(sys.intern(op.id), sys.intern(op.kind), status))
    return tuple(kept) if kept else _NO_OPS


def _status_prop(value: Json) -> dict[str, Json]:
    if type(value) is not str:
        return {"status": value}
    prop = _STATUS.get(value)
    if prop is None:
        prop = _STATUS[value] = {"status": sys.intern(value)}
    return prop
