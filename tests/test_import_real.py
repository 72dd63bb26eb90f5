"""Shapes that real public transcripts showed and our own fixtures did not: each
case is a synthetic fixture written here in the shape a real Claude Code or
Codex file had (no real content is copied), with what the projection and
``usage`` must make of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_gasp.adapters import claudecode, codex
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.codex import CodexSession
from git_gasp.adapters.lines import Projection, Source
from git_gasp.adapters.usage import counted
from git_gasp.cli.root import main
from git_gasp.core.event import Actor
from tests import transcripts as T

ACTOR = Actor("agent", "importer")


def _never(_: str) -> bool:
    return False


def _rollout(*items: tuple[str, dict[str, Any] | None]) -> str:
    return "".join(
        json.dumps(
            {"timestamp": f"2026-08-28T10:{i // 60:02d}:{i % 60:02d}.000Z", "type": k}
            | ({} if p is None else {"payload": p})
        )
        + "\n"
        for i, (k, p) in enumerate(items)
    )


def _tokens(
    inp: int, cached: int, out: int, last: tuple[int, int, int] | None = None
) -> tuple[str, dict[str, Any]]:
    total = {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": 0,
        "total_tokens": inp + out,
    }
    li, lc, lo = last or (inp, cached, out)
    recent = {
        "input_tokens": li,
        "cached_input_tokens": lc,
        "output_tokens": lo,
        "reasoning_output_tokens": 0,
        "total_tokens": li + lo,
    }
    info = {"total_token_usage": total, "last_token_usage": recent, "model_context_window": 258400}
    return ("event_msg", {"type": "token_count", "info": info, "rate_limits": None})


def _codex(text: str) -> Projection:
    return codex.project(
        CodexSession(T.CODEX_SESSION, [Source("r.jsonl", text)], {}), ACTOR, _never
    )


def _totals(p: Projection) -> dict[str, int]:
    sums = {"input": 0, "output": 0, "cache_creation": 0, "cache_read": 0}
    for _, _, counts in counted(p.events):
        for field in sums:
            sums[field] += counts[field]
    return sums


def _turn(prompt: str, said: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        (
            "turn_context",
            {"cwd": "/r", "approval_policy": "on-request", "model": "gpt-5.1-codex-max"},
        ),
        ("event_msg", {"type": "user_message", "message": prompt, "images": []}),
        (
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": said}],
            },
        ),
    ]


# -- Codex: a cumulative total that starts again ----------------------------------------------


def test_codex_a_total_that_starts_again_is_counted_from_zero_never_negative() -> None:
    """A resumed Codex (0.5x/0.6x, Nov 2025) appended to the same rollout with
    its ``total_token_usage`` counting from zero again (the real file fell from
    12.4M input to 194,558, equal to that call's ``last_token_usage``). The new
    total is what the new process used, not a negative delta of the old one."""
    meta = ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.63.0"})
    text = _rollout(
        meta,
        *_turn("first", "one"),
        _tokens(12_000, 10_000, 200),
        _tokens(20_000, 16_000, 300, last=(8_000, 6_000, 100)),
        *_turn("after a resume", "two"),
        _tokens(1_500, 1_000, 13),  # the total starts again
        _tokens(1_500, 1_000, 13),  # and repeats: counted once
    )
    got = _codex(text)
    deltas = [e.payload["metadata"]["usage"] for e in got.events if e.kind == "model.finished"]
    assert all(v >= 0 for d in deltas for v in d.values()), deltas
    # ccusage's rule for Codex (its sum of last_token_usage) gives the same figures
    assert _totals(got) == {
        "input": (20_000 - 16_000) + (1_500 - 1_000),
        "output": 300 + 13,
        "cache_creation": 0,
        "cache_read": 16_000 + 1_000,
    }
    assert got.diagnostics.ignored["token_count total started again (counted from zero)"] == 1


def test_codex_usage_of_a_total_that_starts_again_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    path = tmp_path / f"rollout-2025-11-22T21-45-35-{T.CODEX_SESSION}.jsonl"
    path.write_text(
        _rollout(
            ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.63.0"}),
            *_turn("first", "one"),
            _tokens(12_000, 10_000, 200),
            *_turn("after a resume", "two"),
            _tokens(1_500, 1_000, 13),
        )
    )
    assert main(["import", "codex", str(path), "--repo", str(repo)]) == 0
    capsys.readouterr()
    assert main(["usage", "--repo", str(repo), "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert totals["input"] == 2_000 + 500
    assert totals["cache_read"] == 11_000
    assert totals["output"] == 213


def test_codex_a_rollout_without_session_meta_is_named_by_the_uuid_in_its_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rollout cut from its head (the real one was a ``tail`` of it) has no
    ``session_meta``: its thread is the UUID its file name ends with, the id an
    ``Agent-Session: codex:<id>`` trailer and the hooks name, not the name's
    local-time stamp as well."""
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    path = tmp_path / f"rollout-2025-11-22T21-45-35-{T.CODEX_SESSION}.jsonl"
    path.write_text(_rollout(*_turn("first", "one"), _tokens(1_500, 1_000, 13)))
    capsys.readouterr()
    assert main(["import", "codex", str(path), "--repo", str(repo), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert session["session"] == T.CODEX_SESSION


# -- Claude Code: what 2.1.x writes beside user and assistant lines ----------------------------


def _cc(text: str, subs: dict[str, str] | None = None) -> Projection:
    session = Session(
        T.SESSION,
        [Source("main.jsonl", text)],
        {k: Source(f"agent-{k}.jsonl", v) for k, v in (subs or {}).items()},
    )
    return claudecode.project(session, ACTOR, _never)


def _tasks(p: Projection) -> list[str]:
    return [e.payload["title"] for e in p.events if e.kind == "task.created"]


def _queued(m: T.Claude, prompt: Any, mode: str | None, origin: str | None) -> None:
    attachment: dict[str, Any] = {"type": "queued_command", "prompt": prompt}
    if mode is not None:
        attachment["commandMode"] = mode
    if origin is not None:
        attachment["origin"] = {"kind": origin}
    m.add(m._base("attachment", attachment=attachment))


def test_cc_a_prompt_queued_while_the_agent_worked_is_a_task() -> None:
    """2.1.x records what a person types while the agent is busy as an
    ``attachment`` of type ``queued_command`` (``commandMode`` ``prompt``,
    origin human), never as a ``user`` line: the enqueue/dequeue bookkeeping
    repeats the words and stays ignored, the queued prompt is a task; a queued
    task notification is injected text."""
    m = T.Claude("2.1.220")
    m.user("Make the retry test pass")
    m.assistant("msg_q1", [{"type": "text", "text": "Looking."}], T.usage(5, 2), stop="tool_use")
    m.add(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "content": "and check the logs",
            "sessionId": T.SESSION,
            "timestamp": "2026-06-15T10:00:30.000Z",
        }
    )
    m.add(
        {
            "type": "queue-operation",
            "operation": "dequeue",
            "sessionId": T.SESSION,
            "timestamp": "2026-06-15T10:00:31.000Z",
        }
    )
    _queued(m, "and check the logs", "prompt", "human")
    _queued(m, "also the docs", None, None)  # an older line: no mode, no origin
    _queued(
        m,
        "<task-notification>agent a1 done</task-notification>",
        "task-notification",
        "task-notification",
    )
    m.assistant("msg_q2", [{"type": "text", "text": "Done."}], T.usage(7, 3))
    got = _cc(m.text())
    assert _tasks(got) == ["Make the retry test pass", "and check the logs", "also the docs"]
    assert got.diagnostics.injected["queued task-notification"] == 1
    assert got.diagnostics.ignored["queue-operation"] == 2
    assert "attachment" not in got.diagnostics.unknown_types


def test_cc_a_queued_prompt_in_a_subagent_file_is_not_a_person_s_task() -> None:
    m = T.Claude("2.1.220")
    m.user("Survey the repo")
    m.assistant(
        "msg_s1",
        [{"type": "tool_use", "id": "toolu_s1", "name": "Agent", "input": {"description": "s"}}],
        T.usage(5, 2),
        stop="tool_use",
    )
    m.tool_result("toolu_s1", "ok", structured={"agentId": "s1", "status": "completed"})
    child = T.Claude("2.1.220", sidechain=True, tag="s1")
    child.user("look at src/")
    _queued(child, "and src/web too", "prompt", "human")
    child.assistant("msg_c1", [{"type": "text", "text": "seen"}], T.usage(3, 1))
    got = _cc(m.text(), {"s1": child.text()})
    assert _tasks(got) == ["Survey the repo"]
    assert got.diagnostics.injected["subagent prompt"] == 2


def test_cc_2_1_220_metadata_records_are_known_the_unexplained_stay_visible() -> None:
    """2.1.220 re-appends session metadata records (``mode`` and
    ``permission-mode`` about every 32 KiB) and writes ``file-history-delta``
    beside ``file-history-snapshot``: known, counted as ignored, no warning.
    A record type nobody has explained stays an unknown type, in the warning."""
    m = T.Claude("2.1.220")
    m.user("Make the retry test pass")
    for kind in ("file-history-delta", "agent-color", "agent-setting", "tag", "worktree-state"):
        m.add({"type": kind, "sessionId": T.SESSION})
    m.add({"type": "marble-origami-commit", "sessionId": T.SESSION})
    m.assistant("msg_m1", [{"type": "text", "text": "Done."}], T.usage(5, 2))
    got = _cc(m.text())
    assert got.diagnostics.ignored["file-history-delta"] == 1
    assert dict(got.diagnostics.unknown_types) == {"marble-origami-commit": 1}
    assert any("marble-origami-commit (1)" in w for w in got.diagnostics.warnings())


# -- Codex: the bare rollouts of 2025 ------------------------------------------------------------

BARE = [
    {
        "id": T.CODEX_SESSION,
        "timestamp": "2025-08-02T17:17:41.762Z",
        "instructions": None,
        "git": {"commit_hash": "e4b91cc2", "branch": "main"},
    },
    {"record_type": "state"},
    {
        "type": "message",
        "role": "user",
        "content": [
            {
                "type": "input_text",
                "text": "<environment_context>\n  <cwd>/r</cwd>\n</environment_context>",
            }
        ],
    },
    {"record_type": "state"},
    {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "list the files"}],
    },
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Listing"}],
        "encrypted_content": "gAAAA",
    },
    {
        "type": "function_call",
        "id": "fc_1",
        "name": "shell",
        "arguments": json.dumps({"command": ["bash", "-lc", "ls"]}),
        "call_id": "call_1",
    },
    {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": json.dumps({"output": "a.txt\n", "metadata": {"exit_code": 0}}),
    },
    {"record_type": "state"},
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "There is one file, a.txt."}],
    },
]


def test_codex_a_bare_2025_rollout_is_projected() -> None:
    """Before the ``{timestamp, type, payload}`` envelope (Codex up to about
    Sept 2025) a rollout began with the bare session meta (``id``,
    ``timestamp``, ``instructions``, ``git``), held bare response items with no
    time of their own and ``{"record_type":"state"}`` markers. Every such file
    was refused as "nothing recognised"."""
    text = "".join(json.dumps(v) + "\n" for v in BARE)
    got = _codex(text)
    kinds = [e.kind for e in got.events if e.kind != "state.ops_applied"]
    assert kinds == ["run.started", "task.created", "model.called", "tool.called", "model.called"]
    [task] = [e.payload for e in got.events if e.kind == "task.created"]
    assert task["title"] == "list the files"
    [tool] = [e.payload for e in got.events if e.kind == "tool.called"]
    assert tool["success"] is True and tool["tool"] == "shell"
    assert got.diagnostics.ignored["record_type state"] == 3
    assert not got.diagnostics.unknown_types


def test_codex_a_bare_2025_rollout_imports_under_its_own_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    path = tmp_path / "rollout-2025-08-02T17-17-41-legacy.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in BARE))
    capsys.readouterr()
    assert main(["import", "codex", str(path), "--repo", str(repo), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert session["session"] == T.CODEX_SESSION
    assert session["task"] == "list the files"
    assert main(["check", str(repo)]) == 0


def _user_item(text: str) -> tuple[str, dict[str, Any]]:
    content = [{"type": "input_text", "text": text}]
    return ("response_item", {"type": "message", "role": "user", "content": content})


def test_codex_newer_injected_envelopes_and_the_ide_request_marker() -> None:
    """Codex 0.142+ injects ``<app-context>`` (Codex Desktop), ``<environment>``,
    ``<environment-change>``, ``<collaboration_mode>``, ``<plugins_instructions>``
    and ``<apps_instructions>`` blocks; an IDE-started 2025 prompt wraps what the
    person typed after ``## My request for Codex:``."""
    meta = ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.142.4"})
    text = _rollout(
        meta,
        *[
            _user_item(f"<{tag}>x</{tag}>")
            for tag in (
                "app-context",
                "environment",
                "environment-change",
                "collaboration_mode",
                "plugins_instructions",
                "apps_instructions",
            )
        ],
        _user_item(
            "# Context from my IDE setup:\n\n## Active file: src/a.py\n\n"
            "## My request for Codex:\nfix the retry bug\n"
        ),
    )
    got = _codex(text)
    assert [e.payload["title"] for e in got.events if e.kind == "task.created"] == [
        "fix the retry bug"
    ]
    assert sum(got.diagnostics.injected.values()) == 6


def test_codex_0_156_inter_agent_messages_and_code_mode_exec() -> None:
    """0.156 writes the task a parent sends its subagent as a ``response_item``
    ``agent_message`` (author, recipient, encrypted content): injected, not an
    unknown record. Its code-mode ``exec`` tool answers with text blocks whose
    JSON part carries the command's ``exit_code``: a non-zero one is a failure."""
    meta = ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.156.1"})

    def out(code: int) -> list[dict[str, str]]:
        part = {"chunk_id": "7f0905", "exit_code": code, "output": "x\n"}
        return [
            {"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
            {"type": "input_text", "text": json.dumps(part)},
        ]

    text = _rollout(
        meta,
        (
            "response_item",
            {
                "type": "agent_message",
                "author": "/root",
                "recipient": "/root/t",
                "content": [
                    {"type": "input_text", "text": "Message Type: NEW_TASK"},
                    {"type": "encrypted_content", "encrypted_content": "gAAA"},
                ],
            },
        ),
        (
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_a",
                "name": "exec",
                "input": 'text(await tools.exec_command({cmd:"true"}));',
            },
        ),
        (
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "call_a", "output": out(0)},
        ),
        (
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_b",
                "name": "exec",
                "input": 'text(await tools.exec_command({cmd:"false"}));',
            },
        ),
        (
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "call_b", "output": out(1)},
        ),
    )
    got = _codex(text)
    assert not got.diagnostics.unknown_types
    assert got.diagnostics.injected["inter-agent message"] == 1
    calls = [e.payload["success"] for e in got.events if e.kind == "tool.called"]
    assert calls == [True, False]


def test_codex_0_156_spawn_agent_names_its_child_by_task_name() -> None:
    """0.156's ``spawn_agent`` answers ``{"task_name": "/root/echo_task"}``, no
    ``agent_id``; the child rollout's ``session_meta`` has the same
    ``agent_path`` (and ``source.subagent.thread_spawn.parent_thread_id``). The
    child is projected in the frame of that call, not as a frame no call made."""
    child_id = "01a0e81b-4af7-7330-a113-bad47ba77c3e"
    parent = _rollout(
        (
            "session_meta",
            {
                "id": T.CODEX_SESSION,
                "cwd": "/r",
                "cli_version": "0.156.1",
                "source": "exec",
                "thread_source": "user",
            },
        ),
        *_turn("echo something in a subagent", "spawning"),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "spawn_agent",
                "namespace": "collaboration",
                "call_id": "call_s",
                "arguments": json.dumps(
                    {"task_name": "echo_task", "fork_turns": "none", "message": "gAAAA"}
                ),
            },
        ),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_s",
                "output": json.dumps({"task_name": "/root/echo_task"}),
            },
        ),
    )
    spawn = {
        "parent_thread_id": T.CODEX_SESSION,
        "depth": 1,
        "agent_path": "/root/echo_task",
        "agent_nickname": "Boyle",
        "agent_role": None,
    }
    child = _rollout(
        (
            "session_meta",
            {
                "id": child_id,
                "cwd": "/r",
                "cli_version": "0.156.1",
                "source": {"subagent": {"thread_spawn": spawn}},
                "thread_source": "subagent",
                "agent_nickname": "Boyle",
                "agent_path": "/root/echo_task",
            },
        ),
        (
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "sub-ok"}],
            },
        ),
    )
    session = CodexSession(
        T.CODEX_SESSION, [Source("p.jsonl", parent)], {child_id: Source("c.jsonl", child)}
    )
    got = codex.project(session, ACTOR, _never)
    [frame] = [e.payload for e in got.events if e.kind == "frame.created"]
    assert frame["title"] == "subagent Boyle"
    kinds = [e.kind for e in got.events if e.kind != "state.ops_applied"]
    said = [e for e in got.events if e.kind == "model.called"][-1]
    assert said.payload.get("output_summary") == "sub-ok"
    # the frame comes with the call that made it, the child's work inside it after
    assert kinds.index("tool.called") < kinds.index("frame.created") < len(kinds) - 1


def test_cc_a_microcompaction_is_observed_with_its_trigger_and_tokens() -> None:
    """2.1.x writes a ``system`` ``microcompact_boundary`` when it clears old
    tool results (``microcompactMetadata``: trigger, preTokens, tokensSaved,
    compactedToolIds): a compaction, observed, not an unknown record."""
    m = T.Claude("2.1.220")
    m.user("Make the retry test pass")
    m.add(
        m._base(
            "system",
            subtype="microcompact_boundary",
            content="Microcompact boundary",
            level="info",
            microcompactMetadata={
                "trigger": "auto",
                "preTokens": 80_000,
                "tokensSaved": 20_000,
                "compactedToolIds": ["toolu_a"],
                "clearedAttachmentUUIDs": [],
            },
        )
    )
    m.assistant("msg_mc", [{"type": "text", "text": "Done."}], T.usage(5, 2))
    got = _cc(m.text())
    [seen] = [e.payload for e in got.events if e.kind == "observation.created"]
    assert seen["title"] == "context microcompacted (auto)"
    assert seen["metadata"]["pre_tokens"] == 80_000
    assert seen["metadata"]["tokens_saved"] == 20_000
    assert not got.diagnostics.unknown_types


# -- Codex: a fork replays its parent's history ---------------------------------------------------

PARENT = "019df362-aa9f-7011-903e-4a0878d49fa0"
FORK = "019df3d2-6edb-7322-b537-34d4f10cb129"


def _at(stamp: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload}) + "\n"


def _fork_rollout(repeat_own_meta: bool) -> str:
    """A fork as Codex writes one (openai/codex#21025; ccusage#1371): its own
    session meta naming the parent, then the parent's session meta and history
    replayed with timestamps rewritten to the fork instant, then (in some
    versions) its own meta again, then its own turn, whose cumulative totals go
    on from the parent's."""
    t0 = "2026-05-04T16:29:07.679Z"
    own = {
        "id": FORK,
        "forked_from_id": PARENT,
        "timestamp": t0,
        "cwd": "/r",
        "cli_version": "0.128.0",
        "source": "cli",
    }
    lines = [
        _at(t0, "session_meta", own),
        _at(
            "2026-05-04T16:29:07.681Z",
            "session_meta",
            {
                "id": PARENT,
                "timestamp": "2026-05-04T14:00:00.000Z",
                "cwd": "/r",
                "cli_version": "0.128.0",
                "source": "cli",
            },
        ),
        _at("2026-05-04T16:29:07.682Z", "turn_context", {"cwd": "/r", "model": "gpt-5.5"}),
        _at(
            "2026-05-04T16:29:07.682Z",
            "event_msg",
            {"type": "user_message", "message": "the parent's prompt"},
        ),
        _at(
            "2026-05-04T16:29:07.683Z",
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "call_p",
                "arguments": json.dumps({"cmd": "ls"}),
            },
        ),
        _at(
            "2026-05-04T16:29:07.683Z",
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_p",
                "output": "Process exited with code 0\nOutput:\na",
            },
        ),
        _at("2026-05-04T16:29:07.684Z", *_tokens(10_000, 8_000, 100)),
        _at(
            "2026-05-04T16:29:08.390Z", *_tokens(20_000, 16_000, 200, (10_000, 8_000, 100))
        ),  # past the second tick
    ]
    if repeat_own_meta:
        lines.append(_at("2026-05-04T16:29:08.391Z", "session_meta", own))
    lines += [
        _at("2026-05-04T16:29:31.000Z", "turn_context", {"cwd": "/r", "model": "gpt-5.5"}),
        _at(
            "2026-05-04T16:29:31.000Z",
            "event_msg",
            {"type": "user_message", "message": "the fork's own prompt"},
        ),
        _at("2026-05-04T16:29:39.000Z", *_tokens(25_000, 19_000, 260, (5_000, 3_000, 60))),
    ]
    return "".join(lines)


@pytest.mark.parametrize("repeat_own_meta", [True, False])
def test_codex_a_fork_s_replayed_parent_history_is_not_the_fork_s_work(
    repeat_own_meta: bool,
) -> None:
    got = codex.project(
        CodexSession(FORK, [Source("f.jsonl", _fork_rollout(repeat_own_meta))], {}), ACTOR, _never
    )
    assert [e.payload["title"] for e in got.events if e.kind == "task.created"] == [
        "the fork's own prompt"
    ]
    assert not [e for e in got.events if e.kind == "tool.called"]
    # only what the fork used: its totals go on from the parent's last replayed one
    assert _totals(got) == {
        "input": 6_000 - 4_000,
        "output": 60,
        "cache_creation": 0,
        "cache_read": 3_000,
    }
    assert got.diagnostics.copied == 7


def test_codex_parent_and_fork_imported_together_count_the_parent_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    parent = tmp_path / f"rollout-2026-05-04T16-00-00-{PARENT}.jsonl"
    parent.write_text(
        _rollout(
            ("session_meta", {"id": PARENT, "cwd": "/r", "cli_version": "0.128.0"}),
            *_turn("the parent's prompt", "done"),
            _tokens(10_000, 8_000, 100),
            _tokens(20_000, 16_000, 200, (10_000, 8_000, 100)),
        )
    )
    fork = tmp_path / f"rollout-2026-05-04T18-29-07-{FORK}.jsonl"
    fork.write_text(_fork_rollout(repeat_own_meta=False))
    assert main(["import", "codex", str(parent), str(fork), "--repo", str(repo)]) == 0
    capsys.readouterr()
    assert main(["usage", "--repo", str(repo), "--json", "--by", "session"]) == 0
    rows = {r["session"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows[PARENT]["input"] + rows[PARENT]["cache_read"] == 20_000
    assert rows[FORK]["input"] + rows[FORK]["cache_read"] == 5_000


def test_cc_a_server_tool_s_result_in_the_same_message_pairs_it() -> None:
    """A server-side tool (the ``advisor``, web search) is a ``server_tool_use``
    block whose result is a block of the same assistant message
    (``advisor_tool_result``, ``web_search_tool_result``), one line each, never a
    user ``tool_result``: the call is paired, not left unfinished; an
    ``…_error`` result is a failure."""
    m = T.Claude("2.1.220")
    m.user("Plan the shutdown")
    m.assistant(
        "msg_adv",
        [
            {"type": "server_tool_use", "id": "srvtoolu_a", "name": "advisor", "input": {}},
            {
                "type": "advisor_tool_result",
                "tool_use_id": "srvtoolu_a",
                "content": {"type": "advisor_result", "text": "Prefer a channel-based shutdown."},
            },
            {
                "type": "server_tool_use",
                "id": "srvtoolu_w",
                "name": "web_search",
                "input": {"query": "graceful shutdown"},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_w",
                "content": {
                    "type": "web_search_tool_result_error",
                    "error_code": "max_uses_exceeded",
                },
            },
            {"type": "text", "text": "Use a channel."},
        ],
        T.usage(5, 2),
    )
    got = _cc(m.text())
    calls = {e.payload["tool"]: e.payload for e in got.events if e.kind == "tool.called"}
    assert calls["advisor"]["success"] is True
    assert "channel-based" in calls["advisor"]["output_summary"]
    assert calls["web_search"]["success"] is False
    assert got.diagnostics.unfinished_calls == 0
    assert not got.diagnostics.unknown_fields


def test_codex_desktop_thread_settings_and_subagent_activity_are_known() -> None:
    """Codex Desktop writes ``thread_settings_applied`` (the thread's model,
    effort, cwd after a change) and ``sub_agent_activity`` events: known, and a
    model the settings name is the one the next sampling step is credited to."""
    meta = ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.142.4"})
    text = _rollout(
        meta,
        *_turn("first", "one"),
        (
            "event_msg",
            {
                "type": "thread_settings_applied",
                "thread_settings": {"model": "gpt-5.6-terra", "reasoning_effort": "low"},
            },
        ),
        ("event_msg", {"type": "sub_agent_activity", "agent_id": "a1", "status": "running"}),
        ("event_msg", {"type": "user_message", "message": "second"}),
        (
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "two"}],
            },
        ),
    )
    got = _codex(text)
    assert not got.diagnostics.unknown_types
    models = [e.payload["model"] for e in got.events if e.kind == "model.called"]
    assert models == ["gpt-5.1-codex-max", "gpt-5.6-terra"]


def test_cc_a_background_agent_is_a_frame_and_its_notification_injected() -> None:
    """Since 2.1.x an ``Agent`` call may launch in the background: its result
    says ``Async agent launched successfully`` with the ``agentId`` (and
    ``toolUseResult.status`` ``async_launched``); the agent's file is under
    ``subagents/``; its end comes back as a ``<task-notification>``."""
    m = T.Claude("2.1.92")
    m.user("Research the docs, in the background")
    m.assistant(
        "msg_bg",
        [
            {
                "type": "tool_use",
                "id": "toolu_bg",
                "name": "Agent",
                "input": {
                    "description": "Explore README files",
                    "subagent_type": "Explore",
                    "prompt": "Explore all README files",
                    "run_in_background": True,
                },
            }
        ],
        T.usage(5, 2),
        stop="tool_use",
    )
    note = (
        "Async agent launched successfully.\nagentId: ad92ef969c5ba71db (internal ID - do not "
        "mention to user. Use SendMessage with to: 'ad92ef969c5ba71db' to continue this agent.)"
        "\nThe agent is working in the background."
    )
    m.tool_result(
        "toolu_bg",
        note,
        structured={
            "status": "async_launched",
            "agentId": "ad92ef969c5ba71db",
            "outputFile": "/tmp/x.output",
        },
    )
    m.user(
        "<task-notification>\n<task-id>ad92ef969c5ba71db</task-id>\n<status>completed</status>"
        "\n</task-notification>"
    )
    m.assistant("msg_bg2", [{"type": "text", "text": "The agent is done."}], T.usage(7, 3))
    child = T.Claude("2.1.92", sidechain=True, tag="bg")
    child.user("Explore all README files")
    child.assistant("msg_bgc", [{"type": "text", "text": "Found 3 READMEs."}], T.usage(3, 1))
    got = _cc(m.text(), {"ad92ef969c5ba71db": child.text()})
    [frame] = [e.payload for e in got.events if e.kind == "frame.created"]
    assert frame["title"].startswith("Explore:")
    assert _tasks(got) == ["Research the docs, in the background"]
    assert got.diagnostics.injected["task notification"] == 1
    said = [e.payload.get("output_summary") for e in got.events if e.kind == "model.called"]
    assert "Found 3 READMEs." in said


def test_cc_2_1_fields_real_sessions_carry_are_known() -> None:
    """Fields real 2.0/2.1 lines carry on every line (the effort and attribution
    of an assistant line, a user line's thinking metadata and todos, an API
    error's details) are known, so the unknown fields list real drift only."""
    m = T.Claude("2.1.220")
    m.user(
        "Make it pass",
        thinkingMetadata={"level": "high", "disabled": False, "triggers": []},
        todos=[],
        imagePasteIds=[],
    )
    m.add(
        m._base(
            "assistant",
            message={
                "id": "msg_f",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-5",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "ok"}],
                "usage": T.usage(3, 1),
            },
            requestId="req_f",
            effort="xhigh",
            attributionAgent="general-purpose",
            attributionSkill="sc:agent",
            attributionPlugin="sc",
        )
    )
    m.add(
        m._base(
            "assistant",
            message={
                "model": "<synthetic>",
                "role": "assistant",
                "type": "message",
                "content": [{"type": "text", "text": "limit reached"}],
            },
            error="rate_limit",
            apiErrorStatus=429,
            isApiErrorMessage=True,
            errorDetails='429 {"type":"error"}',
        )
    )
    got = _cc(m.text())
    assert not got.diagnostics.unknown_fields


def test_codex_an_image_generation_call_is_a_finished_tool_call() -> None:
    meta = ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.150.0"})
    text = _rollout(
        meta,
        *_turn("draw a logo", "here"),
        (
            "response_item",
            {
                "type": "image_generation_call",
                "id": "ig_1",
                "status": "completed",
                "revised_prompt": "a logo",
                "result": "iVBORw0KGgo=",
            },
        ),
    )
    got = _codex(text)
    assert not got.diagnostics.unknown_types
    [call] = [e.payload for e in got.events if e.kind == "tool.called"]
    assert call["tool"] == "image_generation_call" and call["success"] is True


def test_cc_a_message_copied_into_another_session_counts_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``/branch``, ``--fork-session`` and copies of a session made to resume
    it elsewhere write a new session file holding the old messages under the
    new session id (uuids remapped, message ids kept). ccusage counts a message
    id once whatever file it is in (it printed 220/15/2,100 for these two
    files); so does ``usage``: the first session that logged it keeps it."""
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    parent, branch = "11110000-0000-4000-8000-00000000000a", "22220000-0000-4000-8000-00000000000b"
    for sid, tag, own in ((parent, "p", False), (branch, "b", True)):
        m = T.Claude("2.1.220", session=sid, tag=tag)
        m.user("remember the word dandelion")
        m.assistant("msg_a", [{"type": "text", "text": "noted"}], T.usage(100, 10, 0, 1000))
        if own:
            m.user("what was the word?")
            m.assistant("msg_b", [{"type": "text", "text": "dandelion"}], T.usage(120, 5, 0, 1100))
        (tmp_path / f"{sid}.jsonl").write_text(m.text())
    files = [str(tmp_path / f"{s}.jsonl") for s in (parent, branch)]
    assert main(["import", "claude-code", *files, "--repo", str(repo)]) == 0
    capsys.readouterr()
    assert main(["usage", "--repo", str(repo), "--by", "session", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {k: report["totals"][k] for k in ("input", "output", "cache_read")} == {
        "input": 220,
        "output": 15,
        "cache_read": 2100,
    }
    rows = {r["session"]: r["input"] for r in report["rows"]}
    assert rows == {parent: 100, branch: 120}


def test_cc_a_projects_directory_with_empty_and_stub_session_files_imports_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real ``~/.claude/projects`` directories hold 0-byte session files and
    stubs of session metadata only (a ``summary``, a queue-operation pair): a
    session that never had a conversation. Each is nothing to import, said so;
    the first of them used to stop the whole import (exit 1, nothing imported).
    A file of records no projector knows stays an error."""
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    project = tmp_path / "projects" / "-srv-example-app"
    project.mkdir(parents=True)
    (project / "00000000-0000-4000-8000-000000000001.jsonl").write_text("")
    summary = {"type": "summary", "summary": "Fix the retry test", "leafUuid": "x"}
    (project / "00000000-0000-4000-8000-000000000002.jsonl").write_text(json.dumps(summary) + "\n")
    queue = [
        {
            "type": "queue-operation",
            "operation": op,
            "sessionId": "s3",
            "timestamp": "2025-11-13T22:18:57.294Z",
        }
        for op in ("enqueue", "dequeue")
    ]
    (project / "00000000-0000-4000-8000-000000000003.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in queue)
    )
    m = T.Claude("2.0.37")
    m.user("context")
    m.assistant("msg_ctx", [{"type": "text", "text": "ready"}], T.usage(3, 253, 0, 28443))
    (project / f"{T.SESSION}.jsonl").write_text(m.text())
    capsys.readouterr()
    assert (
        main(["import", "claude-code", str(tmp_path / "projects"), "--repo", str(repo), "--json"])
        == 0
    )
    got = json.loads(capsys.readouterr().out)["sessions"]
    empty = [s["session"] for s in got if s.get("empty")]
    assert len(empty) == 3
    [real] = [s for s in got if not s.get("empty")]
    assert real["session"] == T.SESSION and real["task"] == "context"
    assert main(["check", str(repo)]) == 0


def test_codex_a_replay_that_kept_the_parent_s_own_times_is_copied_too() -> None:
    """Not every version rewrites the copied records' times: a replay whose
    records keep the parent's (earlier) times is the same copy."""
    t0 = "2026-05-04T16:29:07.679Z"
    own = {"id": FORK, "forked_from_id": PARENT, "timestamp": t0, "cwd": "/r"}
    text = "".join(
        [
            _at(t0, "session_meta", own),
            _at("2026-05-04T14:00:00.000Z", "session_meta", {"id": PARENT, "cwd": "/r"}),
            _at(
                "2026-05-04T14:00:05.000Z",
                "event_msg",
                {"type": "user_message", "message": "the parent's prompt"},
            ),
            _at("2026-05-04T14:09:00.000Z", *_tokens(20_000, 16_000, 200)),
            _at(
                "2026-05-04T16:29:31.000Z",
                "event_msg",
                {"type": "user_message", "message": "the fork's own prompt"},
            ),
            _at("2026-05-04T16:29:39.000Z", *_tokens(25_000, 19_000, 260, (5_000, 3_000, 60))),
        ]
    )
    got = codex.project(CodexSession(FORK, [Source("f.jsonl", text)], {}), ACTOR, _never)
    assert [e.payload["title"] for e in got.events if e.kind == "task.created"] == [
        "the fork's own prompt"
    ]
    assert _totals(got)["output"] == 60


def test_cc_2_1_220_workflow_agents_are_framed_by_their_workflow_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``Workflow`` run's agents write ``<session>/subagents/workflows/<run>/
    agent-<id>.jsonl`` (with a ``journal.jsonl`` and ``.meta.json`` files beside
    them); the parent holds only the async launch. Their work is projected,
    each in a frame that names its workflow run."""
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    m = T.Claude("2.1.220")
    m.user("Research how to build it")
    m.assistant(
        "msg_wf",
        [
            {
                "type": "tool_use",
                "id": "toolu_wf",
                "name": "Workflow",
                "input": {"workflow": "research"},
            }
        ],
        T.usage(5, 2),
        stop="tool_use",
    )
    m.tool_result(
        "toolu_wf",
        "Workflow launched",
        structured={
            "status": "async_launched",
            "taskType": "local_workflow",
            "runId": "wf_829e6f58-b2f",
        },
    )
    (tmp_path / f"{T.SESSION}.jsonl").write_text(m.text())
    run = tmp_path / T.SESSION / "subagents" / "workflows" / "wf_829e6f58-b2f"
    run.mkdir(parents=True)
    child = T.Claude("2.1.220", sidechain=True, tag="wa")
    child.user("[monitor] plan=research stage=sessiondata role=research attempt=1")
    child.assistant("msg_wa", [{"type": "text", "text": "findings"}], T.usage(3, 1))
    (run / "agent-a74f0c93253253ef5.jsonl").write_text(child.text())
    (run / "agent-a74f0c93253253ef5.meta.json").write_text('{"agentType":"workflow-subagent"}')
    (run / "journal.jsonl").write_text(
        '{"type":"started","key":"v2:c1","agentId":"a74f0c93253253ef5"}\n'
    )
    capsys.readouterr()
    assert (
        main(["import", "claude-code", str(tmp_path / f"{T.SESSION}.jsonl"), "--repo", str(repo)])
        == 0
    )
    frames = [
        json.loads(line)["payload"]
        for line in (repo / "state" / "events.jsonl").read_text().splitlines()
        if '"frame.created"' in line
    ]
    assert [f["title"] for f in frames] == ["workflow wf_829e6f58-b2f: agent a74f0c93253253ef5"]


def test_cc_2_0_warmup_agent_files_are_framed_as_warmups() -> None:
    """Claude Code 2.0.x wrote a ``Warmup`` sidechain beside a session
    (``agent-<id>.jsonl``, its first line the prompt ``Warmup``, no call of the
    session naming it): a real model call, counted, in a frame that says it is
    a warmup, not a subagent's work."""
    m = T.Claude("2.0.67")
    m.user("Make the retry test pass")
    m.assistant("msg_w0", [{"type": "text", "text": "Done."}], T.usage(5, 2))
    warm = T.Claude("2.0.67", sidechain=True, tag="wu")
    warm.add(
        {
            **warm._base("user"),
            "agentId": "ac0c74c",
            "message": {"role": "user", "content": "Warmup"},
        }
    )
    warm.assistant("msg_wu", [{"type": "text", "text": "Ready."}], T.usage(4000, 1, 0, 0))
    got = _cc(m.text(), {"ac0c74c": warm.text()})
    assert [e.payload["title"] for e in got.events if e.kind == "frame.created"] == [
        "warmup ac0c74c"
    ]
    assert _tasks(got) == ["Make the retry test pass"]
    assert _totals(got)["input"] == 4005


def test_codex_a_tool_output_codex_cut_is_marked_truncated() -> None:
    """Codex cuts a long tool output in the middle and says so (``…N tokens
    truncated…``; older builds ``[... omitted N of M lines ...]``): the call is
    marked ``output_truncated``, never presented as complete."""
    meta = ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.150.0"})
    cut = "Process exited with code 0\nOutput:\nhead\n…33930 tokens truncated…\ntail"
    old = "Total output lines: 900\n\nhead\n[... omitted 800 of 900 lines ...]\n\ntail"
    text = _rollout(
        meta,
        *_turn("read the file", "reading"),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c1",
                "arguments": json.dumps({"cmd": "cat big.ts"}),
            },
        ),
        ("response_item", {"type": "function_call_output", "call_id": "c1", "output": cut}),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c2",
                "arguments": json.dumps({"command": ["cat", "big.ts"]}),
            },
        ),
        ("response_item", {"type": "function_call_output", "call_id": "c2", "output": old}),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c3",
                "arguments": json.dumps({"command": ["ls"]}),
            },
        ),
        ("response_item", {"type": "function_call_output", "call_id": "c3", "output": "a.ts"}),
    )
    got = _codex(text)
    marks = [
        e.payload["metadata"].get("output_truncated") for e in got.events if e.kind == "tool.called"
    ]
    assert marks == [True, True, None]


def test_codex_an_image_only_prompt_is_a_task() -> None:
    """A person who sends only an image writes a ``user_message`` event with an
    empty ``message`` and the image in ``images`` (or ``local_images``): a
    prompt, not empty injected text; images also follow a prompt's text."""
    meta = ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.150.0"})
    text = _rollout(
        meta,
        (
            "event_msg",
            {
                "type": "user_message",
                "message": "",
                "images": ["data:image/png;base64,iVBORw0KGgo="],
                "local_images": [],
                "text_elements": [],
            },
        ),
        (
            "event_msg",
            {
                "type": "user_message",
                "message": "and this one",
                "images": [],
                "local_images": ["/Users/u/shot.png"],
            },
        ),
        ("event_msg", {"type": "user_message", "message": "", "images": []}),
    )
    got = _codex(text)
    tasks = [e.payload for e in got.events if e.kind == "task.created"]
    assert [t["title"] for t in tasks] == ["[image]", "and this one"]
    assert "[image]" in tasks[1]["summary"]
    assert got.diagnostics.injected["empty"] == 1


def test_cc_2_1_220_tool_calls_of_one_message_interleaved_with_their_results() -> None:
    """A real 2.1.220 subagent file: one message id's lines (text, tool_use A,
    then after A's result, tool_use B with the message's final usage, then B's
    result) — streaming tool execution runs A before the message ends. Both
    calls are projected and paired, the message counts once, with its final
    usage (1 output token on its first lines, 187 on its last)."""
    m = T.Claude("2.1.220", sidechain=True, tag="il")
    m.user("Review the spec")
    first = {
        "input_tokens": 2,
        "output_tokens": 1,
        "cache_creation_input_tokens": 28556,
        "cache_read_input_tokens": 0,
    }
    final = {**first, "output_tokens": 187}
    m.assistant("msg_il", [{"type": "text", "text": "Reading."}], first, stop=None)
    m.assistant(
        "msg_il",
        [
            {
                "type": "tool_use",
                "id": "toolu_A",
                "name": "Read",
                "input": {"file_path": "/r/BRIEF.md"},
            }
        ],
        first,
        stop=None,
    )
    m.tool_result("toolu_A", "1\t# brief")
    m.assistant(
        "msg_il",
        [
            {
                "type": "tool_use",
                "id": "toolu_B",
                "name": "Read",
                "input": {"file_path": "/r/SPEC.md"},
            }
        ],
        final,
        stop="tool_use",
    )
    m.tool_result("toolu_B", "1\t# spec")
    got = _cc(m.text())
    calls = [e.payload for e in got.events if e.kind == "tool.called"]
    assert [c["success"] for c in calls] == [True, True]
    assert got.diagnostics.ignored["tool result without its call"] == 0
    assert _totals(got)["output"] == 187
