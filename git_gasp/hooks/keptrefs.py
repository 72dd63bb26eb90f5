"""Whether a push that deletes a ref or moves it off its old tip drops
anything: the old tip's history is dropped only when no ref the push keeps
still reaches it, whatever the refs' namespace (``refs/heads/``,
``refs/tags/``, ``refs/agents/``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

from git_gasp import git
from git_gasp.hooks.protocol import ZERO, Update
from git_gasp.hooks.tips import is_ancestor


def held_elsewhere(repo: str, old: str, updates: Sequence[Update]) -> bool:
    """A ref that stays after the push (one it does not touch, or one it
    moves to a tip that reaches ``old``) holds ``old``'s commit."""
    try:
        commit = git.run(repo, ["rev-parse", "--verify", "-q", f"{old}^{{commit}}"])
    except git.GitError:
        return False
    oid = commit.decode("ascii", "replace").strip()
    touched = {u.ref for u in updates}
    out = git.run(repo, ["for-each-ref", "--format=%(refname)", f"--contains={oid}"])
    refs = out.decode("utf-8", "surrogateescape").splitlines()
    if any(ref not in touched for ref in refs):
        return True
    return any(u.new not in ZERO and is_ancestor(repo, oid, u.new) for u in updates)
