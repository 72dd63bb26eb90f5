"""The Python API for agent authors: record GASP events into an agent repo.

    from git_gasp.agent.api import Agent

    with Agent.open("path/to/agent", worker="worker-1") as agent:
        goal = agent.record_goal("goal_retry", "Make retry reliable", "retries drop state")
        run = agent.start_run("fix retry skill", goal=goal)
        patch = agent.propose_patch("patch_9", "persist retry counter", "survives timeouts",
                                    evidence=[], ops=[])
        agent.record_eval("eval_5", "cargo test retry", "Passed", score=1.0, patch=patch)
        agent.record_decision("decision_3", "Approved", "eval passed", target=patch)
        agent.update_patch_status(patch, "Promoted", "eval passed")
        close_run(agent, "promoted")  # git_gasp.agent.runs: run.finished, projections, commit

Every helper writes the runtime's payload and ops shapes (REFERENCE §4.5),
paired and causally chained as §4.1–§4.4 describe, and every batch is checked
against the current graph *before* it is appended (see :mod:`git_gasp.agent.validate`):
git-gasp never appends an event that a fold would skip or a check would reject.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Sequence
from typing import Any, NamedTuple

from git_gasp.agent import validate
from git_gasp.core import payloads as P
from git_gasp.core import runpayloads
from git_gasp.core.event import OPS_APPLIED, Actor, Event, EventError, encode_event, parse_event
from git_gasp.core.fold import Folder
from git_gasp.core.graph import Graph, graphs_equal
from git_gasp.core.jsonvalue import Json
from git_gasp.core.log import describe_error, parse_log
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
from git_gasp.store.runmarker import (
    OpenRun,
    find_open_run,
    read_marker,
    remove_marker,
    write_marker,
)
from git_gasp.store.worktree import EVENTS_PATH, read_packs, refuse_escapes

SYSTEM = Actor("system", "git-gasp")  # the actor of status updates and attachments


class Recorded(NamedTuple):
    """What a helper appended: the entity id it names and the event ids."""

    id: str
    event_ids: tuple[str, ...]


def new_id(prefix: str) -> str:
    """A runtime-shaped id: ``<prefix>_`` + 32 lowercase hex (UUID v4, no hyphens)."""
    return f"{prefix}_{uuid.uuid4().hex}"


def agent_id_of(root: str) -> str | None:
    """``agent_id`` from the first fenced block of AGENT.md, if any."""
    from git_gasp.core.manifest import first_fenced_block

    try:
        with open(os.path.join(root, "AGENT.md"), encoding="utf-8") as fh:
            block = first_fenced_block(fh.read()) or []
    except (OSError, UnicodeDecodeError):
        return None
    for line in block:
        key, _, value = line.strip().partition(":")
        if key == "agent_id" and value.strip():
            return value.strip().strip("'\"")
    return None


class Agent:
    """An agent repository opened for writing by one worker."""

    def __init__(
        self,
        root: str,
        worker: str,
        actor: Actor | None = None,
        ttl_ms: int = DEFAULT_TTL_MS,
    ) -> None:
        if not os.path.isdir(os.path.join(root, "state")) and not os.path.exists(
            os.path.join(root, "AGENT.md")
        ):
            raise GaspError(f"{root}: not an agent repository", "create one with: git gasp init")
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
        resumed = self._open_log()
        marker = read_marker(root)
        if self._seed is not None and marker is not None and marker.started_event not in self._ids:
            self._full()  # the marker's run started before the seed
        self.open_run: OpenRun | None = find_open_run(marker, self._ids, self._runs(), resumed)

    # -- opening and reading --------------------------------------------------

    @classmethod
    def open(cls, root: str = ".", worker: str | None = None, **kwargs: Any) -> Agent:
        """Open ``root``; the worker id comes from ``worker``, ``GASP_WORKER_ID``
        or the clone's stable local id (``.agent/worker``)."""
        from git_gasp.store.runmarker import local_worker_id

        chosen = worker or os.environ.get("GASP_WORKER_ID") or local_worker_id(root)
        return cls(root, chosen, **kwargs)

    def __enter__(self) -> Agent:
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
        from git_gasp.hooks.changes import max_line_bytes

        return max_line_bytes(self.root)

    @property
    def graph(self) -> Graph:
        """The graph folded from the log, as of the last append or read."""
        return self._folder.graph()

    def events(self) -> tuple[Event, ...]:
        """Every event of the log, as of the last append or read."""
        self._full()
        return tuple(self._events)

    def recent_events(self) -> tuple[Event, ...]:
        """The events after the snapshot the fold was seeded from (all if none)."""
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
        self._full()
        return ident in self._ids

    def names_node(self, ident: str) -> bool:
        """Whether ``ident`` is a node, or a run a ``run.started`` names (a run
        the reference starts without an ops pair has no node)."""
        if ident in self._folder.nodes:
            return True
        self._full()
        return any(
            e.kind == "run.started"
            and isinstance(e.payload, dict)
            and e.payload.get("run_id") == ident
            for e in self._events
        )

    # -- seeding from a snapshot -----------------------------------------------

    def _open_log(self) -> ResumedRun | None:
        """Fold the log, from a verified snapshot when there is one; the run
        the log resumes (parsing the snapshot's prefix only as needed)."""
        data = self._read_all()
        common = None
        if os.path.isdir(os.path.join(self.root, "snapshots")):
            common = seeding.common_dir(self.root)
        verified = seeding.verified_digests(common)
        found = seeding.choose(self.root, data, verified, seeding.load_graph) if common else None
        seed, graph = found or (None, None)
        if seed is not None and graph is not None and seed.verified:
            self._folder = Folder.from_graph(graph)
            self._seed = seed
            self._offset = seed.offset
            self._seen.append(memoryview(data)[: seed.offset])
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
    ) -> Recorded:
        """Append one helper's events: the domain event, then its ops pair."""
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
        validate.secrets(EVENTS_PATH, lines, what)
        validate.line_sizes(EVENTS_PATH, lines, self.max_line_bytes, what)
        batch = {e.id for e in events}
        causes = {e.causation_id for e in events} - batch - {None}
        if any(cause not in self._ids for cause in causes):
            self._full()  # a cause from before the seed
        self.lease.acquire()
        with writer.locked(self.log_path, self.root) as log:
            self._sync(log.read_from(self._offset))
            validate.unpaired_tail(self._last_event(), events)
            validate.batch(events, self._folder, self._ids, self._packs)
            log.write(lines)
        self._folder.apply_all(events)
        for event in events:
            self._ids[event.id] = event.kind
        self._events.extend(events)
        self._offset += len(lines)
        self._seen.append(lines)

    def log_bytes(self) -> bytes:
        """The log as this agent last read or appended to it (the file's bytes
        then, without rereading it)."""
        return b"".join(self._seen)

    # -- the typed helpers (REFERENCE §4.3) ------------------------------------

    def _who(self, who: Actor | None) -> dict[str, str]:
        actor = who or self.actor
        return P.actor_value(actor.kind, actor.id)

    @validate.typed_arguments
    def record_goal(
        self,
        goal_id: str | None,
        title: str,
        summary: str = "",
        status: str = "Open",
        owner: Actor | None = None,
        metadata: Json = None,
    ) -> str:
        """``goal.created`` + CreateNode goal. Allowed outside a run. Returns the goal id."""
        validate.choice("goal status", status, P.GOAL_STATUSES)
        owner = owner or self.actor
        rec = P.goal(goal_id or new_id("goal"), title, summary, status, self._who(owner), metadata)
        return self.record(rec, owner).id

    @validate.typed_arguments
    def record_task(
        self,
        task_id: str | None,
        title: str,
        summary: str = "",
        status: str = "Open",
        goal: str | None = None,
        created_by: Actor | None = None,
        metadata: Json = None,
    ) -> str:
        validate.choice("task status", status, P.TASK_STATUSES)
        creator = created_by or self.actor
        rec = P.task(
            task_id or new_id("task"), title, summary, status, goal, self._who(creator), metadata
        )
        return self.record(rec, creator).id

    @validate.typed_arguments
    def record_observation(
        self,
        obs_id: str | None,
        title: str,
        summary: str = "",
        observed_in: str | None = None,
        metadata: Json = None,
    ) -> str:
        if observed_in is None and self.open_run is not None:
            observed_in = self.open_run.run_id
        rec = P.observation(obs_id or new_id("observation"), title, summary, observed_in, metadata)
        return self.record(rec).id

    @validate.typed_arguments
    def record_failure(self, failure_id: str | None, title: str, summary: str = "") -> str:
        return self.record(P.failure(failure_id or new_id("failure"), title, summary)).id

    @validate.typed_arguments
    def record_hypothesis(
        self,
        hyp_id: str | None,
        title: str,
        summary: str = "",
        confidence: float | None = None,
        explains: str | None = None,
        metadata: Json = None,
    ) -> str:
        rec = P.hypothesis(
            hyp_id or new_id("hypothesis"), title, summary, confidence, metadata, explains
        )
        return self.record(rec).id

    @validate.typed_arguments
    def propose_patch(
        self,
        patch_id: str | None,
        title: str,
        summary: str = "",
        *,
        evidence: Sequence[str] = (),
        artifacts: Sequence[dict[str, Any]] = (),
        ops: Sequence[dict[str, Any]] = (),
        preconditions: Sequence[Json] = (),
        expected_effects: Sequence[Json] = (),
        base_project_ref: Json = None,
        base_state_version: int | None = None,
        created_by: Actor | None = None,
    ) -> str:
        """``patch.proposed`` + its pair (evidence ``addresses``, artifacts, extra ops).

        ``base_state_version`` defaults to the current graph version (the state
        the patch was written against); the runtime's own default is 0.
        """
        creator = created_by or self.actor
        preconditions = [validate.tagged(p, P.PRECONDITIONS, "precondition") for p in preconditions]
        expected_effects = [
            validate.tagged(e, P.EXPECTED_EFFECTS, "expected effect") for e in expected_effects
        ]
        rec = P.patch(
            patch_id or new_id("patch"),
            title,
            summary,
            self._who(creator),
            base_state_version=self.graph.version
            if base_state_version is None
            else base_state_version,
            base_project_ref=base_project_ref,
            ops=ops,
            preconditions=preconditions,
            expected_effects=expected_effects,
            evidence=evidence,
            artifacts=artifacts,
        )
        return self.record(rec, creator).id

    @validate.typed_arguments
    def record_eval(
        self,
        eval_id: str | None,
        command: str,
        status: str,
        score: float | None = None,
        patch: str | None = None,
        metadata: Json = None,
    ) -> str:
        validate.choice("eval status", status, P.EVAL_STATUSES)
        rec = P.evaluation(eval_id or new_id("eval"), command, status, score, metadata, patch)
        return self.record(rec).id

    @validate.typed_arguments
    def record_decision(
        self,
        decision_id: str | None,
        status: str,
        reason: str,
        target: str | None = None,
        decided_by: Actor | None = None,
        metadata: Json = None,
    ) -> str:
        """``decision.created``; ``target -approved_by|rejected_by|references-> decision``."""
        validate.choice("decision status", status, P.DECISION_STATUSES)
        who = decided_by or self.actor
        rec = P.decision(
            decision_id or new_id("decision"), status, reason, self._who(who), metadata, target
        )
        return self.record(rec, who).id

    @validate.typed_arguments
    def record_frame(
        self,
        frame_id: str | None,
        title: str,
        summary: str = "",
        parent: str | None = None,
        metadata: Json = None,
    ) -> str:
        return self.record(
            P.frame(frame_id or new_id("frame"), title, summary, parent, metadata)
        ).id

    @validate.typed_arguments
    def update_goal_status(self, goal_id: str, status: str, reason: str | None = None) -> str:
        validate.choice("goal status", status, P.GOAL_STATUSES)
        self._existing("goal", goal_id)
        return self.record(P.status_change("goal", goal_id, status, reason), SYSTEM).event_ids[-1]

    @validate.typed_arguments
    def update_task_status(self, task_id: str, status: str, reason: str | None = None) -> str:
        validate.choice("task status", status, P.TASK_STATUSES)
        self._existing("task", task_id)
        return self.record(P.status_change("task", task_id, status, reason), SYSTEM).event_ids[-1]

    @validate.typed_arguments
    def update_patch_status(self, patch_id: str, status: str, reason: str | None = None) -> str:
        validate.choice("patch status", status, P.PATCH_STATUSES)
        self._existing("patch", patch_id)
        return self.record(P.status_change("patch", patch_id, status, reason), SYSTEM).event_ids[-1]

    def _existing(self, kind: str | None, node_id: str) -> None:
        """A status change (or an attachment) names a node of the graph (of
        ``kind``, if given): said first, before anything about the run it
        would need."""
        found = self._folder.nodes.get(node_id)
        if found is not None and found.kind != kind and kind is not None:
            raise GaspError(
                f"`{node_id}` is a {found.kind}, not a {kind}",
                f"name a {kind}: git gasp fold --json lists the nodes",
                USAGE,
            )
        if found is not None:
            return
        from git_gasp.core.suggest import did_you_mean

        nodes = self._folder.nodes.items()
        same = [n for n, node in nodes if kind is None or node.kind == kind]
        kind = kind or "node"
        plural = f"{kind}es" if kind.endswith("ch") else f"{kind}s"
        hint = did_you_mean(node_id, same) or f"list the {plural} with: git gasp fold --json"
        # an unknown id is bad input (exit 2), as for show, lineage and fact supersede
        raise GaspError(f"{kind} `{node_id}` does not exist", hint, USAGE)

    @validate.typed_arguments
    def record_model_call(
        self,
        model: str,
        prompt_summary: str,
        output_summary: str | None = None,
        node_id: str | None = None,
        metadata: Json = None,
    ) -> str:
        run = self._require_run("model.called")
        rec = runpayloads.model_call(
            node_id or new_id("node"), run, model, prompt_summary, output_summary, metadata
        )
        return self.record(rec).id

    @validate.typed_arguments
    def record_model_finished(self, model: str, output_summary: str, metadata: Json = None) -> str:
        run = self._require_run("model.finished")
        return self.record(
            runpayloads.model_finished(run, model, output_summary, metadata)
        ).event_ids[-1]

    @validate.typed_arguments
    def record_tool_call(
        self,
        tool: str,
        input_summary: str,
        output_summary: str | None = None,
        success: bool | None = None,
        node_id: str | None = None,
        metadata: Json = None,
        actor: Actor | None = None,
    ) -> str:
        run = self._require_run("tool.called")
        rec = runpayloads.tool_call(
            node_id or new_id("node"), run, tool, input_summary, output_summary, success, metadata
        )
        return self.record(rec, actor).id

    @validate.typed_arguments
    def record_tool_finished(self, tool: str, output_summary: str, success: bool) -> str:
        """``tool.finished``; a failed tool also records a ``failure`` (as the adapter does)."""
        run = self._require_run("tool.finished")
        if not success:
            self.record_failure(None, f"tool {tool} failed", output_summary)
        return self.record(runpayloads.tool_finished(run, tool, output_summary, success)).event_ids[
            -1
        ]

    @validate.typed_arguments
    def record_project_snapshot(
        self,
        project: dict[str, Any],
        artifacts: Sequence[dict[str, Any]] = (),
        node_id: str | None = None,
        metadata: Json = None,
    ) -> str:
        rec = runpayloads.project_snapshot(node_id or new_id("node"), project, artifacts, metadata)
        return self.record(rec).id

    @validate.typed_arguments
    def attach_artifact(self, node_id: str, artifact: dict[str, Any]) -> str:
        self._existing(None, node_id)
        return self.record(runpayloads.attachment(node_id, artifact), SYSTEM).event_ids[-1]

    @validate.typed_arguments
    def link(self, source: str, rel: str, target: str) -> str:
        """An ops-only ``CreateRelation`` (props ``{}``)."""
        return self.record(runpayloads.ops_only([P.relation(source, rel, target)])).event_ids[-1]

    @validate.typed_arguments
    def apply_ops(self, ops: Sequence[dict[str, Any]], causation: str | None = None) -> str:
        """Raw ops in one ``state.ops_applied`` event (a maintenance root outside a run)."""
        if not ops:
            raise GaspError("no ops to apply", "give at least one op, e.g. a CreateNode", USAGE)
        return self.record(runpayloads.ops_only(ops), causation=causation).event_ids[-1]

    # -- runs (REFERENCE §4.4) -------------------------------------------------

    def _require_run(self, kind: str) -> str:
        if self.open_run is None:
            raise validate.RefusedError(
                f"{kind} needs an open run (outside one it would be an invalid root, check 5)",
                "start one with: git gasp run start --task TEXT",
            )
        return self.open_run.run_id

    @validate.typed_arguments
    def start_run(self, task: str, goal: str | None = None, run_id: str | None = None) -> str:
        """``run.started`` (a root) + CreateNode run; opens the run and keeps the lease."""
        self.lease.acquire()  # another worker is told who holds the lease, first
        try:
            return self._start_run(task, goal, run_id)
        except BaseException:
            if self.open_run is None:
                self.lease.release()  # refused: no run holds it
            raise

    def _start_run(self, task: str, goal: str | None, run_id: str | None) -> str:
        if self.open_run is not None:
            raise validate.RefusedError(
                f"run {self.open_run.run_id} is already open; finish it before starting another",
                "close it with: git gasp run close --outcome TEXT (or run abandon)",
            )
        if goal is not None and goal not in self.graph.nodes:
            raise GaspError(f"unknown goal: {goal}", "record it first: git gasp record goal")
        if run_id is not None and run_id in self.graph.nodes:
            raise validate.RefusedError(f"`{run_id}` already exists; choose a new run id")
        run_id = run_id or new_id("run")
        rec = runpayloads.run_started(run_id, task)
        started = self._event("run.started", rec.payload, self.actor, None, run_id)
        self.append([started])
        self.open_run = OpenRun(run_id, started.id, goal, self.worker)
        write_marker(self.root, self.open_run)
        pair = self._event(OPS_APPLIED, list(rec.ops), self.actor, started.id, run_id)
        self.append([pair])
        return run_id

    @validate.typed_arguments
    def finish_run(self, outcome: str) -> str:
        """``run.finished`` + UpdateNode run; the run stays open until committed."""
        run = self.open_run
        if run is None:
            raise GaspError("no run is open", "start one with: git gasp run start --task TEXT")
        if self._finish_of(run) is None:
            exists = run.run_id in self.graph.nodes
            self.record(runpayloads.run_finished(run.run_id, outcome, exists))
        return run.run_id

    def finished_outcome(self) -> str | None:
        """The outcome the log's ``run.finished`` of the open run records, when
        a close already wrote it (and its commit is still to be made)."""
        finish = self._finish_of(self.open_run) if self.open_run is not None else None
        payload = finish.payload if finish is not None else None
        outcome = payload.get("outcome") if isinstance(payload, dict) else None
        return outcome if isinstance(outcome, str) else None

    def _finish_of(self, run: OpenRun) -> Event | None:
        """The ``run.finished`` of ``run`` after its start (a finish of the
        same id before a restart does not count)."""
        after = run.started_event not in self._ids  # started before the seed
        for event in self._runs():
            if event.id == run.started_event:
                after = True
            elif after and event.kind == RUN_FINISHED and run_id_of(event) == run.run_id:
                return event
        return None

    def forget_run(self) -> None:
        """Drop the open-run marker and release the lease (after the boundary commit)."""
        remove_marker(self.root)
        self.open_run = None
        self.lease.release()
