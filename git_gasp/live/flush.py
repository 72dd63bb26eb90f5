"""``git gasp adapt flush``: a live session's spool and transcript into its run.

Under the agent's lease, one session at a time (a lock in the live state
keeps two flushes from projecting the same lines at once):

1. the session's spooled payloads are read (oldest first) and its active
   record updated (``cwd``, ``transcript_path``; :mod:`~git_gasp.live.linkage`);
2. the transcript the payloads name is projected by the same projector, with
   the same actor, lifting and ids, as ``git gasp import``
   (:mod:`git_gasp.adapters.importing`), so the events the log holds already
   are skipped, and importing the transcript later appends nothing. Before
   the close, trailing assistant lines are held back (the transcript is
   written while the agent runs, and a message's usage is only final once
   its last line is there);
3. the spool adds what transcripts lack: ``PreModelSwitch`` and
   ``PostModelSwitch`` become ``observation.created`` on the run (the model
   actually used is the one the transcript's next model call names);
4. with ``close`` (``SessionEnd``, a session that a newer one of the same
   workspace followed, or ``--close``) the run gets its boundary commit with
   ``Run-Id``, ``Goal``, ``Outcome`` and ``Agent-Session: <harness>:<id>``,
   as an import makes it, and the session stops being active;
5. only then are the consumed spool files removed, and ``seen-<harness>.json``
   notes the harness version the transcript names.

Re-running it is idempotent: every id is derived from the session and the
native record (or the spool file's name).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from git_gasp.adapters.emitting import stable_id
from git_gasp.adapters.lines import Projection, Source
from git_gasp.agent.api import Agent
from git_gasp.core.event import Event
from git_gasp.errors import GaspError
from git_gasp.live import linkage, spool
from git_gasp.live.hookevents import hooks_only, run_started, switch_events
from git_gasp.store.runmarker import OpenRun, write_marker


class Flushed(NamedTuple):
    harness: str
    session: str
    run_id: str
    appended: int
    closed: bool
    commit: str | None
    version: str | None
    deferred: str | None  # why nothing was written yet (the spool is kept)


@contextlib.contextmanager
def _flush_lock(live: str) -> Iterator[None]:
    os.makedirs(live, exist_ok=True)
    with open(os.path.join(live, "flush.lock"), "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def flush(
    repo: str,
    session: str | None = None,
    close: bool = False,
    worker: str | None = None,
) -> list[Flushed]:
    """Flush ``session`` (every live session when None: those that ended, or
    that a newer session of the same workspace followed, are closed)."""
    live = spool.live_dir(repo)
    with _flush_lock(live):
        actives = linkage.all_active(live)
        targets: dict[tuple[str, str], bool] = {}
        for harness, name in spool.spooled_sessions(live):
            if name != spool.UNKNOWN_SESSION:  # payloads naming no session: never projected
                targets[(harness, name)] = close
        for value in actives:
            targets[(str(value["harness"]), str(value["session"]))] = close
        if session is None:
            for old in linkage.stale(actives):
                targets[(str(old["harness"]), str(old["session"]))] = True
        else:
            targets = {k: v for k, v in targets.items() if k[1] == spool.safe_name(session)}
            if not targets:
                targets = {("claude-code", session): close}
        out = [_guarded(repo, live, h, s, c, worker) for (h, s), c in targets.items()]
    _refresh_context(repo)
    return out


def _guarded(
    repo: str, live: str, harness: str, session: str, close: bool, worker: str | None
) -> Flushed:
    """:func:`flush_session`; a failure is logged (``errors.log``), the spool kept."""
    try:
        return flush_session(repo, live, harness, session, close, worker)
    except Exception as exc:
        message = exc.message if isinstance(exc, GaspError) else f"{type(exc).__name__}: {exc}"
        spool.log_error(live, harness, "flush", f"{session}: {message}")
        run_id = stable_id("run", harness, session)
        return Flushed(harness, session, run_id, 0, False, None, None, f"error: {message}")


def _refresh_context(repo: str) -> None:
    from git_gasp.live import rehydrate

    try:
        rehydrate.refresh(repo)
    except Exception as exc:  # the next session start makes it again
        spool.log_error(spool.live_dir(repo), "-", "flush", f"context: {exc}")


def _payloads(live: str, harness: str, files: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in files:
        try:
            with open(path, "rb") as fh:
                value = json.loads(fh.read())
        except (OSError, ValueError) as exc:
            spool.log_error(live, harness, None, f"{os.path.basename(path)}: not JSON ({exc})")
            os.remove(path)  # a payload the harness sent broken: nothing to project
            continue
        if isinstance(value, dict):
            out.append((path, value))
    return out


# long: the steps of one session's flush read best in one place
def flush_session(
    repo: str, live: str, harness: str, session: str, close: bool, worker: str | None
) -> Flushed:
    """Project one session's spool and transcript; see the module docstring."""
    files = spool.spooled(live, harness, session)
    payloads = _payloads(live, harness, files)
    run_id = stable_id("run", harness, session)
    if not payloads and linkage.read_active(live, harness, session) is None:
        return Flushed(harness, session, run_id, 0, False, None, None, "nothing spooled")
    info = linkage.update_active(live, repo, harness, session, [p for _, p in payloads])
    close = close or bool(info.get("ended"))
    with Agent.open(repo, worker=worker) as agent:
        resume = _latest_run(agent, harness, session)
        projection = _project(agent, repo, harness, session, info, resume, full=close)
        if projection is None and info.get("transcript_path") is None:
            projection = hooks_only(agent, harness, session, resume, payloads)
        if projection is not None:
            run_id = projection.run_id
        events = list(projection.events) if projection is not None else []
        started = _started_id(harness, session, events, resume)
        run_closed = resume is not None and resume.closed and not events
        if not run_closed:
            extras = switch_events(agent, harness, session, run_id, started, payloads)
            if extras and not events and not agent.knows(started):
                events = run_started(agent, harness, session, run_id, started, extras[0].ts_ms)
            events += extras
        open_run = agent.open_run
        if events and open_run is not None and open_run.run_id != run_id:
            why = f"run {open_run.run_id} is open; this session's events wait for its close"
            return Flushed(harness, session, run_id, 0, False, None, None, why)
        if events:
            agent.append(events)
            linkage.set_run(live, harness, session, run_id)
        commit = None
        if close:
            commit = _close(agent, harness, session, run_id, projection)
    for path, _ in payloads:
        os.remove(path)
    spool.drop_torn(live, harness, session)
    spool.drop_empty(live, harness, session)
    version = _seen(live, harness, session, projection, payloads)
    if close:
        _closed(live, harness, session)
    return Flushed(harness, session, run_id, len(events), close, commit, version, None)


def _closed(live: str, harness: str, session: str) -> None:
    """The session is over: its work tree's commits get their notes, then it
    stops being active (a note that cannot be written is logged)."""
    value = linkage.read_active(live, harness, session)
    if value is not None:
        try:
            linkage.link_commits(value)
        except Exception as exc:
            spool.log_error(live, harness, "flush", f"{session}: commit notes: {exc}")
    linkage.session_closed(live, harness, session)


def _started_id(harness: str, session: str, events: Sequence[Event], resume: Any) -> str:
    """The ``run.started`` the session's new events chain to."""
    fresh = next((e.id for e in events if e.kind == "run.started"), None)
    if fresh is not None:
        return fresh
    if resume is not None:
        return str(resume.started_id)
    return stable_id("event", harness, session, "run", "run.started")


def _latest_run(agent: Agent, harness: str, session: str) -> Any:
    from git_gasp.adapters.importing import latest_run

    return latest_run(agent, harness, session)


def _project(
    agent: Agent,
    repo: str,
    harness: str,
    session: str,
    info: Mapping[str, Any],
    resume: Any,
    full: bool,
) -> Projection | None:
    """The transcript projected as ``git gasp import`` projects it; None
    when there is no transcript to read (Codex ``--ephemeral``, a path gone)."""
    from git_gasp.adapters import files
    from git_gasp.adapters.importing import import_actor, lift_config

    path = info.get("transcript_path")
    if not isinstance(path, str) or not os.path.isfile(path):
        return None
    actor = import_actor(repo, harness)
    config = lift_config(repo, None)
    if harness == "claude-code":
        from git_gasp.adapters import claudecode

        found = [s for s in files.claude_sessions([path]) if s.session_id == session]
        if not found:
            return None
        cc = found[0]
        if not full:  # a background subagent may still be writing its file too
            subagents = {k: _settled(v) for k, v in cc.subagents.items()}
            cc = cc._replace(mains=[_settled(s) for s in cc.mains], subagents=subagents)
        return claudecode.project(cc, actor, agent.knows, config, resume)
    from git_gasp.adapters import codex

    children = [c for c in info.get("children", []) if isinstance(c, str) and os.path.isfile(c)]
    threads = files.codex_sessions([path, *children])
    named = [t for t in threads if t.session_id == session] or threads[:1]
    if not named:
        return None
    return codex.project(named[0], actor, agent.knows, config, resume)


def _settled(source: Source) -> Source:
    """``source`` without its trailing assistant lines (their message may grow)."""
    lines = source.text.splitlines(keepends=True)
    while lines and lines[-1].endswith("\n"):
        try:
            last = json.loads(lines[-1])
        except ValueError:
            break
        if not (isinstance(last, dict) and last.get("type") == "assistant"):
            break
        lines.pop()
    return source._replace(text="".join(lines))


def _close(
    agent: Agent, harness: str, session: str, run_id: str, projection: Projection | None
) -> str | None:
    """The boundary commit of the session's run, as an import makes it."""
    from git_gasp.agent.closeretry import commit_of
    from git_gasp.agent.runs import close_run

    events = agent.run_events(run_id)
    started = next((e for e in events if e.kind == "run.started"), None)
    if started is None:
        return None
    finish = next((e for e in events if e.kind == "run.finished"), None)
    outcome = projection.outcome if projection is not None else "session ended"
    if finish is not None:  # finished: committed, or a close killed before its commit
        if commit_of(agent.root, run_id) is not None:
            return None
        if isinstance(finish.payload, dict) and isinstance(finish.payload.get("outcome"), str):
            outcome = finish.payload["outcome"]
    if agent.open_run is None or agent.open_run.run_id != run_id:
        agent.open_run = OpenRun(run_id, started.id, None, agent.worker)
    # the marker names the run while it closes: a close killed after its
    # run.finished is then completed by the next flush (close_run's retry)
    write_marker(agent.root, agent.open_run)
    agent.lease.acquire()
    return close_run(agent, outcome, sessions=[f"{harness}:{session}"]).commit


def _seen(
    live: str,
    harness: str,
    session: str,
    projection: Projection | None,
    payloads: Sequence[tuple[str, Mapping[str, Any]]],
) -> str | None:
    """Write ``seen-<harness>.json``: the version the transcript names."""
    from git_gasp.adapters.lines import version_tuple

    versions = sorted(projection.diagnostics.versions) if projection is not None else []
    if not versions:
        return None
    version = max(versions, key=lambda v: version_tuple(v) or ())
    event = str(payloads[-1][1].get("hook_event_name")) if payloads else None
    value = {"version": version, "ts": linkage.now(), "event": event, "session": session}
    path = os.path.join(live, f"seen-{harness}.json")
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        json.dump(value, fh)
    os.replace(temporary, path)
    return version


# -- git gasp run close ----------------------------------------------------------------


def before_run_close(root: str, run_id: str) -> list[str]:
    """``git gasp run close`` of a live session's run: its spool and transcript
    delta go in first; the ``Agent-Session`` references to add to the commit."""
    found = linkage.sessions_of_run(root, run_id)
    if not found:
        return []
    live = spool.live_dir(root)
    with _flush_lock(live):
        for harness, session in found:
            flush_session(root, live, harness, session, False, None)
    return [f"{h}:{s}" for h, s in found]


def after_run_close(root: str, refs: Sequence[str]) -> None:
    """The sessions ``run close`` closed stop being active."""
    live = spool.live_dir(root)
    for ref in refs:
        harness, _, session = ref.partition(":")
        _closed(live, harness, session)
