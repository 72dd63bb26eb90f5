"""One run being written: its paired log lines, and the events of exploring.

A :class:`RunDraft` holds what a run has written so far (the log lines with
their pad slots, the ids later events refer to) and appends each domain event
with its ``state.ops_applied`` pair in the runtime's byte layout (REFERENCE
§1.1, §4.3-4.5). The functions below write the exploring part of a run: model
and tool calls, observations, failures, hypotheses; ``fixevents`` writes the
fix carried through. Each takes its texts and ids from the agent's seeded
random generator, in a fixed order, so a seed gives the same bytes.
"""

from __future__ import annotations

import json
import random
from typing import Any, Protocol

from repofiles import AGENT_ID

AGENT = {"kind": "agent", "id": AGENT_ID}
SYSTEM = {"kind": "system", "id": "yoagent-state"}
TOOLS = ("cargo test", "cargo clippy", "pytest -q", "git diff", "rg", "ruff check", "make bench")
_MODELS = ("claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5")
_PH = "@@PAD{}@@"  # a pad slot in rendered lines; the corpus never contains "@@"


class Writer(Protocol):
    """What a draft needs from the agent writing it (``agentsim.AgentSim``)."""

    rng: random.Random
    version: int
    patches: list[str]

    def tick(self, lo: int = 5, hi: int = 400) -> int: ...

    def phrase(self, lo: int = 2, hi: int = 5) -> str: ...


def hex_id(rng: random.Random, bits: int = 128) -> str:
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


class RunDraft:
    """The lines of one run so far, its pad slots, and the ids they refer to."""

    def __init__(self, sim: Writer) -> None:
        self.sim = sim
        self.rng = sim.rng
        self.lines: list[str] = []
        self.slots: list[str] = []
        self.leads: list[str] = []
        self.last_domain = ""
        self.goal = ""
        self.run_id = ""
        self.started = ""  # the run.started event every later event is chained to
        self.failures: list[str] = []
        self.patch: str | None = None
        self.evaled: str | None = None  # eval status of this run's patch
        self.decided: str | None = None
        self.changed = False

    def slot(self, lead: str = " ") -> str:
        """A placeholder the padding later fills with prose (after ``lead``)."""
        self.slots.append(_PH.format(len(self.slots)))
        self.leads.append(lead)
        return self.slots[-1]

    def pair(
        self,
        actor: dict[str, str],
        kind: str,
        payload: Any,
        ops: list[Any],
        cause: str | None,
        corr: str | None,
    ) -> str:
        """A domain event and its ``state.ops_applied`` pair; returns the former's id."""
        rng, sim = self.rng, self.sim
        domain_id = f"event_{hex_id(rng)}"
        self.lines.append(_line(domain_id, sim.tick(), actor, kind, payload, cause, corr))
        self.lines.append(
            _line(
                f"event_{hex_id(rng)}",
                sim.tick(2, 20),
                actor,
                "state.ops_applied",
                ops,
                domain_id,
                corr,
            )
        )
        sim.version += len(ops)
        self.last_domain = domain_id
        return domain_id

    def in_run(self, actor: dict[str, str], kind: str, payload: Any, ops: list[Any]) -> str:
        """A pair inside the run: chained to run.started, correlated with the run."""
        return self.pair(actor, kind, payload, ops, self.started, self.run_id)


def produced_by(node: str, run_id: str) -> dict[str, Any]:
    return {"CreateRelation": {"from": node, "props": {}, "rel": "produced_by", "to": run_id}}


def goal_created(d: RunDraft) -> str:
    """The goal every run advances (a root pair); returns its id."""
    goal = f"goal_{hex_id(d.rng)}"
    summary = f"retries drop state after timeout{d.slot()}"
    payload = {
        "id": goal,
        "metadata": {},
        "owner": AGENT,
        "status": "Open",
        "summary": summary,
        "title": "Make retry reliable",
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    d.pair(
        AGENT,
        "goal.created",
        payload,
        [{"CreateNode": {"id": goal, "kind": "goal", "props": props}}],
        None,
        None,
    )
    return goal


def model_called(d: RunDraft) -> None:
    rng = d.rng
    node = f"node_{hex_id(rng)}"
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
        "prompt_summary": f"{d.sim.phrase()}{d.slot()}",
        "run_id": d.run_id,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops = [
        {"CreateNode": {"id": node, "kind": "model_call", "props": props}},
        produced_by(node, d.run_id),
    ]
    d.in_run(AGENT, "model.called", payload, ops)


def tool_called(d: RunDraft) -> None:
    rng = d.rng
    node = f"node_{hex_id(rng)}"
    tool = rng.choice(TOOLS)
    ok = rng.random() < 0.8
    payload = {
        "id": node,
        "input_summary": f"{tool} {d.sim.phrase(1, 2)}",
        "metadata": {},
        "output_summary": f"{'ok' if ok else 'FAILED'}:{d.slot()}",
        "run_id": d.run_id,
        "success": ok,
        "tool": tool,
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    actor = {"kind": "tool", "id": tool.split()[0]}
    ops = [
        {"CreateNode": {"id": node, "kind": "tool_call", "props": props}},
        produced_by(node, d.run_id),
    ]
    d.in_run(actor, "tool.called", payload, ops)


def observation_created(d: RunDraft) -> None:
    node = f"observation_{hex_id(d.rng)}"
    payload = {
        "id": node,
        "metadata": {},
        "observed_in": d.run_id,
        "summary": f"{d.sim.phrase()}{d.slot()}",
        "title": d.sim.phrase(2, 4),
    }
    props = {"metadata": {}, "summary": payload["summary"], "title": payload["title"]}
    ops = [
        {"CreateNode": {"id": node, "kind": "observation", "props": props}},
        {"CreateRelation": {"from": node, "props": {}, "rel": "observes", "to": d.run_id}},
    ]
    d.in_run(AGENT, "observation.created", payload, ops)


def failure_observed(d: RunDraft) -> None:
    node = f"failure_{hex_id(d.rng)}"
    title, summary = d.sim.phrase(2, 4), f"{d.sim.phrase()}{d.slot()}"
    d.in_run(
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
    )
    d.failures.append(node)


def hypothesis_created(d: RunDraft) -> None:
    rng = d.rng
    node = f"hypothesis_{hex_id(rng)}"
    payload = {
        "confidence": round(rng.uniform(0.2, 0.95), 2),
        "id": node,
        "metadata": {},
        "summary": f"{d.sim.phrase()}{d.slot()}",
        "title": d.sim.phrase(2, 4),
    }
    props = {k: v for k, v in payload.items() if k != "id"}
    ops: list[Any] = [{"CreateNode": {"id": node, "kind": "hypothesis", "props": props}}]
    if d.failures:
        ops.append(
            {
                "CreateRelation": {
                    "from": node,
                    "props": {},
                    "rel": "explains",
                    "to": d.failures[-1],
                }
            }
        )
    d.in_run(AGENT, "hypothesis.created", payload, ops)
