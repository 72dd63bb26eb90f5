"""The ``gasp-append`` merge driver, defined in a clone's own git configuration.

``.gitattributes`` (written by ``git gasp init``) names it for the journal, but
git configuration is never cloned: a clone without it merges the journal as
text, and two sides' entries conflict. ``init``, ``hooks install`` and
``restore`` define it. The driver is git-gasp's own command, never anything
from the remote.
"""

from __future__ import annotations

import shlex

from git_gasp import git

MERGE_DRIVER = "gasp-append"
#: how a pinned interpreter runs git-gasp: ``-P`` keeps the directory git runs
#: a hook or driver in (the work tree's top) off the module path, so a
#: ``git_gasp/`` folder in a repository can never stand in for the package
RUN_MODULE = "-P -m git_gasp"


def configure_merge_driver(repo: str, python: str | None) -> None:
    """Define the ``gasp-append`` merge driver in ``repo``'s config: run by
    ``python`` (``-P``), or by ``git-gasp`` from PATH (None); see git-gasp-hooks(1)."""
    command = f"{shlex.quote(python)} {RUN_MODULE}" if python else "git-gasp"
    key = f"merge.{MERGE_DRIVER}"
    git.run(repo, ["config", f"{key}.name", "GASP append-only merge (whole entries)"])
    git.run(repo, ["config", f"{key}.driver", f"{command} hooks merge-driver %O %A %B %P"])
