"""``git gasp adapt status``: what is installed where, for which agent, and how it fares.

Per harness and scope: the hooks file, git-gasp's events in it, the agent
repositories they record into, and drift (git-gasp's entries removed or
changed by hand, compared with what ``install`` would write now). Per agent
repository: the harness version seen last against the projector's tested
range, and the last handler errors (``<git dir>/gasp/live/errors.log``).
Codex's inline ``[hooks]`` in ``config.toml`` are read for git-gasp's entries
too (install writes ``hooks.json`` only). Nothing is written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from git_gasp.errors import GaspError
from git_gasp.live import versions
from git_gasp.live.install import MATCH_ALL, program_path, project_root
from git_gasp.live.settings import (
    CODEX,
    HARNESSES,
    SCOPES,
    handler,
    hook_command,
    hook_repo,
    ours,
    ours_in,
    read_settings,
    settings_path,
    wanted_events,
)

ERRORS_SHOWN = 5
TAIL_BYTES = 16 * 1024


def _entries(hooks: Mapping[str, Any], event: str, harness: str) -> list[tuple[Any, Any]]:
    """git-gasp's handlers on ``event``, each with its group's matcher."""
    found = hooks.get(event)
    return [
        (group.get("matcher"), entry)
        for group in (found if isinstance(found, list) else [])
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for entry in group["hooks"]
        if ours(entry, harness)
    ]


def _drift(harness: str, value: Mapping[str, Any], repo: str, program: str) -> list[str]:
    """git-gasp's entries as they differ from what install would write for ``repo``."""
    version = versions.resolve(harness, None, repo, {})
    hooks = value.get("hooks", {})
    wanted = wanted_events(harness, version.parsed)
    names = {w.event for w in wanted}
    out = [
        f"{event}: newer than {harness} {version.text}, seen last (run install again)"
        for event in hooks
        if version.text and event not in names and _entries(hooks, event, harness)
    ]
    for w in wanted:
        if version.text is None and w.since and w.event not in hooks:
            continue  # a newer event, for a version not known: install may have left it out
        desired = handler(harness, w, hook_command(program, harness, repo), version.parsed)
        found = _entries(hooks, w.event, harness)
        if not found:
            out.append(f"{w.event}: removed")
        elif len(found) > 1:
            out.append(f"{w.event}: {len(found)} entries")
        elif found[0][0] not in MATCH_ALL:
            out.append(f"{w.event}: limited to matcher {found[0][0]!r}")
        elif found[0][1] != desired:
            keys = sorted(
                k for k in {*desired, *found[0][1]} if desired.get(k) != found[0][1].get(k)
            )
            out.append(f"{w.event}: changed ({', '.join(keys)})")
    return out


def _file(harness: str, scope: str, path: str, program: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"scope": scope, "file": path, "exists": os.path.exists(path)}
    try:
        settings = read_settings(path, harness)
    except GaspError as exc:
        return {**entry, "error": exc.message, "events": [], "repos": [], "drift": []}
    found = ours_in(settings, harness)
    repos = sorted({r for es in found.values() for e in es if (r := hook_repo(e)) is not None})
    drift = [
        f"{r}: {d}" if len(repos) > 1 else d
        for r in repos
        for d in _drift(harness, settings.value, r, program)
    ]
    return {**entry, "events": sorted(found), "repos": repos, "drift": drift}


def _inline_codex(layer: str) -> list[str]:
    """Events of git-gasp's entries inline in a Codex layer's ``config.toml``."""
    import tomllib

    try:
        with open(os.path.join(layer, "config.toml"), "rb") as fh:
            hooks = tomllib.load(fh).get("hooks", {})
    except (OSError, tomllib.TOMLDecodeError):
        return []
    if not isinstance(hooks, dict):
        return []
    return sorted(
        event
        for event, found in hooks.items()
        if isinstance(found, list)
        and any(
            ours(e, CODEX) for g in found if isinstance(g, dict) for e in g.get("hooks", []) or []
        )
    )


def errors_tail(repo: str, count: int = ERRORS_SHOWN) -> list[dict[str, Any]]:
    """The last handler errors logged for ``repo`` (newest last), the rotated
    ``errors.log.1`` first."""
    path = os.path.join(versions.live_dir(repo), "errors.log")
    lines: list[bytes] = []
    for name in (f"{path}.1", path):
        try:
            with open(name, "rb") as fh:
                fh.seek(max(0, os.fstat(fh.fileno()).st_size - TAIL_BYTES))
                lines = [*lines, *fh.read().splitlines()[1 if fh.tell() > TAIL_BYTES else 0 :]]
        except OSError:
            continue
    out = []
    for line in lines[-count:]:
        try:
            value = json.loads(line)
        except ValueError:
            value = {"error": line.decode("utf-8", "replace")}
        out.append(value if isinstance(value, dict) else {"error": str(value)})
    return out


def _repo(harness: str, repo: str) -> dict[str, Any]:
    last = versions.seen(repo, harness) or {}
    text = last.get("version") if isinstance(last.get("version"), str) else None
    return {
        "repo": repo,
        "exists": os.path.isfile(os.path.join(repo, "AGENT.md")),
        "seen": {**last, "version": text},
        "tested": versions.tested(harness),
        "in_tested_range": versions.in_range(harness, text),
        "errors": errors_tail(repo),
    }


def status(cwd: str, env: Mapping[str, str], extra_repo: str | None) -> dict[str, Any]:
    """The report of ``adapt status`` for the work tree holding ``cwd``."""
    project = project_root(cwd)
    try:
        program = program_path()
    except GaspError:
        program = "git-gasp"
    agents = []
    for harness in HARNESSES:
        files = [
            _file(harness, s, settings_path(harness, s, project, env), program)
            for s in SCOPES[harness]
        ]
        if harness == CODEX:
            for f in files:
                f["inline_config_toml"] = _inline_codex(os.path.dirname(f["file"]))
        named = {r for f in files for r in f["repos"]}
        repos = sorted(named | {extra_repo} if extra_repo else named)
        agents.append(
            {
                "harness": harness,
                "installed": any(f["events"] or f.get("inline_config_toml") for f in files),
                "files": files,
                "repos": [_repo(harness, r) for r in repos],
            }
        )
    return {"format": "git-gasp.adapt-status/1", "project": project, "agents": agents}


def _file_line(f: Mapping[str, Any]) -> list[str]:
    head = f"  {f['scope']:<8}{f['file']}"
    if f.get("error"):
        return [f"{head}: unreadable: {f['error']}"]
    toml = f.get("inline_config_toml") or []
    inline = [f"          also inline in config.toml: {', '.join(toml)}"] if toml else []
    if not f["events"]:
        return [f"{head}: {'nothing of git-gasp' if f['exists'] else 'no file'}", *inline]
    repos = ", ".join(f["repos"]) or "no --repo"
    lines = [f"{head}: {len(f['events'])} events, for {repos}"]
    return [*lines, *(f"          drift: {d}" for d in f["drift"]), *inline]


def _repo_lines(r: Mapping[str, Any]) -> list[str]:
    seen = r["seen"]
    if seen.get("version") is None:
        version = "no version seen yet"
    else:
        where = {True: "inside", False: "OUTSIDE", None: "unknown against"}[r["in_tested_range"]]
        version = f"version seen last {seen['version']} ({seen.get('ts') or '?'}), {where}"
        version += f" the tested range {r['tested']}"
    lines = [f"  agent {r['repo']}{'' if r['exists'] else ' (not an agent repository)'}"]
    lines.append(f"          {version}")
    if not r["errors"]:
        lines.append("          handler errors: none")
    for e in r["errors"]:
        lines.append(f"          error {e.get('ts', '?')} {e.get('event', '?')}: {e.get('error')}")
    return lines


def status_text(report: Mapping[str, Any]) -> str:
    """``adapt status`` for people: one block per harness."""
    lines = []
    for agent in report["agents"]:
        state = "installed" if agent["installed"] else "not installed"
        lines.append(f"{agent['harness']}: {state}")
        for f in agent["files"]:
            lines += _file_line(f)
        for r in agent["repos"]:
            lines += _repo_lines(r)
    return "\n".join(lines)
