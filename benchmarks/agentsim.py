"""A seeded agent that writes runs the way yoagent-state's helpers do.

:class:`AgentSim` holds what carries over from run to run (the clock, the
goal, earlier patches, the last fact, the state version, a corpus of prose)
and writes one run at a time as a :class:`RunRecord`: the run's log lines (a
``run.started`` pair, a story of exploring and fixing pairs from
``runevents`` and ``fixevents``, a ``run.finished`` pair) padded with prose
to a target size, one ``memory/facts.jsonl`` line (§9.5) and one journal
entry. Everything comes from the seeded random generator, so a seed gives the
same run.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable
from typing import NamedTuple

import fixevents
import runevents
from runevents import AGENT, RunDraft, hex_id

T0_MS = 1_739_000_000_000  # 2025-02-08, where the runtime's examples start
_WORDS = (
    "retry timeout counter state worker attempt backoff jitter lease commit log event fold "
    "graph node relation patch eval decision failure hypothesis observation skill prompt "
    "tool cargo test suite flaky regression latency budget cache index snapshot replay "
    "projection journal memory fact supersedes evidence promote reject stale merge branch "
    "upstream deadline queue batch append only integrity hash manifest identity runtime "
    "executor model provider tokens context window summary trace span metric threshold "
    "score passed failed error skipped pending approved rejected promoted because after "
    "before when while since the a an of to in on for with without across between under "
    "over again still never always only first last next previous each every some most "
    "persist reset restore resume recover rollback reproduce isolate measure compare "
    "verify confirm observe suspect explain propose apply validate approve check run "
    "parser serializer deserializer checker fixture harness benchmark profile allocation "
    "naïve café façade déjà-vu"
).split()
# the writer of each kind of a run's middle pairs (see AgentSim._story)
_WRITERS: dict[str, Callable[[RunDraft], None]] = {
    "model": runevents.model_called,
    "tool": runevents.tool_called,
    "observation": runevents.observation_created,
    "failure": runevents.failure_observed,
    "hypothesis": runevents.hypothesis_created,
    "patch": fixevents.patch_proposed,
    "eval": fixevents.eval_finished,
    "decision": fixevents.decision_created,
    "status": fixevents.status_changed,
}


class RunRecord(NamedTuple):
    run_id: str
    goal_id: str
    outcome: str
    log: str  # the run's log lines, each ending in "\n"
    fact: str  # one memory/facts.jsonl line
    journal: str  # one journal entry
    ts_ms: int  # the run's last timestamp
    events: int


class AgentSim:
    """A seeded agent that writes runs the way yoagent-state's helpers do."""

    def __init__(
        self,
        rng: random.Random,
        ts_ms: int = T0_MS,
        goal_id: str | None = None,
        patches: list[str] | None = None,
        last_fact: str | None = None,
    ) -> None:
        self.rng = rng
        self.ts = ts_ms
        self.goal_id = goal_id
        self.patches: list[str] = list(patches or [])  # patches of earlier runs
        self.last_fact = last_fact
        self.version = 0  # ops written so far (the base_state_version of patches)
        words = [rng.choice(_WORDS) for _ in range(12_000)]
        self.corpus = " ".join(words)

    # -- texts ---------------------------------------------------------------

    def text(self, n: int) -> str:
        """About ``n`` characters of plausible prose from the corpus."""
        corpus = self.corpus
        while len(corpus) < n + 1:
            corpus += " " + corpus
        start = corpus.find(" ", self.rng.randrange(len(corpus) - n)) + 1
        end = corpus.rfind(" ", start, start + n)
        return corpus[start : end if end > start else start + n].strip()

    def phrase(self, lo: int = 2, hi: int = 5) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(lo, hi)))

    def _story(self, steps: int) -> list[str]:
        """The kinds of a run's middle pairs. About half the runs that are long
        enough carry a fix through: a patch, its eval, the decision and the
        patch's status change close the run; the rest explore."""
        rng = self.rng
        fix = steps >= 4 and rng.random() < 0.55
        tail = ["patch", "eval", "decision", "status"] if fix else []
        head: list[str] = []
        kinds = [
            "model",
            "tool",
            "observation",
            "failure",
            "hypothesis",
            "eval",
            "decision",
            "status",
        ]
        weights = [3.0, 3.0, 2.0, 1.5, 1.0, 0.3, 0.2, 0.3 if self.patches else 0.0]
        for _ in range(steps - len(tail)):
            head += rng.choices(kinds, weights)
        if fix:  # interleave a few model/tool calls into the fix
            for kind in head[len(head) // 2 :]:
                if kind in ("model", "tool"):
                    tail.insert(rng.randrange(1, len(tail)), kind)
            head = head[: len(head) // 2] + [
                k for k in head[len(head) // 2 :] if k not in ("model", "tool")
            ]
        return head + tail

    def tick(self, lo: int = 5, hi: int = 400) -> int:
        self.ts += self.rng.randint(lo, hi)
        return self.ts

    # -- one run ---------------------------------------------------------------

    def run(self, pairs: int, target_bytes: int, with_goal: bool = False) -> RunRecord:
        """A run of ``pairs`` paired events (incl. the run.started and
        run.finished pairs; plus a goal pair first if ``with_goal``),
        padded to about ``target_bytes``."""
        rng = self.rng
        d = RunDraft(self)
        if with_goal or self.goal_id is None:
            self.goal_id = runevents.goal_created(d)
        assert self.goal_id is not None
        d.goal = self.goal_id
        task_text = self._start(d)
        for choice in self._story(max(pairs - 2, 0)):
            if choice == "eval" and not d.patch and rng.random() < 0.5:
                choice = "tool"
            _WRITERS[choice](d)
        outcome = self._finish(d)
        log = self._pad("".join(d.lines), d.slots, d.leads, target_bytes)
        fact = self._fact(d)
        when = _iso(self.ts)
        journal = (
            f"## {when} — {d.run_id}: {outcome}\n\n"
            f"Task: {task_text}. "
            f"{len(d.lines)} events. {self.text(rng.randint(150, 450)).capitalize()}.\n\n"
        )
        return RunRecord(d.run_id, d.goal, outcome, log, fact, journal, self.ts, len(d.lines))

    def _start(self, d: RunDraft) -> str:
        """The run.started pair; returns the task's text (without its pad slot)."""
        rng = self.rng
        d.run_id = run_id = f"run_{hex_id(rng)}"
        task_text = self.phrase(4, 8)
        task = f"{task_text}{d.slot()}"
        self.ts += rng.randint(60_000, 3_600_000)  # runs are minutes to an hour apart
        # run.started is never chained (a root); its pair and everything after
        # in the run is correlated with the run id (§4.4).
        d.started = d.pair(
            AGENT,
            "run.started",
            {"run_id": run_id, "task": task},
            [
                {
                    "CreateNode": {
                        "id": run_id,
                        "kind": "run",
                        "props": {"status": "started", "task": task},
                    }
                }
            ],
            None,
            run_id,
        )
        return task_text

    def _finish(self, d: RunDraft) -> str:
        """The run.finished pair; returns the run's outcome."""
        if d.decided:
            outcome = "promoted" if d.decided == "Approved" else "rejected"
        elif d.patch:
            outcome = "proposed"
        elif d.failures:
            outcome = "failed"
        else:
            outcome = "observed"
        d.in_run(
            AGENT,
            "run.finished",
            {"outcome": outcome, "run_id": d.run_id},
            [{"UpdateNode": {"id": d.run_id, "props": {"outcome": outcome, "status": "finished"}}}],
        )
        if d.patch:
            self.patches.append(d.patch)
            del self.patches[:-50]
        return outcome

    def _fact(self, d: RunDraft) -> str:
        """The run's memory/facts.jsonl line (§9.5), superseding the last one at times."""
        rng = self.rng
        fact_id = f"fact_{hex_id(rng)}"
        supersedes = self.last_fact if self.last_fact and rng.random() < 0.2 else None
        fact = (
            json.dumps(
                {
                    "id": fact_id,
                    "ts_ms": self.ts,
                    "text": f"{self.phrase(6, 12)}; {self.text(rng.randint(80, 220))}",
                    "derived_from": [d.last_domain, d.run_id],
                    "supersedes": supersedes,
                },
                separators=(",", ":"),
                ensure_ascii=False,
            )
            + "\n"
        )
        self.last_fact = fact_id
        return fact

    def _pad(self, text: str, slots: list[str], leads: list[str], target_bytes: int) -> str:
        """Replace each pad slot with prose so ``text`` is about ``target_bytes``."""
        rng = self.rng
        counts = [text.count(s) for s in slots]
        marks = sum(c * len(s) for c, s in zip(counts, slots, strict=True))
        base = len(text.encode("utf-8")) - marks
        deficit = max(target_bytes - base, 0)
        weights = [rng.uniform(0.3, 1.7) for _ in slots]
        scale = sum(c * w for c, w in zip(counts, weights, strict=True)) or 1.0
        for s, lead, w in zip(slots, leads, weights, strict=True):
            n = int(deficit * w / scale)
            text = text.replace(s, lead + self.text(n) if n > 1 else "")
        return text


def _iso(ts_ms: int) -> str:
    return dt.datetime.fromtimestamp(ts_ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M")
