"""Writing an agent: the Python API, recording, runs and their boundary commits,
projections, init, repair, snapshots, identity commits and the demo.

May import core, git, store, sessions, hooks (the merge driver, the line cap),
check and restore. The documented API is importable from here
(``from git_gasp.agent import Agent, init_repo, close_run, add_fact``); each name
loads its module only when first used, so importing a submodule stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from git_gasp.agent.api import SYSTEM, Agent
    from git_gasp.agent.ids import new_id
    from git_gasp.agent.init import init_repo
    from git_gasp.agent.projecting import add_fact, read_facts, write_snapshot
    from git_gasp.agent.runs import close_run

__all__ = [
    "SYSTEM",
    "Agent",
    "add_fact",
    "close_run",
    "init_repo",
    "new_id",
    "read_facts",
    "write_snapshot",
]

_HOMES = {
    "SYSTEM": "api",
    "Agent": "api",
    "new_id": "ids",
    "init_repo": "init",
    "add_fact": "projecting",
    "read_facts": "projecting",
    "write_snapshot": "projecting",
    "close_run": "runs",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
