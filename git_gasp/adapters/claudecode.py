"""The Claude Code transcript projector (pure): session files → one GASP run.

A session is its main file(s) and its subagent files (``agent-<id>.jsonl``,
beside the main file (2.0.x) or under ``<session>/subagents/``; inline before).
Mapping (adapters.md §7.2):

- a prompt a person typed (or queued) → ``task.created``; injected text (system
  reminders, slash and local commands, compaction summaries, skill text,
  hook output, interrupt and queue markers, ``isMeta`` lines) never is;
- the lines of one assistant message (one ``message.id``) → one
  ``model.called`` with the model and the message's most complete usage;
- ``tool_use`` + the ``tool_result`` with the same id → ``tool.called``
  (success from ``is_error``); a call with no result stays unfinished; a
  failed call adds ``failure.observed``; API errors → ``failure.observed``;
- an ``Agent``/``Task`` call whose result names an agent id → ``frame.created``,
  that subagent's file projected there (``contained_in_frame``; a record it
  copied from its parent is never its own), as an inline sidechain is;
- compaction → ``observation.created`` with its trigger and token counts;
- after a rewind only the active branch is projected: each abandoned branch
  becomes one ``observation.created`` saying how many records it held.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from git_gasp.adapters import ccformat as F
from git_gasp.adapters import resuming
from git_gasp.adapters.branches import active
from git_gasp.adapters.emitting import Emitter, Resume, session_projection
from git_gasp.adapters.lifting import LiftConfig, Lifter
from git_gasp.adapters.lines import (
    Diagnostics,
    Projection,
    Record,
    Source,
    check_versions,
    file_cursor,
    note_fields,
    records,
)
from git_gasp.core.event import Actor
from git_gasp.core.log import gc_paused

AGENT = "claude-code"


class Session(NamedTuple):
    session_id: str
    mains: Sequence[Source]
    subagents: Mapping[str, Source]  # agent id -> its file


def project(
    session: Session,
    actor: Actor,
    known: Callable[[str], bool],
    config: LiftConfig | None = None,
    resume: Resume | None = None,
    state: Mapping[str, Any] | None = None,
) -> Projection:
    """Project ``session``; ``known`` says which event ids the log already holds,
    ``resume`` which run of the session is the latest (see :class:`Resume`),
    ``state`` where the last projection stopped (its ``Projection.state``):
    with it only the files' new lines are read, when they continue what was
    read (:mod:`git_gasp.adapters.resuming`); without it, or when they do not,
    everything is projected again and ``known`` drops what was logged."""
    with gc_paused():  # tens of thousands of acyclic records and events
        return _project(session, actor, known, config or LiftConfig(), resume, state)


def _project(
    session: Session,
    actor: Actor,
    known: Callable[[str], bool],
    config: LiftConfig,
    resume: Resume | None,
    state: Mapping[str, Any] | None,
) -> Projection:
    walk = _Walk(session, actor, known, config, resume)
    tails = resuming.tails([*session.mains, *session.subagents.values()], state, walk.diag)
    if tails is not None and state is not None:
        resuming.load_walk(walk, state)
        walk.tails = tails
    else:
        walk = _Walk(session, actor, known, config, resume)
    for source in session.mains:
        walk.file(source, None, child=False)
    for agent_id, source in sorted(session.subagents.items()):
        if agent_id not in walk.walked:  # a subagent no call of ours names
            frame = walk.em.frame(
                f"agent:{agent_id}", F.unnamed(agent_id, source), "", None, walk.em.last_ts, {}
            )
            walk.walked.add(agent_id)
            walk.file(source, frame, child=True)
        elif source.name in walk.tails:  # walked before, grown since
            walk.file(source, walk.em.node("frame", f"agent:{agent_id}"), child=True)
    return walk.finish()


class _Walk:
    def __init__(
        self,
        session: Session,
        actor: Actor,
        known: Callable[[str], bool],
        config: LiftConfig,
        resume: Resume | None,
    ) -> None:
        self.session = session
        self.em = Emitter(AGENT, session.session_id, actor, known, resume)
        self.lift = Lifter(self.em, config)
        self.diag = Diagnostics()
        self.uuids: set[str] = set()
        self.messages: dict[str, Any] = {}  # message id -> the usage logged with it
        self.blocks: set[str] = set()  # the keys of the blocks projected (F.block_key)
        self.pending: dict[str, tuple[str, Any, int, str | None]] = {}
        self.walked: set[str] = set()
        self.sidechains = F.Sidechains()
        self.prompt = ""
        self.first_prompt = ""
        self.outcome = "in-progress"
        self.cursor: list[dict[str, Any]] = []
        self.ends: dict[str, dict[str, Any]] = {}  # file -> where it was read to
        self.tails: dict[str, list[Record]] = {}  # file -> its records after that

    # -- files ------------------------------------------------------------------

    def file(self, source: Source, frame: str | None, child: bool) -> None:
        self.cursor.append(file_cursor(source))
        before = self.ends.get(source.name) if source.name in self.tails else None
        recs = self.tails.pop(source.name, None)
        if recs is None:
            recs = records(source, self.diag)
        self.ends[source.name] = resuming.file_end(source, recs, before)
        summaries = {
            r.value["parentUuid"]: F.text_of(r.value.get("message"))
            for r in recs
            if r.value.get("isCompactSummary") and isinstance(r.value.get("parentUuid"), str)
        }
        message: F.Message | None = None
        for rec in active(recs, self.diag, self.em):
            value = rec.value
            uid = value.get("uuid")
            if isinstance(uid, str) and uid in self.uuids:
                self.diag.copied += 1  # a copy of a record seen in a parent or earlier file
                continue
            if isinstance(uid, str):
                self.uuids.add(uid)
            if message is not None and F.ends_message(value, message.id):
                self._flush(message)
                message = None
            if isinstance(value.get("version"), str):
                self.diag.versions.add(value["version"])
            note_fields(value, F.KNOWN_FIELDS, self.diag)
            kind = value.get("type")
            ms = self.em.at(value.get("timestamp"))
            inline = None if child else self.sidechains.frame(self.em, value, self.pending, ms)
            here, sub = (frame, child) if inline is None else (inline, True)
            if kind == "assistant":
                message = self._assistant(rec, message, ms, here)
            elif kind == "user":
                self._user(rec, ms, here, sub)
            elif kind == "system":
                F.system_line(self.em, self.diag, rec.value, ms, summaries)
            elif kind == "attachment" and (typed := F.queued_prompt(rec, self.diag)) is not None:
                self._user(typed, ms, here, sub)  # a prompt queued while the agent worked
            elif isinstance(kind, str) and kind in F.IGNORED_TYPES:
                self.diag.ignored[kind] += 1
            else:  # a record with no type said "None", as if a type were named so
                self.diag.unknown_types["no type" if kind is None else str(kind)] += 1
        if message is not None:
            self._flush(message)

    # -- assistant messages -------------------------------------------------------

    def _assistant(
        self, rec: Record, message: F.Message | None, ms: int, frame: str | None
    ) -> F.Message | None:
        value = rec.value
        msg = value.get("message")
        if not isinstance(msg, dict):
            self.diag.unknown_fields["assistant without message"] += 1
            return message
        if value.get("isApiErrorMessage") or msg.get("model") == "<synthetic>":
            self.diag.recognised += 1
            if value.get("isApiErrorMessage"):
                status = value.get("apiErrorStatus") or value.get("error") or "unknown"
                self.em.failure(
                    f"api:{value.get('uuid')}", f"API error: {status}", F.text_of(msg), ms
                )
                self.outcome = "api-error"
            else:
                self.diag.injected["synthetic assistant message"] += 1
            return message
        raw_id = msg.get("id")
        msg_id = raw_id if isinstance(raw_id, str) else f"line:{value.get('uuid')}"
        if message is None:
            message = F.Message(msg_id, rec, ms, frame, again=msg_id in self.messages)
        if message.again:
            self._late_usage(msg_id, msg, ms)
        content = msg.get("content")
        if isinstance(content, list):
            message.blocks.extend(b for b in content if isinstance(b, dict))
        elif isinstance(content, str):
            message.blocks.append({"type": "text", "text": content})
        message.usage = F.usage_of(msg, message.usage, self.diag)  # the most complete
        model = msg.get("model")
        message.model = model if isinstance(model, str) and model else message.model
        message.stop = msg.get("stop_reason", message.stop)
        return message

    def _late_usage(self, msg_id: str, msg: dict[str, Any], ms: int) -> None:
        """A message already logged (an earlier file or import) seen again."""
        usage = msg.get("usage")
        if usage is None or usage == self.messages.get(msg_id):
            self.diag.copied += 1
            return
        self.messages[msg_id] = usage
        key = (msg_id, "usage", F.digest(usage))
        meta = {"message_id": msg_id, "usage": usage, "session": self.em.session}
        self.em.model_finished(key, str(msg.get("model") or ""), ms, meta)

    def _flush(self, message: F.Message) -> None:
        key = F.unseen(message, self.blocks, self.diag) if message.again else message.id
        if key is None:
            return
        self.blocks.update(k for b in message.blocks if (k := F.block_key(b)))
        self.diag.recognised += 1
        texts, thinking, tools = [], [], []
        for block in message.blocks:
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("thinking", "redacted_thinking"):
                thinking.append("present" if block.get("thinking") else "empty (signature only)")
            elif kind in ("tool_use", "server_tool_use") and isinstance(block.get("id"), str):
                tools.append(block)
            elif F.server_result(block) is None:
                self.diag.unknown_fields[f"assistant block {kind}"] += 1
        meta: dict[str, Any] = {
            "message_id": message.id,
            "request_id": message.rec.value.get("requestId"),
            "stop_reason": message.stop,
            "usage": message.usage,
            "session": self.em.session,
        }
        if message.again:  # the message's usage is counted once (see _late_usage)
            del meta["usage"]
        if thinking:
            meta["thinking"] = thinking[-1]
            meta["reasoning"] = "not in the transcript" if "empty" in thinking[-1] else "summary"
        self.messages.setdefault(message.id, message.usage)
        prompt = self.prompt or "(tool results)"
        self.em.model_call(
            key,
            message.model or "unknown",
            prompt,
            "\n".join(texts) or None,
            message.ms,
            meta,
            message.frame,
        )
        for block in tools:
            name = str(block.get("name") or "tool")
            self.pending[block["id"]] = (name, block.get("input"), message.ms, message.frame)
        for result in filter(None, map(F.server_result, message.blocks)):  # in the message
            self._result(result, message.rec.value, message.ms, message.frame)
        self.outcome = "completed" if message.stop == "end_turn" else "in-progress"

    # -- user lines -----------------------------------------------------------------

    def _user(self, rec: Record, ms: int, frame: str | None, child: bool) -> None:
        value = rec.value
        msg = value.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            self.diag.unknown_fields["user without content"] += 1
            return
        flag = F.injected_flag(value)
        human: list[str] = []
        images = 0
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_result":
                self._result(block, value, ms, frame)
            elif kind == "image":
                images += 1
            elif kind == "text" and isinstance(block.get("text"), str):
                said = block["text"]
                why = flag or F.injected_text(said)
                request = F.command_request(said) if why == "slash command" else None
                if request is not None:
                    why, said = None, request
                if why is None and child:
                    why = "subagent prompt"
                if why is None:
                    human.append(said)
                else:
                    self.diag.injected[why] += 1
                    if why == "interrupt marker":
                        self.outcome = "interrupted"
                    elif why == "teammate message":
                        named = F.teammate(self.em, value, said, ms)  # observed either way
                        self.first_prompt = self.first_prompt or named
            else:
                self.diag.unknown_fields[f"user block {kind}"] += 1
        if human or (images and flag is None and not child):
            self.diag.recognised += 1
            text = "\n".join(human) + ("\n[image]" * images)
            self.prompt = text.strip()
            self.first_prompt = self.first_prompt or self.prompt
            meta = {"uuid": value.get("uuid"), "prompt_id": value.get("promptId")}
            if images:
                meta["images"] = images
            self.em.task(f"prompt:{value.get('uuid')}", text, ms, meta)

    def _result(
        self, block: dict[str, Any], line: dict[str, Any], ms: int, frame: str | None
    ) -> None:
        call_id = block.get("tool_use_id")
        pending = self.pending.pop(call_id, None) if isinstance(call_id, str) else None
        if pending is None:
            self.diag.ignored["tool result without its call"] += 1
            return
        self.diag.recognised += 1
        name, given, _, call_frame = pending
        text = F.text_of(block.get("content"))
        structured = line.get("toolUseResult")
        if isinstance(structured, dict) and ("stdout" in structured or "stderr" in structured):
            text = "\n".join(str(structured.get(k) or "") for k in ("stdout", "stderr")).strip()
        success = not block.get("is_error")
        meta: dict[str, Any] = {"tool_use_id": call_id, "session": self.em.session}
        if "truncated" in text[-200:] or "Output too large" in text:
            meta["output_truncated"] = True
        key = f"tool:{call_id}"
        node = self._tool_node(key, name, given, text, success, ms, meta, call_frame)
        if not success:
            self.em.failure(key, f"tool {name} failed", text, ms)
            if any(marker in text for marker in F.DENIED):
                self.lift.denied(key, node, text, ms)
        F.lift(self.lift, key, name, given, text, success, ms)
        if name in F.SUBAGENT_TOOLS:
            self._subagent(structured, text, given, ms, call_frame)

    def _tool_node(
        self,
        key: str,
        name: str,
        given: Any,
        text: str,
        success: bool,
        ms: int,
        meta: dict[str, Any],
        frame: str | None,
    ) -> str:
        if self.em.logged_open(key):
            node = self.em.node("node", key, "tool")
            self.em.tool_finished(key, name, text, success, ms, node)
            return node
        return self.em.tool_call(
            key, name, F.input_text(name, given), text, success, ms, meta, frame
        )

    def _subagent(self, structured: Any, text: str, given: Any, ms: int, frame: str | None) -> None:
        agent_id = structured.get("agentId") if isinstance(structured, dict) else None
        found = None if isinstance(agent_id, str) else F.AGENT_ID.search(text)
        agent_id = found.group(1) if found else agent_id if isinstance(agent_id, str) else None
        if agent_id is None or agent_id in self.walked:
            return
        given = given if isinstance(given, dict) else {}
        kind = str(given.get("subagent_type") or "subagent")
        about = str(given.get("description") or given.get("prompt") or "")
        meta = {"agent_id": agent_id, "subagent_type": kind}
        child = self.em.frame(f"agent:{agent_id}", f"{kind}: {about}", about, frame, ms, meta)
        self.walked.add(agent_id)
        source = self.session.subagents.get(agent_id)
        if source is not None:
            self.file(source, child, child=True)

    # -- the end --------------------------------------------------------------------

    def finish(self) -> Projection:
        for call_id, (name, given, ms, frame) in self.pending.items():
            self.diag.unfinished_calls += 1
            meta = {"tool_use_id": call_id, "session": self.em.session, "unfinished": True}
            self.em.tool_call(
                f"tool:{call_id}", name, F.input_text(name, given), None, None, ms, meta, frame
            )
            self.outcome = "in-progress"
        self.lift.finish(self.em.last_ts)
        check_versions(AGENT, self.diag, *F.TESTED)
        return session_projection(
            AGENT, self.em, self.first_prompt, self.cursor, self.diag, self.outcome
        )._replace(state=resuming.walk_state(self))
