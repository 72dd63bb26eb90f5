"""A projected run's events: deterministic ids, capped and redacted summaries.

Every id is a name-based UUID over ``(agent, session, native record id,
role)``, so projecting the same lines again yields the same events, and a
grown transcript yields the old events plus new ones. ``known`` (an
injected lookup: is this event id already in the log?) drops what an
earlier import appended, so re-importing appends only what is new.

Events come in the reference runtime's shapes (REFERENCE §4.3, built by
:mod:`git_gasp.core.payloads` and :mod:`git_gasp.core.runpayloads`): a
domain event chained to the run's ``run.started``, then its
``state.ops_applied`` pair chained to it, all correlated with the run id.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from git_gasp.adapters.lines import Diagnostics, Projection
from git_gasp.core import payloads as P  # the payload builders (entities; runs below)
from git_gasp.core import runpayloads as R
from git_gasp.core.event import OPS_APPLIED, Actor, Event
from git_gasp.core.secrets import find_secrets, may_hold_secrets

_NAMESPACE = uuid.UUID("6f1e4c1a-3b7d-5e2f-9a40-67a5e0c0d019")
SUMMARY_CAP = 2000  # characters of any summary (the rest stays in the native file)
TITLE_CAP = 120
REDACTED = "[redacted: {}]"


_NS = _NAMESPACE.bytes
#: the UUID's variant digit (the 17th hex digit, RFC 4122: binary 10xx) from
#: the hash's digit there
_VARIANT = {d: "89ab"[int(d, 16) & 3] for d in "0123456789abcdef"}


def stable_id(prefix: str, *parts: str) -> str:
    """``<prefix>_`` + 32 hex of a name-based UUID over ``parts``: the hex of
    ``uuid.uuid5(_NAMESPACE, chr(0).join(parts))``, spliced from the SHA-1's
    hex (version digit 5, the variant's bits) without the ``UUID`` object:
    ids are made for every record of a transcript."""
    h = hashlib.sha1(_NS + "\0".join(parts).encode("utf-8")).hexdigest()
    return prefix + "_" + h[:12] + "5" + h[13:16] + _VARIANT[h[16]] + h[17:32]


def redact(text: str) -> str:
    """``text`` with every credential the hooks' detector finds replaced by a
    visible marker naming its rule."""
    if not text or not may_hold_secrets(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for _ in range(50):  # each pass removes one finding
            found = find_secrets(line)
            if not found:
                break
            start = found[0].column - 1
            end = start
            while end < len(line) and not line[end].isspace() and line[end] not in "\"'`":
                end += 1
            end = max(end, start + 1)
            line = line[:start] + REDACTED.format(found[0].rule) + line[end:]
        lines[i] = line
    return "\n".join(lines)


def summary(text: str, cap: int = SUMMARY_CAP) -> str:
    """Redacted, then cut to ``cap`` characters with a visible marker."""
    text = redact(text.strip())
    if len(text) <= cap:
        return text
    return text[:cap] + f" [truncated: {len(text) - cap} more characters]"


def title(text: str) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return summary(first, TITLE_CAP) or "(empty)"


def ts_ms(stamp: Any, fallback: int) -> int:
    """An ISO 8601 timestamp as integer epoch milliseconds (advisory in GASP)."""
    if not isinstance(stamp, str):
        return fallback
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return fallback
    return int(moment.timestamp() * 1000)


class Resume(NamedTuple):
    """The session's latest run in the log (an injected value: the pure side
    reads no log). While it is open, new events go into it; once it is
    closed, into a continuation run that names it in ``continues``."""

    run_id: str
    started_id: str
    closed: bool
    task: str


def _swapped(value: Any, old: str, new: str) -> Any:
    """``value`` with every string equal to ``old`` (a run id) made ``new``."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, dict):
        return {k: _swapped(v, old, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_swapped(v, old, new) for v in value)
    return value


class Emitter:
    """Collects one session's events into its run, in source order."""

    def __init__(
        self,
        agent: str,
        session: str,
        actor: Actor,
        known: Callable[[str], bool],
        resume: Resume | None = None,
    ) -> None:
        self.agent = agent
        self.session = session
        self.actor = actor
        self.known = known
        self.run_id = stable_id("run", agent, session)
        self.started_id = stable_id("event", agent, session, "run", "run.started")
        self.resume = resume
        self.continues: str | None = None  # the closed run a continuation names
        if resume is not None:
            self.run_id, self.started_id = resume.run_id, resume.started_id
            self.continues = resume.run_id if resume.closed else None
        self.events: list[Event] = []
        self.first_ts: int | None = None
        self.start_ts: int | None = None
        self.start_key = "run"  # a continuation's: its first native record
        self.last_ts = 0
        self.written: set[str] = set()  # ids emitted by this projection

    def node(self, prefix: str, *record: str) -> str:
        return stable_id(prefix, self.agent, self.session, *record)

    def exists(self, key: Sequence[str], kind: str) -> bool:
        """Whether the event for ``key`` and ``kind`` is in the log or this batch."""
        eid = stable_id("event", self.agent, self.session, *key, kind)
        return eid in self.written or self.known(eid)

    def at(self, stamp: Any) -> int:
        ms = ts_ms(stamp, self.last_ts)
        if self.first_ts is None and ms:
            self.first_ts = ms
        self.last_ts = max(self.last_ts, ms)
        return ms or self.last_ts

    def emit(
        self, rec: P.Record, key: Sequence[str], ms: int, extra: Sequence[dict[str, Any]] = ()
    ) -> bool:
        """Append ``rec`` (and its pair, with ``extra`` ops) unless already logged."""
        kind = rec.kind or OPS_APPLIED
        eid = stable_id("event", self.agent, self.session, *key, kind)
        if eid in self.written or self.known(eid):
            return False
        self.written.add(eid)
        if self.continues is not None and self.run_id == self.continues:
            # the first event after the session's run was closed: it opens a
            # continuation, its id from the session and this native record
            self.run_id = stable_id("run", self.agent, self.session, "continued", key[0])
            self.start_key = key[0]
            self.started_id = stable_id("event", self.agent, self.session, key[0], "run.started")
            self.start_ts = ms
            old, new = self.continues, self.run_id
            rec = rec._replace(
                payload=_swapped(rec.payload, old, new), ops=_swapped(rec.ops, old, new)
            )
            extra = _swapped(list(extra), self.continues, self.run_id)
        cause = self.started_id
        if rec.kind is not None:
            self.events.append(
                Event(eid, 1, ms, self.actor, rec.kind, rec.payload, cause, self.run_id)
            )
            cause = eid
        ops = [*rec.ops, *extra]
        if ops:
            # an ops-only record is its own event: the id checked above
            oid = stable_id("event", self.agent, self.session, *key, kind, "ops")
            oid = oid if rec.kind is not None else eid
            self.events.append(Event(oid, 1, ms, self.actor, OPS_APPLIED, ops, cause, self.run_id))
        return True

    def start(self, task: str) -> list[Event]:
        """The run's ``run.started`` and its pair, if the log lacks them."""
        if self.known(self.started_id):
            return []
        if self.continues is not None and self.resume is not None:
            task = self.resume.task  # a continuation: the same goal
        rec = R.run_started(self.run_id, task)
        payload = {"run_id": self.run_id, "task": task}
        if self.continues is not None:
            payload["continues"] = self.continues  # the run it continues
        ms = self.start_ts or self.first_ts or self.last_ts
        started = Event(
            self.started_id, 1, ms, self.actor, "run.started", payload, None, self.run_id
        )
        oid = stable_id("event", self.agent, self.session, self.start_key, "run.started", "ops")
        pair = Event(oid, 1, ms, self.actor, OPS_APPLIED, list(rec.ops), started.id, self.run_id)
        return [started, pair]

    # -- the shapes a projector emits -------------------------------------------

    def task(self, key: str, text: str, ms: int, metadata: dict[str, Any]) -> None:
        rec = P.task(
            self.node("task", key),
            title(text),
            summary(text),
            "Open",
            None,
            P.actor_value("user", self.agent),
            metadata,
        )
        self.emit(rec, (key, "task"), ms)

    def observation(
        self, key: str, heading: str, text: str, ms: int, metadata: dict[str, Any]
    ) -> None:
        rec = P.observation(
            self.node("observation", key), heading, summary(text), self.run_id, metadata
        )
        self.emit(rec, (key, "observation"), ms)

    def failure(self, key: str, heading: str, text: str, ms: int) -> None:
        rec = P.failure(self.node("failure", key), summary(heading, TITLE_CAP), summary(text))
        self.emit(rec, (key, "failure"), ms)

    def frame(
        self, key: str, heading: str, text: str, parent: str | None, ms: int, meta: dict[str, Any]
    ) -> str:
        frame_id = self.node("frame", key)
        rec = P.frame(frame_id, summary(heading, TITLE_CAP), summary(text), parent, meta)
        self.emit(rec, (key, "frame"), ms)
        return frame_id

    def model_call(
        self,
        key: str,
        model: str,
        prompt: str,
        output: str | None,
        ms: int,
        metadata: dict[str, Any],
        frame: str | None,
    ) -> str:
        node = self.node("node", key, "model")
        rec = R.model_call(
            node,
            self.run_id,
            model,
            summary(prompt),
            None if output is None else summary(output),
            metadata,
        )
        self.emit(rec, (key, "model"), ms, _in_frame(node, frame))
        return node

    def tool_call(
        self,
        key: str,
        tool: str,
        given: str,
        output: str | None,
        success: bool | None,
        ms: int,
        metadata: dict[str, Any],
        frame: str | None,
    ) -> str:
        node = self.node("node", key, "tool")
        out = None if output is None else summary(output)
        rec = R.tool_call(node, self.run_id, tool, summary(given), out, success, metadata)
        # a call without its result is logged under its own key: its result,
        # when a later import sees it, is then a tool.finished on that node
        role = "tool-open" if metadata.get("unfinished") else "tool"
        self.emit(rec, (key, role), ms, _in_frame(node, frame))
        return node

    def logged_open(self, key: str) -> bool:
        """Whether an earlier import logged the call ``key`` without its result."""
        return not self.exists((key, "tool"), "tool.called") and self.exists(
            (key, "tool-open"), "tool.called"
        )

    def tool_finished(
        self, key: str, tool: str, output: str, success: bool, ms: int, node: str
    ) -> None:
        """The result of a call an earlier import logged as unfinished."""
        rec = R.tool_finished(self.run_id, tool, summary(output), success)
        extra = [P.update_node(node, {"output_summary": summary(output), "success": success})]
        self.emit(rec._replace(ops=()), (key, "tool-result"), ms, extra)

    def model_finished(
        self, key: Sequence[str], model: str, ms: int, metadata: dict[str, Any]
    ) -> None:
        self.emit(R.model_finished(self.run_id, model, "", metadata), key, ms)


def _in_frame(node: str, frame: str | None) -> list[dict[str, Any]]:
    return [] if frame is None else [P.relation(node, "contained_in_frame", frame)]


def session_projection(
    agent: str,
    em: Emitter,
    first_prompt: str,
    cursor: list[dict[str, Any]],
    diag: Diagnostics,
    outcome: str,
) -> Projection:
    """What a projector hands back at the end: the run's task is the first line of the
    first prompt a person typed (or the session's name), and its events start the run."""
    task = first_prompt.splitlines()[0][:200] if first_prompt else ""
    task = task or f"{agent} session {em.session}"
    events = em.start(task) + em.events if em.events else []
    return Projection(agent, em.session, em.run_id, events, cursor, diag, outcome, task)
