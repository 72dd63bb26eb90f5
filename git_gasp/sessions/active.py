"""The agent sessions active in a work tree, for the ``prepare-commit-msg`` hook.

A live adapter records each session it sees start in the work tree's git
directory (``<gitdir>/gasp/active-sessions/<harness>-<session>.json``, local,
never committed) and removes it when the session is closed. A commit made
meanwhile carries ``Agent-Session: <harness>:<session>``: the one the
harness's own variable names (``CLAUDE_CODE_SESSION_ID``, ``CODEX_THREAD_ID``,
set in the shells the agents run, adapters.md §1.2, §3.6) when it is active,
none when it names a session that is not (another harness session's commit is
never another's), else the newest. A commit made with no active session gets none.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

FOLDER = os.path.join("gasp", "active-sessions")
#: the variable each harness sets in the shells it runs
SESSION_VARS = (("CLAUDE_CODE_SESSION_ID", "claude-code"), ("CODEX_THREAD_ID", "codex"))


def _path(git_dir: str, harness: str, session: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session)[:128]
    return os.path.join(git_dir, FOLDER, f"{harness}-{safe}.json")


def record(git_dir: str, harness: str, session: str, agent_repo: str, started: str) -> str:
    """Say ``harness:session`` is active in the work tree of ``git_dir``."""
    path = _path(git_dir, harness, session)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    value = {
        "ref": f"{harness}:{session}",
        "harness": harness,
        "session": session,
        "agent_repo": agent_repo,
        "started": started,
    }
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        json.dump(value, fh)
    os.replace(temporary, path)
    return path


def clear(git_dir: str, harness: str, session: str) -> None:
    try:
        os.remove(_path(git_dir, harness, session))
    except FileNotFoundError:
        pass


def active(git_dir: str) -> list[dict[str, Any]]:
    """The active sessions of the work tree, newest first."""
    folder = os.path.join(git_dir, FOLDER)
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                value = json.load(fh)
        except (OSError, ValueError):
            continue
        if isinstance(value, dict) and isinstance(value.get("ref"), str):
            out.append(value)
    return sorted(out, key=lambda v: str(v.get("started", "")), reverse=True)


def session_for(git_dir: str, env: Mapping[str, str]) -> str | None:
    """The ``Agent-Session`` reference a commit in this work tree carries, if any."""
    sessions = active(git_dir)
    if not sessions:
        return None
    refs = [str(s["ref"]) for s in sessions]
    for var, harness in SESSION_VARS:
        named = env.get(var, "").strip()
        if named:  # the commit is made inside that session: it, or none at all
            return f"{harness}:{named}" if f"{harness}:{named}" in refs else None
    return refs[0]
