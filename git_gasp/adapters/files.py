"""The I/O side of the adapters: finding native transcript files (reading one:
:mod:`git_gasp.adapters.reading`).

Claude Code keeps ``<config>/projects/<project>/<session>.jsonl`` (the
config directory is ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``; the project
is the working directory with every character but letters and digits
replaced by ``-``) and its subagents in ``<session>/subagents/agent-<id>.jsonl``
(2.1.2 and later, workflows one level deeper) or beside it as
``agent-<id>.jsonl`` (before). Codex keeps
``<home>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`` (``$CODEX_HOME``,
else ``~/.codex``), maybe compressed as ``.jsonl.zst``, and archived ones
under ``archived_sessions/``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime

from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.codex import CodexSession
from git_gasp.adapters.codexformat import enveloped
from git_gasp.adapters.lines import Source
from git_gasp.adapters.reading import MISSING_HINT, NAME_HINT, Found, shown
from git_gasp.errors import USAGE, GaspError


def expand(
    paths: Iterable[str], suffixes: tuple[str, ...], found: Found | None = None
) -> list[str]:
    """Files named, and the files under directories named, ending in ``suffixes``,
    as absolute paths: an import's cursor knows a file by its path, so the
    same transcript named from another directory resumes where it stopped.
    With ``found``, the files named are noted in it, and so are the
    directories under them that cannot be listed (skipped)."""
    out: list[str] = []
    for given in paths:
        path = os.path.abspath(given) if given else given
        if os.path.isdir(path):
            onerror = None if found is None else _unlisted(found)
            for top, dirs, names in os.walk(path, onerror=onerror):
                dirs.sort()
                out += [os.path.join(top, n) for n in sorted(names) if n.endswith(suffixes)]
        elif os.path.isfile(path):
            out.append(path)
            if found is not None and found.naming:
                found.named.add(path)
        elif os.path.lexists(path):
            raise GaspError(f"{shown(path)}: not a regular file", NAME_HINT, USAGE)
        else:
            raise GaspError(f"{shown(path)}: no such file or directory", MISSING_HINT, USAGE)
    return list(dict.fromkeys(out))


def _unlisted(found: Found) -> Callable[[OSError], None]:
    def skip(exc: OSError) -> None:
        found.skip(str(exc.filename), f"cannot list: {exc.strerror}")

    return skip


# -- Claude Code -------------------------------------------------------------------


def claude_home(env: Mapping[str, str]) -> str:
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def project_dir_name(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", os.path.abspath(cwd))


def claude_defaults(
    env: Mapping[str, str], session: str | None, project: str | None, since: datetime | None
) -> list[str]:
    """The main transcripts in Claude Code's own location that match."""
    projects = os.path.join(claude_home(env), "projects")
    if not os.path.isdir(projects):
        raise GaspError(f"{projects}: no Claude Code transcripts here", _where_hint("claude"))
    dirs = sorted(os.listdir(projects))
    if project is not None:
        name = project_dir_name(project)
        dirs = [d for d in dirs if d == name or (len(name) > 200 and d.startswith(name[:200]))]
    found = []
    for d in dirs:
        top = os.path.join(projects, d)
        if not os.path.isdir(top):
            continue
        for n in sorted(os.listdir(top)):
            if not n.endswith(".jsonl") or n.startswith("agent-"):
                continue
            if session is not None and n != f"{session}.jsonl":
                continue
            path = os.path.join(top, n)
            if _changed_since(path, since):
                found.append(path)
    return found


def _changed_since(path: str, since: datetime | None) -> bool:
    """Whether ``path`` changed since ``since``; True when it cannot be asked
    (a dangling link: reading it then says why it is skipped)."""
    try:
        return since is None or os.path.getmtime(path) >= since.timestamp()
    except OSError:
        return True


def claude_sessions(paths: Iterable[str], found: Found | None = None) -> list[Session]:
    """Group files into sessions: each main file with its subagents, found in
    both layouts even when only the main file is named. With ``found``, a
    file found under a directory that cannot be read is skipped there."""
    found = found or Found(strict=True)
    files = expand(paths, (".jsonl",), found)
    mains: dict[str, list[Source]] = {}
    subs: dict[str, dict[str, Source]] = {}
    for path in files:
        name = os.path.basename(path)
        if name.startswith("agent-") or (source := found.read(path)) is None:
            continue
        sid = _first_field(source.text, "sessionId") or name.removesuffix(".jsonl")
        mains.setdefault(sid, []).append(source)
        for sub in _subagent_files(path, found):
            if sub not in files:
                files.append(sub)
    for path in files:
        name = os.path.basename(path)
        if not name.startswith("agent-") or (source := found.read(path)) is None:
            continue
        parent = _parent_session(path) or _first_field(source.text, "sessionId")
        if parent is None:
            raise GaspError(
                f"{shown(path)}: a subagent file whose session is unknown",
                "name its session's main file too: git gasp import claude-code SESSION.jsonl",
                USAGE,
            )
        subs.setdefault(parent, {})[name.removeprefix("agent-").removesuffix(".jsonl")] = source
    order = list(mains) + [s for s in subs if s not in mains]
    return [Session(s, mains.get(s, []), subs.get(s, {})) for s in order]


def _subagent_files(main: str, found: Found) -> list[str]:
    top, name = os.path.split(main)
    stem = name.removesuffix(".jsonl")
    out = []
    nested = os.path.join(top, stem, "subagents")
    if os.path.isdir(nested):
        out += [p for p in expand([nested], (".jsonl",), found) if _is_agent_file(p)]
    for n in sorted(os.listdir(top or ".")):
        path = os.path.join(top, n)
        if n.startswith("agent-") and n.endswith(".jsonl") and os.path.isfile(path):
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    head = fh.read(65536)
            except OSError as exc:
                found.skip(path, f"cannot read: {exc.strerror}")
                continue
            if _first_field(head, "sessionId") == stem:
                out.append(path)
    return out


def _is_agent_file(path: str) -> bool:
    return os.path.basename(path).startswith("agent-")


def _parent_session(path: str) -> str | None:
    """``<session>/subagents/.../agent-<id>.jsonl``: the session directory's name."""
    parts = os.path.normpath(path).split(os.sep)
    if "subagents" in parts:
        at = len(parts) - 1 - parts[::-1].index("subagents")
        return parts[at - 1] if at >= 1 else None
    return None


def _first_field(text: str, key: str) -> str | None:
    for line in text.split("\n", 200)[:200]:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and isinstance(value.get(key), str):
            return str(value[key])
    return None


# -- Codex -------------------------------------------------------------------------


def codex_home(env: Mapping[str, str]) -> str:
    return env.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


CODEX_SUFFIXES = (".jsonl", ".jsonl.zst", ".json")  # .json: the TypeScript CLI's rollouts
_NAMED_UUID = re.compile(
    r"-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
)


def codex_defaults(
    env: Mapping[str, str],
    session: str | None,
    project: str | None,
    since: datetime | None,
    found: Found | None = None,
) -> list[str]:
    home = codex_home(env)
    tops = [os.path.join(home, d) for d in ("sessions", "archived_sessions")]
    tops = [t for t in tops if os.path.isdir(t)]
    if not tops:
        raise GaspError(f"{home}: no Codex sessions here", _where_hint("codex"))
    found = found or Found(strict=True)
    out = []
    for path in expand(tops, CODEX_SUFFIXES, found):
        name = os.path.basename(path)
        if not name.startswith("rollout-"):
            continue
        if session is not None and not name.removesuffix(".zst").endswith(f"{session}.jsonl"):
            continue
        if not _changed_since(path, since):
            continue
        if project is not None:
            source = found.read(path)
            cwd = None if source is None else _session_meta(source).get("cwd")
            if not isinstance(cwd, str) or os.path.abspath(cwd) != os.path.abspath(project):
                continue
        out.append(path)
    return out


def codex_sessions(paths: Iterable[str], found: Found | None = None) -> list[CodexSession]:
    """Group rollouts by thread; a subagent thread goes inside its parent's
    run when the parent is imported with it. ``found`` as for Claude Code."""
    found = found or Found(strict=True)
    threads: dict[str, list[Source]] = {}
    parents: dict[str, str] = {}
    reviews: dict[object, str] = {}  # when a review began -> the thread that began it
    unplaced: dict[str, object] = {}  # a subagent naming no parent -> when it began
    for path in expand(paths, CODEX_SUFFIXES, found):
        if path.endswith(".json") and not _rollout_json(path, found):
            continue  # another JSON file under a directory named (a config, a state)
        if (source := found.read(path)) is None:
            continue
        meta = _session_meta(source)
        thread = meta.get("id")
        if not isinstance(thread, str):
            thread = _thread_of_name(os.path.basename(path))
        threads.setdefault(thread, []).append(source)
        for began in _reviews_begun(source):
            reviews.setdefault(began, thread)
        parent = _parent_thread(meta)
        if parent is not None:
            parents[thread] = parent
        elif _is_subagent(meta):
            unplaced[thread] = meta.get("timestamp")
    for thread, began in unplaced.items():  # a /review's reviewer names only "review"
        if reviews.get(began, thread) != thread:
            parents[thread] = reviews[began]
    roots = {thread: _root(thread, parents, threads) for thread in threads}
    out = []
    for thread, sources in threads.items():
        if roots[thread] != thread:
            continue
        children = {t: threads[t][0] for t, r in roots.items() if r == thread and t != thread}
        out.append(CodexSession(thread, sources, children))
    return out


def _rollout_json(path: str, found: Found) -> bool:
    return path in found.named or os.path.basename(path).startswith("rollout-")


def _thread_of_name(name: str) -> str:
    """The thread a rollout's name says: the UUID ``rollout-<time>-<uuid>``
    ends with, else the name without its suffix and prefix."""
    stem = name.split(".")[0].removeprefix("rollout-")
    found = _NAMED_UUID.search(stem)
    return found.group(1) if found else stem


def _root(thread: str, parents: dict[str, str], threads: Mapping[str, object]) -> str:
    """The thread at the top of ``thread``'s parents among those imported (a
    grandchild goes into its grandparent's run too); parents that lead back
    to a thread already passed (a cycle) stop there."""
    seen = [thread]
    while parents.get(seen[-1]) in threads and parents[seen[-1]] not in seen:
        seen.append(parents[seen[-1]])
    if parents.get(seen[-1]) in seen:  # a cycle: its first thread met is the root
        return min(seen[seen.index(parents[seen[-1]]) :])
    return seen[-1]


def _session_meta(source: Source) -> dict[str, object]:
    try:
        value = json.loads(source.text.split("\n", 1)[0])
    except (ValueError, RecursionError):
        return {}
    kind, payload = enveloped(value) if isinstance(value, dict) else (None, None)
    return payload if kind == "session_meta" and isinstance(payload, dict) else {}


def _reviews_begun(source: Source) -> list[object]:
    """The times a rollout's ``entered_review_mode`` events were written: the
    reviewer thread a ``/review`` starts (``source: {"subagent": "review"}``,
    Codex 0.7x) names no parent, but its session meta carries that time."""
    out: list[object] = []
    for line in source.text.splitlines() if "entered_review_mode" in source.text else ():
        if "entered_review_mode" not in line:
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        kind, payload = enveloped(value) if isinstance(value, dict) else (None, None)
        if kind == "event_msg" and isinstance(payload, dict):
            if payload.get("type") == "entered_review_mode" and isinstance(value, dict):
                out.append(value.get("timestamp"))
    return out


def _is_subagent(meta: dict[str, object]) -> bool:
    source = meta.get("source")
    return meta.get("thread_source") == "subagent" or (
        isinstance(source, dict) and "subagent" in source
    )


def _parent_thread(meta: dict[str, object]) -> str | None:
    """A subagent thread's parent: ``source.subagent`` names it (searched for a
    ``parent_thread_id``), else ``forked_from_id`` of a subagent thread."""
    source = meta.get("source")
    if not _is_subagent(meta):
        return None
    stack: list[object] = [source]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "parent_thread_id" and isinstance(value, str):
                    return value
                stack.append(value)
    forked = meta.get("forked_from_id")
    return forked if isinstance(forked, str) else None


def _where_hint(agent: str) -> str:
    if agent == "claude":
        return "set CLAUDE_CONFIG_DIR, or name the files: git gasp import claude-code PATH"
    return "set CODEX_HOME, or name the files: git gasp import codex PATH"


def none_found(
    found: Found, agent_name: str, env: Mapping[str, str], session: str | None, project: str | None
) -> str:
    """What an import that found no session says after "no sessions found": the
    files it skipped, and, when it named none, where it looked
    (`` in <the agent's folder> for --session S``)."""
    why = ""
    if found.skipped:
        first = found.skipped[0]
        why = f" ({len(found.skipped)} skipped, the first {first.path}: {first.reason})"
    if found.naming:
        return why
    claude = agent_name == "claude-code"
    home = claude_home(env) if claude else codex_home(env)
    asked = [f"--{k} {v}" for k, v in (("session", session), ("project", project)) if v]
    where = os.path.join(home, "projects" if claude else "sessions")
    return why + f" in {where}" + (f" for {' '.join(asked)}" if asked else "")
