"""Read-side queries on a folded graph: one node as Markdown (REFERENCE §5
``to_markdown``) and its lineage, the story a node belongs to.

A lineage walks the graph's relations breadth first, in both directions, so
one query from a patch reaches the failure it addresses, the evals that
validate it, the decisions on it and, through the failure, the patch that
fixed it. The rule of its default scope:

- every relation is followed, whatever its direction;
- a goal, a task or a run that is reached is shown but not walked through
  (goals and runs gather every patch and call of their work, which is
  another story); ``through_goals`` walks through goals and tasks too; the
  root is always walked;
- each node is visited once (cycle-safe), at most ``depth`` hops from the
  root, and at most ``max_nodes`` nodes are kept (the nearest first); what
  was left out is counted so it can be said;
- relation endpoints that are not nodes are reached but not walked.
"""

from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple

from git_gasp.core.graph import Graph, Node, Relation

LINEAGE_FORMAT = "git-gasp.lineage/1"
#: Kinds shown where reached but not walked through (see the module's rule).
STOP_KINDS = frozenset({"goal", "task", "run"})
GOAL_KINDS = frozenset({"goal", "task"})


class Reached(NamedTuple):
    id: str
    distance: int  # hops from the root
    node: Node | None  # None: a relation endpoint that is not a node


class Lineage(NamedTuple):
    root: str
    depth: int | None  # None: unlimited
    nodes: tuple[Reached, ...]  # by distance, then id; the root first
    relations: tuple[Relation, ...]  # in graph (fold) order, between kept nodes
    stopped: tuple[str, ...] = ()  # reached hubs not walked through (goals, runs)
    beyond_depth: int = 0  # nodes one hop past --depth, not shown
    beyond_max: int = 0  # nodes within reach past --max-nodes, not shown
    max_nodes: int | None = None


def _title(node: Node) -> str:
    title = node.props.get("title") if isinstance(node.props, dict) else None
    return title if isinstance(title, str) else node.id


def _status(node: Node) -> str:
    status = node.props.get("status") if isinstance(node.props, dict) else None
    return status if isinstance(status, str) else "unknown"


#: The last graph's index of relations by endpoint, with the relations it
#: indexes (held, so the identity check below cannot match another tuple):
#: a page or a caller asking the lineage of each of a graph's nodes indexes
#: the relations once, not once per node. Read only by :func:`lineage`.
_INDEXED: list[tuple[tuple[Relation, ...], dict[str, list[int]]]] = []


def _touching(graph: Graph) -> dict[str, list[int]]:
    """Each endpoint's relations, by index in ``graph.relations`` (a tuple:
    the same tuple always has the same index)."""
    relations = graph.relations
    last = _INDEXED[:1]
    if last and last[0][0] is relations:
        return last[0][1]
    touching: dict[str, list[int]] = {}
    for index, rel in enumerate(relations):
        touching.setdefault(rel.from_, []).append(index)
        if rel.to != rel.from_:
            touching.setdefault(rel.to, []).append(index)
    if type(relations) is tuple:  # a list could change under the same identity
        _INDEXED[:] = [(relations, touching)]
    return touching


def lineage(
    graph: Graph,
    root: str,
    depth: int | None = None,
    max_nodes: int | None = None,
    through_goals: bool = False,
) -> Lineage:
    """Breadth-first from ``root`` (which must be a node) by the module's rule."""
    if root not in graph.nodes:
        raise KeyError(root)
    stops = STOP_KINDS - (GOAL_KINDS if through_goals else frozenset())
    touching = _touching(graph)
    distance = {root: 0}
    stopped: list[str] = []
    beyond: set[str] = set()
    walked: set[int] = set()
    queue = deque([root])
    while queue:
        current = queue.popleft()
        hops = distance[current]
        node = graph.nodes.get(current)
        if node is None:
            continue
        if current != root and node.kind in stops:
            stopped.append(current)
            continue
        for index in touching.get(current, ()):
            rel = graph.relations[index]
            other = rel.to if rel.from_ == current else rel.from_
            if depth is not None and hops >= depth:
                beyond.add(other)
                continue
            walked.add(index)
            if other not in distance:
                distance[other] = hops + 1
                queue.append(other)
    reached = sorted(distance.items(), key=lambda item: (item[1], item[0]))
    kept = reached if max_nodes is None else reached[: max(max_nodes, 1)]
    keep = {node_id for node_id, _ in kept}
    relations = tuple(
        graph.relations[i]
        for i in sorted(walked)
        if graph.relations[i].from_ in keep and graph.relations[i].to in keep
    )
    return Lineage(
        root,
        depth,
        tuple(Reached(i, d, graph.nodes.get(i)) for i, d in kept),
        relations,
        tuple(sorted(s for s in stopped if s in keep)),
        len(beyond - set(distance)),
        len(reached) - len(kept),
        max_nodes,
    )


def _nodes(count: int) -> str:
    return f"{count} more node" + ("" if count == 1 else "s")


def cut_lines(found: Lineage) -> list[str]:
    """What the walk left out, one line each (none when nothing was)."""
    lines = []
    if found.beyond_depth:
        lines.append(
            f"cut: {_nodes(found.beyond_depth)} beyond --depth {found.depth} "
            "(raise --depth to see them)"
        )
    if found.beyond_max:
        lines.append(
            f"cut: {_nodes(found.beyond_max)} past --max-nodes {found.max_nodes} "
            "(raise --max-nodes, or lower --depth)"
        )
    if found.stopped:
        shown = ", ".join(found.stopped[:3]) + (", ..." if len(found.stopped) > 3 else "")
        lines.append(
            f"not walked through: {shown} (goals, tasks and runs end the walk: run "
            "lineage on one, or pass --through-goals)"
        )
    return lines


# --- one node ----------------------------------------------------------------


def relation_to_value(rel: Relation) -> dict[str, Any]:
    return {"from": rel.from_, "rel": rel.rel, "to": rel.to, "props": rel.props}


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
