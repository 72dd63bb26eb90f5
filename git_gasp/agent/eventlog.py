"""An agent repository's event log, opened for appending by one worker.

:class:`EventLog` folds the log (from a verified snapshot when there is one),
answers what it holds, and appends batches: each is checked against the
current graph *before* it is appended (see :mod:`git_gasp.agent.validate`), so
git-gasp never appends an event that a fold would skip or a check would reject.
:meth:`EventLog.record` chains one payload builder's events into the open run
(REFERENCE §4.1). :class:`git_gasp.agent.api.Agent` adds the typed helpers and
the run lifecycle on top.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any, NamedTuple, Self

import git_gasp.agent.validate as validate
from git_gasp.agent.ids import agent_id_of, new_id
from git_gasp.agent.screening import Screen
from git_gasp.core import payloads as P
from git_gasp.core.event import OPS_APPLIED, Actor, Event, EventError, encode_event, parse_event
from git_gasp.core.fold import Folder
from git_gasp.core.graph import Graph, graphs_equal
from git_gasp.core.jsonvalue import Json
from git_gasp.core.log import canonical_ids, describe_error, parse_log
from git_gasp.core.resume import (
    RUN_FINISHED,
    ResumedRun,
    resumed_run,
    resumed_run_seeded,
    run_id_of,
)
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store import seeding, writer
from git_gasp.store.lease import DEFAULT_TTL_MS, Lease, now_ms
from git_gasp.store.runmarker import OpenRun, find_open_run, read_marker, run_lock_held
from git_gasp.store.worktree import EVENTS_PATH, read_packs, refuse_escapes


class Recorded(NamedTuple):
    """What a helper appended: the entity id it names and the event ids."""

    id: str
    event_ids: tuple[str, ...]


class EventLog:
    """An agent repository's event log, opened for appending by one worker."""

    def __init__(
        self,
        root: str,
        worker: str,
        actor: Actor | None = None,
        ttl_ms: int = DEFAULT_TTL_MS,
    ) -> None:
        state = os.path.join(root, "state")
        if not os.path.isdir(state) and not os.path.exists(os.path.join(root, "AGENT.md")):
            raise GaspError(
                f"{root}: not an agent repository",
                "create one with: git gasp init --agent-id ID DIR",
            )
        refuse_escapes(root)
        self.root = root
        self.worker = worker
        self.actor = actor or Actor("agent", agent_id_of(root) or "agent")
        self.lease = Lease(root, worker, ttl_ms)
        self.log_path = os.path.join(root, EVENTS_PATH)
        packs, problems = read_packs(root)
        if problems:
            raise GaspError(problems[0], "fix or remove the pack file", FINDINGS)
        self._packs = packs
        self._folder = Folder()
        self._ids: dict[str, str] = {}  # event id -> kind (since the seed, if seeded)
        self._offset = 0
        self._seen: list[bytes | memoryview] = []  # the log's bytes up to _offset
        self._events: list[Event] = []  # the log's events in order (since the seed)
        self._seed: seeding.Seed | None = None
        self._prefix_ids: set[str] | None = None  # the seed's prefix's event ids
        self._common: str | None = None  # the git common dir, when snapshots were looked for
        resumed = self._open_log()
        marker = read_marker(root)
        if self._seed is not None and marker is not None and marker.started_event not in self._ids:
            self._full()  # the marker's run started before the seed
        self.open_run: OpenRun | None = find_open_run(marker, self._ids, self._runs(), resumed)

    # -- opening and reading --------------------------------------------------

    @classmethod
    def open(cls, root: str = ".", worker: str | None = None, **kwargs: Any) -> Self:
        """Open ``root``; the worker id comes from ``worker``, ``GASP_WORKER_ID``
        or the clone's stable local id (``.agent/worker``)."""
        from git_gasp.store.runmarker import local_worker_id

        chosen = worker or os.environ.get("GASP_WORKER_ID") or local_worker_id(root)
        return cls(root, chosen, **kwargs)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the lease unless a run is still open (a run keeps it)."""
        if self.open_run is None:
            self.lease.release()

    @functools.cached_property
    def max_line_bytes(self) -> int:
        """The line-size cap the hooks apply (``gasp.maxLineBytes``), read once."""
        from git_gasp.hooks.steps import max_line_bytes

        return max_line_bytes(self.root)

    @property
    def graph(self) -> Graph:  # folded from the log, as of the last append or read
        return self._folder.graph()

    def events(self) -> tuple[Event, ...]:  # all of the log, as of the last append or read
        self._full()
        return tuple(self._events)

    def recent_events(self) -> tuple[Event, ...]:  # since the seed's snapshot (all if none)
        return tuple(self._events)

    def run_events(self, run_id: str) -> list[Event]:
        """The events correlated with ``run_id``."""
        if not any(e.kind == "run.started" and e.correlation_id == run_id for e in self._events):
            self._full()
        return [e for e in self._events if e.correlation_id == run_id]

    def knows(self, ident: str) -> bool:
        """Whether ``ident`` names a node or an event of the log."""
        if ident in self._folder.nodes or ident in self._ids:
            return True
        prefix = self._prefix_known()
        if prefix is not None:
            return ident in prefix
        self._full()
        return ident in self._ids

    def _prefix_known(self) -> set[str] | None:
        """The event ids of the seed's prefix: as remembered with the seed, else
        read from its lines (``canonical_ids``); None unseeded or when only a
        parse would say."""
        if self._seed is not None and self._prefix_ids is None and self._seen:
            kept = seeding.seed_ids(self._common, self._seed)
            self._prefix_ids = kept if kept is not None else canonical_ids(bytes(self._seen[0]))
        return self._prefix_ids if self._seed is not None else None

    def event_ids(self) -> set[str] | None:
        """Every event id of the log as last read; None if only a parse could say."""
        prefix = self._prefix_known() if self._seed is not None else set()
        return None if prefix is None else prefix | self._ids.keys()

    def names_node(self, ident: str) -> bool:
        """Whether ``ident`` is a node, or a run a ``run.started`` names (a run
        the reference starts without an ops pair has no node)."""
        if ident in self._folder.nodes:
            return True
        self._full()
        started = (e.payload for e in self._events if e.kind == "run.started")
        return any(isinstance(p, dict) and p.get("run_id") == ident for p in started)

    def reread(self) -> None:
        """Catch up with what other processes appended, under the log's lock,
        and decide the open run again from the log and the marker (the run
        lifecycle calls this under :func:`~git_gasp.store.runmarker.run_lock`)."""
        with writer.locked(self.log_path, self.root) as log:
            self._sync(log.read_from(self._offset))
        seed = self._seed
        if seed is None:
            resumed = resumed_run(self._runs())
        else:
            resumed = resumed_run_seeded(self.log_bytes(), seed.offset, self._runs())
        marker = read_marker(self.root)
        if self._seed is not None and marker is not None and marker.started_event not in self._ids:
            self._full()
        self.open_run = find_open_run(marker, self._ids, self._runs(), resumed)

    # -- seeding from a snapshot -----------------------------------------------

    def _open_log(self) -> ResumedRun | None:
        """Fold the log, from a verified snapshot when there is one; the run
        the log resumes (parsing the snapshot's prefix only as needed)."""
        data = self._read_all()
        common = self._common = None
        if os.path.isdir(os.path.join(self.root, "snapshots")):
            common = self._common = seeding.common_dir(self.root)
        verified = seeding.verified_digests(common)
        found = seeding.choose(self.root, data, verified, seeding.load_graph) if common else None
        seed, graph = found or (None, None)
        if seed is not None and graph is not None and seed.verified:
            self._folder = Folder.from_graph(graph)
            self._seed = seed
            self._offset = seed.offset
            self._seen.append(data if seed.offset == len(data) else memoryview(data)[: seed.offset])
            self._sync(data[seed.offset :])
            return resumed_run_seeded(data, seed.offset, self._runs())
        self._sync(data, verify=(seed, graph, common) if seed and graph else None)
        return resumed_run(self._runs())

    def _full(self) -> None:
        """Load the events before the seed too (rarely needed)."""
        seed = self._seed
        if seed is None:
            return
        prefix = parse_log(self._read_all()[: seed.offset]).events
        self._events[:0] = prefix
        for event in prefix:
            self._ids[event.id] = event.kind
        self._seed = None

    def _last_event(self) -> tuple[str, str] | None:
        """``(id, kind)`` of the log's last event: of the events read (in log
        order, seeded or not), else of the snapshot's prefix, whose last line
        is parsed (a seed can end at any event)."""
        if self._events:
            return self._events[-1].id, self._events[-1].kind
        if self._seed is None or not self._seen:
            return None
        prefix = bytes(self._seen[0])
        start = prefix.rfind(b"\n", 0, len(prefix) - 1) + 1
        try:
            event = parse_event(prefix[start:].decode("utf-8").rstrip("\n"))
        except (EventError, UnicodeDecodeError):
            return None
        return event.id, event.kind

    def _runs(self) -> list[Event]:
        return [e for e in self._events if e.kind in ("run.started", "run.finished")]

    def _read_all(self) -> bytes:
        try:
            return writer.read_consistent(self.log_path)
        except OSError as exc:
            raise GaspError(f"{EVENTS_PATH}: cannot read: {exc.strerror}") from None

    def _sync(
        self,
        data: bytes,
        verify: tuple[seeding.Seed, Graph, str | None] | None = None,
    ) -> None:
        """Fold bytes appended since the last read (by us or other processes);
        with ``verify``, check a snapshot against the fold of its prefix."""
        complete = data[: data.rfind(b"\n") + 1]
        if len(complete) != len(data):
            raise writer.torn_error(EVENTS_PATH)
        log = parse_log(complete)
        if log.errors:
            error = log.errors[0]
            before = self._read_all()[: self._offset].count(b"\n")  # lines already read
            line = error.line._replace(physical=error.line.physical + before)
            raise GaspError(
                describe_error(EVENTS_PATH, error._replace(line=line)),
                "git-gasp appends only to a log that parses: see `git gasp check`; an "
                "uncommitted bad line is removed by editing it out (the lines after it "
                "stay), never by `git checkout`, which drops every uncommitted event",
                FINDINGS,
            )
        if verify is not None:
            seed, graph, common = verify
            self._folder.apply_all(log.events[: seed.events])
            if graphs_equal(self._folder.graph(), graph):
                seeding.remember(common, seed)
            self._folder.apply_all(log.events[seed.events :])
        else:
            self._folder.apply_all(log.events)
        for event in log.events:
            self._ids[event.id] = event.kind
        self._events.extend(log.events)
        self._offset += len(complete)
        self._seen.append(complete)

    # -- appending ------------------------------------------------------------

    def _event(
        self, kind: str, payload: Json, actor: Actor, cause: str | None, corr: str | None
    ) -> Event:
        return Event(new_id("event"), 1, now_ms(), actor, kind, payload, cause, corr)

    def _chain(
        self, kind: str, cause: str | None, corr: str | None
    ) -> tuple[str | None, str | None]:
        """Auto-chain into the open run (§4.1): never overwrite explicit values."""
        run = self.open_run
        if run is not None:
            if cause is None and kind != "run.started":
                cause = run.started_event
            if corr is None:
                corr = run.run_id
        return cause, corr

    def record(
        self,
        rec: P.Record,
        actor: Actor | None = None,
        causation: str | None = None,
        correlation: str | None = None,
        ts_ms: int | None = None,
    ) -> Recorded:
        """Append one helper's events: the domain event, then its ops pair (at ``ts_ms``)."""
        actor = actor or self.actor
        events: list[Event] = []
        if rec.kind is not None:
            cause, corr = self._chain(rec.kind, causation, correlation)
            events.append(self._event(rec.kind, rec.payload, actor, cause, corr))
        if rec.ops:
            if events:
                cause, corr = events[0].id, self._chain(OPS_APPLIED, None, correlation)[1]
            else:
                cause, corr = self._chain(OPS_APPLIED, causation, correlation)
            events.append(self._event(OPS_APPLIED, list(rec.ops), actor, cause, corr))
        if ts_ms is not None:
            events = [e._replace(ts_ms=ts_ms) for e in events]
        self.append(events)
        return Recorded(rec.returns or events[-1].id, tuple(e.id for e in events))

    def append(self, events: Sequence[Event]) -> None:
        """Validate ``events`` against the current graph and append them durably."""
        try:
            lines = "".join(encode_event(e) + "\n" for e in events).encode("utf-8")
        except (TypeError, ValueError) as exc:
            raise GaspError(f"payload is not JSON: {exc}", "pass only JSON values", USAGE) from None
        what = f"the {events[0].kind} event" if events else ""
        validate.depths(events, lines, what)
        screen = Screen(lines)  # a large batch: by a second process, meanwhile
        screened = False  # whether the credential test below has run
        try:
            validate.line_sizes(EVENTS_PATH, lines, self.max_line_bytes, what)
            causes = {e.causation_id for e in events} - {e.id for e in events} - {None}
            if any(cause not in self._ids for cause in causes):
                self._full()  # a cause from before the seed
            self.lease.acquire()
            with writer.locked(self.log_path, self.root) as log:
                known = len(self._events)
                self._sync(log.read_from(self._offset))
                self._refuse_closed_meanwhile(known, events)
                validate.unpaired_tail(self._last_event(), events, self.root)
                validate.batch(events, self._folder, self._ids, self._packs)
                screened = True
                validate.secrets(EVENTS_PATH, lines, what, screen.lines())
                log.write(lines)
        except GaspError:  # a credential is named first, whatever else was refused
            if not screened:
                validate.secrets(EVENTS_PATH, lines, what, screen.lines())
            raise
        self._folder.apply_all(events)
        for event in events:
            self._ids[event.id] = event.kind
        self._events.extend(events)
        self._offset += len(lines)
        self._seen.append(lines)

    def _refuse_closed_meanwhile(self, known: int, events: Sequence[Event]) -> None:
        """Refuse a batch that would land in a run another process closed meanwhile."""
        run = self.open_run
        if run is None or any(e.kind == RUN_FINISHED for e in events):
            return
        news = self._events[known:]
        closed = any(e.kind == RUN_FINISHED and run_id_of(e) == run.run_id for e in news)
        if not closed and run_lock_held(self.root):
            # a close in progress may have written the finish before this process
            # read the log (the marker still said open): the batch would land in
            # a closed run. Without a close in progress, a finish whose commit
            # failed still takes events until the close is retried.
            closed = self._finish_of(run) is not None
        if closed:
            raise validate.RefusedError(
                f"run {run.run_id} was closed by another process meanwhile; nothing was written",
                "run the command again: it then sees the run closed",
            )

    def log_bytes(self) -> bytes:
        """The log's bytes as this agent last read or appended them (not reread)."""
        data = b"".join(self._seen)
        self._seen[:] = [data]  # joined once: a close asks three times
        return data

    # -- the open run's finish ------------------------------------------------

    def finished_outcome(self) -> str | None:
        """The outcome of the open run's ``run.finished``, if a close wrote it."""
        finish = self._finish_of(self.open_run) if self.open_run is not None else None
        payload = finish.payload if finish is not None else None
        outcome = payload.get("outcome") if isinstance(payload, dict) else None
        return outcome if isinstance(outcome, str) else None

    def _finish_of(self, run: OpenRun) -> Event | None:
        """The ``run.finished`` of ``run`` after its start (not one before a restart)."""
        after = run.started_event not in self._ids  # started before the seed
        for event in self._runs():
            if event.id == run.started_event:
                after = True
            elif after and event.kind == RUN_FINISHED and run_id_of(event) == run.run_id:
                return event
        return None
