"""The events of a fix carried through a run: a patch proposed with its
evidence and artifact, the eval validating it, the decision approving or
rejecting it, and the runtime's patch status change (REFERENCE §4.3-4.5).

Each function appends one pair to a :class:`runevents.RunDraft`, drawing its
ids and texts from the agent's seeded random generator in a fixed order.
"""

from __future__ import annotations

from typing import Any

from runevents import AGENT, SYSTEM, TOOLS, RunDraft, hex_id


def patch_proposed(d: RunDraft) -> None:
    rng, sim = d.rng, d.sim
    patch = f"patch_{hex_id(rng)}"
    d.patch = patch
    commit = hex_id(rng, 160)
    artifact = {
        "hash": None,
        "kind": "git.diff",
        "metadata": {"base_commit": commit[:12], "files_changed": rng.randint(1, 9)},
        "summary": sim.phrase(2, 4),
        "uri": f"file://.yoyo/artifacts/{patch}.diff",
    }
    own_ops = [{"CreateRelation": {"from": patch, "props": {}, "rel": "advances", "to": d.goal}}]
    base = {
        "base_project_ref": {
            "branch": "main",
            "commit": commit,
            "repo": "yoyo-evolve",
            "worktree": None,
        },
        "base_state_version": sim.version,
        "expected_effects": [{"TestPasses": {"name": "retry_timeout"}}],
        "preconditions": [{"StateVersionIs": sim.version}],
        "status": "Proposed",
        "summary": f"{sim.phrase()}{d.slot()}",
        "title": sim.phrase(2, 4),
    }
    payload = {
        **base,
        "artifacts": [artifact],
        "created_by": AGENT,
        "evidence": d.failures[-2:],
        "id": patch,
        "ops": own_ops,
    }
    ops: list[Any] = [{"CreateNode": {"id": patch, "kind": "patch", "props": base}}]
    ops += [
        {"CreateRelation": {"from": patch, "props": {}, "rel": "addresses", "to": f}}
        for f in d.failures[-2:]
    ]
    ops.append({"AttachArtifact": {"artifact": artifact, "id": patch}})
    ops += own_ops
    d.in_run(AGENT, "patch.proposed", payload, ops)


def eval_finished(d: RunDraft) -> None:
    rng = d.rng
    node = f"eval_{hex_id(rng)}"
    passed = rng.random() < 0.7
    status = "Passed" if passed else "Failed"
    payload = {
        "command": rng.choice(TOOLS),
        "id": node,
        "metadata": {"duration_ms": rng.randint(800, 240_000), "log_tail": d.slot("")},
        "score": round(rng.uniform(0.9, 1.0) if passed else rng.uniform(0.0, 0.6), 3),
        "status": status,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops: list[Any] = [{"CreateNode": {"id": node, "kind": "eval", "props": props}}]
    if d.patch and not d.evaled:
        ops.append(
            {
                "CreateRelation": {
                    "from": d.patch,
                    "props": {},
                    "rel": "validated_by",
                    "to": node,
                }
            }
        )
        d.evaled = status
    d.in_run(AGENT, "eval.finished", payload, ops)


def decision_created(d: RunDraft) -> None:
    node = f"decision_{hex_id(d.rng)}"
    if d.patch and d.evaled and not d.decided:
        status = "Approved" if d.evaled == "Passed" else "Rejected"
        target: str | None = d.patch
        d.decided = status
    else:
        status, target = "Pending", (d.patch or None)
    rel = {"Approved": "approved_by", "Rejected": "rejected_by"}.get(status, "references")
    payload = {
        "decided_by": AGENT,
        "id": node,
        "metadata": {},
        "reason": f"{d.sim.phrase()}{d.slot()}",
        "status": status,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops: list[Any] = [{"CreateNode": {"id": node, "kind": "decision", "props": props}}]
    if target:
        ops.append({"CreateRelation": {"from": target, "props": {}, "rel": rel, "to": node}})
    d.in_run(AGENT, "decision.created", payload, ops)


def status_changed(d: RunDraft) -> None:
    """patch.status_changed, by the runtime (system actor, §4.1)."""
    rng, sim = d.rng, d.sim
    if d.decided and not d.changed and d.patch:
        target_patch = d.patch
        status = "Promoted" if d.decided == "Approved" else "Rejected"
        d.changed = True
    elif sim.patches:
        target_patch = rng.choice(sim.patches[-20:])
        status = rng.choice(("Stale", "Evaluated", "Conflicted"))
    elif d.patch:
        target_patch, status = d.patch, "Evaluated"
    else:  # nothing to change yet: observe instead
        _unattached_observation(d)
        return
    reason = f"{sim.phrase(2, 4)}{d.slot()}"
    d.in_run(
        SYSTEM,
        "patch.status_changed",
        {"patch_id": target_patch, "reason": reason, "status": status},
        [
            {
                "UpdateNode": {
                    "id": target_patch,
                    "props": {"status": status, "status_reason": reason},
                }
            }
        ],
    )


def _unattached_observation(d: RunDraft) -> None:
    """An observation not tied to the run (where a status change had no patch)."""
    node = f"observation_{hex_id(d.rng)}"
    summary, title = f"{d.sim.phrase()}{d.slot()}", d.sim.phrase(2, 4)
    d.in_run(
        AGENT,
        "observation.created",
        {
            "id": node,
            "metadata": {},
            "observed_in": None,
            "summary": summary,
            "title": title,
        },
        [
            {
                "CreateNode": {
                    "id": node,
                    "kind": "observation",
                    "props": {"metadata": {}, "summary": summary, "title": title},
                }
            }
        ],
    )
