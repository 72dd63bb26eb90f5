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
AGENT.md, and the git config files that may turn it off (whether it is on is
kept with it, so a session start runs no git). Every flush refreshes it
(:func:`refresh`), so a session start finds it ready; a stale key makes it
again.
"""

from __future__ import annotations

import json
import os

from git_gasp.live import linkage, spool

BUDGET = 9000  # characters of the document, under the protocol's 10,000
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


def cached_document(repo: str) -> str | None:
    """The document (None when turned off), from the cache when its key still
    holds, else made (and kept)."""
    key = cache_key(repo)
    try:
        with open(_cache_path(repo), encoding="utf-8") as fh:
            kept = json.load(fh)
        if isinstance(kept, dict) and kept.get("key") == key and isinstance(kept.get("text"), str):
            return str(kept["text"]) if kept.get("enabled", True) else None
    except (OSError, ValueError):
        pass
    return refresh(repo, key)


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


def session_start(repo: str, harness: str, data: bytes) -> str | None:
    """Record the session as active, then the output SessionStart prints
    (None when rehydration is off)."""
    payload = json.loads(data)
    session = payload.get("session_id") if isinstance(payload, dict) else None
    if isinstance(session, str) and session:
        linkage.update_active(spool.live_dir(repo), repo, harness, session, [payload])
    text = cached_document(repo)
    return None if text is None else hook_output(text)
