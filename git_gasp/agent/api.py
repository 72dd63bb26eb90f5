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
paired and causally chained as §4.1–§4.4 describe; :class:`Agent` adds these
typed helpers and the run lifecycle to :class:`git_gasp.agent.eventlog.EventLog`,
which reads the log and checks every batch against the current graph *before*
it is appended.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import git_gasp.agent.validate as validate
from git_gasp.agent.actorkind import refuse_an_agents_approval
from git_gasp.agent.eventlog import EventLog
from git_gasp.agent.ids import new_id
from git_gasp.core import payloads as P
from git_gasp.core import runpayloads
from git_gasp.core.event import OPS_APPLIED, Actor
from git_gasp.core.jsonvalue import Json
from git_gasp.errors import USAGE, GaspError
from git_gasp.store.exclude import exclude_local
from git_gasp.store.runmarker import OpenRun, remove_marker, run_lock, write_marker

SYSTEM = Actor("system", "git-gasp")  # the actor of status updates and attachments


class Agent(EventLog):
    """An agent repository opened for writing by one worker: the typed helpers
    (REFERENCE §4.3) and the run lifecycle (§4.4) over its :class:`EventLog`."""

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
        if status == "Approved" and who.kind != "agent":
            refuse_an_agents_approval(self.root, who)
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
            with run_lock(self.root):
                self.reread()  # another process of this worker may have started one
                return self._start_run(task, goal, run_id)
        except BaseException:
            if self.open_run is None:
                self.lease.release()  # refused: no run holds it
            raise

    def _start_run(self, task: str, goal: str | None, run_id: str | None) -> str:
        if self.open_run is not None:
            raise validate.RefusedError(
                f"run {self.open_run.run_id} is already open; finish it before starting another",
                "close it with: git gasp run close --outcome TEXT "
                "(or: git gasp run abandon --reason TEXT)",
            )
        if goal is not None and goal not in self.graph.nodes:
            raise GaspError(
                f"unknown goal: {goal}", "record it first: git gasp record goal --title TEXT"
            )
        if run_id is not None and run_id in self.graph.nodes:
            raise validate.RefusedError(f"`{run_id}` already exists; choose a new run id")
        run_id = run_id or new_id("run")
        rec = runpayloads.run_started(run_id, task)
        started = self._event("run.started", rec.payload, self.actor, None, run_id)
        self.append([started])
        self.open_run = OpenRun(run_id, started.id, goal, self.worker)
        write_marker(self.root, self.open_run)
        exclude_local(self.root)  # another runtime's repository may not ignore the marker
        pair = self._event(OPS_APPLIED, list(rec.ops), self.actor, started.id, run_id)
        self.append([pair])
        return run_id

    @validate.typed_arguments
    def finish_run(self, outcome: str, at_ms: int | None = None) -> str:
        """``run.finished`` + UpdateNode run; the run stays open until committed.
        ``at_ms``: when the run ended, if not now (an imported session's last record)."""
        run = self.open_run
        if run is None:
            raise GaspError("no run is open", "start one with: git gasp run start --task TEXT")
        if self._finish_of(run) is None:
            exists = run.run_id in self.graph.nodes
            self.record(runpayloads.run_finished(run.run_id, outcome, exists), ts_ms=at_ms)
        return run.run_id

    def forget_run(self) -> None:
        """Drop the open-run marker and release the lease (after the boundary commit)."""
        remove_marker(self.root)
        self.open_run = None
        self.lease.release()
