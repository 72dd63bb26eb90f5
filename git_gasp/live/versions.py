"""Which harness version is in use, and the versions the projectors were tested on.

The version seen last is ``<git dir>/gasp/live/seen-<harness>.json`` of the agent
repository (the flush writes it from the transcript); before any live session,
the newest native transcript says it (Claude Code's ``version`` field, Codex's
``session_meta`` ``cli_version``). Only a bounded head of one file is read.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from git_gasp import git
from git_gasp.adapters.ccformat import TESTED as CLAUDE_TESTED
from git_gasp.adapters.codex import TESTED as CODEX_TESTED
from git_gasp.adapters.files import claude_home
from git_gasp.adapters.lines import version_tuple
from git_gasp.live.settings import CLAUDE, codex_home

TESTED = {CLAUDE: CLAUDE_TESTED, "codex": CODEX_TESTED}
HEAD_BYTES = 64 * 1024
_CLAUDE_VERSION = re.compile(rb'"version"\s*:\s*"([0-9][^"]{0,40})"')
_CODEX_VERSION = re.compile(rb'"cli_version"\s*:\s*"([0-9][^"]{0,40})"')


class Version(NamedTuple):
    text: str | None
    source: str  # "--agent-version", "seen", "transcript" or "unknown"

    @property
    def parsed(self) -> tuple[int, ...] | None:
        return version_tuple(self.text) if self.text else None


def live_dir(repo: str) -> str:
    """The agent repository's live state: ``<git dir>/gasp/live`` (never committed)."""
    try:
        return os.path.join(git.repo_info(repo).git_dir, "gasp", "live")
    except git.GitError:
        return os.path.join(repo, ".git", "gasp", "live")


def seen(repo: str, harness: str) -> dict[str, Any] | None:
    """``seen-<harness>.json``: the version seen last (None when absent or unreadable)."""
    path = os.path.join(live_dir(repo), f"seen-{harness}.json")
    try:
        with open(path, "rb") as fh:
            value = json.loads(fh.read(HEAD_BYTES))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def tested(harness: str) -> str:
    low, high = TESTED[harness]
    return f"{'.'.join(map(str, low))} to {'.'.join(map(str, high))}"


def in_range(harness: str, text: str | None) -> bool | None:
    """Whether ``text`` is a version the projector was tested on (None: unknown)."""
    parsed = version_tuple(text) if text else None
    if parsed is None:
        return None
    low, high = TESTED[harness]
    return low <= parsed <= high


def _newest(top: str, depth: int, suffix: str) -> str | None:
    """The newest file ending in ``suffix`` ``depth`` folders below ``top``."""
    best: tuple[float, str] | None = None
    try:
        entries = list(os.scandir(top))
    except OSError:
        return None
    for entry in entries:
        if depth and entry.is_dir(follow_symlinks=False):
            found = _newest(entry.path, depth - 1, suffix)
            if found is not None:
                when = os.stat(found).st_mtime
                best = max(best or (when, found), (when, found))
        elif not depth and entry.name.endswith(suffix) and entry.is_file(follow_symlinks=False):
            when = entry.stat().st_mtime
            best = max(best or (when, entry.path), (when, entry.path))
    return best[1] if best else None


def transcript_version(harness: str, env: Mapping[str, str]) -> str | None:
    """The version in the newest native transcript, when there is one."""
    if harness == CLAUDE:
        path, pattern = (
            _newest(os.path.join(claude_home(env), "projects"), 1, ".jsonl"),
            _CLAUDE_VERSION,
        )
    else:
        path, pattern = (
            _newest(os.path.join(codex_home(env), "sessions"), 3, ".jsonl"),
            _CODEX_VERSION,
        )
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            found = pattern.search(fh.read(HEAD_BYTES))
    except OSError:
        return None
    return found.group(1).decode("utf-8", "replace") if found else None


def resolve(harness: str, given: str | None, repo: str, env: Mapping[str, str]) -> Version:
    """The harness version hooks are installed for: given, seen last, in the
    newest transcript, else unknown (the newest events)."""
    if given:
        return Version(given, "--agent-version")
    last = seen(repo, harness)
    if last and isinstance(last.get("version"), str):
        return Version(last["version"], "seen")
    found = transcript_version(harness, env)
    return Version(found, "transcript") if found else Version(None, "unknown")
