"""What the SessionStart handler hands the agent: its rehydration document.

The document is the agent repository's budgeted ``--context`` document (as
``git gasp status --context`` writes it: identity, the skill index, active
memory and facts, open goals and tasks, the last runs with their outcomes),
cut to :data:`BUDGET` characters (less when its JSON form, escapes counted,
would pass the 10,000 the hook protocol keeps of a hook's output,
adapters.md §1.4). It goes out in the protocol's form,
the same for Claude Code and Codex (§3.6)::

    {"hookSpecificOutput": {"hookEventName": "SessionStart",
                            "additionalContext": "<the document>"}}

``git config gasp.live.rehydrate false`` in the agent repository turns it
off (the handler then prints nothing).

Folding a 600-run log takes about a second, over the half second a session
start may take, so the document is cached in the live state
(``context.json``), keyed by what it is made of as the file system shows it
without git: HEAD and the branch it names, the index, the event log,
AGENT.md, the memory files, the identity and skills folders, and the git
config files that may turn it off (whether it is on is kept with it, so a
session start runs no git). Every flush refreshes it
(:func:`refresh`), and ``adapt install`` makes it, so a session start finds
it ready. When the repository changed otherwise since (an import, a commit),
the session start makes it again in a detached process and waits for it
until :data:`WAIT` seconds after the handler started; past that it hands out
the document kept, saying it is older, and the next session start finds the
new one. Only with no document
kept at all (never installed, never flushed) does it wait for the fold.
"""

from __future__ import annotations

import json
import os
import time

from git_gasp.live import linkage, spool

BUDGET = 9000  # characters of the document, under the protocol's 10,000
WORK_TREE = (  # files (and folders: an entry added or removed) the document reads
    "memory/facts.jsonl",
    "memory/active_memory.md",
    "identity",
    "skills",
    ".agent/config.toml",
)
WAIT = 0.3  # seconds after the handler's start that a session start waits for a new document
STALE = (
    "(This document was made before the agent repository last changed; "
    "the current one is being made for the next session: git gasp status --context shows it.)\n\n"
)
OUTPUT_CAP = 10_000  # characters of a hook's output the protocol keeps
CONFIG_KEY = "gasp.live.rehydrate"


def enabled(repo: str) -> bool:
    from git_gasp import git

    value = git.config_value(repo, CONFIG_KEY, "bool")
    return value != "false"


def document(repo: str, budget: int = BUDGET) -> str:
    """The agent's budgeted context document."""
    from git_gasp.restore.restoring import describe

    return describe(repo, local=True, budget=budget).context


def cache_key(repo: str) -> str:
    """What the document depends on, as stat and HEAD show it (no git run)."""
    git_dir = spool.git_dir(repo)
    parts = []
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8") as fh:
            head = fh.read().strip()
    except OSError:
        head = "-"
    parts.append(head)
    watched = [os.path.join(git_dir, "index"), os.path.join(git_dir, "packed-refs")]
    if head.startswith("ref: "):
        watched.append(os.path.join(git_dir, head[5:]))
    watched += [os.path.join(repo, "state", "events.jsonl"), os.path.join(repo, "AGENT.md")]
    # what the document reads from the work tree, committed or not (a fact added)
    watched += [os.path.join(repo, *part.split("/")) for part in WORK_TREE]
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    watched += [
        os.path.join(git_dir, "config"),
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
    ]
    for path in watched:
        try:
            st = os.stat(path)
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


def _cache_path(repo: str) -> str:
    return os.path.join(spool.live_dir(repo), "context.json")


def _kept(repo: str) -> dict[str, object] | None:
    """The cache as kept (any key), None when there is none."""
    try:
        with open(_cache_path(repo), encoding="utf-8") as fh:
            kept = json.load(fh)
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) and isinstance(kept.get("text"), str) else None


def cached_document(repo: str, deadline: float | None = None) -> str | None:
    """The document (None when turned off), from the cache when its key still
    holds, else made (and kept). When only an older document is kept, it is
    made again in a detached process, waited for until ``deadline``
    (``time.monotonic()``; default :data:`WAIT` from now), and the older one
    (marked :data:`STALE`) handed out if it is not ready by then."""
    key = cache_key(repo)
    kept = _kept(repo)
    if kept is not None and kept.get("key") == key:
        return str(kept["text"]) if kept.get("enabled", True) else None
    if kept is None or not kept.get("text") or not enabled(repo):
        return refresh(repo, key)
    _refresh_detached(repo, key)
    deadline = time.monotonic() + WAIT if deadline is None else deadline
    while time.monotonic() < deadline:
        time.sleep(0.01)
        fresh = _kept(repo)
        if fresh is not None and fresh.get("key") == key:
            return str(fresh["text"]) if fresh.get("enabled", True) else None
    return STALE + str(kept["text"])


def _refresh_detached(repo: str, key: str) -> None:
    """:func:`refresh` detached (:func:`spool.in_background`)."""

    def work() -> None:
        try:
            if os.environ.get("GASP_LIVE_FAULT") == "slow-context":
                time.sleep(2)  # the tests' window: the older document goes out
            refresh(repo, key)
        except Exception as exc:  # the next session start tries again
            spool.log_error(spool.live_dir(repo), "-", "SessionStart", f"context: {exc}")

    spool.in_background(work)


def refresh(repo: str, key: str | None = None) -> str | None:
    """Make the document (unless turned off) and keep it in the cache."""
    key = key or cache_key(repo)
    on = enabled(repo)
    text = fitting_document(repo) if on else ""
    path = _cache_path(repo)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        json.dump({"key": key, "enabled": on, "text": text}, fh)
    os.replace(temporary, path)
    return text if on else None


def fitting_document(repo: str) -> str:
    """The document at :data:`BUDGET`, smaller when its JSON form (escapes
    count) would pass :data:`OUTPUT_CAP`."""
    from git_gasp.core.contextbudget import MIN_BUDGET

    budget = BUDGET
    text = document(repo, budget)
    while len(hook_output(text)) > OUTPUT_CAP and budget > MIN_BUDGET:
        budget = max(MIN_BUDGET, budget * OUTPUT_CAP // len(hook_output(text)) - 200)
        text = document(repo, budget)
    return text


def hook_output(text: str) -> str:
    """``text`` as SessionStart's additional context, the hook protocol's JSON."""
    value = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return json.dumps(value, ensure_ascii=False)


def session_start(
    repo: str, harness: str, data: bytes, deadline: float | None = None
) -> str | None:
    """Record the session as active, then the output SessionStart prints
    (None when rehydration is off); ``deadline``: see :func:`cached_document`."""
    payload = json.loads(data)
    session = payload.get("session_id") if isinstance(payload, dict) else None
    if isinstance(session, str) and session:
        linkage.update_active(spool.live_dir(repo), repo, harness, session, [payload])
    text = cached_document(repo, deadline)
    return None if text is None else hook_output(text)
