"""Who the caller says it is: the gate of a person's approval (``identity
commit``, and ``record decision`` recording a person's Approved decision)."""

from __future__ import annotations

import os

from git_gasp import git
from git_gasp.core.event import Actor
from git_gasp.errors import FINDINGS, GaspError

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


def refuse_an_agents_approval(root: str, who: Actor) -> None:
    """A person's approval lets identity and Locations change (the hooks
    count no other): recording one takes the gate ``identity commit`` takes,
    a caller that does not declare itself an agent."""
    if actor_kind(root) == "agent":
        raise GaspError(
            f"an agent cannot record an Approved decision by {who.kind}:{who.id}: "
            f"the caller declares itself an agent (${ACTOR_KIND_ENV} or git config "
            f"{ACTOR_KIND_CONFIG})",
            "a person records the approval: git gasp identity commit --approved-by NAME "
            "--reason TEXT, or git gasp record decision --status Approved --reason TEXT "
            "--decided-by user:NAME run by them",
            FINDINGS,
        )
