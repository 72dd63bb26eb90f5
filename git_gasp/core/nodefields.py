"""What a person reads about a node: its title, its status, the fields its
kind carries (a decision's reason, an eval's command and score, a tool
call's tool, input, output and success, ...), and the tone of its status
(good, bad or open) that the read side colours it by.

Every function takes a :class:`~git_gasp.core.graph.Node` and reads its
props defensively: props of another shape (a list, a number) give the
defaults, never an error.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from git_gasp.core.graph import Node

Tone = Literal["good", "bad", "open"]

#: Statuses read as a success (green) and as a failure (red); all others are open.
GOOD = frozenset({"Promoted", "Passed", "Approved", "Satisfied", "Done", "succeeded"})
BAD = frozenset({"Rejected", "Failed", "Abandoned", "Conflicted", "failed"})
#: Run outcomes, by tone (the runtime's and the generator's words).
GOOD_OUTCOMES = frozenset({"promoted", "done", "passed", "merged", "succeeded", "ok"})
BAD_OUTCOMES = frozenset({"rejected", "failed", "error", "aborted", "crashed"})

#: The props shown for each kind, in order, with the label they are shown under.
# A table: one row per kind of the baseline vocabulary (REFERENCE §4).
FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "goal": (("summary", "summary"), ("owner", "owner")),
    "task": (("summary", "summary"), ("goal", "goal"), ("created_by", "created by")),
    "run": (("task", "task"), ("outcome", "outcome")),
    "observation": (("summary", "summary"),),
    "failure": (("summary", "summary"),),
    "hypothesis": (("summary", "summary"), ("confidence", "confidence")),
    "patch": (
        ("summary", "summary"),
        ("status_reason", "status reason"),
        ("references_commit", "commit"),
        ("base_project_ref", "base"),
    ),
    "eval": (("command", "command"), ("score", "score")),
    "decision": (("reason", "reason"), ("decided_by", "decided by")),
    "model_call": (
        ("model", "model"),
        ("prompt_summary", "prompt"),
        ("output_summary", "output"),
        ("metadata", "usage"),
    ),
    "tool_call": (
        ("tool", "tool"),
        ("input_summary", "input"),
        ("output_summary", "output"),
        ("success", "success"),
    ),
}


def props(node: Node) -> dict[str, Any]:
    return node.props if isinstance(node.props, dict) else {}


def title(node: Node) -> str:
    """The node's title; a run's task, an eval's command, a call's tool or
    model, a decision's reason, a summary; else its id."""
    p = props(node)
    for key in ("title", "task", "command", "tool", "model", "reason", "summary"):
        value = p.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return node.id


def status(node: Node) -> str | None:
    """The ``status`` prop; a tool call's success as ``succeeded``/``failed``;
    a run's outcome once finished. None when the node has none."""
    p = props(node)
    if node.kind == "tool_call" and isinstance(p.get("success"), bool):
        return "succeeded" if p["success"] else "failed"
    if node.kind == "run" and isinstance(p.get("outcome"), str):
        return str(p["outcome"])
    value = p.get("status")
    return value if isinstance(value, str) else None


def tone(node: Node) -> Tone:
    shown = status(node)
    if shown is None:
        return "open"
    if node.kind == "run":
        return outcome_tone(shown)
    return "good" if shown in GOOD else "bad" if shown in BAD else "open"


def outcome_tone(outcome: str | None) -> Tone:
    word = (outcome or "").lower()
    return "good" if word in GOOD_OUTCOMES else "bad" if word in BAD_OUTCOMES else "open"


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 1)].rstrip() + "…"


def describe(value: Any) -> str:
    """A prop value as one line: strings as they are, an actor as ``kind:id``,
    booleans as yes/no, a usage map as its token counts, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and set(value) == {"kind", "id"}:
        return f"{value['kind']}:{value['id']}"
    if isinstance(value, dict) and isinstance(value.get("usage"), dict):
        usage = value["usage"]
        return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(usage.items()))
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def fields(node: Node) -> list[tuple[str, str]]:
    """(label, text) for each prop the node's kind shows that is set."""
    p = props(node)
    out: list[tuple[str, str]] = []
    for key, label in FIELDS.get(node.kind, (("summary", "summary"),)):
        value = p.get(key)
        if value is None or value == "" or value == {}:
            continue
        if key == "metadata" and not (isinstance(value, dict) and "usage" in value):
            continue
        out.append((label, describe(value)))
    return out


def label(node: Node | None, node_id: str, width: int = 40) -> str:
    """``title (kind, status)`` for a list line, the title shortened."""
    if node is None:
        return f"{node_id} (not a node)"
    shown = status(node)
    kind = f"{node.kind}, {shown}" if shown else node.kind
    return f"{shorten(title(node), width)} ({kind})"
