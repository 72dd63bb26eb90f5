"""``git gasp show NODE``: one node as a person reads it.

The text gives every field the node's kind carries (see
:mod:`git_gasp.core.nodefields`), where and when it was recorded, its
artifacts, its relations grouped by rel with each neighbour's title and
status, and for a run everything recorded in it, in log order. Long lists
are cut after a few items with a line saying how many more there are and
how to see them; the JSON document keeps everything.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from itertools import groupby
from typing import Any

from git_gasp.core import nodefields as nf
from git_gasp.core.bounded import more
from git_gasp.core.graph import Graph, Node, Relation, node_to_value
from git_gasp.core.provenance import Entry, Provenance

SHOW_FORMAT = "git-gasp.show/1"
#: How many neighbours of one rel, and entries of one run, the text shows.
RELATIONS_SHOWN = 10
ENTRIES_SHOWN = 100

Paint = Callable[[str, str], str]


def plain(text: str, style: str) -> str:
    return text


def when(ts_ms: int) -> str:
    """``ts_ms`` as UTC ISO 8601 to the second."""
    moment = dt.datetime.fromtimestamp(ts_ms / 1000, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _status_line(node: Node, paint: Paint) -> str:
    shown = nf.status(node)
    if shown is None:
        return "- status: unknown" if node.kind not in ("failure", "observation") else ""
    return f"- status: {paint(shown, nf.tone(node))}"


def _origin_lines(node: Node, prov: Provenance | None, commit: str | None) -> list[str]:
    lines: list[str] = []
    if prov is None:
        return lines
    origin = prov.origin.get(node.id)
    if node.kind == "run":
        if node.id in prov.started:
            lines.append(f"- started: {when(prov.started[node.id])}")
        if node.id in prov.finished:
            lines.append(f"- finished: {when(prov.finished[node.id])}")
        if commit:
            lines.append(f"- commit: {commit}")
    elif origin is not None:
        run = prov.run_of(node.id)
        where = f" in {run}" if run else ""
        lines.append(f"- recorded: {when(origin.ts_ms)}{where}")
    return lines


def _neighbour(graph: Graph, node_id: str, paint: Paint) -> str:
    other = graph.nodes.get(node_id)
    if other is None:
        return paint("(not a node)", "dim")
    shown = nf.status(other)
    state = f", {paint(shown, nf.tone(other))}" if shown else ""
    return f"{nf.shorten(nf.title(other), 60)} ({other.kind}{state})"


def _relation_lines(
    graph: Graph, node_id: str, rels: Sequence[Relation], outgoing: bool, paint: Paint
) -> list[str]:
    lines: list[str] = []
    ordered = sorted(rels, key=lambda r: r.rel)  # stable: graph order within a rel
    for rel, group in groupby(ordered, key=lambda r: r.rel):
        items = list(group)
        for r in items[:RELATIONS_SHOWN]:
            other = r.to if outgoing else r.from_
            arrow = "->" if outgoing else "<-"
            lines.append(f"- {rel} {arrow} {other}")
            lines.append(f"  {_neighbour(graph, other, paint)}")
        if len(items) > RELATIONS_SHOWN:
            hidden = len(items) - RELATIONS_SHOWN
            lines.append(f"- {more(hidden, f'git gasp show {node_id} --json')}")
    return lines


def _entry_line(graph: Graph, entry: Entry, paint: Paint) -> str:
    node = graph.nodes.get(entry.node)
    name = nf.shorten(nf.title(node), 50) if node is not None else entry.node
    text = f"{when(entry.ts_ms)[11:19]}  {entry.event}  {entry.op}"
    if entry.op == "CreateNode":
        shown = nf.status(node) if node is not None else None
        state = f", {paint(shown, nf.tone(node))}" if shown and node is not None else ""
        return f"- {text} {entry.detail} {entry.node}: {name}{state}"
    return f"- {text} {entry.node}: {entry.detail}"


def _entries(graph: Graph, run_id: str, prov: Provenance, paint: Paint) -> list[str]:
    entries = prov.entries.get(run_id, [])
    lines = [_entry_line(graph, e, paint) for e in entries[:ENTRIES_SHOWN]]
    if len(entries) > ENTRIES_SHOWN:
        hidden = len(entries) - ENTRIES_SHOWN
        lines.append(f"- {more(hidden, f'git gasp show {run_id} --json')}")
    return lines


def show_text(
    graph: Graph,
    node_id: str,
    prov: Provenance | None = None,
    commit: str | None = None,
    paint: Paint = plain,
) -> str:
    """The node as Markdown-like text (the first lines are the reference
    ``to_markdown``'s: title, id, kind, status)."""
    node = graph.nodes[node_id]
    lines = [f"# {nf.title(node)}", "", f"- id: {node.id}", f"- kind: {node.kind}"]
    lines += [line for line in (_status_line(node, paint),) if line]
    lines += [f"- {flag}: true" for flag in ("stale", "tombstoned") if getattr(node, flag)]
    lines += [f"- {label}: {text}" for label, text in nf.fields(node)]
    lines += _origin_lines(node, prov, commit)
    artifacts = [
        f"- {a.kind}: {a.uri}" + (f" ({a.summary})" if a.summary else "") for a in node.artifacts
    ]
    sections = [
        ("Artifacts", artifacts),
        ("Outgoing", _relation_lines(graph, node_id, graph.outgoing(node_id), True, paint)),
        ("Incoming", _relation_lines(graph, node_id, graph.incoming(node_id), False, paint)),
    ]
    if node.kind == "run" and prov is not None:
        sections.append(("Recorded in this run", _entries(graph, node_id, prov, paint)))
    for heading, items in sections:
        if items:
            lines += ["", f"## {heading}", *items]
    return "\n".join(lines) + "\n"


def _relation_value(rel: Relation) -> dict[str, Any]:
    return {"from": rel.from_, "rel": rel.rel, "to": rel.to, "props": rel.props}


def show_value(
    graph: Graph, node_id: str, prov: Provenance | None = None, commit: str | None = None
) -> dict[str, Any]:
    """Everything, unbounded: the node, its relations, where it was recorded
    and (for a run) its entries and commit."""
    node = graph.nodes[node_id]
    value: dict[str, Any] = {
        "format": SHOW_FORMAT,
        "node": node_to_value(node),
        "outgoing": [_relation_value(r) for r in graph.outgoing(node_id)],
        "incoming": [_relation_value(r) for r in graph.incoming(node_id)],
    }
    if prov is None:
        return value
    origin = prov.origin.get(node_id)
    value["recorded"] = origin._asdict() if origin else None
    if node.kind == "run":
        value["run"] = {
            "started_ts_ms": prov.started.get(node_id),
            "finished_ts_ms": prov.finished.get(node_id),
            "commit": commit,
            "entries": [e._asdict() for e in prov.entries.get(node_id, [])],
        }
    return value
