"""What the spooled hook payloads say that a transcript does not.

- Model switches: ``PreModelSwitch`` and ``PostModelSwitch`` (Claude Code
  2.1.251+, adapters.md §8.1) become ``observation.created`` on the run; the
  model actually used is the one the transcript's next model call names.
- A session with no transcript at all (Codex ``--ephemeral`` sends
  ``transcript_path: null``): its prompts (``UserPromptSubmit``) become
  ``task.created`` and its tool calls (``PostToolUse``,
  ``PostToolUseFailure``) ``tool.called``, through the import's emitter and
  with the keys its projectors use for the same native ids (``tool:<call
  id>``), in the same run. Hooks see no model calls, so such a run has none.

Ids derive from the session and the spool file's name (or the native id),
so projecting the same payloads again appends nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from git_gasp.adapters import ccformat as F
from git_gasp.adapters.emitting import Emitter, Resume, session_projection, stable_id
from git_gasp.adapters.lines import Diagnostics, Projection
from git_gasp.adapters.summaries import summary, title
from git_gasp.agent.api import Agent
from git_gasp.core import payloads as P
from git_gasp.core import runpayloads as R
from git_gasp.core.event import OPS_APPLIED, Event

SWITCHES = {"PostModelSwitch": "model switched", "PreModelSwitch": "model switch requested"}
Spooled = Sequence[tuple[str, Mapping[str, Any]]]


def _ms(path: str) -> int:
    """The arrival time a spool file's name starts with, in milliseconds."""
    try:
        return int(os.path.basename(path).split("-")[0]) // 1_000_000
    except ValueError:
        return 0


def switch_events(
    agent: Agent, harness: str, session: str, run_id: str, started: str, payloads: Spooled
) -> list[Event]:
    """``observation.created`` (and its pair) for each model switch spooled."""
    out: list[Event] = []
    for path, payload in payloads:
        heading = SWITCHES.get(str(payload.get("hook_event_name")))
        if heading is None:
            continue
        key = os.path.basename(path)
        eid = stable_id("event", harness, session, "hook", key, "observation.created")
        if agent.knows(eid):
            continue
        before, after = payload.get("from_model"), payload.get("to_model")
        text = f"{heading} {before or '?'} -> {after or '?'} ({payload.get('source') or '?'})"
        meta = {
            k: payload[k]
            for k in ("from_model", "to_model", "requested_model", "source", "context_tokens")
            if k in payload and isinstance(payload[k], str | int | float | bool)
        }
        meta["hook_event_name"] = str(payload.get("hook_event_name"))
        node = stable_id("observation", harness, session, "hook", key)
        rec = P.observation(node, title(text), summary(text), run_id, meta)
        ms = _ms(path)
        event = Event(eid, 1, ms, agent.actor, str(rec.kind), rec.payload, started, run_id)
        oid = stable_id("event", harness, session, "hook", key, "observation.created", "ops")
        pair = Event(oid, 1, ms, agent.actor, OPS_APPLIED, list(rec.ops), eid, run_id)
        out += [event, pair]
    return out


def run_started(
    agent: Agent, harness: str, session: str, run_id: str, started: str, ms: int
) -> list[Event]:
    """The run's start when the spool holds its first facts (no transcript yet):
    the ids the projector gives it, so a later projection does not repeat it."""
    task = f"{harness} session {session}"
    rec = R.run_started(run_id, task)
    event = Event(
        started, 1, ms, agent.actor, "run.started", {"run_id": run_id, "task": task}, None, run_id
    )
    oid = stable_id("event", harness, session, "run", "run.started", "ops")
    return [event, Event(oid, 1, ms, agent.actor, OPS_APPLIED, list(rec.ops), started, run_id)]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def hooks_only(
    agent: Agent, harness: str, session: str, resume: Resume | None, payloads: Spooled
) -> Projection | None:
    """The session's prompts and tool calls from its payloads (no transcript)."""
    em = Emitter(harness, session, agent.actor, agent.knows, resume)
    diag = Diagnostics()
    first = ""
    for path, payload in payloads:
        event, ms = payload.get("hook_event_name"), _ms(path)
        em.last_ts = max(em.last_ts, ms)
        if em.first_ts is None:
            em.first_ts = ms
        if event == "UserPromptSubmit" and isinstance(payload.get("prompt"), str):
            diag.recognised += 1
            first = first or payload["prompt"]
            key = str(payload.get("prompt_id") or os.path.basename(path))
            em.task(f"prompt:{key}", payload["prompt"], ms, {"source": "hook"})
        elif event in ("PostToolUse", "PostToolUseFailure"):
            diag.recognised += 1
            name = str(payload.get("tool_name") or "tool")
            call = str(payload.get("tool_use_id") or os.path.basename(path))
            failed = event == "PostToolUseFailure"
            out = _text(payload.get("error") if failed else payload.get("tool_response"))
            meta = {"tool_use_id": call, "session": session, "source": "hook"}
            given = F.input_text(name, payload.get("tool_input"))
            node = em.tool_call(f"tool:{call}", name, given, out, not failed, ms, meta, None)
            if failed and node:
                em.failure(f"tool:{call}", f"tool {name} failed", out, ms)
    if not em.events:
        return None
    return session_projection(harness, em, first, [], diag, "session ended")
