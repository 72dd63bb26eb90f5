"""Codex shapes real public transcripts showed (round 2: 0.66 to 0.157.1):
each a synthetic fixture written here in the shape a real rollout had (no
real content copied), with what the projection must make of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_gasp.adapters import codex
from git_gasp.adapters.codex import CodexSession
from git_gasp.adapters.lines import Source
from git_gasp.cli.root import main
from git_gasp.core.event import Actor
from tests import transcripts as T

ACTOR = Actor("agent", "importer")


def _never(_: str) -> bool:
    return False


REVIEWER = "019b88e5-0000-7000-8000-00000000000c"


def _at(ts: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}) + "\n"


def test_codex_a_review_s_reviewer_thread_is_framed_in_the_run_that_began_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``/review`` in Codex 0.77 writes ``entered_review_mode`` in the parent
    rollout and starts a reviewer thread of its own rollout, ``source:
    {"subagent": "review"}`` (no parent id), whose session meta carries the
    instant the review began and whose first prompt Codex wrote. Imported
    together, the reviewer is a frame of the parent's run and its prompt no
    person's task (it was a run of its own, tasked "Review the code changes")."""
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    began = "2026-01-04T12:05:09.476Z"
    meta = {"cwd": "/r", "originator": "codex_cli_rs", "cli_version": "0.77.0"}
    parent = tmp_path / f"rollout-2026-01-04T12-59-02-{T.CODEX_SESSION}.jsonl"
    parent.write_text(
        _at("2026-01-04T11:59:02.952Z", "session_meta", {"id": T.CODEX_SESSION, **meta})
        + _at("2026-01-04T12:01:36.936Z", "event_msg", {"type": "user_message", "message": "ls"})
        + _at(began, "event_msg", {"type": "entered_review_mode", "target": {"type": "x"}})
    )
    child = tmp_path / f"rollout-2026-01-04T13-05-09-{REVIEWER}.jsonl"
    own = {"id": REVIEWER, "timestamp": began, "source": {"subagent": "review"}, **meta}
    child.write_text(
        _at("2026-01-04T12:05:09.500Z", "session_meta", own)
        + _at(
            "2026-01-04T12:05:09.500Z",
            "event_msg",
            {"type": "user_message", "message": "Review the code changes"},
        )
    )
    capsys.readouterr()
    assert main(["import", "codex", str(parent), str(child), "--repo", str(repo), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert session["session"] == T.CODEX_SESSION and session["task"] == "ls"
    events = [json.loads(x) for x in (repo / "state" / "events.jsonl").read_text().splitlines()]
    assert [e["payload"]["title"] for e in events if e["kind"] == "task.created"] == ["ls"]
    assert [e["payload"]["title"] for e in events if e["kind"] == "frame.created"] == [
        f"subagent {REVIEWER}"
    ]
    assert main(["check", str(repo)]) == 0


def _exec_call(call: str, blocks: list[str]) -> list[tuple[str, dict[str, Any]]]:
    given = 'text(await tools.exec_command({cmd:"make check"}));'
    output = [{"type": "input_text", "text": b} for b in blocks]
    return [
        (
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call,
                "name": "exec",
                "input": given,
            },
        ),
        ("response_item", {"type": "custom_tool_call_output", "call_id": call, "output": output}),
    ]


def test_codex_a_code_mode_script_that_failed_is_a_failure() -> None:
    """Codex's code-mode ``exec`` heads its output ``Script failed`` when the
    script threw (a census of real rollouts counted 319 beside 39,623
    ``Script completed``), and one script can run several commands, each a
    JSON chunk with its own ``exit_code`` (a real 0.157.1 output held two):
    the call failed if the script did or any command exited non-zero; was
    success whenever the first chunk said 0."""
    lines = [
        json.dumps(
            {
                "timestamp": "2026-09-26T23:05:27.108Z",
                "type": "session_meta",
                "payload": {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.157.1"},
            }
        )
    ]

    def chunk(code: int) -> str:
        return json.dumps({"chunk_id": "401b56", "exit_code": code, "output": "x\n"})

    items = [
        *_exec_call("c1", ["Script failed\nWall time 2 seconds\nOutput:\n", "TypeError: x"]),
        *_exec_call(
            "c2", ["Script completed\nWall time 5.2 seconds\nOutput:\n", chunk(0), chunk(2)]
        ),
        *_exec_call(
            "c3",
            [
                "Script completed\nWall time 5.2 seconds\nOutput:\n",
                chunk(0),
                json.dumps({"chunk_id": "75d1f7", "session_id": 52848, "output": ""}),
            ],
        ),
    ]
    lines += [
        json.dumps({"timestamp": f"2026-09-26T23:05:{30 + i}.000Z", "type": k, "payload": p})
        for i, (k, p) in enumerate(items)
    ]
    got = codex.project(
        CodexSession(T.CODEX_SESSION, [Source("r.jsonl", "\n".join(lines) + "\n")], {}),
        ACTOR,
        _never,
    )
    assert [e.payload["success"] for e in got.events if e.kind == "tool.called"] == [
        False,
        False,
        True,
    ]


def test_codex_a_command_still_running_is_no_result_and_no_eval() -> None:
    """A unified-exec command that outlives its wait answers ``Process
    running with session ID N`` (code mode: ``Script running with cell ID
    N``); its exit comes later, to a ``write_stdin`` or ``wait`` call. Such a
    test run is not over: its success is not said and no eval is lifted
    (a still-running ``pytest`` was an eval Passed)."""
    meta = {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.157.1"}
    running = (
        "Chunk ID: 740265\nWall time: 10.0 seconds\n"
        "Process running with session ID 59671\nOriginal token count: 0\nOutput:\n"
    )
    items: list[tuple[str, dict[str, Any]]] = [
        ("session_meta", meta),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c1",
                "arguments": json.dumps({"cmd": "pytest -q"}),
            },
        ),
        ("response_item", {"type": "function_call_output", "call_id": "c1", "output": running}),
        *_exec_call("c2", ["Script running with cell ID 28\nWall time 10.0 seconds\nOutput:\n"]),
    ]
    text = "".join(
        json.dumps({"timestamp": f"2026-09-26T23:06:{i:02d}.000Z", "type": k, "payload": p}) + "\n"
        for i, (k, p) in enumerate(items)
    )
    got = codex.project(CodexSession(T.CODEX_SESSION, [Source("r.jsonl", text)], {}), ACTOR, _never)
    assert [e.payload["success"] for e in got.events if e.kind == "tool.called"] == [None, None]
    assert not [e for e in got.events if e.kind in ("eval.finished", "failure.observed")]


def test_codex_the_exit_a_write_stdin_waited_for_is_the_running_command_s_eval() -> None:
    """The exit of a command that was still running (``Process running with
    session ID N``) comes to a later ``write_stdin`` on session N (or a
    poll of it that is still running); the test run's eval is lifted from
    that exit, for the command that started it, once."""
    meta = {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.157.1"}

    def chunk(status: str) -> str:
        head = "Chunk ID: 8c93bf\nWall time: 5.0 seconds\n"
        return f"{head}{status}\nOriginal token count: 3\nOutput:\n"

    def call(call_id: str, name: str, args: dict[str, Any], output: str) -> list[Any]:
        return [
            (
                "response_item",
                {
                    "type": "function_call",
                    "name": name,
                    "call_id": call_id,
                    "arguments": json.dumps(args),
                },
            ),
            (
                "response_item",
                {"type": "function_call_output", "call_id": call_id, "output": output},
            ),
        ]

    items: list[tuple[str, dict[str, Any]]] = [
        ("session_meta", meta),
        *call(
            "c1",
            "exec_command",
            {"cmd": "pytest -q"},
            chunk("Process running with session ID 59671"),
        ),
        *call(
            "c2",
            "write_stdin",
            {"session_id": 59671, "chars": ""},
            chunk("Process running with session ID 59671"),
        ),
        *call(
            "c3",
            "write_stdin",
            {"session_id": 59671, "chars": ""},
            chunk("Process exited with code 1") + "1 failed\n",
        ),
        *call(
            "c4",
            "write_stdin",
            {"session_id": 4242, "chars": "q"},
            chunk("Process exited with code 0"),
        ),
    ]
    text = "".join(
        json.dumps({"timestamp": f"2026-09-26T23:07:{i:02d}.000Z", "type": k, "payload": p}) + "\n"
        for i, (k, p) in enumerate(items)
    )
    got = codex.project(CodexSession(T.CODEX_SESSION, [Source("r.jsonl", text)], {}), ACTOR, _never)
    evals = [e.payload for e in got.events if e.kind == "eval.finished"]
    assert [(e["status"], e["command"]) for e in evals] == [("Failed", "pytest -q")]


def test_codex_a_code_mode_script_s_apply_patch_edits_are_the_session_s_patch() -> None:
    """In code mode (a real 0.157.1 session) file edits are made inside an
    ``exec`` script, ``tools.apply_patch("*** Begin Patch\\n*** Update File:
    …")``, its newlines escaped in the script's text; the files it names are
    the session's edits (they were no patch at all). A script that failed
    edited nothing."""
    patch = (
        'text(await tools.apply_patch("*** Begin Patch\\n*** Update File: /r/creg/manifest.lua'
        '\\n@@\\n-  \\"rt_a\\",\\n*** Add File: /r/docs/NOTES.md\\n+x\\n*** End Patch"));\n'
        'text(await tools.exec_command({cmd:"git diff --check"}));\n'
    )
    done = "Script completed\nWall time 0.6 seconds\nOutput:\n"
    items: list[tuple[str, dict[str, Any]]] = [
        ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": "0.157.1"}),
        (
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "p1",
                "name": "exec",
                "input": patch,
            },
        ),
        (
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "p1",
                "output": [{"type": "input_text", "text": done}],
            },
        ),
        (
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "p2",
                "name": "exec",
                "input": patch.replace("NOTES", "NEVER"),
            },
        ),
        (
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "p2",
                "output": [{"type": "input_text", "text": "Script failed\n"}],
            },
        ),
    ]
    text = "".join(
        json.dumps({"timestamp": f"2026-09-26T23:33:{i:02d}.000Z", "type": k, "payload": p}) + "\n"
        for i, (k, p) in enumerate(items)
    )
    got = codex.project(CodexSession(T.CODEX_SESSION, [Source("r.jsonl", text)], {}), ACTOR, _never)
    [patched] = [e.payload for e in got.events if e.kind == "patch.proposed"]
    assert "/r/creg/manifest.lua" in patched["summary"] and "/r/docs/NOTES.md" in patched["summary"]
    assert "NEVER" not in patched["summary"]
