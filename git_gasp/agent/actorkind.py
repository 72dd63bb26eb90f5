"""Who the caller says it is: the gate of a person's approval (``identity
commit``, and ``record decision`` recording a person's Approved decision)."""

from __future__ import annotations

import os

from git_gasp import git

ACTOR_KIND_ENV = "GASP_ACTOR_KIND"
ACTOR_KIND_CONFIG = "gasp.actorKind"


def actor_kind(root: str) -> str | None:
    """Who the caller says it is: ``$GASP_ACTOR_KIND``, else ``git config gasp.actorKind``."""
    kind = os.environ.get(ACTOR_KIND_ENV)
    if kind is None or not kind.strip():  # set but blank: not a declaration
        try:
            kind = git.run(root, ["config", "--get", ACTOR_KIND_CONFIG]).decode().strip()
        except git.GitError:
            kind = None
    if kind is None:
        return None
    return kind.strip().lower() or None
