"""Synthetic transcripts in the documented shapes (adapters.md §2.5, §3.4).

Written for these tests, never copied from real sessions: a Claude Code
session with two subagents (either layout), compaction, thinking, an image,
an interrupt, an API error and a slash command; and a Codex rollout with
apply_patch, a web search, an aborted turn and repeated token counts.
"""

from __future__ import annotations

import json
import os
from typing import Any

SESSION = "55550000-0000-4000-8000-00000000000a"
CODEX_SESSION = "01999999-0000-7000-8000-00000000000b"


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value) + "\n"


class Claude:
    """Builds Claude Code lines, chained by parentUuid."""

    def __init__(
        self, version: str, session: str = SESSION, sidechain: bool = False, tag: str = "u"
    ) -> None:
        self.tag = tag
        self.version = version
        self.session = session
        self.sidechain = sidechain
        self.lines: list[str] = []
        self.parent: str | None = None
        self.n = 0
        self.minute = 0

    def _base(self, kind: str, uid: str | None = None, **extra: Any) -> dict[str, Any]:
        self.n += 1
        uid = uid or f"{self.tag}{self.n:04d}-{self.session[:4]}"
        self.minute += 1
        value = {
            "type": kind,
            "uuid": uid,
            "parentUuid": self.parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": "/srv/example-app",
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": "main",
            "timestamp": f"2026-06-15T10:{self.minute // 60:02d}:{self.minute % 60:02d}.000Z",
        }
        value.update(extra)
        self.parent = uid
        return value

    def add(self, value: dict[str, Any]) -> dict[str, Any]:
        self.lines.append(_line(value))
        return value

    def user(self, text: str | list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        content = text if isinstance(text, list) else [{"type": "text", "text": text}]
        return self.add(self._base("user", message={"role": "user", "content": content}, **extra))

    def assistant(
        self,
        msg_id: str,
        blocks: list[dict[str, Any]],
        usage: dict[str, int],
        model: str = "claude-sonnet-4-5-20250929",
        stop: str | None = "end_turn",
    ) -> None:
        """One line per content block, the usage repeated on each (as CC writes)."""
        for block in blocks:
            message = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [block],
                "stop_reason": stop,
                "usage": usage,
            }
            self.add(self._base("assistant", message=message, requestId=f"req_{msg_id}"))

    def tool_result(
        self, call_id: str, text: str, is_error: bool = False, structured: Any = None
    ) -> None:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": text}
        if is_error:
            block["is_error"] = True
        extra = {} if structured is None else {"toolUseResult": structured}
        self.user([block], **extra)

    def text(self) -> str:
        return "".join(self.lines)


def usage(inp: int, out: int, cw: int = 0, cr: int = 0) -> dict[str, int]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_creation_input_tokens": cw,
        "cache_read_input_tokens": cr,
    }


def claude_session(version: str, subagent_tool: str = "Agent") -> tuple[str, dict[str, str]]:
    """A main transcript and its subagents' transcripts (agent id -> text)."""
    m = Claude(version)
    m.user("<command-name>/init</command-name><command-message>init</command-message>")
    m.user("<local-command-stdout>done</local-command-stdout>")
    m.user("Fix the retry bug in src/retry.py and run the tests")
    m.assistant(
        "msg_a1",
        [
            {"type": "thinking", "thinking": "", "signature": "c2lnbmF0dXJl"},
            {"type": "text", "text": "I'll survey the code with two agents."},
            {
                "type": "tool_use",
                "id": "toolu_sub1",
                "name": subagent_tool,
                "input": {
                    "description": "Survey retry",
                    "subagent_type": "Explore",
                    "prompt": "Survey src/retry.py",
                },
            },
        ],
        usage(100, 40, 500, 0),
        stop="tool_use",
    )
    m.tool_result(
        "toolu_sub1",
        "Retry drops state.\nagentId: sub1 (use SendMessage with to: 'sub1' to continue)",
        structured={"agentId": "sub1", "status": "completed"},
    )
    m.assistant(
        "msg_a2",
        [
            {
                "type": "tool_use",
                "id": "toolu_sub2",
                "name": subagent_tool,
                "input": {
                    "description": "Survey tests",
                    "subagent_type": "general-purpose",
                    "prompt": "Survey tests/",
                },
            }
        ],
        usage(120, 30, 0, 500),
        stop="tool_use",
    )
    m.tool_result(
        "toolu_sub2",
        "Tests cover retry.\nagentId: sub2 (use SendMessage)",
        structured={"agentId": "sub2", "status": "completed"},
    )
    m.assistant(
        "msg_a3",
        [
            {
                "type": "tool_use",
                "id": "toolu_edit",
                "name": "Edit",
                "input": {
                    "file_path": "/srv/example-app/src/retry.py",
                    "old_string": "a",
                    "new_string": "b",
                },
            }
        ],
        usage(130, 20, 0, 600),
        stop="tool_use",
    )
    m.tool_result("toolu_edit", "The file has been updated.")
    m.assistant(
        "msg_a4",
        [
            {
                "type": "tool_use",
                "id": "toolu_test",
                "name": "Bash",
                "input": {"command": "pytest -q tests/test_retry.py"},
            }
        ],
        usage(140, 15, 0, 700),
        stop="tool_use",
    )
    m.tool_result(
        "toolu_test",
        "Exit code 1\n1 failed",
        is_error=True,
        structured={"stdout": "1 failed", "stderr": "", "interrupted": False},
    )
    m.user([{"type": "text", "text": "[Request interrupted by user]"}])
    m.user(
        [
            {"type": "text", "text": "Here is the failure screenshot"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
            },
        ]
    )
    m.add(
        m._base(
            "system",
            subtype="api_error",
            content="overloaded",
            level="error",
            retryAttempt=1,
            maxRetries=10,
        )
    )
    boundary = m._base(
        "system",
        subtype="compact_boundary",
        content="Conversation compacted",
        level="info",
        compactMetadata={"trigger": "auto", "preTokens": 150000},
        logicalParentUuid=m.parent,
    )
    boundary["parentUuid"] = None
    m.add(boundary)
    m.user(
        "This session is being continued from a previous conversation. Summary: retry fixed",
        isCompactSummary=True,
    )
    m.user("<system-reminder>The date is today</system-reminder>", isMeta=True)
    m.assistant(
        "msg_a5",
        [
            {
                "type": "tool_use",
                "id": "toolu_commit",
                "name": "Bash",
                "input": {"command": "git commit -am 'fix retry'"},
            }
        ],
        usage(150, 10, 0, 800),
        stop="tool_use",
    )
    m.tool_result(
        "toolu_commit",
        "[main 1a2b3c4d] fix retry\n 1 file changed",
        structured={
            "stdout": "[main 1a2b3c4d] fix retry\n 1 file changed",
            "stderr": "",
            "interrupted": False,
        },
    )
    m.assistant(
        "msg_a6",
        [{"type": "text", "text": "Done: the retry keeps its state."}],
        usage(160, 25, 0, 900),
    )
    subs = {}
    for agent_id, text in (
        ("sub1", "src/retry.py forgets the counter"),
        ("sub2", "tests/test_retry.py covers the timeout"),
    ):
        s = Claude(version, sidechain=True, tag=agent_id)
        s.user(f"Survey for {agent_id}")
        s.assistant(
            f"msg_{agent_id}_1",
            [
                {
                    "type": "tool_use",
                    "id": f"toolu_{agent_id}_read",
                    "name": "Read",
                    "input": {"file_path": "/srv/example-app/src/retry.py"},
                }
            ],
            usage(50, 10, 200, 0),
            model="claude-haiku-4-5-20251001",
            stop="tool_use",
        )
        s.tool_result(f"toolu_{agent_id}_read", "def retry(): ...")
        s.assistant(
            f"msg_{agent_id}_2",
            [{"type": "text", "text": text}],
            usage(60, 12, 0, 200),
            model="claude-haiku-4-5-20251001",
        )
        subs[agent_id] = s.text()
    return m.text(), subs


def write_claude(top: str, version: str, layout: str = "nested", tool: str = "Agent") -> str:
    """Write the session under ``top`` (a projects/<project> directory); the main file."""
    main, subs = claude_session(version, tool)
    os.makedirs(top, exist_ok=True)
    path = os.path.join(top, f"{SESSION}.jsonl")
    with open(path, "w") as fh:
        fh.write(main)
    where = os.path.join(top, SESSION, "subagents") if layout == "nested" else top
    os.makedirs(where, exist_ok=True)
    for agent_id, text in subs.items():
        with open(os.path.join(where, f"agent-{agent_id}.jsonl"), "w") as fh:
            fh.write(text)
    return path


def codex_rollout(version: str, new: bool = True) -> str:
    """A rollout: typed prompt, exec + apply_patch, web search, repeated and
    growing token counts, an aborted turn."""
    out: list[str] = []
    second = [0]

    def put(kind: str, payload: dict[str, Any]) -> None:
        second[0] += 1
        stamp = f"2026-08-28T10:00:{second[0]:02d}.000Z"
        out.append(_line({"timestamp": stamp, "type": kind, "payload": payload}))

    last = {
        "input_tokens": 0,
        "cached_input_tokens": 0,
        "output_tokens": 0,
        "reasoning_output_tokens": 0,
        "total_tokens": 0,
    }

    def tokens(inp: int, cached: int, outp: int, reasoning: int) -> None:
        """A cumulative total and the last call's usage (its delta), as Codex writes them."""
        total = {
            "input_tokens": inp,
            "cached_input_tokens": cached,
            "output_tokens": outp,
            "reasoning_output_tokens": reasoning,
            "total_tokens": inp + outp,
        }
        delta = {k: v - last[k] for k, v in total.items()}
        if not any(delta.values()):
            delta = dict(previous)  # a repeated event repeats both figures
        previous.clear()
        previous.update(delta)
        last.update(total)
        put(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": total,
                    "last_token_usage": delta,
                    "model_context_window": 400000,
                },
                "rate_limits": None,
            },
        )

    previous: dict[str, int] = {}
    meta = {
        "id": CODEX_SESSION,
        "timestamp": "2026-08-28T10:00:00.000Z",
        "cwd": "/synthetic/repo",
        "originator": "codex_cli_rs",
        "cli_version": version,
        "source": "cli",
        "model_provider": "openai",
    }
    meta["base_instructions" if new else "instructions"] = {"text": "You are Codex."}
    put("session_meta", meta)
    put(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "<environment_context>cwd=/synthetic/repo</environment_context>",
                }
            ],
        },
    )
    put(
        "turn_context",
        {
            "turn_id": "turn-1",
            "cwd": "/synthetic/repo",
            "model": "gpt-5.5",
            "effort": "high",
            "summary": "none",
        },
    )
    put("event_msg", {"type": "task_started", "turn_id": "turn-1"})
    put(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Make the retry test pass"}],
        },
    )
    put("event_msg", {"type": "user_message", "message": "Make the retry test pass"})
    put(
        "response_item",
        {"type": "reasoning", "summary": [], "content": None, "encrypted_content": "gAAAAA"},
    )
    put(
        "response_item",
        {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "c1",
            "arguments": json.dumps({"cmd": "go test ./... -run TestRetry"}),
        },
    )
    put(
        "response_item",
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": "Chunk ID: 1\nProcess exited with code 1\nOutput:\nFAIL",
        },
    )
    tokens(12000, 8000, 700, 300)
    tokens(12000, 8000, 700, 300)  # repeated: counted once
    put(
        "response_item",
        {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": "c2",
            "name": "apply_patch",
            "input": "*** Begin Patch\n*** Update File: src/retry.go\n"
            "@@\n-old\n+new\n*** End Patch\n",
        },
    )
    put(
        "response_item",
        {
            "type": "custom_tool_call_output",
            "call_id": "c2",
            "output": json.dumps(
                {
                    "output": "Success. Updated the following files:\nM src/retry.go\n",
                    "metadata": {"exit_code": 0, "duration_seconds": 0.1},
                }
            ),
        },
    )
    put(
        "response_item",
        {
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": "go retry backoff"},
        },
    )
    put(
        "response_item",
        {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "c3",
            "arguments": json.dumps({"cmd": "go test ./..."}),
        },
    )
    put(
        "response_item",
        {
            "type": "function_call_output",
            "call_id": "c3",
            "output": "Process exited with code 0\nOutput:\nok",
        },
    )
    tokens(30000, 20000, 1500, 600)
    put(
        "response_item",
        {
            "type": "message",
            "role": "assistant",
            "phase": "final_answer",
            "content": [{"type": "output_text", "text": "The retry test passes."}],
        },
    )
    tokens(31000, 20500, 1600, 600)
    put(
        "event_msg",
        {
            "type": "task_complete",
            "turn_id": "turn-1",
            "last_agent_message": "The retry test passes.",
        },
    )
    put("turn_context", {"turn_id": "turn-2", "model": "gpt-5.5-mini"})
    put("event_msg", {"type": "user_message", "message": "Now add a benchmark"})
    put(
        "response_item",
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Starting."}],
        },
    )
    tokens(35000, 22000, 1700, 650)
    put("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
    return "".join(out)
