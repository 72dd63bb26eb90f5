"""What each typed helper writes (REFERENCE §4.2–§4.5): domain payload + ops.

Pure builders: each returns a :class:`Record` — the domain event's kind and
payload (or none, for ops-only helpers) and the ops of its
``state.ops_applied`` pair — in exactly the runtime's shapes. Payload and
props keys are written sorted by the encoder, as the runtime writes them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from git_gasp.core.jsonvalue import Json

GOAL_STATUSES = ("Open", "InProgress", "Satisfied", "Abandoned", "Blocked", "Stale")
TASK_STATUSES = ("Open", "InProgress", "Done", "Blocked", "Abandoned", "Stale")
EVAL_STATUSES = ("Started", "Passed", "Failed", "Error", "Skipped")
DECISION_STATUSES = ("Pending", "Approved", "Rejected", "Superseded")
PATCH_STATUSES = (
    "Proposed",
    "AppliedInFork",
    "Evaluated",
    "Approved",
    "Rejected",
    "Promoted",
    "Stale",
    "Conflicted",
)


class Record(NamedTuple):
    """One helper call: an optional domain event, then its ops pair."""

    kind: str | None  # the domain event kind; None for ops-only helpers
    payload: Json
    ops: tuple[dict[str, Any], ...]  # empty: a raw event with no pair
    returns: str  # the id the helper reports (an entity id, or "" for the ops event)


def actor_value(kind: str, actor_id: str) -> dict[str, str]:
    return {"id": actor_id, "kind": kind}


def create_node(node_id: str, kind: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"CreateNode": {"id": node_id, "kind": kind, "props": props}}


def relation(source: str, rel: str, target: str, props: Json = None) -> dict[str, Any]:
    return {
        "CreateRelation": {
            "from": source,
            "props": {} if props is None else props,
            "rel": rel,
            "to": target,
        }
    }


def update_node(node_id: str, props: Json) -> dict[str, Any]:
    return {"UpdateNode": {"id": node_id, "props": props}}


def artifact(
    kind: str,
    uri: str,
    hash: str | None = None,  # the reference field name
    summary: str | None = None,
    metadata: Json = None,
) -> dict[str, Any]:
    return {
        "hash": hash,
        "kind": kind,
        "metadata": {} if metadata is None else metadata,
        "summary": summary,
        "uri": uri,
    }


def attach(node_id: str, art: dict[str, Any]) -> dict[str, Any]:
    return {"AttachArtifact": {"artifact": art, "id": node_id}}


def _float(value: float | None) -> float | None:
    """An ``f64`` field: the runtime writes ``1.0``, never ``1``."""
    return None if value is None else float(value)


def metadata_value(metadata: Json) -> Json:
    return {} if metadata is None else metadata


def goal(
    goal_id: str, title: str, summary: str, status: str, owner: dict[str, str], metadata: Json
) -> Record:
    payload = {
        "id": goal_id,
        "metadata": metadata_value(metadata),
        "owner": owner,
        "status": status,
        "summary": summary,
        "title": title,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    return Record("goal.created", payload, (create_node(goal_id, "goal", props),), goal_id)


def status_change(entity: str, entity_id: str, status: str, reason: str | None) -> Record:
    """``goal``/``task``/``patch`` status updates: ``<entity>.status_changed``."""
    payload = {f"{entity}_id": entity_id, "reason": reason, "status": status}
    ops = (update_node(entity_id, {"status": status, "status_reason": reason}),)
    return Record(f"{entity}.status_changed", payload, ops, entity_id)


def task(
    task_id: str,
    title: str,
    summary: str,
    status: str,
    goal_id: str | None,
    created_by: dict[str, str],
    metadata: Json,
) -> Record:
    payload = {
        "created_by": created_by,
        "goal": goal_id,
        "id": task_id,
        "metadata": metadata_value(metadata),
        "status": status,
        "summary": summary,
        "title": title,
    }
    props = {
        "metadata": metadata_value(metadata),
        "status": status,
        "summary": summary,
        "title": title,
    }
    ops = [create_node(task_id, "task", props)]
    if goal_id is not None:
        ops.append(relation(task_id, "serves", goal_id))
    return Record("task.created", payload, tuple(ops), task_id)


def observation(
    obs_id: str, title: str, summary: str, observed_in: str | None, metadata: Json
) -> Record:
    payload = {
        "id": obs_id,
        "metadata": metadata_value(metadata),
        "observed_in": observed_in,
        "summary": summary,
        "title": title,
    }
    props = {"metadata": metadata_value(metadata), "summary": summary, "title": title}
    ops = [create_node(obs_id, "observation", props)]
    if observed_in is not None:
        ops.append(relation(obs_id, "observes", observed_in))
    return Record("observation.created", payload, tuple(ops), obs_id)


def failure(failure_id: str, title: str, summary: str) -> Record:
    payload = {"failure_id": failure_id, "id": failure_id, "summary": summary, "title": title}
    ops = (create_node(failure_id, "failure", {"summary": summary, "title": title}),)
    return Record("failure.observed", payload, ops, failure_id)


def hypothesis(
    hyp_id: str,
    title: str,
    summary: str,
    confidence: float | None,
    metadata: Json,
    explains: str | None,
) -> Record:
    payload = {
        "confidence": _float(confidence),
        "id": hyp_id,
        "metadata": metadata_value(metadata),
        "summary": summary,
        "title": title,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops = [create_node(hyp_id, "hypothesis", props)]
    if explains is not None:
        ops.append(relation(hyp_id, "explains", explains))
    return Record("hypothesis.created", payload, tuple(ops), hyp_id)


#: StatePatch's ``Precondition`` and ``ExpectedEffect`` (REFERENCE §2.2):
#: each variant's body, a type or a struct's ``{field: type}``
PRECONDITIONS: dict[str, str | dict[str, str]] = {
    "StateVersionIs": "u64",
    "ProjectCommitIs": "string",
    "NodeExists": "string",
    "NodeDoesNotExist": "string",
    "TestStillFailing": {"name": "string"},
    "FileHashIs": {"path": "string", "hash": "string"},
}
EXPECTED_EFFECTS: dict[str, str | dict[str, str]] = {
    "TestPasses": {"name": "string"},
    "EvalScoreAtLeast": {"metric": "string", "value": "float"},
    "FailureResolved": {"failure": "string"},
    "NoRegression": {"metric": "string"},
}


def tagged(value: Json, variants: dict[str, str | dict[str, str]], what: str) -> Json:
    """``value`` as the runtime reads one ``what`` from a payload: a one-key
    object naming a variant, its body of that variant's type (a struct body
    an object; unknown fields are kept, as serde ignores them). A float
    field is written as a float (``2`` becomes ``2.0``), as the runtime
    writes it. Raises ValueError saying what is wrong."""
    names = ", ".join(variants)
    if type(value) is not dict or len(value) != 1:
        raise ValueError(f"a {what} is an object with one key, one of {names}")
    assert isinstance(value, dict)
    ((name, body),) = value.items()
    shape = variants.get(name)
    if shape is None:
        raise ValueError(f"unknown {what} `{name}`, expected one of {names}")
    if isinstance(shape, str):
        return {name: _typed(body, shape, name)}
    if type(body) is not dict:
        raise ValueError(f"{name} takes an object with {', '.join(shape)}")
    assert isinstance(body, dict)
    out = dict(body)
    for field, kind in shape.items():
        if field not in body:
            raise ValueError(f"{name}: missing field `{field}`")
        out[field] = _typed(body[field], kind, f"{name}.{field}")
    return {name: out}


def _typed(value: Json, kind: str, where: str) -> Json:
    if kind == "string" and type(value) is str:
        return value
    if kind == "u64" and type(value) is int and 0 <= value < 2**64:
        return value
    if kind == "float" and type(value) in (int, float) and math.isfinite(value):  # type: ignore[arg-type]
        return float(value)  # type: ignore[arg-type]
    wanted = {"u64": "a non-negative integer", "float": "a finite number"}.get(kind, f"a {kind}")
    raise ValueError(f"{where} must be {wanted}")


def patch(
    patch_id: str,
    title: str,
    summary: str,
    created_by: dict[str, str],
    *,
    status: str = "Proposed",
    base_state_version: int = 0,
    base_project_ref: Json = None,
    ops: Sequence[dict[str, Any]] = (),
    preconditions: Sequence[Json] = (),
    expected_effects: Sequence[Json] = (),
    evidence: Sequence[str] = (),
    artifacts: Sequence[dict[str, Any]] = (),
) -> Record:
    payload = {
        "artifacts": list(artifacts),
        "base_project_ref": base_project_ref,
        "base_state_version": base_state_version,
        "created_by": created_by,
        "evidence": list(evidence),
        "expected_effects": list(expected_effects),
        "id": patch_id,
        "ops": list(ops),
        "preconditions": list(preconditions),
        "status": status,
        "summary": summary,
        "title": title,
    }
    props = {
        "base_project_ref": base_project_ref,
        "base_state_version": base_state_version,
        "expected_effects": list(expected_effects),
        "preconditions": list(preconditions),
        "status": status,
        "summary": summary,
        "title": title,
    }
    pair = [create_node(patch_id, "patch", props)]
    pair += [relation(patch_id, "addresses", e) for e in evidence]
    pair += [attach(patch_id, a) for a in artifacts]
    pair += list(ops)
    return Record("patch.proposed", payload, tuple(pair), patch_id)


def evaluation(
    eval_id: str,
    command: str,
    status: str,
    score: float | None,
    metadata: Json,
    patch_id: str | None,
) -> Record:
    payload = {
        "command": command,
        "id": eval_id,
        "metadata": metadata_value(metadata),
        "score": _float(score),
        "status": status,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops = [create_node(eval_id, "eval", props)]
    if patch_id is not None:
        ops.append(relation(patch_id, "validated_by", eval_id))
    return Record("eval.finished", payload, tuple(ops), eval_id)


def decision(
    decision_id: str,
    status: str,
    reason: str,
    decided_by: dict[str, str],
    metadata: Json,
    target: str | None,
) -> Record:
    payload = {
        "decided_by": decided_by,
        "id": decision_id,
        "metadata": metadata_value(metadata),
        "reason": reason,
        "status": status,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops = [create_node(decision_id, "decision", props)]
    if target is not None:
        rel = {"Approved": "approved_by", "Rejected": "rejected_by"}.get(status, "references")
        ops.append(relation(target, rel, decision_id))
    return Record("decision.created", payload, tuple(ops), decision_id)


def frame(frame_id: str, title: str, summary: str, parent: str | None, metadata: Json) -> Record:
    payload = {
        "id": frame_id,
        "metadata": metadata_value(metadata),
        "parent": parent,
        "summary": summary,
        "title": title,
    }
    props = {"metadata": metadata_value(metadata), "summary": summary, "title": title}
    ops = [create_node(frame_id, "frame", props)]
    if parent is not None:
        ops.append(relation(frame_id, "contained_in_frame", parent))
    return Record("frame.created", payload, tuple(ops), frame_id)
