"""What the run helpers write (REFERENCE §4.4–§4.5): runs, model and tool
calls, project snapshots, attachments and ops-only events.

Pure builders, as :mod:`git_gasp.core.payloads` (whose :class:`Record` and
op builders they use): each returns the domain event's kind and payload and
the ops of its ``state.ops_applied`` pair, in exactly the runtime's shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from git_gasp.core.jsonvalue import Json
from git_gasp.core.payloads import (
    Record,
    attach,
    create_node,
    metadata_value,
    relation,
    update_node,
)


def run_started(run_id: str, task_text: str) -> Record:
    ops = (create_node(run_id, "run", {"status": "started", "task": task_text}),)
    return Record("run.started", {"run_id": run_id, "task": task_text}, ops, run_id)


def run_finished(run_id: str, outcome: str, node_exists: bool = True) -> Record:
    """``run.finished`` and its UpdateNode; a run whose ``run.started`` made no
    node (the canonical fixture's ``run_42``) gets its node created instead,
    so the run can still be closed and a fold skips nothing."""
    props = {"outcome": outcome, "status": "finished"}
    op = update_node(run_id, props) if node_exists else create_node(run_id, "run", props)
    ops = (op,)
    return Record("run.finished", {"outcome": outcome, "run_id": run_id}, ops, run_id)


def model_call(
    node_id: str,
    run_id: str,
    model: str,
    prompt_summary: str,
    output_summary: str | None,
    metadata: Json,
) -> Record:
    payload = {
        "id": node_id,
        "metadata": metadata_value(metadata),
        "model": model,
        "output_summary": output_summary,
        "prompt_summary": prompt_summary,
        "run_id": run_id,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops = (create_node(node_id, "model_call", props), relation(node_id, "produced_by", run_id))
    return Record("model.called", payload, ops, node_id)


def tool_call(
    node_id: str,
    run_id: str,
    tool: str,
    input_summary: str,
    output_summary: str | None,
    success: bool | None,
    metadata: Json,
) -> Record:
    payload = {
        "id": node_id,
        "input_summary": input_summary,
        "metadata": metadata_value(metadata),
        "output_summary": output_summary,
        "run_id": run_id,
        "success": success,
        "tool": tool,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops = (create_node(node_id, "tool_call", props), relation(node_id, "produced_by", run_id))
    return Record("tool.called", payload, ops, node_id)


def model_finished(run_id: str, model: str, output_summary: str, metadata: Json) -> Record:
    payload = {
        "metadata": metadata_value(metadata),
        "model": model,
        "output_summary": output_summary,
        "run_id": run_id,
    }
    return Record("model.finished", payload, (), run_id)


def tool_finished(run_id: str, tool: str, output_summary: str, success: bool) -> Record:
    payload = {"output_summary": output_summary, "run_id": run_id, "success": success, "tool": tool}
    return Record("tool.finished", payload, (), run_id)


def project_snapshot(
    node_id: str, project: dict[str, Any], artifacts: Sequence[dict[str, Any]], metadata: Json
) -> Record:
    payload = {
        "artifacts": list(artifacts),
        "id": node_id,
        "metadata": metadata_value(metadata),
        "project": project,
    }
    ops = [
        create_node(
            node_id, "project_snapshot", {"metadata": metadata_value(metadata), "project": project}
        )
    ]
    ops += [attach(node_id, a) for a in artifacts]
    return Record("project.snapshot_recorded", payload, tuple(ops), node_id)


def project_ref(
    repo: str, branch: str | None = None, commit: str | None = None, worktree: str | None = None
) -> dict[str, Any]:
    return {"branch": branch, "commit": commit, "repo": repo, "worktree": worktree}


def attachment(node_id: str, art: dict[str, Any]) -> Record:
    return Record(
        "artifact.attached", {"artifact": art, "node_id": node_id}, (attach(node_id, art),), node_id
    )


def ops_only(ops: Sequence[dict[str, Any]]) -> Record:
    return Record(None, None, tuple(ops), "")
