"""One pass over the log for ``git gasp check``: parse, check 1's findings,
the ops, the fold and check 2's prefix comparisons, line by line.

What the other checks read of each event is kept, nothing more: the id, the
kind and the causation (check 5), a paired event's ``id`` and ``status``
(check 7), a run event's ``run_id`` (check 5's run lifecycle); of each ops
event, its CreateNode and CreateRelation ops, with only a ``status`` prop
(checks 3 and 7). The fold's graph holds the rest. So memory holds the log's
bytes, the graph and those slim records, never every event whole.
"""

from __future__ import annotations

import sys
from typing import NamedTuple

from git_gasp.core.checks import PAIRED_KINDS, ParsedOps
from git_gasp.core.event import OPS_APPLIED, Actor, Event
from git_gasp.core.fold import Folder, FoldError
from git_gasp.core.graph import graphs_equal
from git_gasp.core.jsonvalue import Json
from git_gasp.core.log import LogReader, ParsedLog, gc_paused, split_lines
from git_gasp.core.ops import CreateNode, CreateRelation, Op, OpsError, parse_ops
from git_gasp.core.repochecks import FoldOutcome, SnapshotFile, prefix_points, snapshot_graph
from git_gasp.core.resume import RUN_FINISHED, RUN_STARTED

_NOBODY = Actor("", "")  # what no check reads
_RUN_KINDS = (RUN_STARTED, RUN_FINISHED)


class LogPass(NamedTuple):
    log: ParsedLog  # its events slim (see the module's docstring)
    ops: list[ParsedOps]  # each event's ops, slim
    outcome: FoldOutcome
    prefix_equal: dict[str, bool]  # check 2's verdict by snapshot name


def read_pass(data: bytes, snapshots: list[SnapshotFile] | None) -> LogPass:
    """Read ``data`` (the log) once: see the module's docstring."""
    points = prefix_points(snapshots, data)
    by_name = {s.name: s for s in snapshots or ()}
    reader = LogReader()
    folder = Folder()
    failed: FoldError | None = None
    events: list[Event] = []
    ops: list[ParsedOps] = []
    equal: dict[str, bool] = {}

    def compare(k: int) -> None:
        for name in points.get(k, ()):
            graph = snapshot_graph(by_name[name])
            if graph is not None:
                equal[name] = graphs_equal(folder.graph(), graph)

    with gc_paused():
        compare(0)
        for event in reader.events(split_lines(data)):
            parsed = _ops_of(event)
            if failed is None:
                folder.events += 1
                if isinstance(parsed, OpsError):
                    failed = FoldError(
                        f"invalid event payload for {OPS_APPLIED}: {parsed}", event.id
                    )
                elif parsed is not None:
                    folder.apply_ops(parsed, event.id)
                if points:
                    compare(folder.events)
            events.append(_slim(event))
            ops.append(_slim_ops(parsed))
    log = reader.parsed(tuple(events), data)
    return LogPass(log, ops, failed or folder.result(), equal)


def _ops_of(event: Event) -> ParsedOps:
    if event.kind != OPS_APPLIED:
        return None
    try:
        return parse_ops(event.payload)
    except OpsError as exc:
        return exc


def _slim(event: Event) -> Event:
    payload = event.payload
    kept: Json = None
    if isinstance(payload, dict):
        if event.kind in PAIRED_KINDS:
            kept = {k: payload[k] for k in ("id", "status") if k in payload}
        elif event.kind in _RUN_KINDS and "run_id" in payload:
            kept = {"run_id": payload["run_id"]}
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
            status = (
                {"status": props["status"]} if isinstance(props, dict) and "status" in props else {}
            )
            kept.append(CreateNode(op.id, op.kind, status))
        elif isinstance(op, CreateRelation):
            kept.append(CreateRelation(op.from_, op.rel, op.to, {}))
    return tuple(kept)
