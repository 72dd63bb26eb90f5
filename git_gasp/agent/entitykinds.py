"""The ``git gasp record`` kinds of the entities: goals, tasks, observations,
failures, hypotheses, patches, evals, decisions, frames, and the status changes
of goals, tasks and patches (each a domain event and its CreateNode pair).
"""

from __future__ import annotations

from git_gasp.agent.recordfields import (
    ARTIFACTS,
    METADATA,
    SUMMARY,
    TITLE,
    Field,
    Kind,
    actor_field,
    id_field,
    status_field,
    status_kind,
)
from git_gasp.core import payloads as P

ENTITY_KINDS: tuple[Kind, ...] = (
    Kind(
        "goal",
        "record_goal",
        "Record a goal: goal.created + CreateNode goal. Allowed outside a run.",
        (
            id_field("goal_id", "goal", "goal"),
            TITLE,
            SUMMARY,
            status_field(P.GOAL_STATUSES, "Open"),
            actor_field("owner", "--owner", "The goal's owner, e.g. user:alice"),
            METADATA,
        ),
    ),
    Kind(
        "task",
        "record_task",
        "Record a task: task.created + CreateNode task (and task -serves-> goal). "
        "Allowed outside a run.",
        (
            id_field("task_id", "task", "task"),
            TITLE,
            SUMMARY,
            status_field(P.TASK_STATUSES, "Open"),
            Field("goal", "--goal", "str", "The goal the task serves (a serves relation)."),
            actor_field("created_by", "--created-by", "The task's creator"),
            METADATA,
        ),
    ),
    Kind(
        "observation",
        "record_observation",
        "Record an observation: observation.created + CreateNode observation "
        "(and observation -observes-> run). Allowed outside a run.",
        (
            id_field("obs_id", "observation", "observation"),
            TITLE,
            SUMMARY,
            Field(
                "observed_in",
                "--observed-in",
                "str",
                "The run it was observed in (default: the open run, if any).",
            ),
            METADATA,
        ),
    ),
    Kind(
        "failure",
        "record_failure",
        "Record a failure: failure.observed + CreateNode failure. Needs an open run.",
        (id_field("failure_id", "failure", "failure"), TITLE, SUMMARY),
    ),
    Kind(
        "hypothesis",
        "record_hypothesis",
        "Record a hypothesis: hypothesis.created + CreateNode hypothesis "
        "(and hypothesis -explains-> target). Allowed outside a run.",
        (
            id_field("hyp_id", "hypothesis", "hypothesis"),
            TITLE,
            SUMMARY,
            Field("confidence", "--confidence", "float", "Confidence, a number (default: null)."),
            Field("explains", "--explains", "str", "The node it explains (an explains relation)."),
            METADATA,
        ),
    ),
    Kind(
        "patch",
        "propose_patch",
        "Propose a patch: patch.proposed + CreateNode patch, patch -addresses-> each "
        "evidence, AttachArtifact per artifact, then the patch's own ops. Needs an open run.",
        (
            id_field("patch_id", "patch", "patch"),
            TITLE,
            SUMMARY,
            Field(
                "evidence",
                "--evidence",
                "strs",
                "A node the patch addresses (repeatable).",
                multiple=True,
            ),
            ARTIFACTS,
            Field(
                "ops",
                "--op-json",
                "ops",
                'A state op the patch carries, as JSON, e.g. {"CreateRelation":{…}} (repeatable).',
                multiple=True,
            ),
            Field(
                "preconditions",
                "--precondition-json",
                "objects",
                'A precondition as JSON, e.g. {"StateVersionIs":0} (repeatable).',
                multiple=True,
            ),
            Field(
                "expected_effects",
                "--expected-effect-json",
                "objects",
                'An expected effect as JSON, e.g. {"TestPasses":{"name":"t"}} (repeatable).',
                multiple=True,
            ),
            Field(
                "base_project_ref",
                "--base-project-ref-json",
                "project",
                'The project the patch is based on, as JSON {"repo","branch","commit",'
                '"worktree"} (default: null).',
            ),
            actor_field("created_by", "--created-by", "The patch's author"),
        ),
    ),
    Kind(
        "eval",
        "record_eval",
        "Record an eval result: eval.finished + CreateNode eval "
        "(and patch -validated_by-> eval). Needs an open run.",
        (
            id_field("eval_id", "eval", "eval"),
            Field("command", "--command", "str", "The command that was run.", required=True),
            status_field(P.EVAL_STATUSES),
            Field("score", "--score", "float", "A score, a number (default: null)."),
            Field("patch", "--patch", "str", "The patch this eval validates."),
            METADATA,
        ),
    ),
    Kind(
        "decision",
        "record_decision",
        "Record a decision: decision.created + CreateNode decision; with a target, "
        "target -approved_by|rejected_by|references-> decision. Allowed outside a run.",
        (
            id_field("decision_id", "decision", "decision"),
            status_field(P.DECISION_STATUSES),
            Field("reason", "--reason", "str", "Why it was decided.", required=True),
            Field("target", "--target", "str", "The node the decision is about."),
            actor_field("decided_by", "--decided-by", "Who decided"),
            METADATA,
        ),
    ),
    Kind(
        "frame",
        "record_frame",
        "Record a frame: frame.created + CreateNode frame "
        "(and frame -contained_in_frame-> parent). Allowed outside a run.",
        (
            id_field("frame_id", "frame", "frame"),
            TITLE,
            SUMMARY,
            Field("parent", "--parent", "str", "The enclosing frame (contained_in_frame)."),
            METADATA,
        ),
    ),
    status_kind("goal", P.GOAL_STATUSES),
    status_kind("task", P.TASK_STATUSES),
    status_kind("patch", P.PATCH_STATUSES),
)
