"""Read-side queries on a folded graph: one node as Markdown (REFERENCE §5
``to_markdown``) and its lineage, the nodes it is connected to along the
graph's relations in both directions, breadth first.

A lineage walks every relation whatever its direction, so one query from a
patch reaches the failure it addresses, the evals that validate it, the
decisions on it and the goal it advances, and from those their own
neighbours. It is cycle-safe (each node is visited once) and can be limited
to a number of hops. Relation endpoints that are not nodes of the graph are
reached but not walked further (they have no node to show).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, NamedTuple

from git_gasp.core.graph import Graph, Node, Relation, node_to_value

LINEAGE_FORMAT = "git-gasp.lineage/1"
SHOW_FORMAT = "git-gasp.show/1"


class Reached(NamedTuple):
    id: str
    distance: int  # hops from the root
    node: Node | None  # None: a relation endpoint that is not a node


class Lineage(NamedTuple):
    root: str
    depth: int | None  # None: unlimited
    nodes: tuple[Reached, ...]  # by distance, then id; the root first
    relations: tuple[Relation, ...]  # in graph (fold) order


def _title(node: Node) -> str:
    title = node.props.get("title") if isinstance(node.props, dict) else None
    return title if isinstance(title, str) else node.id


def _status(node: Node) -> str:
    status = node.props.get("status") if isinstance(node.props, dict) else None
    return status if isinstance(status, str) else "unknown"


def lineage(graph: Graph, root: str, depth: int | None = None) -> Lineage:
    """Breadth-first from ``root`` (which must be a node) up to ``depth`` hops."""
    if root not in graph.nodes:
        raise KeyError(root)
    touching: dict[str, list[int]] = {}
    for index, rel in enumerate(graph.relations):
        touching.setdefault(rel.from_, []).append(index)
        if rel.to != rel.from_:
            touching.setdefault(rel.to, []).append(index)
    distance = {root: 0}
    walked: set[int] = set()
    queue = deque([root])
    while queue:
        current = queue.popleft()
        hops = distance[current]
        if (depth is not None and hops >= depth) or current not in graph.nodes:
            continue
        for index in touching.get(current, ()):
            walked.add(index)
            rel = graph.relations[index]
            other = rel.to if rel.from_ == current else rel.from_
            if other not in distance:
                distance[other] = hops + 1
                queue.append(other)
    reached = sorted(distance.items(), key=lambda item: (item[1], item[0]))
    return Lineage(
        root,
        depth,
        tuple(Reached(i, d, graph.nodes.get(i)) for i, d in reached),
        tuple(graph.relations[i] for i in sorted(walked)),
    )


# --- one node ----------------------------------------------------------------


def relation_to_value(rel: Relation) -> dict[str, Any]:
    return {"from": rel.from_, "rel": rel.rel, "to": rel.to, "props": rel.props}


def show_value(graph: Graph, node_id: str) -> dict[str, Any]:
    return {
        "format": SHOW_FORMAT,
        "node": node_to_value(graph.nodes[node_id]),
        "outgoing": [relation_to_value(r) for r in graph.outgoing(node_id)],
        "incoming": [relation_to_value(r) for r in graph.incoming(node_id)],
    }


def to_markdown(graph: Graph, node_id: str) -> str:
    """The reference ``to_markdown`` (§5), plus ``- stale: true`` and
    ``- tombstoned: true`` lines after the status when those flags are set."""
    node = graph.nodes.get(node_id)
    if node is None:
        return "Node not found.\n"
    lines = [f"# {_title(node)}", "", f"- id: {node.id}", f"- kind: {node.kind}"]
    lines.append(f"- status: {_status(node)}")
    lines += [f"- {flag}: true" for flag in ("stale", "tombstoned") if getattr(node, flag)]
    sections = (
        ("Artifacts", [f"- {a.kind}: {a.uri}" for a in node.artifacts]),
        ("Outgoing", [f"- {r.rel} -> {r.to}" for r in graph.outgoing(node_id)]),
        ("Incoming", [f"- {r.rel} <- {r.from_}" for r in graph.incoming(node_id)]),
    )
    for title, items in sections:
        if items:
            lines += ["", f"## {title}", *items]
    return "\n".join(lines) + "\n"


# --- rendering a lineage -----------------------------------------------------


def lineage_value(found: Lineage) -> dict[str, Any]:
    return {
        "format": LINEAGE_FORMAT,
        "root": found.root,
        "depth": found.depth,
        "nodes": [
            {
                "id": r.id,
                "distance": r.distance,
                "kind": r.node.kind if r.node else None,
                "title": _title(r.node) if r.node else None,
                "status": _status(r.node) if r.node else None,
                "missing": r.node is None,
            }
            for r in found.nodes
        ],
        "relations": [relation_to_value(r) for r in found.relations],
    }


def lineage_text(found: Lineage) -> str:
    reach = "unlimited" if found.depth is None else str(found.depth)
    lines = [f"# lineage of {found.root} (depth {reach})", "", "## Nodes"]
    for r in found.nodes:
        if r.node is None:
            lines.append(f"- {r.id} (not a node) [{r.distance}]")
        else:
            title = _title(r.node)
            named = f" {json.dumps(title, ensure_ascii=False)}" if title != r.id else ""
            lines.append(f"- {r.id} ({r.node.kind}, {_status(r.node)}){named} [{r.distance}]")
    if found.relations:
        lines += ["", "## Relations"]
        lines += [f"- {r.from_} -{r.rel}-> {r.to}" for r in found.relations]
    return "\n".join(lines) + "\n"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def lineage_dot(found: Lineage) -> str:
    """A Graphviz digraph: one box per node (the root bold), one edge per relation."""
    lines = ["digraph lineage {", "  rankdir=LR;", "  node [shape=box];"]
    for r in found.nodes:
        label = f"{r.id}\n{r.node.kind}" if r.node else r.id
        style = ", style=bold" if r.id == found.root else ""
        style += ", style=dashed" if r.node is None else ""
        lines.append(f"  {_dot_quote(r.id)} [label={_dot_quote(label)}{style}];")
    for rel in found.relations:
        edge = f"{_dot_quote(rel.from_)} -> {_dot_quote(rel.to)}"
        lines.append(f"  {edge} [label={_dot_quote(rel.rel)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    return (
        text.replace("&", "#amp;")
        .replace('"', "#quot;")
        .replace("<", "#lt;")
        .replace(">", "#gt;")
        .replace("\n", " ")
    )


def lineage_mermaid(found: Lineage) -> str:
    """A Mermaid flowchart (``graph LR``); node ids become n0, n1, ... so any
    GASP id is safe, and the GASP id is the label."""
    names = {r.id: f"n{i}" for i, r in enumerate(found.nodes)}
    lines = ["graph LR"]
    for r in found.nodes:
        label = _mermaid_text(r.id) + (f"<br/>{_mermaid_text(r.node.kind)}" if r.node else "")
        lines.append(f'  {names[r.id]}["{label}"]')
    for rel in found.relations:
        lines.append(f'  {names[rel.from_]} -->|"{_mermaid_text(rel.rel)}"| {names[rel.to]}')
    if found.root in names:
        lines.append(f"  style {names[found.root]} stroke-width:3px")
    return "\n".join(lines) + "\n"
