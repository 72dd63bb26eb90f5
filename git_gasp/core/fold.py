"""The fold (REFERENCE §2.3, §2.4): events in line order -> graph.

Lenient by default, as yoagent-state 0.5.2+: an op naming a missing node is
skipped, reported, and not counted in ``version``. ``strict=True`` is the
0.4.2 / ``replay_strict`` behaviour: the first such op aborts the fold.
A malformed ``state.ops_applied`` payload is an error in both modes.

REFERENCE §11.14/§11.15: the reference checker's lock pins 0.5.1, which
counts skipped ops in ``version``; 0.5.2+ does not, and that is what a live
runtime holds when it seals a snapshot. git-gasp folds with 0.5.2+ counting,
so snapshots it or a current runtime writes verify, and it reports every skip.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, assert_never

from git_gasp.core.event import OPS_APPLIED, Event
from git_gasp.core.graph import Graph, Node, Relation
from git_gasp.core.jsonvalue import Json
from git_gasp.core.log import gc_paused
from git_gasp.core.ops import (
    AttachArtifact,
    CreateNode,
    CreateRelation,
    DeleteRelation,
    MarkStale,
    Op,
    OpsError,
    TombstoneNode,
    UpdateNode,
    parse_ops,
)


class SkippedOp(NamedTuple):
    event_id: str  # the event carrying the op (the reference does not record it)
    batch_index: int  # position of the op within its batch (the reference's `index`)
    op: str  # variant name, e.g. "UpdateNode"
    node: str  # the missing node id
    reason: str  # what the strict fold would have said

    def note(self) -> str:
        """The checker's note text for this skip (check 2)."""
        return (
            f"{self.op} at batch index {self.batch_index} skipped — {self.reason}. The log is "
            "readable but malformed; a conformant runtime folds past this, and so does this check"
        )


class FoldError(ValueError):
    """A fold that cannot complete: malformed payload, or (strict) a missing node."""

    def __init__(self, msg: str, event_id: str) -> None:
        super().__init__(msg)
        self.msg = msg
        self.event_id = event_id


class FoldResult(NamedTuple):
    graph: Graph
    skipped: tuple[SkippedOp, ...]
    events: int
    ops: int


def merge(target: Json, patch: Json) -> Json:
    """Deep merge as the runtime does it: null sets, non-objects replace.

    Returns a new value; ``target`` and ``patch`` are left untouched.
    """
    if type(target) is dict and type(patch) is dict:
        assert isinstance(target, dict) and isinstance(patch, dict)
        out = dict(target)
        for key, value in patch.items():
            out[key] = merge(out.get(key), value) if key in out else value
        return out
    return patch


class Folder:
    """An incremental fold; feed events with :meth:`apply`, read :meth:`graph`."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self.nodes: dict[str, Node] = {}
        self.relations: list[Relation] = []
        self.version = 0
        self.skipped: list[SkippedOp] = []
        self.events = 0
        self.ops = 0

    def apply(self, event: Event) -> None:
        self.events += 1
        if event.kind != OPS_APPLIED:
            return
        if self._apply_plain(event.payload):
            return
        try:
            ops = parse_ops(event.payload)
        except OpsError as exc:
            raise FoldError(f"invalid event payload for {OPS_APPLIED}: {exc}", event.id) from None
        self.apply_ops(ops, event.id)

    @classmethod
    def from_graph(cls, graph: Graph, strict: bool = False) -> Folder:
        """A fold that continues from ``graph`` (e.g. a verified snapshot)."""
        folder = cls(strict)
        folder.nodes = dict(graph.nodes)
        folder.relations = list(graph.relations)
        folder.version = graph.version
        return folder

    def apply_all(self, events: Iterable[Event]) -> None:
        with gc_paused():
            for event in events:
                self.apply(event)

    def apply_ops(self, ops: Iterable[Op], event_id: str) -> None:
        for index, op in enumerate(ops):
            self.ops += 1
            missing = self._apply(op)
            if missing is None:
                self.version += 1
                continue
            reason = f"node not found: {missing}"
            if self.strict:
                raise FoldError(reason, event_id)
            self.skipped.append(SkippedOp(event_id, index, type(op).__name__, missing, reason))

    def _apply_plain(self, payload: Json) -> bool:
        """The common batch — well-formed CreateNode / CreateRelation / UpdateNode
        ops on existing nodes — applied straight from the payload; False (and
        nothing applied) for anything else, which takes the typed path."""
        if type(payload) is not list:
            return False
        nodes = self.nodes
        for op in payload:
            if type(op) is not dict or len(op) != 1:
                return False
            for name, body in op.items():
                if type(body) is not dict or "props" not in body:
                    return False
                get = body.get
                if name == "CreateNode":
                    if type(get("id")) is not str or type(get("kind")) is not str:
                        return False
                elif name == "CreateRelation":
                    if not (type(get("from")) is str and type(get("rel")) is str):
                        return False
                    if type(get("to")) is not str:
                        return False
                elif name != "UpdateNode" or type(get("id")) is not str or get("id") not in nodes:
                    return False  # (an UpdateNode on a node created in this batch too)
        for op in payload:
            for name, b in op.items():
                if name == "CreateNode":
                    nodes[b["id"]] = _new(Node, (b["id"], b["kind"], b["props"], False, False, ()))
                elif name == "CreateRelation":
                    rel = _new(Relation, (b["from"], b["rel"], b["to"], b["props"]))
                    self.relations.append(rel)
                else:
                    nid, kind, props, stale, tomb, arts = nodes[b["id"]]
                    props = merge(props, b["props"])
                    nodes[nid] = _new(Node, (nid, kind, props, stale, tomb, arts))
        self.ops += len(payload)
        self.version += len(payload)
        return True

    def _apply(self, op: Op) -> str | None:
        """Apply one op; return the missing node id if it needs one that is absent."""
        nodes = self.nodes
        if isinstance(op, CreateNode):
            nodes[op.id] = _new(Node, (op.id, op.kind, op.props, False, False, ()))
        elif isinstance(op, CreateRelation):
            self.relations.append(_new(Relation, (op.from_, op.rel, op.to, op.props)))
        elif isinstance(op, DeleteRelation):
            key = (op.from_, op.rel, op.to)
            self.relations = [r for r in self.relations if r[:3] != key]
        elif isinstance(op, UpdateNode | TombstoneNode | MarkStale | AttachArtifact):
            node = nodes.get(op.id)
            if node is None:
                return op.id
            nodes[op.id] = _update(node, op)
        else:
            assert_never(op)
        return None

    def graph(self) -> Graph:
        return Graph(dict(self.nodes), tuple(self.relations), self.version)

    def result(self) -> FoldResult:
        return FoldResult(self.graph(), tuple(self.skipped), self.events, self.ops)


# NamedTuples built without the generated __new__ (a Python frame per value);
# the fold builds one per op, so this is its hot path.
_new = tuple.__new__


def _update(node: Node, op: UpdateNode | TombstoneNode | MarkStale | AttachArtifact) -> Node:
    nid, kind, props, stale, tombstoned, artifacts = node
    if isinstance(op, UpdateNode):
        props = merge(props, op.props)
    elif isinstance(op, TombstoneNode):
        tombstoned, props = True, merge(props, {"tombstone_reason": op.reason})
    elif isinstance(op, MarkStale):
        stale, props = True, merge(props, {"stale_reason": op.reason})
    else:
        artifacts = (*artifacts, op.artifact)
    return _new(Node, (nid, kind, props, stale, tombstoned, artifacts))


def fold(
    events: Iterable[Event],
    strict: bool = False,
    ops: Sequence[tuple[Op, ...] | Exception | None] | None = None,
) -> FoldResult:
    """Fold events in order. Raises :class:`FoldError` on a malformed payload.

    ``ops`` may carry each event's already-parsed ops (as
    :func:`git_gasp.core.checks.parse_all_ops` returns them) to skip parsing.
    """
    folder = Folder(strict)
    with gc_paused():
        if ops is None:
            for event in events:
                folder.apply(event)
            return folder.result()
        for event, parsed in zip(events, ops, strict=True):
            folder.events += 1
            if isinstance(parsed, Exception):
                raise FoldError(f"invalid event payload for {OPS_APPLIED}: {parsed}", event.id)
            if parsed is not None:
                folder.apply_ops(parsed, event.id)
    return folder.result()
