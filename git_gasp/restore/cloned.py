"""What a fresh clone shows before it is restored: whether it holds an agent.

A clone with nothing checked out says why (no commits at all, or a HEAD
naming a branch the remote lacks); one without ``AGENT.md`` at its top names
no agent. The clone is then discarded, so each error names the URL.
"""

from __future__ import annotations

import os
import shlex

from git_gasp import git
from git_gasp.errors import USAGE, GaspError
from git_gasp.restore.repofiles import MANIFEST


def refuse_no_agent(url: str, dest: str) -> None:
    """A clone without ``AGENT.md`` at its top: the URL names no agent (the
    clone is then discarded, so the error names the URL, not the directory).
    A clone with nothing checked out says why: no commits at all, or a HEAD
    naming a branch the remote lacks (a bare repository made with one default
    branch name and pushed another), with the branches it has."""
    if git.head(dest) is None:
        listed = git.run(dest, ["for-each-ref", "--format=%(refname:lstrip=3)", "refs/remotes/"])
        branches = [b for b in listed.decode("utf-8", "replace").split("\n") if b and b != "HEAD"]
        if not branches:
            raise GaspError(
                f"{url}: an empty repository (no commits): no agent to restore",
                "push an agent to it first (git gasp init makes one), or give another URL",
                USAGE,
            )
        shown = ", ".join(branches[:5]) + (" ..." if len(branches) > 5 else "")
        raise GaspError(
            f"{url}: its HEAD names no branch it has; its branches: {shown}",
            f"name one: git gasp restore --branch {shlex.quote(branches[0])} "
            f"{shlex.quote(url)} DIR",
            USAGE,
        )
    if not os.path.lexists(os.path.join(dest, MANIFEST)):
        raise GaspError(
            f"{url}: no {MANIFEST} at its top: not a GASP agent repository",
            "give the URL of an agent repository (`git gasp fixture DIR` writes one to try)",
            USAGE,
        )
