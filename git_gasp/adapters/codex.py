"""The Codex rollout projector (pure): a rollout (and its children) → one run.

Mapping (adapters.md §7.2): the typed prompt (``event_msg`` ``user_message``
or ``item_completed`` UserMessage when the rollout has them, else a user
``message`` that is not an injected envelope) → ``task.created``; each
sampling step (the assistant items between two tool outputs) → one
``model.called`` with the turn's model; every call (``function_call``,
``custom_tool_call``, ``local_shell_call``, ``web_search_call``) with the
output of the same ``call_id`` → ``tool.called``, success from ``Process
exited with code N`` or apply_patch's ``exit_code``; ``token_count`` →
``model.finished`` with the call's usage (``last_token_usage``, else the totals'
delta; a repeated total counts once); ``turn_aborted``, compaction, rollbacks
and undo → ``observation.created``; ``error`` and failed calls → ``failure.observed``;
``spawn_agent`` → ``frame.created``, the child rollout projected inside it.
Encrypted reasoning and remote compaction are marked as not readable.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from git_gasp.adapters import codexformat as F
from git_gasp.adapters.codexreplay import Replay
from git_gasp.adapters.emitting import Emitter, Resume, session_projection
from git_gasp.adapters.lifting import LiftConfig, Lifter
from git_gasp.adapters.lines import Diagnostics, Projection, Source, check_versions, file_cursor
from git_gasp.adapters.lines import records as read_records
from git_gasp.core.event import Actor

AGENT = "codex"
TESTED = ((0, 1, 0), (0, 160, 99))


class CodexSession(NamedTuple):
    session_id: str
    sources: Sequence[Source]  # the thread's rollout(s), oldest first
    children: Mapping[str, Source]  # a spawned thread's id -> its rollout


def project(
    session: CodexSession,
    actor: Actor,
    known: Callable[[str], bool],
    config: LiftConfig | None = None,
    resume: Resume | None = None,
) -> Projection:
    walk = _Walk(session, actor, known, config or LiftConfig(), resume)
    for source in session.sources:
        walk.file(source, None)
    for thread, source in sorted(session.children.items()):
        if thread not in walk.walked:
            walk.walked.add(thread)
            frame = walk.em.frame(f"thread:{thread}", f"subagent {thread}", "", None, 0, {})
            walk.child(source, frame)
    return walk.finish()


class _Step:
    def __init__(self, line: int, ms: int, frame: str | None) -> None:
        self.line, self.ms, self.frame = line, ms, frame
        self.texts: list[str] = []
        self.reasoning = ""
        self.calls: list[tuple[str, str, str]] = []  # (call id, tool, input)


class _Walk:
    def __init__(
        self,
        session: CodexSession,
        actor: Actor,
        known: Callable[[str], bool],
        config: LiftConfig,
        resume: Resume | None,
    ) -> None:
        self.session = session
        self.em = Emitter(AGENT, session.session_id, actor, known, resume)
        self.lift = Lifter(self.em, config)
        self.diag = Diagnostics()
        self.cursor: list[dict[str, Any]] = []
        # call id -> (tool, input, ms, frame, the event key of the call)
        self.pending: dict[str, tuple[str, str, int, str | None, str]] = {}
        self.call_ids: set[str] = set()  # every call id met, to keep a reused one apart
        self.walked: set[str] = set()
        self.nicknames: dict[str, str] = {}
        self.model = "unknown"
        self.prompt = ""
        self.first_prompt = ""
        self.outcome = "in-progress"
        self.total: dict[str, Any] | None = None
        self.step: _Step | None = None
        self.prefer_events = False

    def file(self, source: Source, frame: str | None) -> None:
        self.cursor.append(file_cursor(source))
        recs = read_records(source, self.diag)
        self.prefer_events = any(F.typed_prompt(r.value) is not None for r in recs)
        name = source.name.rsplit("/", 1)[-1]
        replay = Replay()  # a fork's copy of its ancestor's history is not its work
        for rec in recs:
            value = rec.value
            kind, payload = F.enveloped(value)
            if not isinstance(payload, dict):
                self.diag.unknown_types[f"{kind} without payload" if kind else "no type"] += 1
                continue
            if replay.copied(kind, payload, value.get("timestamp")):
                self.diag.copied += 1
                self.total = replay.total or self.total  # the totals go on from it
                continue
            ms = self.em.at(value.get("timestamp"))
            key = f"{name}:{rec.line}"
            if kind == "response_item":
                self._item(payload, key, ms, frame, rec.line)
            elif kind == "event_msg":
                self._event(payload, key, ms, frame)
            elif kind == "session_meta":
                self.diag.recognised += 1
                if isinstance(payload.get("cli_version"), str):
                    self.diag.versions.add(payload["cli_version"])
            elif kind == "turn_context":
                self._flush()  # a step open now was sampled by the model before
                self.diag.recognised += 1
                self.model = str(payload.get("model") or payload.get("model_name") or self.model)
            elif kind == "compacted":
                self._flush()
                self.diag.recognised += 1
                text = str(payload.get("message") or "")
                self.em.observation(key, "context compacted (local)", text, ms, {})
            elif isinstance(kind, str) and (
                kind in F.NEWER_TYPES or kind.startswith("record_type")
            ):
                self.diag.ignored[str(kind)] += 1
            else:  # a record with no type said "None", as if a type were named so
                self.diag.unknown_types["no type" if kind is None else str(kind)] += 1
        self._flush()

    # -- response items -------------------------------------------------------------

    def _item(self, item: dict[str, Any], key: str, ms: int, frame: str | None, line: int) -> None:
        kind = item.get("type")
        if kind == "message":
            self._message(item, key, ms, frame, line)
        elif kind == "reasoning":
            step = self._open(line, ms, frame)
            found = item.get("summary")
            parts = found if isinstance(found, list) else []
            texts = [s.get("text", "") for s in parts if isinstance(s, dict)]
            step.reasoning = "\n".join(t for t in texts if isinstance(t, str)) or (
                "encrypted (not readable)" if item.get("encrypted_content") else "empty"
            )
        elif kind in F.CALLS or kind in F.SELF_CONTAINED_CALLS:
            self._call(item, key, ms, frame, line)
        elif kind in F.OUTPUTS:
            self._flush()
            self._output(item, ms)
        elif kind in ("compaction", "compaction_summary"):
            self._flush()
            self.diag.recognised += 1
            text = "the summary is encrypted (remote compaction): not readable"
            self.em.observation(key, "context compacted (remote)", text, ms, {})
        elif kind == "agent_message":  # 0.15x: what a parent thread sends its subagent
            self.diag.injected["inter-agent message"] += 1
        elif kind in ("ghost_snapshot", "tool_search_call", "tool_search_output"):
            self.diag.ignored[f"response_item/{kind}"] += 1
        else:
            self.diag.unknown_types[f"response_item/{kind}"] += 1

    def _message(
        self, item: dict[str, Any], key: str, ms: int, frame: str | None, line: int
    ) -> None:
        role = item.get("role")
        text = F.content_text(item.get("content"))
        if role == "assistant":
            self._open(line, ms, frame).texts.append(text)
        elif role == "user":
            self._flush()
            why = F.injected(text)
            if why is None and (self.prefer_events or frame is not None):
                why = "user item (the typed prompt is its event)" if frame is None else "subagent"
            if why is None:
                self._task(key, text, ms)
            else:
                self.diag.injected[why] += 1
        else:
            self.diag.injected[f"{role} message"] += 1

    def _open(self, line: int, ms: int, frame: str | None) -> _Step:
        if self.step is None:
            self.step = _Step(line, ms, frame)
        return self.step

    def _flush(self) -> None:
        step, self.step = self.step, None
        if step is None:
            return
        self.diag.recognised += 1
        meta: dict[str, Any] = {"session": self.em.session, "step_line": step.line}
        if step.reasoning:
            meta["reasoning"] = step.reasoning
        output = "\n".join(t for t in step.texts if t) or None
        # a child thread's lines are numbered in its own file: its frame tells them apart
        key = f"step:{step.line}" if step.frame is None else f"step:{step.frame}:{step.line}"
        self.em.model_call(
            key, self.model, self.prompt or "(tool output)", output, step.ms, meta, step.frame
        )
        for call_id, tool, given in step.calls:
            call_key = f"call:{call_id}"
            if call_id in self.call_ids:  # a reused id: its line tells the calls apart
                self.diag.unknown_fields["reused call_id (kept apart by its line)"] += 1
                call_key = f"call:{call_id}:{key}"
                if call_id in self.pending:  # the earlier call's output never came
                    self._unfinished(call_id, self.pending.pop(call_id))
            self.call_ids.add(call_id)
            self.pending[call_id] = (tool, given, step.ms, step.frame, call_key)

    def _call(self, item: dict[str, Any], key: str, ms: int, frame: str | None, line: int) -> None:
        step = self._open(line, ms, frame)
        name = str(item.get("name") or item.get("type"))
        given = F.call_input(item)
        call_id = item.get("call_id") or item.get("id")
        if item.get("type") in F.SELF_CONTAINED_CALLS or not isinstance(call_id, str):
            self._flush()  # a call with no output of its own: complete as it is
            self.diag.recognised += 1
            success = item.get("status") in ("completed", None)
            self.em.tool_call(
                key,
                name,
                given,
                None,
                success,
                ms,
                {"session": self.em.session, "status": item.get("status")},
                frame,
            )
            return
        step.calls.append((call_id, name, given))

    def _output(self, item: dict[str, Any], ms: int) -> None:
        call_id = item.get("call_id")
        pending = self.pending.pop(call_id, None) if isinstance(call_id, str) else None
        if pending is None:
            self.diag.ignored["output without its call"] += 1
            return
        self.diag.recognised += 1
        tool, given, _, frame, key = pending
        text, success = F.outcome(item.get("output"))
        meta: dict[str, Any] = {"call_id": call_id, "session": self.em.session}
        if F.TRUNCATED.search(text):  # Codex cut the output in the middle
            meta["output_truncated"] = True
        if self.em.logged_open(key):
            node = self.em.node("node", key, "tool")
            self.em.tool_finished(key, tool, text, bool(success), ms, node)
        else:
            node = self.em.tool_call(key, tool, given, text, success, ms, meta, frame)
        if success is False:
            self.em.failure(key, f"tool {tool} failed", text, ms)
            if "rejected" in text.lower() and "user" in text.lower():
                self.lift.denied(key, node, text, ms)
        if tool in F.SHELLS or tool == "write_stdin":
            self.lift.shell(key, given, success, text, ms)
        elif tool in ("apply_patch", "exec") and success:
            self.lift.edited(key, F.patched(tool, given), ms)
        elif tool == "spawn_agent":
            self._spawn(text, given, ms, frame)

    def _spawn(self, text: str, given: str, ms: int, frame: str | None) -> None:
        try:
            found = json.loads(text)
        except (ValueError, RecursionError):
            return
        found = found if isinstance(found, dict) else {}
        thread = found.get("agent_id") or self._named(found.get("task_name"))
        if not isinstance(thread, str) or thread in self.walked:
            return
        self.walked.add(thread)
        nickname = str(found.get("nickname") or self.nicknames.get(thread) or thread)
        child = self.em.frame(
            f"thread:{thread}", f"subagent {nickname}", given, frame, ms, {"thread_id": thread}
        )
        source = self.session.children.get(thread)
        if source is not None:
            self.child(source, child)

    def _named(self, task: Any) -> str | None:
        """The child thread a 0.156 ``spawn_agent`` names only by its task
        (``/root/<task>``): the one whose session meta has that ``agent_path``."""
        for thread, source in self.session.children.items() if isinstance(task, str) else ():
            meta = F.first_meta(source.text)
            if meta.get("agent_path") == task:
                self.nicknames[thread] = str(meta.get("agent_nickname") or thread)
                return thread
        return None

    def child(self, source: Source, frame: str) -> None:
        """A child thread's rollout: its own model, prompt and cumulative totals."""
        model, prompt, total = self.model, self.prompt, self.total
        self.total = None
        self.file(source, frame)
        self.model, self.prompt, self.total = model, prompt, total

    # -- event messages -------------------------------------------------------------

    def _event(self, payload: dict[str, Any], key: str, ms: int, frame: str | None) -> None:
        kind = payload.get("type")
        typed = F.typed_prompt({"type": "event_msg", "payload": payload})
        if typed is not None:
            self._flush()
            why = F.injected(typed) or ("subagent" if frame is not None else None)
            if why is None:
                self._task(key, typed, ms)
            else:
                self.diag.injected[why] += 1
        elif kind == "token_count":
            self._tokens(payload, key, ms)
        elif kind in ("task_started", "turn_started"):
            self.diag.recognised += 1
        elif kind in ("task_complete", "turn_complete"):
            self._flush()
            self.diag.recognised += 1
            self.outcome = "completed"
        elif kind == "turn_aborted":
            self._flush()
            self.diag.recognised += 1
            reason = str(payload.get("reason") or "interrupted")
            self.em.observation(key, f"turn aborted ({reason})", reason, ms, {})
            self.outcome = "aborted"
        elif kind in ("thread_rolled_back", "undo_completed"):
            self.diag.recognised += 1
            self.em.observation(key, kind.replace("_", " "), json.dumps(payload), ms, {})
        elif kind in ("error", "stream_error"):
            self.diag.recognised += 1
            self.em.failure(key, f"Codex {kind}", str(payload.get("message") or ""), ms)
        elif kind == "thread_settings_applied":  # Codex Desktop: the thread's new settings
            self._flush()
            settings = payload.get("thread_settings")
            found = settings.get("model") if isinstance(settings, dict) else None
            self.model = found if isinstance(found, str) and found else self.model
        elif kind == "agent_reasoning" and self.step is not None:
            self.step.reasoning = str(payload.get("text") or "")
        elif isinstance(kind, str) and (
            kind in F.QUIET_EVENTS or kind in ("agent_reasoning", "item_completed")
        ):
            self.diag.ignored[f"event_msg/{kind}"] += 1
        else:
            self.diag.unknown_types[f"event_msg/{kind}"] += 1

    def _tokens(self, payload: dict[str, Any], key: str, ms: int) -> None:
        info = payload["info"] if isinstance(payload.get("info"), dict) else {}
        total, last = info.get("total_token_usage"), info.get("last_token_usage")
        total = total if isinstance(total, dict) else None
        if total is None and not isinstance(last, dict):
            why = "token_count without usage"  # a rate-limits-only event (info null)
            if "input_tokens" in payload:  # not the {info: {…}} of every version met
                why = "token_count with its counts outside info (not counted)"
                self.diag.unknown_fields[why] += 1
            else:
                self.diag.ignored[why] += 1
            return
        if total is not None and total == self.total:
            self.diag.ignored["repeated token_count"] += 1
            return
        self._flush()
        self.diag.recognised += 1
        fell = total is not None and F.delta(total, self.total or {}) is None
        if fell:  # a resumed Codex appends totals counted from zero again
            self.diag.ignored["token_count total started again (counted from zero)"] += 1
        before = {} if fell else self.total or {}
        usage = last if isinstance(last, dict) else F.delta(total or {}, before)
        self.model = F.call_model(info, usage or {}, self.model)
        self.total = total or self.total
        meta = {"session": self.em.session, "usage": usage, "total_token_usage": total}
        self.em.model_finished((key, "tokens"), self.model, ms, meta)

    def _task(self, key: str, text: str, ms: int) -> None:
        self.diag.recognised += 1
        text = text.split(F.IDE_REQUEST, 1)[-1]
        self.prompt = text.strip()
        self.first_prompt = self.first_prompt or self.prompt
        self.em.task(f"prompt:{key}", text, ms, {"line": key})

    def _unfinished(self, call_id: str, pending: tuple[str, str, int, str | None, str]) -> None:
        """A call whose output the rollout does not hold: kept, marked unfinished."""
        tool, given, ms, frame, key = pending
        self.diag.unfinished_calls += 1
        meta = {"call_id": call_id, "session": self.em.session, "unfinished": True}
        self.em.tool_call(key, tool, given, None, None, ms, meta, frame)
        self.outcome = "in-progress"

    def finish(self) -> Projection:
        self._flush()
        for call_id, pending in self.pending.items():
            self._unfinished(call_id, pending)
        self.lift.finish(self.em.last_ts)
        check_versions(AGENT, self.diag, *TESTED)
        return session_projection(
            AGENT, self.em, self.first_prompt, self.cursor, self.diag, self.outcome
        )
