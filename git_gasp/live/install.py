"""``git gasp adapt claude-code|codex install|uninstall``: git-gasp's hook entries.

Install merges one git-gasp handler per event into the harness's hooks file:
an event that has one already has it updated in place, an event without gets
a new matcher group at its end, and every other tool's group, handler and key
stays as it was. Uninstall removes git-gasp's handlers only (and the groups
and events that held nothing else). Both are idempotent.
"""

from __future__ import annotations

import copy
import os
import shutil
import sys
from collections.abc import Mapping
from typing import Any

from git_gasp import git
from git_gasp.errors import USAGE, GaspError
from git_gasp.live import versions
from git_gasp.live.settings import (
    CLAUDE,
    CODEX,
    Settings,
    Wanted,
    codex_home,
    groups,
    handler,
    hook_command,
    ours,
    read_settings,
    settings_path,
    wanted_events,
    write_settings,
)

MATCH_ALL = (None, "", "*")


def program_path() -> str:
    """The git-gasp script running now (the venv's, beside its Python), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "git-gasp")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return os.path.abspath(beside)
    found = shutil.which("git-gasp")
    if found is None:
        raise GaspError(
            "the git-gasp script is not installed, so no hook can run it",
            "install it: pip install git-gasp (or pip install -e . in a clone)",
            USAGE,
        )
    return os.path.abspath(found)


def project_root(cwd: str) -> str:
    """The top of the work tree holding ``cwd`` (``cwd`` itself outside one)."""
    try:
        prefix = git.repo_info(cwd).prefix
    except git.GitError:
        return os.path.abspath(cwd)
    return os.path.abspath(os.path.join(cwd, *[".."] * prefix.count("/")))


def _place(
    settings: Settings, harness: str, wanted: Wanted, desired: dict[str, Any]
) -> tuple[list[Any], str]:
    """The event's groups with git-gasp's handler in them once: where it was
    (in a group that matches everything), else in a new group at the end."""
    out: list[Any] = []
    placed, changed = False, False
    for group in groups(settings, wanted.event, harness):
        entries = group.get("hooks", [])
        kept = []
        for entry in entries:
            if not ours(entry, harness):
                kept.append(entry)
            elif not placed and group.get("matcher") in MATCH_ALL:
                kept.append(desired)
                placed, changed = True, changed or entry != desired
            else:
                changed = True  # a duplicate, or in a group that does not match all
        if kept or not entries:
            out.append({**group, "hooks": kept} if entries else group)
    if not placed:
        out.append({"hooks": [desired]})
    return out, ("updated" if changed else "unchanged") if placed else "added"


def _without_ours(found: list[Any], harness: str) -> tuple[list[Any], bool]:
    """The groups with git-gasp's handlers taken out (groups left empty dropped)."""
    out: list[Any] = []
    removed = False
    for group in found:
        entries = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(entries, list) or not any(ours(e, harness) for e in entries):
            out.append(group)
            continue
        removed = True
        kept = [e for e in entries if not ours(e, harness)]
        if kept:
            out.append({**group, "hooks": kept})
    return out, removed


def merged(
    settings: Settings,
    harness: str,
    wanted: list[Wanted],
    command: str,
    version: tuple[int, ...] | None = None,
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The file's value with git-gasp's handlers installed, and what changed per event."""
    value = copy.deepcopy(settings.value)
    hooks = value.setdefault("hooks", {})
    done: dict[str, list[str]] = {"added": [], "updated": [], "unchanged": [], "removed": []}
    names = {w.event for w in wanted}
    for event in [e for e, found in hooks.items() if e not in names and isinstance(found, list)]:
        kept, removed = _without_ours(hooks[event], harness)
        if removed:
            done["removed"].append(event)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    for w in wanted:
        desired = handler(harness, w, command, version)
        hooks[w.event], what = _place(settings, harness, w, desired)
        done[what].append(w.event)
    return value, done


def removed(settings: Settings, harness: str) -> tuple[dict[str, Any], list[str]]:
    """The file's value without git-gasp's handlers, and the events they were on."""
    value = copy.deepcopy(settings.value)
    hooks = value.get("hooks", {})
    events = []
    for event in [e for e, found in hooks.items() if isinstance(found, list)]:
        kept, gone = _without_ours(hooks[event], harness)
        if gone:
            events.append(event)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if events and not hooks:
        del value["hooks"]
    return value, events


def check_version(given: str | None) -> None:
    from git_gasp.adapters.lines import version_tuple

    if given is not None and version_tuple(given) is None:
        raise GaspError(
            f"--agent-version {given!r} is not a version (N.N.N)",
            "pass the harness's version, e.g. --agent-version 2.1.200 (claude --version)",
            USAGE,
        )


def install(
    harness: str, scope: str, repo: str, cwd: str, env: Mapping[str, str], given: str | None
) -> dict[str, Any]:
    """Install git-gasp's hooks for ``repo`` (absolute) at ``scope``; the report."""
    check_version(given)
    path = settings_path(harness, scope, project_root(cwd), env)
    settings = read_settings(path, harness)
    version = versions.resolve(harness, given, repo, env)
    wanted = wanted_events(harness, version.parsed)
    command = hook_command(program_path(), harness, repo)
    value, done = merged(settings, harness, wanted, command, version.parsed)
    if value != settings.value or not settings.exists:
        write_settings(settings, value)
    _prime(repo)
    return {
        "format": "git-gasp.adapt-install/1",
        "harness": harness,
        "scope": scope,
        "file": path,
        "repo": repo,
        "version": {"version": version.text, "from": version.source},
        "events": done,
        "notes": [*notes(harness, scope, path, env), *linkage_notes(cwd)],
    }


def _prime(repo: str) -> None:
    """Make the rehydration document now: the first SessionStart finds it
    cached instead of folding the log (every flush refreshes it after)."""
    from git_gasp.live import rehydrate

    try:
        rehydrate.refresh(repo)
    except (GaspError, OSError):
        pass  # the first SessionStart makes it, and logs why if it cannot


def uninstall(harness: str, scope: str, cwd: str, env: Mapping[str, str]) -> dict[str, Any]:
    """Remove git-gasp's hooks from the file of ``scope``; the report."""
    path = settings_path(harness, scope, project_root(cwd), env)
    settings = read_settings(path, harness)
    value, events = removed(settings, harness)
    if events:
        write_settings(settings, value)
    return {
        "format": "git-gasp.adapt-uninstall/1",
        "harness": harness,
        "scope": scope,
        "file": path,
        "removed": events,
    }


def notes(harness: str, scope: str, path: str, env: Mapping[str, str]) -> list[str]:
    """What the user still has to do, or should know, after an install."""
    out = []
    if scope == "project":
        out.append(
            f"{path} now holds this machine's paths: keep git-gasp's entries out of commits"
            + (" (or use --scope local)" if harness == CLAUDE else "")
        )
    if harness == CODEX:
        out += [
            "Codex runs a hook only once it is trusted: start Codex here and review them "
            "with /hooks (trust follows the definition: trust again after a re-install)",
            "project hooks load only when Codex trusts the project's .codex/ layer",
        ]
        out += codex_flag_notes(os.path.dirname(path), env)
    return out


def linkage_notes(cwd: str) -> list[str]:
    """Commits made here carry the session only through git-gasp's
    prepare-commit-msg hook: say so when this work tree does not have it."""
    from git_gasp.hooks.install import status

    try:
        state = status(project_root(cwd), ["prepare-commit-msg"])["prepare-commit-msg"]
    except (git.GitError, GaspError):
        return []  # not a work tree (or hooks turned off here): nothing to link
    if state in ("gasp", "gasp+chained", "outdated"):  # an older shim links sessions too
        return []
    top = project_root(cwd)
    return [
        "commits made here carry Agent-Session only through git-gasp's prepare-commit-msg "
        f"hook, which this work tree does not have: git gasp hooks install --repo {top}"
    ]


def codex_flag_notes(layer: str, env: Mapping[str, str]) -> list[str]:
    """Codex before 0.124 needs ``[features] codex_hooks = true``; say so, or that it is off."""
    import tomllib

    for top in dict.fromkeys((layer, codex_home(env))):
        path = os.path.join(top, "config.toml")
        try:
            with open(path, "rb") as fh:
                flag = tomllib.load(fh).get("features", {}).get("codex_hooks")
        except (OSError, tomllib.TOMLDecodeError, AttributeError):
            continue
        if flag is False:
            return [f"{path} turns hooks off (codex_hooks = false): set it to true"]
        if flag is True:
            return []
    return ["Codex before 0.124 also needs [features] codex_hooks = true in config.toml"]
