"""Deterministic generator of realistic GASP agent histories, for benchmarks.

A history is a git repository in which every commit closes one agent run
(REFERENCE §8): the run's events are appended to ``state/events.jsonl`` — a
``run.started`` pair, a mix of the paired domain events real agents write
(§4.3-4.5: observation, tool and model calls, failures, hypotheses, patches,
evals, decisions, patch status changes), a ``run.finished`` pair — together
with one fact appended to ``memory/facts.jsonl`` (§9.5) and one entry
appended to ``journal/JOURNAL.md``. The commit message is the runtime's
``run <id>: <outcome>`` with ``Run-Id``/``Goal``/``Outcome`` trailers.

Everything is derived from a seed: event ids (``event_`` + 32 hex), node ids,
timestamps (integer ``ts_ms``), texts, commit dates, hence commit ids. Events
average about 500 bytes (summaries and metadata are padded with realistic
text) and are sized so the log reaches about ``target_log_bytes``.

The history is streamed into ``git fast-import`` (every version of the log is
written once, never held all at once: a 600-commit, 4 MB log is ~1.2 GB of
versions), then checked out. :func:`append_run` adds one more run commit to a
generated repository with ordinary ``git commit``.

Usage::

    python benchmarks/generate.py repo DEST --commits 600 --bytes 4000000 --seed 1
    python benchmarks/generate.py append DEST
    python benchmarks/generate.py log FILE --events 1000000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

EVENT_BYTES = 500  # the average event size the generator aims for
T0_MS = 1_739_000_000_000  # 2025-02-08, where the runtime's examples start
AGENT_ID = "evolve"
AGENT = {"kind": "agent", "id": AGENT_ID}
SYSTEM = {"kind": "system", "id": "yoagent-state"}
COMMITTER = "evolve agent <evolve@agents.invalid>"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "evolve agent",
    "GIT_AUTHOR_EMAIL": "evolve@agents.invalid",
    "GIT_COMMITTER_NAME": "evolve agent",
    "GIT_COMMITTER_EMAIL": "evolve@agents.invalid",
}

IDENTITY_MD = (
    "# Identity\n\n"
    "I am evolve, an agent that keeps its retry skill reliable.\n\n"
    "## Principles\n\n"
    "- Every change is a patch with evidence, an eval and a decision.\n"
    "- The event log is the source of truth; projections are regenerated.\n"
    "- Never rewrite history: append, supersede, explain.\n"
)
CONFIG_TOML = (
    "[executor]\n"
    'provider = "anthropic"\n'
    'model = "claude-opus-4-6"\n'
    'runtime = "yoyo-evolve"\n\n'
    "[state]\n"
    'events = "state/events.jsonl"\n\n'
    "[gasp]\n"
    "snapshot_every = 1000\n"
)
SKILL_MD = (
    "---\n"
    "name: retry\n"
    "description: Keep retries reliable across timeouts by persisting the attempt counter.\n"
    "---\n"
    "# retry\n\n"
    "Persist the retry counter before each attempt; never reset it on timeout.\n"
)
# what `git gasp init` writes: the local control plane is never committed
# (git_gasp.store.runmarker.LOCAL_PATHS), and the append-only logs merge by union
GITIGNORE = ".agent/lease\n.agent/HEAD\n.agent/RUN\n.agent/worker\n.agent/lease.*\n.tmp-*\n"
GITATTRIBUTES = "*.jsonl merge=union\n"
JOURNAL_HEADER = (
    "# Journal\n\nRuns of evolve, newest last. Appended by the agent at each run's close.\n\n"
)

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
_TOOLS = ("cargo test", "cargo clippy", "pytest -q", "git diff", "rg", "ruff check", "make bench")
_MODELS = ("claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5")
_PATCH_CREATE = re.compile(rb'"CreateNode":\{"id":"(patch_[0-9a-f]{32})","kind":"patch"')
_PH = "@@PAD{}@@"  # a pad slot in rendered lines; the corpus never contains "@@"


def _hex(rng: random.Random, bits: int = 128) -> str:
    return f"{rng.getrandbits(bits):0{bits // 4}x}"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _line(
    event_id: str,
    ts: int,
    actor: dict[str, str],
    kind: str,
    payload: Any,
    causation: str | None,
    correlation: str | None,
) -> str:
    """One log line in the runtime's byte layout: envelope in declaration order,
    payload with sorted keys (REFERENCE §1.1)."""
    return (
        f'{{"id":"{event_id}","schema_version":1,"ts_ms":{ts},'
        f'"actor":{{"kind":"{actor["kind"]}","id":"{actor["id"]}"}},"kind":"{kind}",'
        f'"payload":{_dumps(payload)},"causation_id":{json.dumps(causation)},'
        f'"correlation_id":{json.dumps(correlation)}}}\n'
    )


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
        lines: list[str] = []
        slots: list[str] = []
        leads: list[str] = []
        last_domain = [""]

        def slot(lead: str = " ") -> str:
            slots.append(_PH.format(len(slots)))
            leads.append(lead)
            return slots[-1]

        def pair(
            actor: dict[str, str],
            kind: str,
            payload: Any,
            ops: list[Any],
            cause: str | None,
            corr: str | None,
        ) -> str:
            domain_id = f"event_{_hex(rng)}"
            lines.append(_line(domain_id, self.tick(), actor, kind, payload, cause, corr))
            lines.append(
                _line(
                    f"event_{_hex(rng)}",
                    self.tick(2, 20),
                    actor,
                    "state.ops_applied",
                    ops,
                    domain_id,
                    corr,
                )
            )
            self.version += len(ops)
            last_domain[0] = domain_id
            return domain_id

        if with_goal or self.goal_id is None:
            goal = f"goal_{_hex(rng)}"
            summary = f"retries drop state after timeout{slot()}"
            payload = {
                "id": goal,
                "metadata": {},
                "owner": AGENT,
                "status": "Open",
                "summary": summary,
                "title": "Make retry reliable",
            }
            props = {k: v for k, v in payload.items() if k != "id"}
            pair(
                AGENT,
                "goal.created",
                payload,
                [{"CreateNode": {"id": goal, "kind": "goal", "props": props}}],
                None,
                None,
            )
            self.goal_id = goal
        assert self.goal_id is not None
        goal = self.goal_id

        run_id = f"run_{_hex(rng)}"
        task_text = self.phrase(4, 8)
        task = f"{task_text}{slot()}"
        self.ts += rng.randint(60_000, 3_600_000)  # runs are minutes to an hour apart
        # run.started is never chained (a root); its pair and everything after
        # in the run is correlated with the run id (§4.4).
        started = pair(
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

        failures: list[str] = []
        patch: str | None = None
        evaled: str | None = None  # eval status of this run's patch
        decided: str | None = None
        changed = False
        for choice in self._story(max(pairs - 2, 0)):
            if choice == "eval" and not patch and rng.random() < 0.5:
                choice = "tool"
            if choice == "model":
                node = f"node_{_hex(rng)}"
                payload = {
                    "id": node,
                    "metadata": {
                        "usage": {
                            "input_tokens": rng.randint(2_000, 180_000),
                            "output_tokens": rng.randint(100, 8_000),
                        }
                    },
                    "model": rng.choice(_MODELS),
                    "output_summary": None,
                    "prompt_summary": f"{self.phrase()}{slot()}",
                    "run_id": run_id,
                }
                props = {k: v for k, v in payload.items() if k != "id"}
                pair(
                    AGENT,
                    "model.called",
                    payload,
                    [
                        {"CreateNode": {"id": node, "kind": "model_call", "props": props}},
                        {
                            "CreateRelation": {
                                "from": node,
                                "props": {},
                                "rel": "produced_by",
                                "to": run_id,
                            }
                        },
                    ],
                    started,
                    run_id,
                )
            elif choice == "tool":
                node = f"node_{_hex(rng)}"
                tool = rng.choice(_TOOLS)
                ok = rng.random() < 0.8
                payload = {
                    "id": node,
                    "input_summary": f"{tool} {self.phrase(1, 2)}",
                    "metadata": {},
                    "output_summary": f"{'ok' if ok else 'FAILED'}:{slot()}",
                    "run_id": run_id,
                    "success": ok,
                    "tool": tool,
                }
                props = {k: v for k, v in payload.items() if k != "id"}
                actor = {"kind": "tool", "id": tool.split()[0]}
                pair(
                    actor,
                    "tool.called",
                    payload,
                    [
                        {"CreateNode": {"id": node, "kind": "tool_call", "props": props}},
                        {
                            "CreateRelation": {
                                "from": node,
                                "props": {},
                                "rel": "produced_by",
                                "to": run_id,
                            }
                        },
                    ],
                    started,
                    run_id,
                )
            elif choice == "observation":
                node = f"observation_{_hex(rng)}"
                payload = {
                    "id": node,
                    "metadata": {},
                    "observed_in": run_id,
                    "summary": f"{self.phrase()}{slot()}",
                    "title": self.phrase(2, 4),
                }
                props = {"metadata": {}, "summary": payload["summary"], "title": payload["title"]}
                pair(
                    AGENT,
                    "observation.created",
                    payload,
                    [
                        {"CreateNode": {"id": node, "kind": "observation", "props": props}},
                        {
                            "CreateRelation": {
                                "from": node,
                                "props": {},
                                "rel": "observes",
                                "to": run_id,
                            }
                        },
                    ],
                    started,
                    run_id,
                )
            elif choice == "failure":
                node = f"failure_{_hex(rng)}"
                title, summary = self.phrase(2, 4), f"{self.phrase()}{slot()}"
                pair(
                    AGENT,
                    "failure.observed",
                    {"failure_id": node, "id": node, "summary": summary, "title": title},
                    [
                        {
                            "CreateNode": {
                                "id": node,
                                "kind": "failure",
                                "props": {"summary": summary, "title": title},
                            }
                        }
                    ],
                    started,
                    run_id,
                )
                failures.append(node)
            elif choice == "hypothesis":
                node = f"hypothesis_{_hex(rng)}"
                payload = {
                    "confidence": round(rng.uniform(0.2, 0.95), 2),
                    "id": node,
                    "metadata": {},
                    "summary": f"{self.phrase()}{slot()}",
                    "title": self.phrase(2, 4),
                }
                props = {k: v for k, v in payload.items() if k != "id"}
                ops: list[Any] = [
                    {"CreateNode": {"id": node, "kind": "hypothesis", "props": props}}
                ]
                if failures:
                    ops.append(
                        {
                            "CreateRelation": {
                                "from": node,
                                "props": {},
                                "rel": "explains",
                                "to": failures[-1],
                            }
                        }
                    )
                pair(AGENT, "hypothesis.created", payload, ops, started, run_id)
            elif choice == "patch":
                patch = f"patch_{_hex(rng)}"
                commit = _hex(rng, 160)
                artifact = {
                    "hash": None,
                    "kind": "git.diff",
                    "metadata": {"base_commit": commit[:12], "files_changed": rng.randint(1, 9)},
                    "summary": self.phrase(2, 4),
                    "uri": f"file://.yoyo/artifacts/{patch}.diff",
                }
                own_ops = [
                    {"CreateRelation": {"from": patch, "props": {}, "rel": "advances", "to": goal}}
                ]
                base = {
                    "base_project_ref": {
                        "branch": "main",
                        "commit": commit,
                        "repo": "yoyo-evolve",
                        "worktree": None,
                    },
                    "base_state_version": self.version,
                    "expected_effects": [{"TestPasses": {"name": "retry_timeout"}}],
                    "preconditions": [{"StateVersionIs": self.version}],
                    "status": "Proposed",
                    "summary": f"{self.phrase()}{slot()}",
                    "title": self.phrase(2, 4),
                }
                payload = {
                    **base,
                    "artifacts": [artifact],
                    "created_by": AGENT,
                    "evidence": failures[-2:],
                    "id": patch,
                    "ops": own_ops,
                }
                ops = [{"CreateNode": {"id": patch, "kind": "patch", "props": base}}]
                ops += [
                    {"CreateRelation": {"from": patch, "props": {}, "rel": "addresses", "to": f}}
                    for f in failures[-2:]
                ]
                ops.append({"AttachArtifact": {"artifact": artifact, "id": patch}})
                ops += own_ops
                pair(AGENT, "patch.proposed", payload, ops, started, run_id)
            elif choice == "eval":
                node = f"eval_{_hex(rng)}"
                passed = rng.random() < 0.7
                status = "Passed" if passed else "Failed"
                payload = {
                    "command": rng.choice(_TOOLS),
                    "id": node,
                    "metadata": {"duration_ms": rng.randint(800, 240_000), "log_tail": slot("")},
                    "score": round(rng.uniform(0.9, 1.0) if passed else rng.uniform(0.0, 0.6), 3),
                    "status": status,
                }
                props = {k: v for k, v in payload.items() if k != "id"}
                ops = [{"CreateNode": {"id": node, "kind": "eval", "props": props}}]
                if patch and not evaled:
                    ops.append(
                        {
                            "CreateRelation": {
                                "from": patch,
                                "props": {},
                                "rel": "validated_by",
                                "to": node,
                            }
                        }
                    )
                    evaled = status
                pair(AGENT, "eval.finished", payload, ops, started, run_id)
            elif choice == "decision":
                node = f"decision_{_hex(rng)}"
                if patch and evaled and not decided:
                    status = "Approved" if evaled == "Passed" else "Rejected"
                    target: str | None = patch
                    decided = status
                else:
                    status, target = "Pending", (patch or None)
                rel = {"Approved": "approved_by", "Rejected": "rejected_by"}.get(
                    status, "references"
                )
                payload = {
                    "decided_by": AGENT,
                    "id": node,
                    "metadata": {},
                    "reason": f"{self.phrase()}{slot()}",
                    "status": status,
                }
                props = {k: v for k, v in payload.items() if k != "id"}
                ops = [{"CreateNode": {"id": node, "kind": "decision", "props": props}}]
                if target:
                    ops.append(
                        {"CreateRelation": {"from": target, "props": {}, "rel": rel, "to": node}}
                    )
                pair(AGENT, "decision.created", payload, ops, started, run_id)
            else:  # patch.status_changed, by the runtime (system actor, §4.1)
                if decided and not changed and patch:
                    target_patch = patch
                    status = "Promoted" if decided == "Approved" else "Rejected"
                    changed = True
                elif self.patches:
                    target_patch = rng.choice(self.patches[-20:])
                    status = rng.choice(("Stale", "Evaluated", "Conflicted"))
                elif patch:
                    target_patch, status = patch, "Evaluated"
                else:  # nothing to change yet: observe instead
                    node = f"observation_{_hex(rng)}"
                    summary, title = f"{self.phrase()}{slot()}", self.phrase(2, 4)
                    pair(
                        AGENT,
                        "observation.created",
                        {
                            "id": node,
                            "metadata": {},
                            "observed_in": None,
                            "summary": summary,
                            "title": title,
                        },
                        [
                            {
                                "CreateNode": {
                                    "id": node,
                                    "kind": "observation",
                                    "props": {"metadata": {}, "summary": summary, "title": title},
                                }
                            }
                        ],
                        started,
                        run_id,
                    )
                    continue
                reason = f"{self.phrase(2, 4)}{slot()}"
                pair(
                    SYSTEM,
                    "patch.status_changed",
                    {"patch_id": target_patch, "reason": reason, "status": status},
                    [
                        {
                            "UpdateNode": {
                                "id": target_patch,
                                "props": {"status": status, "status_reason": reason},
                            }
                        }
                    ],
                    started,
                    run_id,
                )

        if decided:
            outcome = "promoted" if decided == "Approved" else "rejected"
        elif patch:
            outcome = "proposed"
        elif failures:
            outcome = "failed"
        else:
            outcome = "observed"
        pair(
            AGENT,
            "run.finished",
            {"outcome": outcome, "run_id": run_id},
            [{"UpdateNode": {"id": run_id, "props": {"outcome": outcome, "status": "finished"}}}],
            started,
            run_id,
        )
        if patch:
            self.patches.append(patch)
            del self.patches[:-50]

        log = self._pad("".join(lines), slots, leads, target_bytes)
        fact_id = f"fact_{_hex(rng)}"
        supersedes = self.last_fact if self.last_fact and rng.random() < 0.2 else None
        fact = (
            json.dumps(
                {
                    "id": fact_id,
                    "ts_ms": self.ts,
                    "text": f"{self.phrase(6, 12)}; {self.text(rng.randint(80, 220))}",
                    "derived_from": [last_domain[0], run_id],
                    "supersedes": supersedes,
                },
                separators=(",", ":"),
                ensure_ascii=False,
            )
            + "\n"
        )
        self.last_fact = fact_id
        when = _iso(self.ts)
        journal = (
            f"## {when} — {run_id}: {outcome}\n\n"
            f"Task: {task_text}. "
            f"{len(lines)} events. {self.text(rng.randint(150, 450)).capitalize()}.\n\n"
        )
        return RunRecord(run_id, goal, outcome, log, fact, journal, self.ts, len(lines))

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
    import datetime as dt

    return dt.datetime.fromtimestamp(ts_ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M")


def _pair_counts(rng: random.Random, runs: int, events: int, goal: bool) -> list[int]:
    """Pairs per run: ``events`` in all (a goal pair first if ``goal``), each
    run at least three pairs, varying from run to run."""
    pairs = events // 2 - (1 if goal else 0)
    if runs < 1 or pairs < 3 * runs:
        raise ValueError(f"{events} events are too few for {runs} runs (>= 6 per run)")
    base, extra = divmod(pairs, runs)
    counts = [base] * runs
    for i in rng.sample(range(runs), extra):
        counts[i] += 1
    for _ in range(runs):  # move pairs between runs: some runs are long, some short
        a, b = rng.randrange(runs), rng.randrange(runs)
        if counts[a] > 3 and counts[b] < 3 * base:
            counts[a] -= 1
            counts[b] += 1
    return counts


def iter_runs(seed: int, runs: int, events: int, target_bytes: int) -> Iterator[RunRecord]:
    """The runs of a generated history; their logs total ``events`` events and
    about ``target_bytes`` bytes (the first run starts with the goal pair)."""
    rng = random.Random(f"git-gasp-bench:{seed}")
    sim = AgentSim(rng)
    counts = _pair_counts(rng, runs, events, goal=True)
    written, remaining = 0, events
    for i, pairs in enumerate(counts):
        n = 2 * pairs + (2 if i == 0 else 0)
        target = (target_bytes - written) * n // remaining
        record = sim.run(pairs, target, with_goal=i == 0)
        written += len(record.log.encode("utf-8"))
        remaining -= record.events
        yield record


def default_events(commits: int, target_log_bytes: int) -> int:
    """About ``EVENT_BYTES`` per event, at least six events per run, even."""
    return max(6 * commits + 2, round(target_log_bytes / EVENT_BYTES / 2) * 2)


def default_runs(events: int) -> int:
    """Runs for a log-only history: ~13 events per run, as in the 600-commit repo."""
    return max(1, round(events * 600 / 8000))


def log_text(
    events: int = 8000, target_bytes: int = 4_000_000, seed: int = 1, runs: int | None = None
) -> str:
    """A whole log as one string (for in-process parse/fold timings)."""
    runs = runs or default_runs(events)
    return "".join(r.log for r in iter_runs(seed, runs, events, target_bytes))


def write_log(
    path: str | os.PathLike[str],
    events: int,
    target_bytes: int | None = None,
    seed: int = 1,
    runs: int | None = None,
) -> int:
    """Stream a log to ``path`` run by run; returns its size in bytes."""
    target_bytes = target_bytes or events * EVENT_BYTES
    runs = runs or default_runs(events)
    size = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for record in iter_runs(seed, runs, events, target_bytes):
            fh.write(record.log)
            size += len(record.log.encode("utf-8"))
    return size


def commit_message(run_id: str, goal_id: str, outcome: str) -> str:
    """The boundary commit message, as git stores it (§8)."""
    return f"run {run_id}: {outcome}\n\nRun-Id: {run_id}\nGoal: {goal_id}\nOutcome: {outcome}\n"


def agent_md(identity: bytes) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from git_gasp.core.manifest import identity_hash

    digest = identity_hash([("identity/IDENTITY.md", identity)])
    return (
        "# AGENT\n\n"
        "```yaml\n"
        "spec_version: 1\n"
        f"agent_id: {AGENT_ID}\n"
        f"identity_hash: {digest}\n"
        "executor: .agent/config.toml\n"
        "```\n\n"
        "A GASP agent repository generated by git-gasp's benchmark generator.\n"
    )


def _git(repo: str | os.PathLike[str], *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        env={**os.environ, **GIT_ENV, **(env or {})},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


def generate(
    dest: str | os.PathLike[str],
    commits: int = 600,
    target_log_bytes: int = 4_000_000,
    seed: int = 1,
    events: int | None = None,
) -> str:
    """Create ``dest`` as a git repository with ``commits`` run commits; returns HEAD."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} exists and is not empty")
    events = events or default_events(commits, target_log_bytes)
    records = list(iter_runs(seed, commits, events, target_log_bytes))  # ~B bytes of text
    dest.mkdir(parents=True, exist_ok=True)
    _git(dest, "init", "-q", "-b", "main")
    identity = IDENTITY_MD.encode()
    static = {
        ".gitignore": GITIGNORE.encode(),
        ".gitattributes": GITATTRIBUTES.encode(),
        "AGENT.md": agent_md(identity).encode(),
        "identity/IDENTITY.md": identity,
        ".agent/config.toml": CONFIG_TOML.encode(),
        "skills/retry/SKILL.md": SKILL_MD.encode(),
    }
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            ["git", "-C", str(dest), "fast-import", "--quiet", "--done"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, **GIT_ENV},
        )
        assert proc.stdin is not None
        try:
            _stream(proc.stdin, records, static)
            proc.stdin.close()
        except BrokenPipeError:
            pass
        if proc.wait() != 0:
            err.seek(0)
            raise RuntimeError(f"git fast-import failed: {err.read().decode(errors='replace')}")
    _git(dest, "checkout", "-q", "-f", "main")
    return _git(dest, "rev-parse", "HEAD").strip()


def _stream(out: Any, records: list[RunRecord], static: dict[str, bytes]) -> None:
    """The fast-import stream. Each file's versions are written consecutively
    (fast-import deltas a blob against the previous blob it stored), then the
    commits refer to them by mark."""
    n = len(records)
    files = (
        ("state/events.jsonl", "", lambda r: r.log),
        ("memory/facts.jsonl", "", lambda r: r.fact),
        ("journal/JOURNAL.md", JOURNAL_HEADER, lambda r: r.journal),
    )
    for f, (_, header, part) in enumerate(files):
        acc = bytearray(header.encode())
        for i, record in enumerate(records):
            acc += part(record).encode()
            out.write(b"blob\nmark :%d\ndata %d\n" % (f * n + i + 1, len(acc)))
            out.write(acc)
            out.write(b"\n")
    for i, record in enumerate(records):
        msg = commit_message(record.run_id, record.goal_id, record.outcome).encode()
        when = f"{record.ts_ms // 1000} +0000"
        out.write(
            f"commit refs/heads/main\nmark :{3 * n + i + 1}\n"
            f"author {COMMITTER} {when}\ncommitter {COMMITTER} {when}\n".encode()
        )
        out.write(b"data %d\n%s\n" % (len(msg), msg))
        if i == 0:
            for path, data in static.items():
                out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        for f, (path, _, _) in enumerate(files):
            out.write(b"M 100644 :%d %s\n" % (f * n + i + 1, path.encode()))
        out.write(b"\n")
    out.write(b"done\n")


def _last_json_line(path: Path) -> dict[str, Any] | None:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 65536))
        tail = fh.read().decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)[-1]
    try:
        value = json.loads(tail)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def append_run(dest: str | os.PathLike[str], seed: int = 1, pairs: int = 7) -> str:
    """Append one more run commit to a generated repository (``git commit``);
    returns the new HEAD."""
    dest = Path(dest)
    log = dest / "state" / "events.jsonl"
    data = log.read_bytes()
    first = json.loads(data[: data.index(b"\n")])
    goal_id = first["payload"]["id"] if first.get("kind") == "goal.created" else None
    last = _last_json_line(log) or {}
    fact = _last_json_line(dest / "memory" / "facts.jsonl") or {}
    count = int(_git(dest, "rev-list", "--count", "HEAD").strip())
    patches = [m.decode() for m in _PATCH_CREATE.findall(data)][-50:]
    rng = random.Random(f"git-gasp-bench:{seed}:append:{count}")
    sim = AgentSim(rng, int(last.get("ts_ms", T0_MS)), goal_id, patches, fact.get("id"))
    events_so_far = data.count(b"\n") or 1
    record = sim.run(pairs, 2 * pairs * len(data) // events_so_far)
    for rel, text in (
        ("state/events.jsonl", record.log),
        ("memory/facts.jsonl", record.fact),
        ("journal/JOURNAL.md", record.journal),
    ):
        with open(dest / rel, "a", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    when = f"{record.ts_ms // 1000} +0000"
    date_env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    _git(dest, "add", "--", "state/events.jsonl", "memory/facts.jsonl", "journal/JOURNAL.md")
    _git(
        dest,
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "--no-verify",
        "-m",
        commit_message(record.run_id, record.goal_id, record.outcome).rstrip("\n"),
        env=date_env,
    )
    return _git(dest, "rev-parse", "HEAD").strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("repo", help="generate a repository with N run commits")
    p.add_argument("dest")
    p.add_argument("--commits", type=int, default=600)
    p.add_argument("--bytes", type=int, default=4_000_000, help="target final log size")
    p.add_argument("--events", type=int, default=None, help="events in all (default ~bytes/500)")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("append", help="append one run commit to a generated repository")
    p.add_argument("dest")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("log", help="write a log file only (streamed)")
    p.add_argument("file")
    p.add_argument("--events", type=int, default=8000)
    p.add_argument("--bytes", type=int, default=None, help="target size (default events*500)")
    p.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.cmd == "repo":
        head = generate(args.dest, args.commits, args.bytes, args.seed, args.events)
        print(f"{args.dest}: {args.commits} commits, HEAD {head}")
    elif args.cmd == "append":
        print(append_run(args.dest, args.seed))
    else:
        size = write_log(args.file, args.events, args.bytes, args.seed)
        print(f"{args.file}: {args.events} events, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
