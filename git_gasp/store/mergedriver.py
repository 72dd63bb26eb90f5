"""git-gasp's merge drivers, defined in a clone's own git configuration.

``.gitattributes`` (written by ``git gasp init``) names ``gasp-append`` for the
journal and ``gasp-projection`` for the active memory, but git configuration is
never cloned: a clone without them merges those files as text, and two sides'
changes conflict. ``init``, ``hooks install`` and ``restore`` define them. A
driver is git-gasp's own command, never anything from the remote.
"""

from __future__ import annotations

import shlex

from git_gasp import git

MERGE_DRIVER = "gasp-append"
PROJECTION_DRIVER = "gasp-projection"
#: how a pinned interpreter runs git-gasp: ``-P`` keeps the directory git runs
#: a hook or driver in (the work tree's top) off the module path, so a
#: ``git_gasp/`` folder in a repository can never stand in for the package
RUN_MODULE = "-P -m git_gasp"


_DRIVERS = (
    (MERGE_DRIVER, "GASP append-only merge (whole entries)", ""),
    (PROJECTION_DRIVER, "GASP projection merge (regenerated after)", " --projection"),
)


def configure_merge_driver(repo: str, python: str | None) -> None:
    """Define git-gasp's merge drivers in ``repo``'s config: run by
    ``python`` (``-P``), or by ``git-gasp`` from PATH (None); see git-gasp-hooks(1)."""
    command = f"{shlex.quote(python)} {RUN_MODULE}" if python else "git-gasp"
    for name, title, flag in _DRIVERS:
        key = f"merge.{name}"
        git.run(repo, ["config", f"{key}.name", title])
        driver = f"{command} hooks merge-driver{flag} %O %A %B %P"
        git.run(repo, ["config", f"{key}.driver", driver])
