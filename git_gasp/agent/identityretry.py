"""Retrying an identity commit: what an earlier try (refused by a hook, or
killed at any step) left, so that running it again with the same arguments
completes it.

An earlier try may have rewritten ``AGENT.md``'s ``identity_hash`` (its own
leftover, not an edit riding along), appended the approval decision (taken
again, never recorded twice) or made the commit (reported as made, with any
lock file the killed git left).
"""

from __future__ import annotations

import os
from typing import NamedTuple

from git_gasp import git
from git_gasp.core.event import OPS_APPLIED, EventError, parse_event
from git_gasp.store.worktree import EVENTS_PATH

DECISION_KIND = "decision.created"


def message_head(reason: str, approved_by: str) -> str:
    """How the identity commit's message begins; the decision's id follows."""
    return f"identity: {reason}\n\nApproved-By: {approved_by}\nDecision: "


class Made(NamedTuple):
    commit: str
    decision_id: str


def made_already(root: str, reason: str, approved_by: str) -> Made | None:
    """HEAD and its decision, when HEAD is the identity commit these
    arguments make: an earlier try made it (and was killed after, or its git
    was killed once HEAD had moved). Only asked when nothing is staged."""
    head = git.head(root)
    if head is None:
        return None
    message = git.commit_message(root, head)
    start = message_head(reason, approved_by)
    if not message.startswith(start):
        return None
    decision = message[len(start) :].split("\n", 1)[0].strip()
    return Made(head, decision) if decision else None


def manifest_at_head(root: str, manifest: str) -> bytes | None:
    """``manifest``'s bytes at HEAD (None before the first commit, or when
    HEAD has none)."""
    if git.head(root) is None:
        return None
    try:
        return git.run(root, ["cat-file", "blob", f"HEAD:./{manifest}"])
    except git.GitError:
        return None


def same_text(a: bytes, b: bytes) -> bool:
    """Equal, or equal but for CRLF line ends (a checkout's conversion)."""
    return a == b or a.replace(b"\r\n", b"\n") == b.replace(b"\r\n", b"\n")


def pending_decision(root: str, reason: str, approved_by: str) -> str | None:
    """The id of the approval an earlier try appended and no commit holds
    yet (the log after its committed bytes): ``decision.created``, Approved,
    for ``reason``, decided by the user ``approved_by``, with its ops pair."""
    committed = git.committed_sizes(root, [EVENTS_PATH])[0]
    try:
        with open(os.path.join(root, EVENTS_PATH), "rb") as fh:
            fh.seek(committed)
            tail = fh.read()
    except OSError:
        return None
    found: tuple[str, str] | None = None  # the decision's event id and its id
    for line in tail.split(b"\n"):
        try:
            event = parse_event(line.decode("utf-8"))
        except (EventError, UnicodeDecodeError):
            continue
        if event.kind == OPS_APPLIED and found is not None and event.causation_id == found[0]:
            return found[1]
        payload = event.payload if isinstance(event.payload, dict) else {}
        ours = event.kind == DECISION_KIND and payload.get("status") == "Approved"
        ours = ours and payload.get("reason") == reason
        ours = ours and payload.get("decided_by") == {"id": approved_by, "kind": "user"}
        ident = payload.get("id")
        found = (event.id, ident) if ours and isinstance(ident, str) else None
    return None
