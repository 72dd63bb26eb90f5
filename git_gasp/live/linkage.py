"""Which live sessions are open: for the agent repository and for the work tree.

Two records, both local files:

- in the agent repository's live state, ``active/<harness>-<session>.json``
  (``harness``, ``session``, ``cwd``, ``transcript_path``, ``started``): a
  session not yet closed, what a flush needs once its spool is consumed, and
  what the lazy close looks at;
- in the git directory of the work tree the session runs in (its ``cwd``),
  the active session :mod:`git_gasp.sessions.active` hands to the
  ``prepare-commit-msg`` hook, so the commits made there carry
  ``Agent-Session: <harness>:<session>``.

Both are removed when the session's run is closed; then the session notes
(``refs/notes/agent-sessions`` of the work tree's repository) link the
commits made there during the session (those since the work tree's HEAD at
the start that carry the session's trailer): :func:`link_commits`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from git_gasp.live import spool
from git_gasp.sessions import active as worktree_sessions


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def workspace_git_dir(cwd: str) -> str | None:
    """The git directory of the work tree holding ``cwd`` (found without git)."""
    here = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            try:
                return spool.git_dir(here)
            except OSError:
                return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def head_of(git_dir: str) -> str | None:
    """The commit HEAD names, read from the files (no git): a loose ref or
    ``packed-refs`` of the repository (a linked work tree's common directory)."""
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8") as fh:
            head = fh.read().strip()
    except OSError:
        return None
    if not head.startswith("ref: "):
        return head or None
    ref = head[5:]
    common = git_dir
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = os.path.normpath(os.path.join(git_dir, fh.read().strip()))
    except OSError:
        pass
    for where in dict.fromkeys([git_dir, common]):
        try:
            with open(os.path.join(where, ref), encoding="utf-8") as fh:
                return fh.read().strip() or None
        except OSError:
            continue
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8") as fh:
            for line in fh:
                oid, _, name = line.strip().partition(" ")
                if name == ref:
                    return oid
    except OSError:
        pass
    return None


def _active_path(live: str, harness: str, session: str) -> str:
    return os.path.join(live, "active", f"{harness}-{spool.safe_name(session)}.json")


def read_active(live: str, harness: str, session: str) -> dict[str, Any] | None:
    try:
        with open(_active_path(live, harness, session), encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def all_active(live: str) -> list[dict[str, Any]]:
    """Every live session not yet closed, oldest first."""
    folder = os.path.join(live, "active")
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    out = []
    for name in names:
        harness = next((h for h in spool.HARNESSES if name.startswith(h + "-")), None)
        if harness is None or not name.endswith(".json"):
            continue
        value = read_active(live, harness, name[len(harness) + 1 : -len(".json")])
        if value is not None and isinstance(value.get("session"), str):
            out.append(value)
    return sorted(out, key=lambda v: str(v.get("started", "")))


def update_active(
    live: str, agent_repo: str, harness: str, session: str, payloads: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """The session's active record with what ``payloads`` say (the newest
    ``cwd`` and ``transcript_path`` win); the work tree learns it too."""
    value = read_active(live, harness, session) or {
        "harness": harness,
        "session": session,
        "cwd": None,
        "transcript_path": None,
        "started": now(),
    }
    for payload in payloads:
        if value.get("cwd") is None and isinstance(payload.get("cwd"), str):
            where = workspace_git_dir(payload["cwd"])
            value["base"] = head_of(where) if where is not None else None
        for key in ("cwd", "transcript_path"):
            if isinstance(payload.get(key), str) and payload[key]:
                value[key] = payload[key]
        child = payload.get("agent_transcript_path")
        if isinstance(child, str) and child and child not in value.setdefault("children", []):
            value["children"].append(child)  # a subagent's own transcript (Codex: a rollout)
        if payload.get("hook_event_name") == "SessionEnd":
            value["ended"] = True
    _write_active(live, harness, session, value)
    cwd = value.get("cwd")
    where = workspace_git_dir(cwd) if isinstance(cwd, str) else None
    if where is not None and not value.get("ended"):
        worktree_sessions.record(where, harness, session, agent_repo, str(value["started"]))
    return value


def _write_active(live: str, harness: str, session: str, value: Mapping[str, Any]) -> None:
    path = _active_path(live, harness, session)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        json.dump(dict(value), fh)
    os.replace(temporary, path)


def set_run(live: str, harness: str, session: str, run_id: str) -> None:
    """Note the run the session's events went into (``git gasp run close`` asks)."""
    value = read_active(live, harness, session)
    if value is not None and value.get("run_id") != run_id:
        _write_active(live, harness, session, {**value, "run_id": run_id})


def sessions_of_run(root: str, run_id: str) -> list[tuple[str, str]]:
    """The live sessions (harness, id) whose events went into ``run_id``."""
    try:
        live = spool.live_dir(root)
    except OSError:
        return []
    return [
        (str(v["harness"]), str(v["session"]))
        for v in all_active(live)
        if v.get("run_id") == run_id
    ]


def session_closed(live: str, harness: str, session: str) -> None:
    """Forget the session in both places: its run is closed."""
    value = read_active(live, harness, session) or {}
    cwd = value.get("cwd")
    where = workspace_git_dir(cwd) if isinstance(cwd, str) else None
    if where is not None:
        worktree_sessions.clear(where, harness, session)
    try:
        os.remove(_active_path(live, harness, session))
    except FileNotFoundError:
        pass


def stale(sessions: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Sessions a newer session of the same workspace (``cwd``) followed: the
    lazy close's candidates (SessionEnd does not fire in headless runs)."""
    newest: dict[str, Mapping[str, Any]] = {}
    ordered = sorted(sessions, key=lambda v: str(v.get("started", "")))
    for value in ordered:
        if isinstance(value.get("cwd"), str):
            newest[str(value["cwd"])] = value
    return [v for v in ordered if isinstance(v.get("cwd"), str) and newest[str(v["cwd"])] is not v]


def link_commits(value: Mapping[str, Any]) -> list[str]:
    """Note ``{"kind": "session"}`` on each commit of the session's work tree
    made during it (since its HEAD at the start) that carries its trailer."""
    from git_gasp import git
    from git_gasp.core.notes import NoteRecord
    from git_gasp.core.trailers import parse_trailers, sessions_of
    from git_gasp.sessions import notes

    cwd, base = value.get("cwd"), value.get("base")
    if not isinstance(cwd, str) or workspace_git_dir(cwd) is None:
        return []
    ref = f"{value['harness']}:{value['session']}"
    span = f"{base}..HEAD" if isinstance(base, str) and base else "HEAD"
    made = git.commit_messages(cwd, span)
    linked = [c for c, message in made if ref in sessions_of(parse_trailers(message))]
    for commit in linked:
        notes.add_records(cwd, commit, [NoteRecord(ref, "session")])
    return linked
