"""``git gasp record KIND``: what each kind takes, and turning flags into arguments.

One :class:`Kind` per typed helper of :class:`git_gasp.agent.api.Agent` lists its
:class:`Field` s: the Python argument (also the ``--payload-json`` key), the
flag, the value type and the help text. :func:`arguments` merges
``--payload-json`` with the flags (flags win), checks and coerces every value,
and :func:`record` makes the one helper call and reports the ids it appended.
The click layer (:mod:`git_gasp.cli.record`) only builds commands from
:data:`KINDS`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from git_gasp.agent.api import Agent
from git_gasp.core import payloads as P
from git_gasp.core import runpayloads
from git_gasp.core.event import Actor, Event
from git_gasp.core.ops import OpsError, parse_ops
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import USAGE, GaspError

PAYLOAD_HINT = "pass a JSON object whose keys are the argument names; see --help"


class Field(NamedTuple):
    """One argument of a helper. ``name`` is the Python argument (a dotted
    ``parent.key`` sets one key of an object argument); ``flag`` is ``--x``
    or an upper-case positional metavar."""

    name: str
    flag: str
    type: str  # str float bool json object actor strs objects ops artifacts project
    help: str
    required: bool = False
    multiple: bool = False
    choices: tuple[str, ...] = ()

    @property
    def dest(self) -> str:
        return self.name.replace(".", "__")

    @property
    def metavar(self) -> str:
        if self.positional:
            return self.flag
        if self.choices:
            return "STATUS"
        named = {"actor": "KIND:ID", "float": "NUMBER"}
        if self.type in JSON_TYPES:
            return "JSON"
        ids = {"goal", "explains", "patch", "target", "parent", "observed_in", "evidence"}
        return named.get(self.type) or (
            "ID" if self.name in ids or "_id" in self.name or self.name == "causation" else "TEXT"
        )

    @property
    def positional(self) -> bool:
        return not self.flag.startswith("-")


class Kind(NamedTuple):
    name: str  # the subcommand
    method: str  # the Agent helper
    help: str
    fields: tuple[Field, ...]
    id_from: str | None = None  # print this argument instead of the helper's result


class Made(NamedTuple):
    id: str
    event_ids: list[str]


JSON_TYPES = {"json", "object", "objects", "ops", "artifacts", "project"}
_LIST_TYPES = {"strs", "objects", "ops", "artifacts"}
OP_NAMES = "CreateNode, UpdateNode, TombstoneNode, CreateRelation, DeleteRelation, MarkStale, "
OP_NAMES += "AttachArtifact"


# -- the kinds -------------------------------------------------------------------------------


def _id(name: str, what: str, prefix: str) -> Field:
    return Field(name, "--id", "str", f"The {what} id (default: a new {prefix}_<32 hex>).")


_TITLE = Field("title", "--title", "str", "A one-line title.", required=True)
_SUMMARY = Field("summary", "--summary", "str", "A longer description (default: empty).")
_META = Field("metadata", "--metadata-json", "json", "Free-form JSON metadata (default: {}).")
_ARTIFACTS = Field(
    "artifacts",
    "--artifact-json",
    "artifacts",
    'An artifact to attach, as JSON {"kind","uri","hash","summary","metadata"}; '
    "kind and uri are required (repeatable).",
    multiple=True,
)


def _actor(name: str, flag: str, role: str) -> Field:
    return Field(name, flag, "actor", f"{role}, as KIND:ID (default: the agent).")


def _status(allowed: tuple[str, ...], default: str | None = None) -> Field:
    text = f"One of {', '.join(allowed)}" + (f" (default: {default})." if default else ".")
    return Field("status", "--status", "str", text, required=default is None, choices=allowed)


def _status_kind(entity: str, allowed: tuple[str, ...]) -> Kind:
    return Kind(
        f"{entity}-status",
        f"update_{entity}_status",
        f"Set a {entity}'s status: {entity}.status_changed + UpdateNode {{status, "
        "status_reason}. Needs an open run; the node must exist. Prints the "
        f"{entity} id.",
        (
            Field(f"{entity}_id", "--id", "str", f"The {entity} to update.", required=True),
            _status(allowed),
            Field("reason", "--reason", "str", "Why the status changed (default: null)."),
        ),
        id_from=f"{entity}_id",
    )


KINDS: tuple[Kind, ...] = (
    Kind(
        "goal",
        "record_goal",
        "Record a goal: goal.created + CreateNode goal. Allowed outside a run.",
        (
            _id("goal_id", "goal", "goal"),
            _TITLE,
            _SUMMARY,
            _status(P.GOAL_STATUSES, "Open"),
            _actor("owner", "--owner", "The goal's owner, e.g. user:alice"),
            _META,
        ),
    ),
    Kind(
        "task",
        "record_task",
        "Record a task: task.created + CreateNode task (and task -serves-> goal). "
        "Allowed outside a run.",
        (
            _id("task_id", "task", "task"),
            _TITLE,
            _SUMMARY,
            _status(P.TASK_STATUSES, "Open"),
            Field("goal", "--goal", "str", "The goal the task serves (a serves relation)."),
            _actor("created_by", "--created-by", "The task's creator"),
            _META,
        ),
    ),
    Kind(
        "observation",
        "record_observation",
        "Record an observation: observation.created + CreateNode observation "
        "(and observation -observes-> run). Allowed outside a run.",
        (
            _id("obs_id", "observation", "observation"),
            _TITLE,
            _SUMMARY,
            Field(
                "observed_in",
                "--observed-in",
                "str",
                "The run it was observed in (default: the open run, if any).",
            ),
            _META,
        ),
    ),
    Kind(
        "failure",
        "record_failure",
        "Record a failure: failure.observed + CreateNode failure. Needs an open run.",
        (_id("failure_id", "failure", "failure"), _TITLE, _SUMMARY),
    ),
    Kind(
        "hypothesis",
        "record_hypothesis",
        "Record a hypothesis: hypothesis.created + CreateNode hypothesis "
        "(and hypothesis -explains-> target). Allowed outside a run.",
        (
            _id("hyp_id", "hypothesis", "hypothesis"),
            _TITLE,
            _SUMMARY,
            Field("confidence", "--confidence", "float", "Confidence, a number (default: null)."),
            Field("explains", "--explains", "str", "The node it explains (an explains relation)."),
            _META,
        ),
    ),
    Kind(
        "patch",
        "propose_patch",
        "Propose a patch: patch.proposed + CreateNode patch, patch -addresses-> each "
        "evidence, AttachArtifact per artifact, then the patch's own ops. Needs an open run.",
        (
            _id("patch_id", "patch", "patch"),
            _TITLE,
            _SUMMARY,
            Field(
                "evidence",
                "--evidence",
                "strs",
                "A node the patch addresses (repeatable).",
                multiple=True,
            ),
            _ARTIFACTS,
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
            _actor("created_by", "--created-by", "The patch's author"),
        ),
    ),
    Kind(
        "eval",
        "record_eval",
        "Record an eval result: eval.finished + CreateNode eval "
        "(and patch -validated_by-> eval). Needs an open run.",
        (
            _id("eval_id", "eval", "eval"),
            Field("command", "--command", "str", "The command that was run.", required=True),
            _status(P.EVAL_STATUSES),
            Field("score", "--score", "float", "A score, a number (default: null)."),
            Field("patch", "--patch", "str", "The patch this eval validates."),
            _META,
        ),
    ),
    Kind(
        "decision",
        "record_decision",
        "Record a decision: decision.created + CreateNode decision; with a target, "
        "target -approved_by|rejected_by|references-> decision. Allowed outside a run.",
        (
            _id("decision_id", "decision", "decision"),
            _status(P.DECISION_STATUSES),
            Field("reason", "--reason", "str", "Why it was decided.", required=True),
            Field("target", "--target", "str", "The node the decision is about."),
            _actor("decided_by", "--decided-by", "Who decided"),
            _META,
        ),
    ),
    Kind(
        "frame",
        "record_frame",
        "Record a frame: frame.created + CreateNode frame "
        "(and frame -contained_in_frame-> parent). Allowed outside a run.",
        (
            _id("frame_id", "frame", "frame"),
            _TITLE,
            _SUMMARY,
            Field("parent", "--parent", "str", "The enclosing frame (contained_in_frame)."),
            _META,
        ),
    ),
    _status_kind("goal", P.GOAL_STATUSES),
    _status_kind("task", P.TASK_STATUSES),
    _status_kind("patch", P.PATCH_STATUSES),
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
            _id("node_id", "call node", "node"),
            _META,
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
            _META,
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
            _id("node_id", "call node", "node"),
            _META,
            _actor("actor", "--actor", "The actor of both events, e.g. tool:cargo"),
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
            _ARTIFACTS,
            _id("node_id", "snapshot node", "node"),
            _META,
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

BY_NAME = {kind.name: kind for kind in KINDS}


# -- parsing and coercion --------------------------------------------------------------------


def _bad(where: str, what: str, hint: str | None = None) -> GaspError:
    return GaspError(f"{where}: {what}", hint or PAYLOAD_HINT, USAGE)


def parse_json(text: str, where: str) -> Any:
    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        return json.loads(text, parse_constant=constant)
    except (ValueError, RecursionError) as exc:
        raise _bad(where, f"not valid JSON ({exc})", "quote the value for the shell") from None


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _bad(where, f"must be a string, not {type(value).__name__}")
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(where, f"must be a JSON object, not {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(where, f"must be a JSON array, not {type(value).__name__}")
    return value


def _keys(
    value: dict[str, Any], allowed: Sequence[str], required: Sequence[str], where: str
) -> None:
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise _bad(where, f"unknown key {unknown[0]!r}", f"known keys: {', '.join(allowed)}")
    for key in required:
        if value.get(key) is None:
            raise _bad(where, f"needs {key!r}")


def artifact(value: Any, where: str) -> dict[str, Any]:
    """An ArtifactRef with absent ``hash``/``summary``/``metadata`` filled in."""
    obj = _object(value, where)
    _keys(obj, ("kind", "uri", "hash", "summary", "metadata"), ("kind", "uri"), where)
    text = {k: _opt_str(obj, k, where) for k in ("kind", "uri", "hash", "summary")}
    return P.artifact(
        str(text["kind"]), str(text["uri"]), text["hash"], text["summary"], obj.get("metadata")
    )


def project(value: Any, where: str) -> dict[str, Any]:
    obj = _object(value, where)
    _keys(obj, ("repo", "branch", "commit", "worktree"), ("repo",), where)
    text = {k: _opt_str(obj, k, where) for k in ("repo", "branch", "commit", "worktree")}
    return runpayloads.project_ref(
        str(text["repo"]), text["branch"], text["commit"], text["worktree"]
    )


def _opt_str(obj: dict[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    return None if value is None else _str(value, f"{where} {key}")


def actor(value: Any, where: str) -> Actor:
    if isinstance(value, dict):
        _keys(value, ("kind", "id"), ("kind", "id"), where)
        return Actor(_str(value["kind"], where), _str(value["id"], where))
    kind, sep, ident = _str(value, where).partition(":")
    if not (sep and kind and ident):
        raise _bad(where, f"{value!r} is not KIND:ID", "e.g. agent:evolve or user:alice")
    return Actor(kind, ident)


def _float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(where, f"must be a number, not {type(value).__name__}")
    if not math.isfinite(value):
        raise _bad(where, "must be a finite number")
    return float(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(where, f"must be true or false, not {type(value).__name__}")
    return value


_ONE: dict[str, Callable[[Any, str], Any]] = {
    "str": _str,
    "float": _float,
    "bool": _bool,
    "json": lambda value, where: value,
    "object": _object,
    "actor": actor,
    "project": project,
    "strs": _str,
    "objects": _object,
    "ops": _object,
    "artifacts": artifact,
}


_COMPOSITES: dict[str, Callable[[Any, str], Any]] = {"project": project, "artifact": artifact}


def coerce(field: Field, value: Any, where: str) -> Any:
    """Check ``value`` (from JSON or a flag) against ``field``'s type."""
    one = _ONE[field.type]
    if field.type in _LIST_TYPES:
        items = [one(item, f"{where}[{i}]") for i, item in enumerate(_list(value, where))]
        if field.type == "ops":
            try:
                parse_ops(items)
            except OpsError as exc:
                raise _bad(
                    where, f"not state ops: {exc}", f"each op is one of {OP_NAMES}"
                ) from None
        return items
    value = one(value, where)
    if field.choices and value not in field.choices:
        raise GaspError(
            f"{where}: {value!r} is not a valid status",
            f"use one of: {', '.join(field.choices)}",
            USAGE,
        )
    return value


def _flag_value(field: Field, raw: Any) -> Any:
    """A flag's value as the JSON it stands for (JSON flags are parsed here)."""
    if field.type not in JSON_TYPES:
        return list(raw) if field.multiple else raw
    if field.multiple:
        return [parse_json(text, field.flag) for text in raw]
    return parse_json(raw, field.flag)


def arguments(kind: Kind, payload_json: str | None, flags: Mapping[str, Any]) -> dict[str, Any]:
    """The helper's keyword arguments: ``--payload-json`` merged with the flags."""
    given: dict[str, Any] = {}
    if payload_json is not None:
        given = _object(parse_json(payload_json, "--payload-json"), "--payload-json")
    _keys(
        given, list(dict.fromkeys(f.name.split(".")[0] for f in kind.fields)), (), "--payload-json"
    )
    given = {k: v for k, v in given.items() if v is not None}  # null: the default
    for top in {f.name.split(".")[0] for f in kind.fields if "." in f.name}:
        given[top] = dict(_object(given.get(top, {}), f"--payload-json key {top!r}"))
    for field in kind.fields:
        raw = flags.get(field.dest)
        if raw is not None and not (field.multiple and not raw):
            _put(given, field.name, coerce(field, _flag_value(field, raw), field.flag))
        elif _get(given, field.name) is None and field.required:
            raise _missing(kind, field)
        elif "." not in field.name and field.name in given:
            given[field.name] = coerce(field, given[field.name], _where(field))
    for top, normalize in _COMPOSITES.items():
        if top in given and any(f.name.startswith(top + ".") for f in kind.fields):
            given[top] = normalize(given[top], f"--payload-json key {top!r}")
    for field in kind.fields:
        if field.flag == "--id" and not field.required:
            given.setdefault(field.name, None)  # the helper generates one
    return given


def _get(given: dict[str, Any], name: str) -> Any:
    top, _, key = name.partition(".")
    return given.get(top) if not key else given[top].get(key)


def _put(given: dict[str, Any], name: str, value: Any) -> None:
    top, _, key = name.partition(".")
    if key:
        given[top][key] = value
    else:
        given[top] = value


def _where(field: Field) -> str:
    return f"--payload-json key {field.name!r}"


def _missing(kind: Kind, field: Field) -> GaspError:
    top, _, key = field.name.partition(".")
    key_text = f'"{top}": {{"{key}": …}}' if key else f'"{top}"'
    how = f"give {field.flag}" if not field.positional else f"give {field.flag} as an argument"
    return GaspError(
        f"record {kind.name} needs {field.flag}", f"{how}, or {key_text} in --payload-json", USAGE
    )


# -- the one call ----------------------------------------------------------------------------


class _Capturing(Agent):
    """An :class:`Agent` that remembers the ids of the events it appends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.appended: list[str] = []
        super().__init__(*args, **kwargs)

    def append(self, events: Sequence[Event]) -> None:
        super().append(events)
        self.appended.extend(e.id for e in events)


def record(
    root: str, worker: str | None, kind: Kind, kwargs: dict[str, Any], allow_missing: bool = False
) -> Made:
    """Open ``root``, call ``kind``'s helper once, and report what it appended;
    an id that names no node is refused unless ``allow_missing``."""
    agent = _Capturing.open(root, worker=worker)
    assert isinstance(agent, _Capturing)
    with agent:
        if not allow_missing:
            _refuse_unknown_references(agent, kind, kwargs)
        try:
            result = getattr(agent, kind.method)(**kwargs)
        except GaspError as exc:
            exc.hint = exc.hint or f"see: git gasp record {kind.name} --help"
            raise
    return Made(str(kwargs[kind.id_from] if kind.id_from else result), agent.appended)


#: The arguments that name an existing node (they become relations).
REFERENCES = frozenset(
    {"goal", "explains", "patch", "target", "parent", "observed_in", "evidence", "source"}
)


def _refuse_unknown_references(agent: Agent, kind: Kind, kwargs: dict[str, Any]) -> None:
    """A relation to an id no node has is legal in the log (the reference
    folds it), but from a flag it is almost always a typo that could never
    be taken back: refused, with the nearest ids."""
    for field in kind.fields:
        value = kwargs.get(field.name) if field.name in REFERENCES else None
        for ident in value if isinstance(value, list | tuple) else [value]:
            if isinstance(ident, str) and not agent.names_node(ident):
                raise GaspError(
                    f"{field.flag} {ident}: no node has that id",
                    did_you_mean(ident, agent.graph.nodes)
                    or "record the node first (or pass --allow-missing to link to it anyway)",
                    USAGE,
                )
