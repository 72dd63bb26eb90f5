"""Ids an agent repository's writers make and read: a new runtime-shaped id
(:func:`new_id`) and the agent's own id from ``AGENT.md`` (:func:`agent_id_of`)."""

from __future__ import annotations

import os
import uuid


def new_id(prefix: str) -> str:
    """A runtime-shaped id: ``<prefix>_`` + 32 lowercase hex (UUID v4, no hyphens)."""
    return f"{prefix}_{uuid.uuid4().hex}"


def agent_id_of(root: str) -> str | None:
    """``agent_id`` from the first fenced block of AGENT.md, if any."""
    from git_gasp.core.manifest import first_fenced_block

    try:
        with open(os.path.join(root, "AGENT.md"), encoding="utf-8") as fh:
            block = first_fenced_block(fh.read()) or []
    except (OSError, UnicodeDecodeError):
        return None
    for line in block:
        key, _, value = line.strip().partition(":")
        if key == "agent_id" and value.strip():
            return value.strip().strip("'\"")
    return None
