"""Hook payloads in the documented shapes (adapters.md §1.3, §3.6, §8.1), per
agent version: written for these tests from the field tables, never copied."""

from __future__ import annotations

from typing import Any

CC_OLD = "2.0.49"  # before SubagentStart, agent_id, StopFailure, prompt_id
CC_MID = "2.1.173"  # agent_id/agent_type, StopFailure, last_assistant_message
CC_NEW = "2.1.251"  # prompt_id, PreModelSwitch/PostModelSwitch
CODEX = "0.149.0"


def common(version: str, session: str, transcript: str | None, cwd: str) -> dict[str, Any]:
    value: dict[str, Any] = {
        "session_id": session,
        "transcript_path": transcript,
        "cwd": cwd,
        "permission_mode": "default",
    }
    if version >= "2.1.196" and not version.startswith("0."):
        value["prompt_id"] = "550e8400-e29b-41d4-a716-446655440000"
    return value


def claude(
    event: str, version: str, session: str, transcript: str | None, cwd: str, **extra: Any
) -> dict[str, Any]:
    """One Claude Code hook payload of ``event`` as ``version`` sends it."""
    value = {**common(version, session, transcript, cwd), "hook_event_name": event}
    if event == "SessionStart":
        value.update(source="startup", model="claude-sonnet-4-5-20250929")
    elif event == "UserPromptSubmit":
        value["prompt"] = "Fix the retry bug in src/retry.py and run the tests"
    elif event in ("PostToolUse", "PostToolUseFailure"):
        value.update(
            tool_name="Bash",
            tool_input={"command": "pytest -q", "description": "Run the tests"},
            tool_use_id="toolu_01ABC",
        )
        if event == "PostToolUse":
            value.update(tool_response={"stdout": "3 passed", "stderr": ""}, duration_ms=812)
        else:
            value.update(error="Exit code 1\nE   AssertionError", is_interrupt=False)
    elif event == "Stop":
        value["stop_hook_active"] = False
        if version >= "2.1.47":
            value.update(last_assistant_message="Done.", background_tasks=[], session_crons=[])
    elif event in ("SubagentStart", "SubagentStop"):
        value.update(agent_id="def456", agent_type="Explore")
        if event == "SubagentStop":
            value.update(stop_hook_active=False, last_assistant_message="Analysis complete")
    elif event == "StopFailure":
        value.update(error="rate_limit", error_details="429", last_assistant_message="API Error")
    elif event in ("PreCompact", "PostCompact"):
        value["trigger"] = "auto"
        value["custom_instructions" if event == "PreCompact" else "compact_summary"] = "summary"
    elif event in ("PreModelSwitch", "PostModelSwitch"):
        value.update(
            from_model="claude-sonnet-4-5-20250929",
            to_model="claude-haiku-4-5-20251001",
            requested_model="haiku",
            source="command",
            context_tokens=12000,
            prompt_cache_warm=True,
            cache_ttl="5m",
        )
    elif event == "SessionEnd":
        value["reason"] = "prompt_input_exit"
    if version >= "2.1.69" and event.startswith("Subagent"):
        value["agent_id"] = "def456"
    value.update(extra)
    return value


CLAUDE_EVENTS = {
    CC_OLD: ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreCompact", "SessionEnd"],
    CC_MID: [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "StopFailure",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
    ],
    CC_NEW: ["SessionStart", "PreModelSwitch", "PostModelSwitch", "PostToolUse", "Stop"],
}


def codex(
    event: str, session: str, transcript: str | None, cwd: str, **extra: Any
) -> dict[str, Any]:
    """A Codex hook payload (same shape as Claude Code's, plus turn_id and model)."""
    value: dict[str, Any] = {
        "session_id": session,
        "transcript_path": transcript,
        "cwd": cwd,
        "hook_event_name": event,
        "model": "gpt-5.5",
        "permission_mode": "default",
    }
    if event not in ("SessionStart", "SessionEnd"):
        value["turn_id"] = "turn-1"
    if event == "PostToolUse":
        value.update(
            tool_name="Bash",
            tool_input={"command": "go test ./..."},
            tool_response="ok",
            tool_use_id="c1",
        )
    elif event == "UserPromptSubmit":
        value["prompt"] = "Rename foo to bar"
    elif event == "SessionStart":
        value["source"] = "startup"
    value.update(extra)
    return value


CODEX_EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"]
