"""A lineage drawn as inline SVG without Graphviz, for the agent's page.

The layout reads left to right from the root: one column per distance from
it (the root alone first), nodes stacked in each column in lineage order,
each box captioned with the run it was recorded in. Edges are curves with
an arrow head, labelled with their rel; each node is coloured by the tone
of its status.
"""

from __future__ import annotations

from git_gasp.core import nodefields as nf
from git_gasp.core.lineage import Lineage
from git_gasp.core.lineagedraw import COLOURS, Runs, RunTitles, node_label
from git_gasp.view.markup import esc as escape

BOX_W, BOX_H = 190, 40
COL_GAP, ROW_GAP, PAD = 90, 22, 12


def _columns(found: Lineage) -> list[list[int]]:
    columns: dict[int, list[int]] = {}
    for i, r in enumerate(found.nodes):
        columns.setdefault(r.distance, []).append(i)
    return [columns[d] for d in sorted(columns)]


def _box(x: float, y: float, index: int, found: Lineage, caption: str) -> str:
    r = found.nodes[index]
    fill, stroke, ink = COLOURS[nf.tone(r.node) if r.node is not None else "open"]
    title, kind = node_label(r, 28)
    width = 3 if r.id == found.root else 1
    return (
        f"<g><title>{escape(r.id)}</title>"
        f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{width}"/>'
        f'<text x="{x + BOX_W / 2}" y="{y + 16}" font-size="12" text-anchor="middle" '
        f'fill="{ink}">{escape(title)}</text>'
        f'<text x="{x + BOX_W / 2}" y="{y + 31}" font-size="10" text-anchor="middle" '
        f'fill="{ink}">{escape(kind)}</text>'
        f'<text x="{x + 4}" y="{y + BOX_H + 10}" font-size="9" fill="#777">{escape(caption)}</text>'
        "</g>"
    )


def _edge(a: tuple[float, float], b: tuple[float, float], rel: str, marker: str) -> str:
    (x1, y1), (x2, y2) = a, b
    if x2 > x1:  # left to right: from the right side to the left side
        sx, ex = x1 + BOX_W, x2
    elif x2 < x1:
        sx, ex = x1, x2 + BOX_W
    else:  # the same column: out and back on the right
        sx, ex = x1 + BOX_W, x2 + BOX_W
    sy, ey = y1 + BOX_H / 2, y2 + BOX_H / 2
    bend = max(abs(ex - sx) / 2, 40) * (1 if ex >= sx else -1)
    c1 = sx + (bend if x2 != x1 else 40)
    c2 = ex - (bend if x2 != x1 else -40)
    return (
        f'<path d="M{sx:.0f},{sy:.0f} C{c1:.0f},{sy:.0f} {c2:.0f},{ey:.0f} {ex:.0f},{ey:.0f}" '
        f'fill="none" stroke="#666" marker-end="url(#{marker})"><title>{escape(rel)}</title></path>'
        f'<text x="{(sx + ex) / 2:.0f}" y="{(sy + ey) / 2 - 3:.0f}" font-size="9" '
        f'text-anchor="middle" fill="#555">{escape(rel)}</text>'
    )


def lineage_svg(found: Lineage, runs: Runs, titles: RunTitles, key: int = 0) -> str:
    """The drawing; ``key`` keeps its arrow marker's id apart from other drawings'."""
    marker = f"arrow-{key}"
    columns = _columns(found)
    where: dict[str, tuple[float, float]] = {}
    body: list[str] = []
    tallest = max((len(members) for members in columns), default=1)
    height = PAD * 2 + tallest * (BOX_H + ROW_GAP)
    for c, members in enumerate(columns):
        x = PAD + c * (BOX_W + COL_GAP)
        for row, index in enumerate(members):
            y = PAD + row * (BOX_H + ROW_GAP)
            node_id = found.nodes[index].id
            where[node_id] = (x, y)
            run = runs.get(node_id)
            caption = f"in run: {nf.shorten(titles.get(run, run), 34)}" if run else ""
            body.append(_box(x, y, index, found, caption))
    edges = [
        _edge(where[r.from_], where[r.to], r.rel, marker)
        for r in found.relations
        if r.from_ in where and r.to in where
    ]
    width = PAD * 2 + len(columns) * (BOX_W + COL_GAP) - COL_GAP
    defs = (
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#666"/>'
        "</marker></defs>"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" '
        f'aria-label="lineage of {escape(found.root)}">{defs}' + "".join(body + edges) + "</svg>"
    )
