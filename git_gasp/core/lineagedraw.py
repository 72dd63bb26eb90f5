"""A lineage rendered: JSON, text, a Graphviz digraph, a Mermaid flowchart.

Every node is labelled with its title (shortened), kind and status, and in
dot and mermaid coloured by the tone of its status (green: Promoted, Passed,
Approved; red: Rejected, Failed; grey: open) and grouped in a box per run it
was recorded in. The mermaid output is what GitHub renders in a
```` ```mermaid ```` block: node ids become ``n0``, ``n1``, ... so any GASP
id is safe, and text is escaped with mermaid's ``#name;`` entities.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from git_gasp.core import nodefields as nf
from git_gasp.core.lineage import LINEAGE_FORMAT, Lineage, Reached, cut_lines, relation_to_value

#: fill, stroke and text colour for each tone (dot and mermaid alike).
COLOURS = {
    "good": ("#d8f3dc", "#2d6a4f", "#1b4332"),
    "bad": ("#ffd9d9", "#b3261e", "#601410"),
    "open": ("#eef1f4", "#6c757d", "#212529"),
}
TITLE_WIDTH = 34

#: node id -> the run it was recorded in (see :mod:`git_gasp.core.provenance`)
Runs = Mapping[str, str | None]
#: run id -> what its box is labelled with (its task)
RunTitles = Mapping[str, str]


def _status(r: Reached) -> str | None:
    return nf.status(r.node) if r.node is not None else None


def lineage_value(found: Lineage, runs: Runs | None = None) -> dict[str, Any]:
    value: dict[str, Any] = {
        "format": LINEAGE_FORMAT,
        "root": found.root,
        "depth": found.depth,
        "nodes": [
            {
                "id": r.id,
                "distance": r.distance,
                "kind": r.node.kind if r.node else None,
                "title": nf.title(r.node) if r.node else None,
                "status": (_status(r) or "unknown") if r.node else None,
                "missing": r.node is None,
            }
            for r in found.nodes
        ],
        "relations": [relation_to_value(r) for r in found.relations],
        "stopped": list(found.stopped),
        "cut": {"beyond_depth": found.beyond_depth, "beyond_max_nodes": found.beyond_max},
    }
    if runs is not None:
        value["runs"] = {r.id: runs.get(r.id) for r in found.nodes if runs.get(r.id)}
    return value


def lineage_text(found: Lineage) -> str:
    reach = "unlimited" if found.depth is None else str(found.depth)
    lines = [f"# lineage of {found.root} (depth {reach})", "", "## Nodes"]
    for r in found.nodes:
        if r.node is None:
            lines.append(f"- {r.id} (not a node) [{r.distance}]")
            continue
        title = nf.title(r.node)
        named = f" {json.dumps(nf.shorten(title, 72), ensure_ascii=False)}" if title != r.id else ""
        state = _status(r)
        kind = f"{r.node.kind}, {state}" if state else r.node.kind
        stop = " (not walked through)" if r.id in found.stopped else ""
        lines.append(f"- {r.id} ({kind}){named} [{r.distance}]{stop}")
    if found.relations:
        lines += ["", "## Relations"]
        lines += [f"- {r.from_} -{r.rel}-> {r.to}" for r in found.relations]
    cuts = cut_lines(found)
    if cuts:
        lines += ["", *cuts]
    return "\n".join(lines) + "\n"


def node_label(r: Reached, width: int = TITLE_WIDTH) -> tuple[str, str]:
    """The two lines of a drawn node: its title, and its kind and status."""
    if r.node is None:
        return r.id, "not a node"
    state = _status(r)
    return nf.shorten(nf.title(r.node), width), f"{r.node.kind}, {state}" if state else r.node.kind


def _groups(found: Lineage, runs: Runs | None) -> dict[str | None, list[int]]:
    """Run id (None: no run) -> indexes of its nodes; a run node is in its own box."""
    groups: dict[str | None, list[int]] = {}
    for i, r in enumerate(found.nodes):
        run = r.id if r.node is not None and r.node.kind == "run" else None
        if run is None and runs is not None:
            run = runs.get(r.id)
        groups.setdefault(run, []).append(i)
    return groups


def _run_label(found: Lineage, run: str, titles: RunTitles | None) -> str:
    if titles and run in titles:
        return f"run: {nf.shorten(titles[run], 40)}"
    for r in found.nodes:
        if r.id == run and r.node is not None:
            return f"run: {nf.shorten(nf.title(r.node), 40)}"
    return f"run {run}"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _tone(r: Reached) -> nf.Tone:
    return nf.tone(r.node) if r.node is not None else "open"


def _dot_node(r: Reached, root: str) -> str:
    fill, stroke, ink = COLOURS[_tone(r)]
    title, kind = node_label(r)
    style = '"filled,dashed"' if r.node is None else '"filled,bold"' if r.id == root else "filled"
    width = ", penwidth=3" if r.id == root else ""
    return (
        f"{_dot_quote(r.id)} [label={_dot_quote(title + chr(10) + kind)}, style={style}, "
        f'fillcolor="{fill}", color="{stroke}", fontcolor="{ink}"{width}];'
    )


def lineage_dot(found: Lineage, runs: Runs | None = None, titles: RunTitles | None = None) -> str:
    """A Graphviz digraph: a box per node (the root bold) in a box per run,
    one edge per relation."""
    lines = [
        "digraph lineage {",
        "  rankdir=LR;",
        '  graph [fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.45];',
        '  node [shape=box, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9, color="#555555"];',
    ]
    for n, (run, members) in enumerate(_groups(found, runs).items()):
        indent = "  "
        if run is not None:
            lines.append(f"  subgraph cluster_{n} {{")
            lines.append(
                f'    label={_dot_quote(_run_label(found, run, titles))}; style="rounded,dashed";'
            )
            indent = "    "
        lines += [indent + _dot_node(found.nodes[i], found.root) for i in members]
        if run is not None:
            lines.append("  }")
    for rel in found.relations:
        edge = f"{_dot_quote(rel.from_)} -> {_dot_quote(rel.to)}"
        lines.append(f"  {edge} [label={_dot_quote(rel.rel)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    return (
        text.replace("#", "#35;")  # first: what follows is written as #entities;
        .replace("&", "#amp;")
        .replace('"', "#quot;")
        .replace("<", "#lt;")
        .replace(">", "#gt;")
        .replace("\n", " ")
    )


def lineage_mermaid(
    found: Lineage, runs: Runs | None = None, titles: RunTitles | None = None
) -> str:
    """A Mermaid flowchart (``graph LR``) with a subgraph per run and a class per tone."""
    names = {r.id: f"n{i}" for i, r in enumerate(found.nodes)}
    lines = ["graph LR"]
    for n, (run, members) in enumerate(_groups(found, runs).items()):
        indent = "  "
        if run is not None:
            lines.append(f'  subgraph r{n}["{_mermaid_text(_run_label(found, run, titles))}"]')
            indent = "    "
        for i in members:
            r = found.nodes[i]
            title, kind = node_label(r)
            shown = _mermaid_text(title)
            if r.node is not None:
                shown += f"<br/>{_mermaid_text(kind)}"
            lines.append(f'{indent}{names[r.id]}["{shown}"]')
        if run is not None:
            lines.append("  end")
    for rel in found.relations:
        lines.append(f'  {names[rel.from_]} -->|"{_mermaid_text(rel.rel)}"| {names[rel.to]}')
    for tone, (fill, stroke, ink) in COLOURS.items():
        painted = [names[r.id] for r in found.nodes if _tone(r) == tone]
        if painted:
            lines.append(f"  classDef {tone} fill:{fill},stroke:{stroke},color:{ink}")
            lines.append(f"  class {','.join(painted)} {tone}")
    if found.root in names:
        lines.append(f"  style {names[found.root]} stroke-width:3px")
    return "\n".join(lines) + "\n"
