"""The hooks git-gasp runs, by name: what the installer writes a shim for and
what ``hooks run`` takes. A module of its own so that a hook's start-up
(:mod:`git_gasp.hooks.dispatch`) does not load the installer."""

from __future__ import annotations

CLIENT_HOOKS = (
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-rewrite",
    "pre-push",
)
SERVER_HOOKS = ("pre-receive", "post-receive")
STDIN_HOOKS = frozenset({"pre-push", "pre-receive", "post-receive", "post-rewrite"})
