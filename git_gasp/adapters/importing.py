"""Writing projected sessions into an agent repository (``git gasp import``).

For each session: project it (pure, :mod:`git_gasp.adapters`), append what
the log does not hold yet in one batch (validated as every append is), and
close the session's run with one boundary commit carrying ``Run-Id``,
``Goal``, ``Outcome`` and ``Agent-Session: <agent>:<session id>``.

One run per session, finished once: its id is derived from the agent and
the session id. A session that grows after its run was closed (a continued
or resumed session: Claude Code keeps the session id in the copy
``--resume`` writes) gets a continuation run for what is new, its id from
the session and the first new native record, its ``run.started`` naming
the run it continues (``continues``) with the same task; it closes with its
own boundary commit (its own ``Run-Id``, the same ``Agent-Session``).
Re-importing a file that did not change appends nothing and makes no commit.

The cursor is kept in the repository's git directory
(``gasp/imports/<agent>/<session>.json``), never committed. It holds:

- ``files``: how far each file was read (its complete lines) and their
  digest: a session whose files are all as they were is skipped without
  projecting;
- ``state``: where the projector may resume (Claude Code: each file's
  offset, digest and leaf record, and the walk's state;
  :mod:`git_gasp.adapters.resuming`): a grown session has only its new
  lines projected. A projector that takes no state (Codex, or a caller's own
  two-argument projector) projects its files again each time;
- ``run`` and ``last_event``: the session's latest run (its id and its
  ``run.started``) and the last event the import appended. The state is
  used only while the log still holds both (the run's node, and that
  event), so a log reset or repaired under the cursor is projected from the
  start again; the run is then found by reading the log.

Without a cursor (another clone, a deleted git directory) the deterministic
ids and the log's known-id check still keep every event from being
appended twice: the cursor spares reading, it never decides what is new.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from git_gasp import git
from git_gasp.adapters import cursors
from git_gasp.adapters.emitting import Resume, stable_id
from git_gasp.adapters.lifting import EVAL_PATTERNS, RULES, LiftConfig
from git_gasp.adapters.lines import Empty, Projection, Source, file_cursor
from git_gasp.agent.api import Agent
from git_gasp.agent.runs import close_run
from git_gasp.core.event import Actor, Event
from git_gasp.core.log import gc_paused
from git_gasp.core.trailers import is_session_ref
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store.runmarker import OpenRun

#: ``project(known, latest_run)``, or ``project(known, latest_run, state)``
#: for a projector that resumes (see the cursor above).
Projector = Callable[..., Projection]


class Imported(NamedTuple):
    agent: str
    session: str
    run_id: str
    appended: int  # events appended by this import
    commit: str | None
    outcome: str
    task: str
    note: str | None
    transcript: str | None
    diagnostics: dict[str, Any]
    warnings: list[str]


class _Writer:
    """The agent an import writes through, opened at the first session with
    something new and kept open for the rest: one open (one read of the log,
    one lease) for a directory of many sessions, where an open per session
    read the whole log again each time (a thousand sessions paid a thousand
    reads of a growing log). Each session still closes its own run and makes
    its own boundary commit."""

    def __init__(self, root: str, worker: str | None) -> None:
        self.root, self.worker = root, worker
        self._agent: Agent | None = None
        self._info: git.RepoInfo | None = None
        self.committed = False  # a boundary commit was made: maintain once at the end

    def info(self) -> git.RepoInfo:
        if self._info is None:
            self._info = git.repo_info(self.root)
        return self._info

    def git_dir(self) -> str:
        return self.info().git_dir

    def agent(self) -> Agent:
        if self._agent is None:
            self._agent = Agent.open(self.root, worker=self.worker)
        return self._agent

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._agent is not None:
            self._agent.close()
        if self.committed:  # git commit's housekeeping, once (each commit skipped it)
            git.maintain(self.root)


def import_session(
    writer: _Writer,
    agent_name: str,
    session: str,
    project: Projector,
    cursor: Sequence[dict[str, Any]],
    keep: str | None = None,
) -> Imported | Empty | None:
    """Project one session with ``project(known)`` and write it into the
    writer's repository; None when the session's files are as the last
    import read them, :class:`Empty` when they hold nothing to project."""
    cursor_path = cursors.path(writer.git_dir(), agent_name, session)
    saved = cursors.saved(cursor_path)
    if saved.get("files") == list(cursor):
        return None
    agent = writer.agent()
    state, run_hint = _usable(agent, saved)
    latest = run_hint or latest_run(agent, agent_name, session)
    if _takes_state(project):
        projection = project(agent.knows, latest, state)
    else:
        projection = project(agent.knows, latest)
    if projection.diagnostics.recognised == 0:
        where = ", ".join(c["file"] for c in projection.cursor) or session
        seen = projection.diagnostics  # blank, over-long, corrupt or unknown lines: no stub
        if not (seen.unknown_types or seen.corrupt or seen.blank or seen.long):
            return Empty(where)  # a session that never had a conversation: nothing to import
        raise GaspError(  # (--json prints nothing more: the import stops here)
            f"{where}: nothing in it is a {agent_name} record this projector recognises: "
            f"{seen.seen(where)}",
            f"is it a {agent_name} transcript? the import finds a project's own: "
            f"git gasp import {agent_name} --project DIR",
            FINDINGS,
        )
    run = agent.open_run
    if run is not None and run.run_id != projection.run_id:
        raise GaspError(
            f"run {run.run_id} is open in {agent.root}; an import writes its own run",
            "close it first: git gasp run close --outcome TEXT "
            "(or: git gasp run abandon --reason TEXT)",
            USAGE,
        )
    if projection.events:
        agent.append(projection.events)
    closed = _close(writer, agent, projection)
    kept = None
    if keep is not None and closed is not None:
        from git_gasp.agent.transcript import add_transcript

        kept = add_transcript(agent, projection.run_id, keep).path
    last = projection.events[-1].id if projection.events else saved.get("last_event")
    cursors.save(cursor_path, projection, latest, last)
    commit, note = closed if closed is not None else (None, None)
    return _result(projection, len(projection.events), commit, note, kept)


def latest_run(agent: Agent, agent_name: str, session: str) -> Resume | None:
    """The session's latest run in the log: its first run, or the last of the
    continuations that name it (each names the run before it); None if the
    log has none of them."""
    first = stable_id("run", agent_name, session)
    data = agent.log_bytes()
    if f'"{first}"'.encode() not in data and b"\\u" not in data:
        # a session never imported: its first run's id, in its every event and in
        # the continuation naming it, is nowhere in the log (not even escaped).
        # No parse of the whole log, which a directory of a thousand sessions
        # would pay once a session
        return None
    chain = {first}
    latest: Event | None = None
    finished: set[str] = set()
    for event in agent.events():
        run = event.correlation_id
        if event.kind == "run.finished" and run in chain:
            finished.add(run)
        elif event.kind != "run.started" or not isinstance(event.payload, dict):
            continue
        elif run in chain or event.payload.get("continues") in chain:
            chain.add(str(run))
            latest = event
    if latest is None or not isinstance(latest.payload, dict):
        return None
    run_id = str(latest.correlation_id)
    return Resume(run_id, latest.id, run_id in finished, str(latest.payload.get("task", "")))


def _close(
    writer: _Writer, agent: Agent, projection: Projection
) -> tuple[str | None, str | None] | None:
    """The run's boundary commit, unless it was closed already (a run finishes once)."""
    run_id = projection.run_id
    events = agent.run_events(run_id)
    started = next(e for e in events if e.kind == "run.started")
    if any(e.kind == "run.finished" for e in events):
        return None
    if agent.open_run is None or agent.open_run.run_id != run_id:
        agent.open_run = OpenRun(run_id, started.id, None, agent.worker)
    agent.lease.acquire()
    ref, info = f"{projection.agent}:{projection.session}", writer.info()
    ended = max(e.ts_ms for e in events)  # it ended with its last record, not now
    closed = close_run(
        agent, projection.outcome, sessions=[ref], info=info, maintain=False, finished_at=ended
    )
    writer.committed = writer.committed or closed.commit is not None
    return closed.commit, closed.note


def _result(
    projection: Projection, appended: int, commit: str | None, note: str | None, kept: str | None
) -> Imported:
    diag = projection.diagnostics
    return Imported(
        projection.agent,
        projection.session,
        projection.run_id,
        appended,
        commit,
        projection.outcome,
        projection.task,
        note,
        kept,
        {**diag.to_value(), "cursor": projection.cursor},
        diag.warnings(),
    )


def import_actor(root: str, agent_name: str) -> Actor:
    """The actor of imported events: the agent repository's own agent."""
    from git_gasp.agent.ids import agent_id_of

    return Actor("agent", agent_id_of(root) or agent_name)


def _usable(agent: Agent, saved: Mapping[str, Any]) -> tuple[Any, Resume | None]:
    """The saved resume state and latest run, while the log holds what they
    say was appended (the run's node and the last event); else (None, None)."""
    run, last = saved.get("run"), saved.get("last_event")
    if not (isinstance(run, list) and len(run) == 2 and all(isinstance(r, str) for r in run)):
        return None, None
    node = agent.graph.nodes.get(run[0])
    if node is None or node.kind != "run" or not isinstance(last, str) or not agent.knows(last):
        return None, None
    for event in agent.recent_events():  # a continuation the cursor does not know
        payload = event.payload
        if event.kind == "run.started" and isinstance(payload, dict):
            if payload.get("continues") == run[0]:
                return None, None
    props = node.props if isinstance(node.props, dict) else {}
    closed = props.get("status") == "finished"
    return saved.get("state"), Resume(run[0], run[1], closed, str(props.get("task") or ""))


def _takes_state(project: Projector) -> bool:
    """Whether ``project`` takes the resume state as a third argument."""
    try:
        parameters = inspect.signature(project).parameters.values()
    except (TypeError, ValueError):
        return False
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in parameters if p.kind in kinds) >= 3 or any(
        p.kind == inspect.Parameter.VAR_POSITIONAL for p in parameters
    )


# -- from paths to sessions ----------------------------------------------------------


def import_all(
    root: str,
    agent_name: str,
    paths: Sequence[str],
    env: Mapping[str, str],
    *,
    session: str | None = None,
    project: str | None = None,
    since: datetime | None = None,
    lift: str | None = None,
    keep: bool = False,
    worker: str | None = None,
) -> Imports:
    """Import every session the paths (or the agent's default location) hold;
    a file found there that cannot be read is skipped (``Imports.skipped``)."""
    from git_gasp.adapters import files, reading

    config = lift_config(root, lift)
    actor = import_actor(root, agent_name)
    found = reading.Found(named=bool(paths))
    if agent_name == "claude-code":
        if not paths:
            paths = files.claude_defaults(env, session, project, since)
        sessions: Sequence[Any] = files.claude_sessions(paths, found)
        inputs = [(s.session_id, _claude(s, actor, config)) for s in sessions]
    else:
        if not paths:
            paths = files.codex_defaults(env, session, project, since, found)
        sessions = files.codex_sessions(paths, found)
        inputs = [(s.session_id, _codex(s, actor, config)) for s in sessions]
    if session is not None:
        inputs = [i for i in inputs if i[0] == session]
    if not inputs:
        why = files.none_found(found, agent_name, env, session, project)
        raise GaspError(  # with files skipped, exit 1 as any import that skipped some
            f"no {agent_name} sessions found{why}",
            "name the files, or check --session/--project",
            FINDINGS if found.skipped else USAGE,
        )
    for sid, (sources, _) in inputs:  # before anything is written
        _check_session_id(agent_name, sid, sources)
    out = []
    with _Writer(root, worker) as writer:
        for sid, (sources, projector) in inputs:
            cursor = [file_cursor(s) for s in sources]
            keep_file = sources[0].name if keep and sources else None
            # a session's records, events, fold and snapshot are acyclic: the
            # collector's passes over them would free nothing (~15% of an import)
            with gc_paused():
                result = import_session(writer, agent_name, sid, projector, cursor, keep_file)
            if result is None:
                out.append({"agent": agent_name, "session": sid, "unchanged": True, "warnings": []})
            elif isinstance(result, Empty):  # no run written for it
                out.append({"agent": agent_name, "session": sid, "empty": True, **result._asdict()})
            else:
                out.append({**result._asdict(), "unchanged": False})
    return Imports(out, [s._asdict() for s in found.skipped])


class Imports(NamedTuple):
    sessions: list[dict[str, Any]]  # one per session: its run, events, commit, diagnostics
    skipped: list[dict[str, str]]  # the files found that could not be read: path, reason


def _check_session_id(agent_name: str, sid: str, sources: Sequence[Source]) -> None:
    """A session id that an ``Agent-Session`` trailer can carry, or a one-line error."""
    ref = f"{agent_name}:{sid}"
    if is_session_ref(ref) and ref.isprintable():  # a lone surrogate is not printable
        return
    where = sources[0].name if sources else sid
    shown = where.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    raise GaspError(
        f"{shown!r}: its session id {sid[:80]!r} cannot name a session "
        f"(Agent-Session: {agent_name}:<id>, without spaces, '/', ':' or '#')",
        f"import the other sessions by naming their files: git gasp import {agent_name} FILE...",
        USAGE,
    )


def _claude(session: Any, actor: Actor, config: LiftConfig) -> tuple[list[Source], Projector]:
    from git_gasp.adapters import claudecode

    sources = [*session.mains, *session.subagents.values()]

    def project(known: Callable[[str], bool], resume: Resume | None, state: Any = None) -> Any:
        return claudecode.project(session, actor, known, config, resume, state)

    return sources, project


def _codex(session: Any, actor: Actor, config: LiftConfig) -> tuple[list[Source], Projector]:
    from git_gasp.adapters import codex

    return list(session.sources), lambda known, resume: codex.project(
        session, actor, known, config, resume
    )


def lift_config(root: str, given: str | None) -> LiftConfig:
    """``--lift``, else ``gasp.importLift``, else every rule; the test patterns
    are ``gasp.importEvalPattern`` (repeatable), else the built-in ones."""
    text = given
    if text is None:
        text = git.config_value(root, "gasp.importLift")
    rules = set(RULES) if text is None else {r.strip() for r in text.split(",") if r.strip()}
    rules.discard("none")
    unknown = rules - set(RULES)
    if unknown:
        raise GaspError(
            f"unknown lifting rule {sorted(unknown)[0]!r}",
            f"use a comma-separated list of {', '.join(RULES)}, or none",
            USAGE,
        )
    patterns = tuple(git.config_values(root, "gasp.importEvalPattern")) or EVAL_PATTERNS
    try:
        return LiftConfig(frozenset(rules), patterns)
    except re.error as exc:
        raise GaspError(f"gasp.importEvalPattern: not a regular expression: {exc}") from None
