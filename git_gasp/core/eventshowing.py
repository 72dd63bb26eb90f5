"""``git gasp show EVENT_ID``: one event of the log as a person reads it.

An event is not a node: ``show`` folds the graph and an event's id is in
none of its nodes. The log's events are found by a second pass over it
(:class:`EventFinder`, fed every event in order); the text gives the event's
envelope, the ops its pair applied (a domain event's ``state.ops_applied``,
or an ops event's own) and the nodes they touched, each with the ``show``
that opens it; the JSON document keeps the events whole.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from git_gasp.core.bounded import more
from git_gasp.core.event import Event, event_to_value
from git_gasp.core.graph import Graph
from git_gasp.core.provenance import OPS_APPLIED
from git_gasp.core.showing import when

SHOW_EVENT_FORMAT = "git-gasp.show-event/1"
#: How many ops the text lists.
OPS_SHOWN = 20


class FoundEvent(NamedTuple):
    event: Event
    pair: Event | None  # its ops event (for a domain event) or its domain event (for ops)
    cause_kind: str | None  # the kind of the event its causation_id names, when in the log


class EventFinder:
    """Feed every event of a log to :meth:`add`, in order; :meth:`found`
    then says whether ``event_id`` was one of them."""

    def __init__(self, event_id: str) -> None:
        self.event_id = event_id
        self._kinds: dict[str, str] = {}  # every event id -> kind (for the cause's kind)
        self._event: Event | None = None
        self._pair: Event | None = None
        self._events: dict[str, Event] = {}  # domain events of the open stretch, by id

    def add(self, event: Event) -> None:
        self._kinds[event.id] = event.kind
        if self._event is None:
            if event.id == self.event_id:
                self._event = event
                if event.kind == OPS_APPLIED and event.causation_id:
                    self._pair = self._events.get(event.causation_id)
            elif event.kind != OPS_APPLIED:
                self._events = {event.id: event}  # an ops event follows its domain event
            else:
                self._events = {}
        elif self._pair is None and event.kind == OPS_APPLIED:
            if event.causation_id == self.event_id:
                self._pair = event

    def found(self) -> FoundEvent | None:
        if self._event is None:
            return None
        cause = self._event.causation_id
        return FoundEvent(self._event, self._pair, self._kinds.get(cause) if cause else None)


def _ops(found: FoundEvent) -> list[Any]:
    ops_event = found.event if found.event.kind == OPS_APPLIED else found.pair
    payload = ops_event.payload if ops_event is not None else None
    if not isinstance(payload, list):
        return []
    return [op for op in payload if isinstance(op, dict) and len(op) == 1]


def _op_line(op: dict[str, Any], graph: Graph) -> tuple[str, str | None]:
    ((name, body),) = op.items()
    if not isinstance(body, dict):
        return f"- {name}", None
    relation = name in ("CreateRelation", "DeleteRelation")
    node = body.get("from") if relation else body.get("id")
    node = node if isinstance(node, str) else None
    if relation:
        text = f"- {name} {node} {body.get('rel')} -> {body.get('to')}"
    elif name == "CreateNode":
        text = f"- {name} {body.get('kind')} {node}"
    else:
        text = f"- {name} {node}"
    return text + ("" if node is None or node in graph.nodes else " (not a node now)"), node


def event_text(found: FoundEvent, graph: Graph) -> str:
    """The event as Markdown-like text, with the ops of its pair."""
    event = found.event
    cause = event.causation_id
    lines = [
        f"# event {event.id}",
        "",
        f"- kind: {event.kind}",
        f"- time: {when(event.ts_ms)}",
        f"- actor: {event.actor.kind} {event.actor.id}",
        f"- run: {event.correlation_id or '-'}",
        f"- caused by: {cause}" + (f" ({found.cause_kind})" if found.cause_kind else "")
        if cause
        else "- caused by: -",
    ]
    if found.pair is not None and event.kind != OPS_APPLIED:  # an ops event's is its cause
        lines.append(f"- its ops: {found.pair.id} ({found.pair.kind})")
    ops = _ops(found)
    shown = [_op_line(op, graph) for op in ops[:OPS_SHOWN]]
    if shown:
        lines += ["", "## Ops applied", *(text for text, _ in shown)]
    if len(ops) > OPS_SHOWN:
        lines.append(f"- {more(len(ops) - OPS_SHOWN, f'git gasp show {event.id} --json')}")
    nodes = [node for _, node in shown if node is not None and node in graph.nodes]
    if nodes:
        lines += ["", f"see a node with: git gasp show {nodes[0]}"]
    return "\n".join(lines) + "\n"


def event_value(found: FoundEvent) -> dict[str, Any]:
    """Everything: the event and its pair, whole."""
    return {
        "format": SHOW_EVENT_FORMAT,
        "event": event_to_value(found.event),
        "pair": event_to_value(found.pair) if found.pair is not None else None,
        "cause_kind": found.cause_kind,
    }
