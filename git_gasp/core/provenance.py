"""Where each node came from: the run it was recorded in, when, and what each
run recorded, in log order. Built alongside a fold, one event at a time.

An event belongs to the run its ``correlation_id`` names (REFERENCE §4.4:
everything after ``run.started`` in a run is correlated with the run id). A
node's run is the run of the event that created it; a run's entries are the
ops of its ``state.ops_applied`` events, each named by the domain event it
is chained to (its ``causation_id``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from git_gasp.core.event import Event

OPS_APPLIED = "state.ops_applied"


class Entry(NamedTuple):
    """One thing a run recorded: a node created, updated or linked."""

    ts_ms: int
    event: str  # the domain event's kind (``patch.proposed``), else the ops event's
    op: str  # CreateNode, UpdateNode, CreateRelation, ...
    node: str  # the node it is about (a relation's ``from``)
    detail: str  # a node's kind, a relation's ``rel -> to``, an update's props


class StatusChange(NamedTuple):
    ts_ms: int
    node: str
    status: str


class Origin(NamedTuple):
    run: str | None
    ts_ms: int
    event_id: str


class Provenance:
    """Feed every event of a log to :meth:`add`, in order."""

    def __init__(self) -> None:
        self.origin: dict[str, Origin] = {}
        self.kinds: dict[str, str] = {}  # node id -> the kind it was created with
        self.entries: dict[str, list[Entry]] = {}
        self.started: dict[str, int] = {}  # run id -> ts_ms of run.started
        self.finished: dict[str, int] = {}
        self.status_changes: list[StatusChange] = []  # every UpdateNode that sets a status
        self._kinds: dict[str, str] = {}  # domain event id -> kind, within open runs

    def add(self, event: Event) -> None:
        run = event.correlation_id
        if event.kind != OPS_APPLIED:
            if run is not None:
                self._kinds[event.id] = event.kind
                if event.kind == "run.started":
                    self.started.setdefault(run, event.ts_ms)
                elif event.kind == "run.finished":
                    self.finished[run] = event.ts_ms
                    self._kinds = {event.id: event.kind}  # the runs before are done
            return
        if not isinstance(event.payload, list):
            return
        domain = self._kinds.get(event.causation_id or "", OPS_APPLIED)
        for op in event.payload:
            self._op(event, run, domain, op)

    def _op(self, event: Event, run: str | None, domain: str, op: Any) -> None:
        if not (isinstance(op, dict) and len(op) == 1):
            return
        ((name, body),) = op.items()
        if not isinstance(body, dict):
            return
        node = body.get("from") if name in ("CreateRelation", "DeleteRelation") else body.get("id")
        if not isinstance(node, str):
            return
        if name == "CreateNode":
            self.origin.setdefault(node, Origin(run, event.ts_ms, event.id))
            detail = str(body.get("kind"))
            self.kinds.setdefault(node, detail)
        elif name in ("CreateRelation", "DeleteRelation"):
            detail = f"{body.get('rel')} -> {body.get('to')}"
        elif name == "UpdateNode" and isinstance(body.get("props"), dict):
            if isinstance(body["props"].get("status"), str):
                self.status_changes.append(StatusChange(event.ts_ms, node, body["props"]["status"]))
            detail = ", ".join(f"{k}={_short(v)}" for k, v in sorted(body["props"].items()))
        else:
            detail = ""
        if run is not None:
            self.entries.setdefault(run, []).append(Entry(event.ts_ms, domain, name, node, detail))

    def run_of(self, node_id: str) -> str | None:
        """The run ``node_id`` was created in: its creating event's
        correlation id, unless that names a node of another kind (a log may
        correlate a goal's events with the goal)."""
        origin = self.origin.get(node_id)
        if origin is None or origin.run is None:
            return None
        return origin.run if self.kinds.get(origin.run, "run") == "run" else None


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
