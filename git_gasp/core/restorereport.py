"""What ``git gasp restore`` and ``git gasp status`` report, as pure functions.

:func:`build_report` makes the report (format ``git-gasp.restore/1``) from
what restore read and folded; :mod:`git_gasp.core.restoretext` renders it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from git_gasp.core.agentmanifest import Manifest
from git_gasp.core.graph import Graph, Relation
from git_gasp.core.resume import ResumedRun
from git_gasp.core.runlog import RunCommit
from git_gasp.core.skill import Skill

REPORT_FORMAT = "git-gasp.restore/1"
CLOSED_GOAL = ("Satisfied", "Abandoned")
CLOSED_TASK = ("Done", "Abandoned")
CLOSE_HINT = "git gasp run close --outcome TEXT (or: git gasp run abandon --reason TEXT)"
STALE_HINT = (
    "git gasp record ops --json-ops "
    '\'[{"UpdateNode":{"id":"RUN","props":{"status":"finished","outcome":"abandoned"}}}]\''
)


class FoldInfo(NamedTuple):
    events: int
    at: str | None
    seeded_from: str | None  # the snapshot directory name, when one seeded the fold
    seeded_events: int  # events the snapshot covered (0 when none)
    verified_by: str | None  # "fold of prefix" or "cache"
    snapshot_notes: tuple[str, ...]  # snapshots not used, and why
    resumed: ResumedRun | None = None  # the run a runtime opening this log resumes
    complete: bool = True  # the whole log (--at named none, or its last event)

    @property
    def historical(self) -> bool:
        """A fold that stops before the log's end: a view of the past."""
        return self.at is not None and not self.complete


class RestoreInputs(NamedTuple):
    root: str
    url: str | None
    manifest: Manifest
    identity_verified: bool
    identity_notes: tuple[str, ...]
    identity_hash: str | None
    skills: Sequence[Skill]
    fold: FoldInfo
    graph: Graph
    runs: Sequence[RunCommit]
    config: dict[str, Any]
    config_path: str
    locations: dict[str, tuple[str, ...]]
    warnings: Sequence[str]
    config_changed: Sequence[str]


# The report shows props as text: a value that is not a string (a hostile
# one can be nested thousands deep) is shown as None, never rendered.


def _text(props: object, key: str) -> str | None:
    value = props.get(key) if isinstance(props, dict) else None
    return value if isinstance(value, str) else None


def _status(props: object) -> str | None:
    return _text(props, "status")


def _title(props: object) -> str | None:
    return _text(props, "title") or _text(props, "task") or _text(props, "summary")


def _open_nodes(graph: Graph, kind: str, closed: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for node_id in sorted(graph.nodes):
        node = graph.nodes[node_id]
        if node.kind != kind or node.tombstoned:
            continue
        status = _status(node.props)
        if status not in closed:
            out.append({"id": node_id, "title": _title(node.props), "status": status})
    return out


def _run_task(graph: Graph, run_id: str) -> object:
    node = graph.nodes.get(run_id)
    return _text(node.props, "task") if node is not None else None


def _open_runs(
    graph: Graph, resumed: ResumedRun | None, historical: bool = False
) -> list[dict[str, Any]]:
    """The open run, as a runtime opening the log resumes it (REFERENCE:
    at most one), with or without a node: a start whose ops pair was never
    written has none, and is still the run to close. ``historical`` (a fold
    through ``--at``): open then, so no advice to close it now."""
    if resumed is None:
        return []
    node = graph.nodes.get(resumed.run_id)
    started = (
        node is not None
        and node.kind == "run"
        and not node.tombstoned
        and _status(node.props) == "started"
    )
    return [
        {
            "id": resumed.run_id,
            "task": resumed.task if resumed.task is not None else _run_task(graph, resumed.run_id),
            "node": started,  # a run node, status "started", stands for it
            "close_with": None if historical else CLOSE_HINT,
        }
    ]


def _stale_runs(graph: Graph, resumed: ResumedRun | None) -> list[dict[str, Any]]:
    """Run nodes still ``started`` that no runtime resumes: a later run
    started after them, or their finish was written without its ops pair."""
    out = []
    for node_id in sorted(graph.nodes):
        node = graph.nodes[node_id]
        if resumed is not None and node_id == resumed.run_id:
            continue
        if node.kind == "run" and not node.tombstoned and _status(node.props) == "started":
            out.append({"id": node_id, "task": _run_task(graph, node_id)})
    return out


def _track_record(graph: Graph) -> dict[str, Any]:
    patches = [n for n in graph.nodes.values() if n.kind == "patch" and not n.tombstoned]
    evals = [n for n in graph.nodes.values() if n.kind == "eval" and not n.tombstoned]
    decided = [_status(e.props) for e in evals if _status(e.props) in ("Passed", "Failed", "Error")]
    passed = sum(1 for s in decided if s == "Passed")
    items = []
    ids = {p.id for p in patches}
    leaving: dict[str, list[Relation]] = {}  # each patch's relations, in graph order
    for rel in graph.relations:  # once: a scan per patch was quadratic
        if rel.from_ in ids:
            leaving.setdefault(rel.from_, []).append(rel)
    for patch in sorted(patches, key=lambda n: n.id):
        out = leaving.get(patch.id, [])
        props = patch.props if isinstance(patch.props, dict) else {}

        def status_of(node_id: str) -> object:
            node = graph.nodes.get(node_id)
            return _status(node.props) if node is not None else None

        items.append(
            {
                "id": patch.id,
                "title": _text(props, "title"),
                "status": _status(props),
                "references_commit": _text(props, "references_commit"),
                "advances": [r.to for r in out if r.rel == "advances"],
                "evals": [
                    {"id": r.to, "status": status_of(r.to)} for r in out if r.rel == "validated_by"
                ],
                "decisions": [
                    {"id": r.to, "rel": r.rel, "status": status_of(r.to)}
                    for r in out
                    if r.rel in ("approved_by", "rejected_by")
                ],
            }
        )
    return {
        "items": items,
        "proposed": len(patches),
        "promoted": sum(1 for p in patches if _status(p.props) == "Promoted"),
        "rejected": sum(1 for p in patches if _status(p.props) == "Rejected"),
        "evals": len(evals),
        "evals_passed": passed,
        "eval_pass_rate": round(passed / len(decided), 4) if decided else None,
    }


def _scalar(value: object) -> object:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def build_report(inputs: RestoreInputs) -> dict[str, Any]:
    """The ``git-gasp.restore/1`` document."""
    graph = inputs.graph
    run = inputs.runs[0] if inputs.runs else None
    return {
        "format": REPORT_FORMAT,
        "directory": inputs.root,
        "url": inputs.url,
        "agent_id": inputs.manifest.agent_id,
        "spec_version": _scalar(inputs.manifest.spec_version),
        "identity": {
            "verified": inputs.identity_verified,
            "hash": inputs.identity_hash,
            "notes": list(inputs.identity_notes),
        },
        "skills": _skills_value(inputs.skills),
        "fold": _fold_value(inputs.fold),
        "graph": {
            "nodes": len(graph.nodes),
            "relations": len(graph.relations),
            "version": graph.version,
        },
        "open_goals": _open_nodes(graph, "goal", CLOSED_GOAL),
        "open_tasks": _open_nodes(graph, "task", CLOSED_TASK),
        "open_runs": _open_runs(graph, inputs.fold.resumed, inputs.fold.historical),
        "stale_runs": _stale_runs(graph, inputs.fold.resumed),
        "last_run": (
            {
                "run_id": run.run_id,
                "outcome": run.outcome,
                "commit": run.commit or None,  # None: finished in a log no boundary commit names
                "goal": run.goal,
            }
            if run
            else None
        ),
        "patches": _track_record(graph),
        "executor": _executor_value(inputs),
        "locations": {k: list(v) for k, v in inputs.locations.items()},
        "warnings": list(inputs.warnings),
    }


def _skills_value(skills: Sequence[Skill]) -> dict[str, Any]:
    return {
        "loaded": [
            {"name": s.name, "description": s.description, "path": s.path}
            for s in skills
            if s.valid
        ],
        "invalid": [{"path": s.path, "problems": list(s.problems)} for s in skills if not s.valid],
    }


def _fold_value(fold: FoldInfo) -> dict[str, Any]:
    return {
        "at": fold.at,
        "events": fold.events,
        "seeded": fold.seeded_from is not None,
        "snapshot": fold.seeded_from,
        "snapshot_events": fold.seeded_events,
        "snapshot_verified_by": fold.verified_by,
        "snapshot_notes": list(fold.snapshot_notes),
        "historical": fold.historical,
    }


def _executor_value(inputs: RestoreInputs) -> dict[str, Any]:
    executor = inputs.config.get("executor", {})
    return {
        "config": inputs.config_path,
        "binding": {str(k): _scalar(v) for k, v in executor.items()}
        if isinstance(executor, dict)
        else {},
        "changed": list(inputs.config_changed),
    }
