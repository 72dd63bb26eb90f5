"""``git gasp nodes``: the graph's nodes chosen by kind, status and text, as a
table (id, kind, status, title) or a JSON document."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from git_gasp.core import nodefields as nf
from git_gasp.core.graph import Graph, Node

NODES_FORMAT = "git-gasp.nodes/1"


def select_nodes(
    graph: Graph,
    kinds: Sequence[str] = (),
    statuses: Sequence[str] = (),
    grep: str | None = None,
) -> list[Node]:
    """Nodes in fold order whose kind is one of ``kinds``, whose status is one
    of ``statuses`` (any case) and whose id, title or summary holds ``grep``
    (any case); an empty filter keeps every node."""
    wanted = {s.lower() for s in statuses}
    needle = grep.lower() if grep else None
    found = []
    for node in graph.nodes.values():
        if kinds and node.kind not in kinds:
            continue
        if wanted and (nf.status(node) or "").lower() not in wanted:
            continue
        if needle is not None:
            summary = nf.props(node).get("summary")
            text = " ".join(
                t for t in (node.id, nf.title(node), summary) if isinstance(t, str)
            ).lower()
            if needle not in text:
                continue
        found.append(node)
    return found


def nodes_value(nodes: Sequence[Node]) -> dict[str, Any]:
    return {
        "format": NODES_FORMAT,
        "count": len(nodes),
        "nodes": [
            {"id": n.id, "kind": n.kind, "status": nf.status(n), "title": nf.title(n)}
            for n in nodes
        ],
    }


def _plain(text: str, style: str) -> str:
    return text


def nodes_text(nodes: Sequence[Node], paint: Callable[[str, str], str] = _plain) -> str:
    """An aligned table: id, kind, status, title (shortened)."""
    if not nodes:
        return ""
    rows = [(n.id, n.kind, nf.status(n) or "-", nf.shorten(nf.title(n), 60), n) for n in nodes]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    widths = [max(w, len(h)) for w, h in zip(widths, ("ID", "KIND", "STATUS"), strict=True)]
    head = f"{'ID':<{widths[0]}}  {'KIND':<{widths[1]}}  {'STATUS':<{widths[2]}}  TITLE"
    lines = [paint(head, "bold")]
    for node_id, kind, status, title, node in rows:
        shown = paint(f"{status:<{widths[2]}}", nf.tone(node))
        lines.append(f"{node_id:<{widths[0]}}  {kind:<{widths[1]}}  {shown}  {title}")
    return "\n".join(lines)
