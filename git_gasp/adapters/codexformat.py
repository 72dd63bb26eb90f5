"""What Codex rollout lines look like (adapters.md §3): the line and item
types, the injected envelopes, how a call's input and success are read.
Pure.
"""

from __future__ import annotations

import json
import re
from typing import Any

LINE_TYPES = frozenset("session_meta response_item compacted turn_context event_msg".split())
NEWER_TYPES = frozenset(
    "inter_agent_communication inter_agent_communication_metadata token_usage_record "
    "world_state retained_context security_risk_score realtime_item".split()
)
QUIET_EVENTS = frozenset(
    "agent_message agent_reasoning_raw_content thread_name_updated context_compacted "
    "entered_review_mode exited_review_mode exec_command_end patch_apply_end "
    "mcp_tool_call_end web_search_end view_image_tool_call image_generation_end "
    "guardian_assessment injected_message sub_agent_activity".split()
)
CALLS = ("function_call", "custom_tool_call", "local_shell_call")
SELF_CONTAINED_CALLS = ("web_search_call", "image_generation_call")  # no output item of their own
OUTPUTS = ("function_call_output", "custom_tool_call_output")
INJECTED = (
    ("<environment_context>", "environment context"),
    ("<user_instructions>", "AGENTS.md"),
    ("# AGENTS.md", "AGENTS.md"),
    ("<INSTRUCTIONS>", "AGENTS.md"),
    ("<permissions", "permissions"),
    ("<turn_aborted>", "interrupt marker"),
    ("<user_shell_command>", "local command"),
    ("<skill", "skill text"),
    ("<app-context>", "app context"),  # Codex Desktop
    ("<environment>", "environment context"),
    ("<environment-change>", "environment context"),
    ("<collaboration_mode>", "collaboration mode"),
    ("<plugins_instructions>", "plugin instructions"),
    ("<apps_instructions>", "app instructions"),
)
IDE_REQUEST = "## My request for Codex:"  # what a 2025 IDE-started prompt wraps
EXIT = re.compile(r"(?:Process exited with code|Exit code:?|\"exit_code\":) ?(-?\d+)")
PATCH_FILE = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$", re.MULTILINE)
TRUNCATED = re.compile(r"…\d+ tokens truncated…|\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]")
SHELLS = ("exec_command", "shell", "shell_command", "local_shell", "container.exec")


BARE_ITEMS = frozenset(
    "message reasoning function_call function_call_output custom_tool_call "
    "custom_tool_call_output local_shell_call web_search_call image_generation_call "
    "ghost_snapshot".split()
)


def enveloped(value: dict[str, Any]) -> tuple[Any, Any]:
    """A line's ``(type, payload)``. Rollouts of 2025 (before the ``{timestamp,
    type, payload}`` envelope) begin with the bare session meta (``id``,
    ``timestamp``, ``instructions``, ``git``), hold bare response items, and
    ``{"record_type": "state"}`` markers (which later files still carry)."""
    if "payload" in value:
        return value.get("type"), value["payload"]
    if isinstance(value.get("record_type"), str):
        return f"record_type {value['record_type']}", {}
    kind = value.get("type")
    if kind is None and isinstance(value.get("id"), str) and "timestamp" in value:
        return "session_meta", value
    if isinstance(kind, str) and kind in BARE_ITEMS:
        return "response_item", value
    return kind, None


def whole_rollout(text: str) -> str | None:
    """The TypeScript Codex CLI's rollout (0.1.x, spring 2025: one JSON
    document ``{"session": {id, timestamp, instructions}, "items": [...]}``)
    as the lines of a 2025 Rust one: the bare session meta, then the bare
    items. None for any other text."""
    try:
        value = json.loads(text)
        items = value.get("items") if isinstance(value, dict) else None
        if not isinstance(items, list) or not isinstance(value.get("session"), dict):
            return None
        return "".join(json.dumps(line) + "\n" for line in [value["session"], *items])
    except (ValueError, RecursionError):
        return None


def first_meta(text: str) -> dict[str, Any]:
    """The session meta a rollout's first line holds, or ``{}``."""
    try:
        value = json.loads(text.split("\n", 1)[0])
    except (ValueError, RecursionError):
        return {}
    kind, payload = enveloped(value) if isinstance(value, dict) else (None, None)
    return payload if kind == "session_meta" and isinstance(payload, dict) else {}


def typed_prompt(value: dict[str, Any]) -> str | None:
    payload = value.get("payload")
    if value.get("type") != "event_msg" or not isinstance(payload, dict):
        return None
    if payload.get("type") == "user_message" and isinstance(payload.get("message"), str):
        images = [i for k in ("images", "local_images") for i in _listed(payload.get(k))]
        return str(payload["message"]) + "\n[image]" * len(images)  # an image alone is a prompt
    item = payload.get("item")
    if payload.get("type") == "item_completed" and isinstance(item, dict):
        if item.get("type") == "UserMessage":
            text = item.get("text") or content_text(item.get("content"))
            return str(text) if text else None
    return None


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def injected(text: str) -> str | None:
    stripped = text.lstrip()
    for prefix, why in INJECTED:
        if stripped.startswith(prefix):
            return why
    return None if stripped else "empty"


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "input_image":
            parts.append("[image]")
    return "\n".join(parts)


def call_input(item: dict[str, Any]) -> str:
    if item.get("type") == "custom_tool_call":
        return str(item.get("input") or "")
    if item.get("type") == "local_shell_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        command = action.get("command") if isinstance(action, dict) else None
        return " ".join(map(str, command)) if isinstance(command, list) else str(command or "")
    if item.get("type") == "web_search_call":
        action = item.get("action")
        return _dumps(action) if action is not None else "web search"
    raw = item.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except (ValueError, RecursionError):
        return str(raw) if isinstance(raw, str) else _dumps(raw)
    if isinstance(args, dict):
        command = args.get("cmd") or args.get("command")
        if isinstance(command, list):
            return " ".join(str(c) for c in command)
        if isinstance(command, str):
            return command
    return _dumps(args) if args is not None else ""


def _dumps(value: Any) -> str:
    """``value`` as JSON text, or what it is when it nests too deep to write."""
    try:
        return json.dumps(value, sort_keys=True)
    except (RecursionError, ValueError):
        return f"({type(value).__name__} nested too deep to show)"


def outcome(output: Any) -> tuple[str, bool | None]:
    """The output's text and whether the call succeeded (None: not said, as
    for a command still running). A code-mode ``exec`` answers with blocks: a
    ``Script failed`` head, or any of its commands' JSON chunks with a non-zero
    ``exit_code``, is a failure."""
    text = content_text(output) if not isinstance(output, str) else output
    if text.startswith("Script failed"):
        return text, False
    head = text[:400].split("\nOutput:", 1)[0] if "\nOutput:" in text[:400] else ""
    if "Process running with session ID" in head or text.startswith("Script running"):
        return text, None  # not over yet: its exit comes to a later write_stdin or wait
    if isinstance(output, list) and any(_exit_of(block) not in (None, 0) for block in output):
        return text, False
    try:
        parsed = json.loads(text) if text.startswith("{") else None
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("metadata"), dict):
        code = parsed["metadata"].get("exit_code")
        text = str(parsed.get("output") or text)
        if isinstance(code, int):
            return text, code == 0
    found = EXIT.search(text)
    if found is not None:
        return text, int(found.group(1)) == 0
    low = text[:200].lower()
    if low.startswith(("error", "failed", "aborted")) or "rejected by user" in low:
        return text, False
    return text, True


def _exit_of(block: Any) -> int | None:
    """The ``exit_code`` a code-mode output block's JSON chunk carries."""
    raw = block.get("text") if isinstance(block, dict) else None
    if not isinstance(raw, str) or not raw.startswith("{"):
        return None
    try:
        chunk = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    code = chunk.get("exit_code") if isinstance(chunk, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def patched(tool: str, given: str) -> list[str]:
    """The files a successful edit names: ``apply_patch``'s own patch, or the
    patches a code-mode ``exec`` script hands ``tools.apply_patch`` (a string
    in the script, its newlines escaped)."""
    if tool == "exec":
        if "tools.apply_patch(" not in given:
            return []
        given = given.replace("\\n", "\n")
    return PATCH_FILE.findall(given)


def call_model(info: dict[str, Any], usage: dict[str, Any], model: str) -> str:
    """The model a ``token_count`` names (newer builds do, in ``info``) when
    the call used any tokens (ccusage skips an empty one whole), else ``model``."""
    named = info.get("model") or info.get("model_name")
    used = any(_count(usage.get(k)) for k in (*CALL_COUNTS, "cache_read_input_tokens"))
    return named.strip() if isinstance(named, str) and named.strip() and used else model


CALL_COUNTS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")


def delta(total: dict[str, Any], before: dict[str, Any]) -> dict[str, int] | None:
    """What a cumulative total adds to the one ``before`` it; None when a
    count fell (the total started again)."""
    if any(_is_count(v) and v < _count(before.get(k)) for k, v in total.items()):
        return None
    return {k: v - _count(before.get(k)) for k, v in total.items() if _is_count(v)}


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(value: Any) -> int:
    """A token count of an earlier total; what is not a count counts as 0."""
    return value if _is_count(value) else 0
