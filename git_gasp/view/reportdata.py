"""What an agent's page shows, gathered from the repository once: identity
and skills from the work tree, the fold of its log with where each node
came from, and from those the runs, the patch track record per week, the
open goals and tasks, the last arcs and the tokens each run spent.

Everything here is plain values (:class:`ReportData`), so the page is a
function of them and ``git gasp report --json`` prints the same data.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from typing import Any, NamedTuple

from git_gasp.core import nodefields as nf
from git_gasp.core.graph import Graph
from git_gasp.core.lineage import Lineage, lineage
from git_gasp.core.provenance import Provenance
from git_gasp.store import worktree
from git_gasp.view.story import read_story

IDENTITY_CHARS = 6_000  # per identity file on the page
OPEN_SHOWN = 40  # open goals and tasks listed on the page (the JSON has all)
ARCS = 3  # the latest decided patches drawn with their lineage
ARC_NODES = 16
CLOSED = frozenset({"Satisfied", "Done", "Abandoned", "Cancelled", "Rejected", "Completed"})


class RunRow(NamedTuple):
    id: str
    task: str
    outcome: str | None
    started_ms: int | None
    finished_ms: int | None
    tokens: int  # input + output tokens of its model calls


class Week(NamedTuple):
    start: str  # ISO date of the week's Monday
    promoted: int
    rejected: int
    evals: int
    passed: int


class ReportData(NamedTuple):
    agent: str
    identity: tuple[tuple[str, str], ...]  # (path, text, cut to IDENTITY_CHARS)
    skills: tuple[tuple[str, str, bool], ...]  # (name, description, valid)
    runs: tuple[RunRow, ...]  # by start time
    weeks: tuple[Week, ...]
    open_items: tuple[tuple[str, str, str, str], ...]  # (id, kind, status, title)
    open_total: int
    arcs: tuple[Lineage, ...]
    node_runs: dict[str, str | None]  # node id -> its run, for the arcs' nodes
    run_tasks: dict[str, str]
    counts: dict[str, int]  # node kinds


def _identity(root: str) -> tuple[tuple[str, str], ...]:
    try:
        files = worktree.identity_files(root)
    except OSError as exc:
        return (("identity/", f"(cannot read: {worktree.os_error(exc)})"),)
    out = []
    for path, data in files:
        text = data.decode("utf-8", "replace")
        if len(text) > IDENTITY_CHARS:
            text = text[:IDENTITY_CHARS] + f"\n… ({len(data)} bytes in all)"
        out.append((path, text))
    return tuple(out)


def _skills(root: str) -> tuple[tuple[str, str, bool], ...]:
    from git_gasp.restore.skills import read_skills

    return tuple((s.name or s.directory, s.description or "", s.valid) for s in read_skills(root))


def _tokens(graph: Graph) -> Counter[str]:
    spent: Counter[str] = Counter()
    for node in graph.nodes.values():
        p = nf.props(node)
        usage = p.get("metadata", {}).get("usage") if isinstance(p.get("metadata"), dict) else None
        if (
            node.kind == "model_call"
            and isinstance(usage, dict)
            and isinstance(p.get("run_id"), str)
        ):
            spent[p["run_id"]] += sum(v for v in usage.values() if isinstance(v, int))
    return spent


def _runs(graph: Graph, prov: Provenance) -> tuple[RunRow, ...]:
    spent = _tokens(graph)
    rows = [
        RunRow(
            node.id,
            nf.title(node),
            nf.status(node) if "outcome" in nf.props(node) else None,
            prov.started.get(node.id),
            prov.finished.get(node.id),
            spent.get(node.id, 0),
        )
        for node in graph.nodes.values()
        if node.kind == "run"
    ]
    return tuple(sorted(rows, key=lambda r: (r.started_ms or 0, r.id)))


def _monday(ts_ms: int) -> str:
    day = dt.datetime.fromtimestamp(ts_ms / 1000, dt.UTC).date()
    return (day - dt.timedelta(days=day.weekday())).isoformat()


def _weeks(graph: Graph, prov: Provenance) -> tuple[Week, ...]:
    table: dict[str, Counter[str]] = {}
    for change in prov.status_changes:
        node = graph.nodes.get(change.node)
        if node is not None and node.kind == "patch" and change.status in ("Promoted", "Rejected"):
            table.setdefault(_monday(change.ts_ms), Counter())[change.status] += 1
    for node in graph.nodes.values():
        origin = prov.origin.get(node.id)
        if node.kind == "eval" and origin is not None:
            week = table.setdefault(_monday(origin.ts_ms), Counter())
            week["evals"] += 1
            week["passed"] += nf.status(node) == "Passed"
    return tuple(
        Week(k, c["Promoted"], c["Rejected"], c["evals"], c["passed"])
        for k, c in sorted(table.items())
    )


def _open(graph: Graph) -> list[tuple[str, str, str, str]]:
    return [
        (n.id, n.kind, nf.status(n) or "-", nf.title(n))
        for n in graph.nodes.values()
        if n.kind in ("goal", "task") and (nf.status(n) or "Open") not in CLOSED
    ]


def _arcs(graph: Graph, prov: Provenance) -> tuple[Lineage, ...]:
    decided = [
        c.node
        for c in prov.status_changes
        if c.status in ("Promoted", "Rejected") and c.node in graph.nodes
    ]
    latest: list[str] = []
    for node_id in reversed(decided):  # newest first, each patch once
        if node_id not in latest:
            latest.append(node_id)
        if len(latest) == ARCS:
            break
    return tuple(lineage(graph, p, max_nodes=ARC_NODES) for p in latest)


def _agent_id(root: str) -> str:
    try:
        with open(os.path.join(root, "AGENT.md"), encoding="utf-8", errors="replace") as fh:
            for line in fh.read(65536).splitlines():
                if line.strip().startswith("agent_id:"):
                    return line.split(":", 1)[1].strip() or "agent"
    except OSError:
        pass
    return os.path.basename(os.path.abspath(root)) or "agent"


def gather(root: str) -> ReportData:
    story = read_story(root)
    graph, prov = story.graph, story.provenance
    open_items = _open(graph)
    arcs = _arcs(graph, prov)
    node_runs = {r.id: prov.run_of(r.id) for arc in arcs for r in arc.nodes}
    tasks = {
        run: nf.title(graph.nodes[run])
        for run in set(node_runs.values())
        if run is not None and run in graph.nodes
    }
    return ReportData(
        _agent_id(root),
        _identity(root),
        _skills(root),
        _runs(graph, prov),
        _weeks(graph, prov),
        tuple(open_items),
        len(open_items),
        arcs,
        node_runs,
        tasks,
        dict(sorted(Counter(n.kind for n in graph.nodes.values()).items())),
    )


def report_value(data: ReportData) -> dict[str, Any]:
    """The data as a JSON document (``git gasp report --json``)."""
    from git_gasp.core.lineagedraw import lineage_value

    return {
        "format": "git-gasp.report/1",
        "agent": data.agent,
        "identity": [{"path": p, "text": t} for p, t in data.identity],
        "skills": [{"name": n, "description": d, "valid": v} for n, d, v in data.skills],
        "runs": [r._asdict() for r in data.runs],
        "weeks": [w._asdict() for w in data.weeks],
        "open": [
            dict(zip(("id", "kind", "status", "title"), o, strict=True)) for o in data.open_items
        ],
        "open_total": data.open_total,
        "arcs": [lineage_value(a, data.node_runs) for a in data.arcs],
        "node_kinds": data.counts,
    }
