"""The harnesses' hook settings: where they are, reading, merging and writing them.

Claude Code keeps hooks in ``settings.json`` (project ``.claude/settings.json``,
local ``.claude/settings.local.json``, user ``$CLAUDE_CONFIG_DIR/settings.json``,
else ``~/.claude/settings.json``); Codex in ``hooks.json`` next to a config
layer (project ``.codex/hooks.json``, user ``$CODEX_HOME/hooks.json``, else
``~/.codex/hooks.json``) or inline in that layer's ``config.toml``. Both nest
event -> matcher groups ``{"matcher", "hooks": [handler]}`` -> handler
``{"type": "command", "command", "timeout"}``.

git-gasp's handlers are known by their command alone (``<git-gasp> adapt hook
<harness> --repo <agent repo>``): no marker key is added, since a key the
harness does not know may fail its settings validation. A file is parsed as
JSON and written back whole, keeping its keys in order, its indentation and
every entry that is not git-gasp's; a file that is not valid JSON is refused,
never rewritten.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from typing import Any, NamedTuple

from git_gasp.core.jsonvalue import DuplicateKey, unique_keys
from git_gasp.errors import USAGE, GaspError
from git_gasp.store.writer import write_atomically

CLAUDE = "claude-code"
CODEX = "codex"
HARNESSES = (CLAUDE, CODEX)
SCOPES = {CLAUDE: ("project", "local", "user"), CODEX: ("project", "user")}
PROGRAM_NAMES = ("git-gasp", "git-gasp.exe")


class Wanted(NamedTuple):
    event: str
    since: tuple[int, ...]  # the first harness version with the event
    asynchronous: bool  # the harness need not wait for it (Claude Code's ``async``)
    timeout: int  # seconds


# SessionStart answers with the rehydration document; the turn's own events
# (prompt, stop, compaction, end) are waited for, so a turn's projection sees
# them; tool and subagent events run beside the agent. SessionEnd's timeout
# raises Claude Code's 1.5 s budget for the session's close.
CLAUDE_EVENTS = (
    Wanted("SessionStart", (), False, 10),
    Wanted("UserPromptSubmit", (), False, 10),
    Wanted("PostToolUse", (), True, 30),
    Wanted("PostToolUseFailure", (), True, 30),
    Wanted("Stop", (), False, 30),
    Wanted("StopFailure", (2, 1, 78), False, 30),
    Wanted("SubagentStart", (2, 0, 43), True, 30),
    Wanted("SubagentStop", (), True, 30),
    Wanted("PreCompact", (), False, 10),
    Wanted("PostCompact", (2, 1, 76), True, 30),
    Wanted("PreModelSwitch", (2, 1, 251), True, 10),
    Wanted("PostModelSwitch", (2, 1, 251), True, 10),
    Wanted("SessionEnd", (), False, 30),
)
# Codex runs all its hooks concurrently and caps SessionEnd at 3 s.
CODEX_EVENTS = (
    Wanted("SessionStart", (), False, 10),
    Wanted("UserPromptSubmit", (), False, 10),
    Wanted("PostToolUse", (), False, 30),
    Wanted("Stop", (), False, 30),
    Wanted("SubagentStop", (), False, 30),
    Wanted("PreCompact", (), False, 10),
    Wanted("PostCompact", (), False, 10),
    Wanted("SessionEnd", (), False, 3),
)
EVENTS = {CLAUDE: CLAUDE_EVENTS, CODEX: CODEX_EVENTS}
ASYNC_SINCE = (2, 1, 0)  # Claude Code's ``async`` handlers; before, every hook is waited for


def wanted_events(harness: str, version: tuple[int, ...] | None) -> list[Wanted]:
    """The events installed for ``version`` of the harness (None: the newest)."""
    return [w for w in EVENTS[harness] if version is None or w.since <= version]


def settings_path(harness: str, scope: str, project: str, env: Mapping[str, str]) -> str:
    """The hooks file of ``scope``; ``project``: the top of the work tree."""
    home = os.path.expanduser("~")
    if harness == CLAUDE:
        if scope == "user":
            config = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
            return os.path.join(config, "settings.json")
        name = "settings.local.json" if scope == "local" else "settings.json"
        return os.path.join(project, ".claude", name)
    if scope == "user":
        return os.path.join(codex_home(env), "hooks.json")
    return os.path.join(project, ".codex", "hooks.json")


def codex_home(env: Mapping[str, str]) -> str:
    return env.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


# -- git-gasp's handlers ---------------------------------------------------------


def hook_command(program: str, harness: str, repo: str) -> str:
    """The command line the harness runs (a shell command: every version takes it)."""
    return shlex.join([program, "adapt", "hook", harness, "--repo", repo])


def handler(
    harness: str, wanted: Wanted, command: str, version: tuple[int, ...] | None = None
) -> dict[str, Any]:
    """The handler ``install`` writes for one event (``version``: the harness's, None: newest)."""
    out: dict[str, Any] = {"type": "command", "command": command}
    if harness == CLAUDE and wanted.asynchronous and (version is None or version >= ASYNC_SINCE):
        out["async"] = True
    out["timeout"] = wanted.timeout
    return out


def _words(entry: Mapping[str, Any]) -> list[str]:
    command = entry.get("command")
    if not isinstance(command, str):
        return []
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: not a command git-gasp wrote
        words = command.split()
    args = entry.get("args")
    if isinstance(args, list):
        words += [a for a in args if isinstance(a, str)]
    return words


def ours(entry: object, harness: str) -> bool:
    """Whether a handler is git-gasp's hook for ``harness``."""
    if not isinstance(entry, dict):
        return False
    words = _words(entry)
    return any(
        os.path.basename(word) in PROGRAM_NAMES
        and words[i + 1 : i + 4] == ["adapt", "hook", harness]
        for i, word in enumerate(words)
    )


def hook_repo(entry: Mapping[str, Any]) -> str | None:
    """The agent repository a git-gasp handler names (``--repo``)."""
    words = _words(entry)
    for i, word in enumerate(words):
        if word == "--repo" and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--repo="):
            return word[len("--repo=") :]
    return None


# -- the file --------------------------------------------------------------------


class Settings(NamedTuple):
    path: str
    value: dict[str, Any]  # the parsed object ({} for a missing file)
    indent: int | str | None  # as the file has it (None: all on one line)
    exists: bool


def _refused(path: str, why: str, harness: str) -> GaspError:
    return GaspError(
        f"{path}: {why}; left as is",
        f"fix or move the file aside, then run: git gasp adapt {harness} install",
        USAGE,
    )


def _indent(text: str) -> int | str | None:
    found = re.search(r"\n([ \t]+)\S", text)
    if found is None:
        return None if text.strip() and "\n" not in text.strip() else 2
    return "\t" if found.group(1).startswith("\t") else len(found.group(1))


def read_settings(path: str, harness: str) -> Settings:
    """The hooks file at ``path``; a malformed one is refused with its line."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return Settings(path, {}, 2, False)
    except OSError as exc:
        raise _refused(path, f"cannot read: {exc.strerror}", harness) from None
    try:
        text = data.decode("utf-8-sig")
        value = json.loads(text, object_pairs_hook=unique_keys) if text.strip() else {}
    except UnicodeDecodeError:
        raise _refused(path, "not UTF-8", harness) from None
    except json.JSONDecodeError as exc:
        why = f"line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg})"
        raise _refused(path, why, harness) from None
    except DuplicateKey as exc:  # rewriting the file would drop one of them
        raise _refused(
            path, f"the key {exc.args[0]!r} appears twice in one object", harness
        ) from None
    if not isinstance(value, dict):
        raise _refused(path, "not a JSON object", harness)
    hooks = value.get("hooks", {})
    if not isinstance(hooks, dict):
        raise _refused(path, '"hooks" is not an object of events', harness)
    return Settings(path, value, _indent(text), True)


def groups(settings: Settings, event: str, harness: str) -> list[Any]:
    """The matcher groups of ``event`` (refused when they are not a list of them)."""
    found = settings.value.get("hooks", {}).get(event, [])
    if not isinstance(found, list):
        raise _refused(settings.path, f'"hooks.{event}" is not a list of matcher groups', harness)
    for n, group in enumerate(found):
        if not isinstance(group, dict):
            raise _refused(settings.path, f'"hooks.{event}[{n}]" is not a matcher group', harness)
        if not isinstance(group.get("hooks", []), list):
            where = f'"hooks.{event}[{n}].hooks"'
            raise _refused(settings.path, f"{where} is not a list of hook entries", harness)
    return found


def ours_in(settings: Settings, harness: str) -> dict[str, list[dict[str, Any]]]:
    """git-gasp's handlers in the file, per event (events of other shapes skipped)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for event, found in settings.value.get("hooks", {}).items():
        if not isinstance(found, list):
            continue
        for group in found:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if ours(entry, harness):
                    out.setdefault(event, []).append(entry)
    return out


def render(settings: Settings, value: Mapping[str, Any]) -> bytes:
    return (json.dumps(value, indent=settings.indent, ensure_ascii=False) + "\n").encode()


def write_settings(settings: Settings, value: Mapping[str, Any]) -> None:
    """Replace the file at once (a reader sees the old file or the new); a
    symlinked file (dotfiles) is written where the link leads, the link kept."""
    try:
        write_atomically(os.path.realpath(settings.path), render(settings, value))
    except OSError as exc:
        raise GaspError(f"{settings.path}: cannot write: {exc.strerror}", None, USAGE) from None
