"""The ``git gasp record`` kinds of what a run does (model and tool calls and
their ends, project snapshots, artifacts) and of raw graph edits (link, ops).
"""

from __future__ import annotations

from git_gasp.agent.recordfields import ARTIFACTS, METADATA, Field, Kind, actor_field, id_field

ACTIVITY_KINDS: tuple[Kind, ...] = (
    Kind(
        "model-call",
        "record_model_call",
        "Record a model call: model.called + CreateNode model_call, call -produced_by-> run. "
        "Needs an open run.",
        (
            Field("model", "--model", "str", "The model called.", required=True),
            Field(
                "prompt_summary",
                "--prompt-summary",
                "str",
                "What was asked, in short.",
                required=True,
            ),
            Field("output_summary", "--output-summary", "str", "What came back (default: null)."),
            id_field("node_id", "call node", "node"),
            METADATA,
        ),
    ),
    Kind(
        "model-finished",
        "record_model_finished",
        "Record the end of a model call: a model.finished event (no ops). Needs an open run. "
        "Prints the event id.",
        (
            Field("model", "--model", "str", "The model that answered.", required=True),
            Field("output_summary", "--output-summary", "str", "What came back.", required=True),
            METADATA,
        ),
    ),
    Kind(
        "tool-call",
        "record_tool_call",
        "Record a tool call: tool.called + CreateNode tool_call, call -produced_by-> run. "
        "Needs an open run.",
        (
            Field("tool", "--tool", "str", "The tool called.", required=True),
            Field("input_summary", "--input-summary", "str", "Its input, in short.", required=True),
            Field("output_summary", "--output-summary", "str", "Its output (default: null)."),
            Field(
                "success",
                "--success",
                "bool",
                "Whether it succeeded: --success or --failure (default: null).",
            ),
            id_field("node_id", "call node", "node"),
            METADATA,
            actor_field("actor", "--actor", "The actor of both events, e.g. tool:cargo"),
        ),
    ),
    Kind(
        "tool-finished",
        "record_tool_finished",
        "Record the end of a tool call: a tool.finished event (no ops); a failed tool also "
        "records a failure. Needs an open run. Prints the tool.finished event id.",
        (
            Field("tool", "--tool", "str", "The tool that finished.", required=True),
            Field("output_summary", "--output-summary", "str", "Its output.", required=True),
            Field(
                "success",
                "--success",
                "bool",
                "Whether it succeeded: --success or --failure.",
                required=True,
            ),
        ),
    ),
    Kind(
        "project-snapshot",
        "record_project_snapshot",
        "Record a project snapshot: project.snapshot_recorded + CreateNode project_snapshot "
        "and AttachArtifact per artifact. Needs an open run.",
        (
            Field("project.repo", "--project", "str", "The project's repository.", required=True),
            Field("project.branch", "--branch", "str", "Its branch (default: null)."),
            Field("project.commit", "--commit", "str", "Its commit (default: null)."),
            Field("project.worktree", "--worktree", "str", "Its work tree (default: null)."),
            ARTIFACTS,
            id_field("node_id", "snapshot node", "node"),
            METADATA,
        ),
    ),
    Kind(
        "artifact",
        "attach_artifact",
        "Attach an artifact to a node: artifact.attached + AttachArtifact. Needs an open run; "
        "the node must exist. Prints the node id.",
        (
            Field("node_id", "--node", "str", "The node to attach it to.", required=True),
            Field("artifact.kind", "--kind", "str", "Artifact kind, e.g. git.diff.", required=True),
            Field("artifact.uri", "--uri", "str", "Where the artifact is.", required=True),
            Field("artifact.hash", "--hash", "str", "Its content hash (default: null)."),
            Field("artifact.summary", "--summary", "str", "What it is (default: null)."),
            Field(
                "artifact.metadata",
                "--metadata-json",
                "json",
                "The artifact's JSON metadata (default: {}).",
            ),
        ),
        id_from="node_id",
    ),
)

GRAPH_EDIT_KINDS: tuple[Kind, ...] = (
    Kind(
        "link",
        "link",
        "Link two nodes: one state.ops_applied with CreateRelation FROM -REL-> TO (props {}). "
        "Allowed outside a run. Prints the event id.",
        (
            Field("source", "FROM", "str", "", required=True),
            Field("rel", "REL", "str", "", required=True),
            Field("target", "TO", "str", "", required=True),
        ),
    ),
    Kind(
        "ops",
        "apply_ops",
        "Apply raw state ops: one state.ops_applied event, checked against the graph first. "
        "Allowed outside a run. Prints the event id.",
        (
            Field(
                "ops",
                "--json-ops",
                "ops",
                'The ops as a JSON array, e.g. [{"MarkStale":{"id":"n","reason":"r"}}].',
                required=True,
            ),
            Field("causation", "--causation", "str", "An explicit causing event id."),
        ),
    ),
)
