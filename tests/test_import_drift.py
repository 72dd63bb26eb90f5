"""The version drift of adapters.md §2.6 (Claude Code) and §3.7 (Codex), one case
each: the lines a release changed project to at least one event, with what the
projector did not know counted, or the import fails loudly (exit 1), never an
empty run. The fixtures are written here in the documented shapes.
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


def _kinds(p: Projection) -> list[str]:
    return [e.kind for e in p.events if e.kind != "state.ops_applied"]


def _payloads(p: Projection, kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in p.events if e.kind == kind]


def _cc(main_text: str, subs: dict[str, str]) -> Projection:
    session = Session(
        T.SESSION,
        [Source("main.jsonl", main_text)],
        {k: Source(f"agent-{k}.jsonl", v) for k, v in subs.items()},
    )
    return claudecode.project(session, ACTOR, _never)


def _spawn(m: T.Claude, tool: str, agent_id: str, structured: bool = True) -> None:
    call = f"toolu_{agent_id}"
    m.assistant(
        f"msg_{m.tag}_{agent_id}",
        [{"type": "tool_use", "id": call, "name": tool, "input": {"description": agent_id}}],
        T.usage(10, 2),
        stop="tool_use",
    )
    note = f"done\nagentId: {agent_id} (use SendMessage with to: '{agent_id}')"
    m.tool_result(call, note, structured={"agentId": agent_id} if structured else None)


def _child(agent_id: str, version: str = "2.1.173") -> T.Claude:
    s = T.Claude(version, sidechain=True, tag=agent_id)
    s.user(f"work for {agent_id}")
    s.assistant(
        f"msg_{agent_id}_w", [{"type": "text", "text": f"{agent_id} did it"}], T.usage(5, 1)
    )
    return s


# -- Claude Code, adapters.md §2.6 ----------------------------------------------------------


@pytest.mark.parametrize("layout", ["nested", "sibling"])
def test_cc_drift_2_1_2_subagent_files_moved_are_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    top = tmp_path / "projects" / "-srv-example-app"
    T.write_claude(str(top), "2.1.173" if layout == "nested" else "2.1.1", layout)
    capsys.readouterr()
    assert main(["import", "claude-code", str(top), "--repo", str(repo), "--json"]) == 0
    lines = (repo / "state" / "events.jsonl").read_text().splitlines()
    kinds = [json.loads(line)["kind"] for line in lines]
    assert kinds.count("frame.created") == 2  # both subagents, in either layout


def test_cc_drift_2_1_68_task_tool_and_progress_lines() -> None:
    main_text, subs = T.claude_session("2.1.60", subagent_tool="Task")
    progress = {"type": "progress", "uuid": "p1", "data": {"type": "agent_progress"}}
    lines = main_text.splitlines(keepends=True)
    lines.insert(4, json.dumps({**progress, "sessionId": T.SESSION}) + "\n")
    got = _cc("".join(lines), subs)
    assert _kinds(got).count("frame.created") == 2  # Task (before 2.1.68) spawns as Agent does
    assert got.diagnostics.ignored["progress"] == 1 and not got.diagnostics.unknown_types


def test_cc_drift_2_1_77_send_message_continues_a_subagent_in_its_frame() -> None:
    m = T.Claude("2.1.77")
    m.user("survey the code")
    _spawn(m, "Agent", "scout")
    m.assistant(
        "msg_send",
        [
            {
                "type": "tool_use",
                "id": "toolu_send",
                "name": "SendMessage",
                "input": {"to": "scout", "message": "look at tests too"},
            }
        ],
        T.usage(10, 2),
        stop="tool_use",
    )
    m.tool_result("toolu_send", "sent")
    child = _child("scout", "2.1.77")
    child.user("look at tests too")  # the message sent, in the child's own file
    child.assistant("msg_scout_2", [{"type": "text", "text": "tests ok"}], T.usage(5, 1))
    got = _cc(m.text(), {"scout": child.text()})
    assert [f["title"] for f in _payloads(got, "frame.created")] == ["subagent: scout"]
    tools = [t["tool"] for t in _payloads(got, "tool.called")]
    assert tools == ["Agent", "SendMessage"]
    assert len(_payloads(got, "model.called")) == 2 + 2  # the parent's two, the child's two
    assert _payloads(got, "task.created")[0]["title"] == "survey the code"  # one task only
    assert len(_payloads(got, "task.created")) == 1


def test_cc_drift_2_1_119_new_records_empty_thinking_no_agent_id_new_usage() -> None:
    m = T.Claude("2.1.150")
    for kind in ("ai-title", "custom-title", "last-prompt", "agent-name", "mode", "pr-link"):
        m.add({"type": kind, "sessionId": T.SESSION, "value": "x"})
    m.add({"type": "permission-mode", "sessionId": T.SESSION, "permissionMode": "default"})
    m.user("fix the bug")
    usage = {
        **T.usage(100, 20, 5, 50),
        "output_tokens_details": {"thinking_tokens": 12},
        "iterations": [{"input_tokens": 100}],
        "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
        "inference_geo": "us",
        "speed": "standard",
    }
    thinking = {"type": "thinking", "thinking": "", "signature": "c2ln"}
    m.assistant("msg_t", [thinking, {"type": "text", "text": "fixed"}], usage)
    for subtype in ("away_summary", "informational"):
        m.add(m._base("system", subtype=subtype, content="note", level="info"))
    _spawn(m, "Agent", "quiet", structured=False)  # agentId only in the result's text
    got = _cc(m.text(), {"quiet": _child("quiet").text(), "stray": _child("stray").text()})
    diag = got.diagnostics
    assert not diag.unknown_types and diag.ignored["ai-title"] == 1
    assert diag.ignored["system/away_summary"] == 1
    call = _payloads(got, "model.called")[0]
    assert call["metadata"]["reasoning"] == "not in the transcript"  # never shown as complete
    frames = sorted(f["title"] for f in _payloads(got, "frame.created"))
    assert frames == ["subagent stray", "subagent: quiet"]  # one no call names: not dropped
    counts = [c for _, _, c in counted(got.events)]
    assert counts[0] == {"input": 100, "output": 20, "cache_creation": 5, "cache_read": 50}


def test_cc_drift_2_1_172_subagents_nest_five_levels() -> None:
    names = ["l1", "l2", "l3", "l4", "l5"]
    m = T.Claude("2.1.173")
    m.user("go deep")
    _spawn(m, "Agent", names[0])
    subs = {}
    for i, name in enumerate(names):
        s = _child(name)
        if i + 1 < len(names):
            _spawn(s, "Agent", names[i + 1])
        subs[name] = s.text()
    got = _cc(m.text(), subs)
    frames = {f["id"]: f for f in _payloads(got, "frame.created")}
    assert len(frames) == 5
    depth = {fid: 0 for fid in frames}
    for fid, frame in frames.items():
        parent = frame["parent"]
        while parent is not None:
            depth[fid] += 1
            parent = frames[parent]["parent"]
    assert sorted(depth.values()) == [0, 1, 2, 3, 4]  # nested as spawned, not flattened


def test_cc_drift_streamed_lines_count_a_message_once_with_its_final_usage() -> None:
    m = T.Claude("2.1.78")
    m.user("explain")
    for i, usage in enumerate([T.usage(100, 1), T.usage(100, 8), T.usage(100, 30)]):
        m.assistant("msg_s", [{"type": "text", "text": f"part {i}"}], usage)
    got = _cc(m.text(), {})
    assert len(_payloads(got, "model.called")) == 1
    assert [c["output"] for _, _, c in counted(got.events)] == [30]


def test_cc_nothing_recognised_fails_loudly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_text(json.dumps({"type": "brand-new-envelope", "uuid": "x"}) + "\n")
    capsys.readouterr()
    assert main(["import", "claude-code", str(path), "--repo", str(repo)]) == 1
    assert "nothing in it is a claude-code record" in capsys.readouterr().err
    assert not (repo / "state" / "events.jsonl").read_text().strip()  # no empty run


# -- Codex, adapters.md §3.7 ---------------------------------------------------------------


def _codex(meta: dict[str, Any], *items: tuple[str, dict[str, Any]]) -> Projection:
    lines = [("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", **meta})]
    lines.append(("turn_context", {"turn_id": "t1", "model": "gpt-5.5", "cwd": "/r"}))
    text = "".join(
        json.dumps({"timestamp": f"2026-08-28T10:00:{i:02d}.000Z", "type": k, "payload": p}) + "\n"
        for i, (k, p) in enumerate([*lines, *items])
    )
    return codex.project(
        CodexSession(T.CODEX_SESSION, [Source("r.jsonl", text)], {}), ACTOR, _never
    )


def _user(text: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    content = [{"type": "input_text", "text": text}]
    return ("response_item", {"type": "message", "role": "user", "content": content, **extra})


def _said(text: str) -> tuple[str, dict[str, Any]]:
    content = [{"type": "output_text", "text": text}]
    return ("response_item", {"type": "message", "role": "assistant", "content": content})


@pytest.mark.parametrize(
    ("version", "field"), [("0.138.0", "instructions"), ("0.139.0", "base_instructions")]
)
def test_codex_drift_0_139_instructions_renamed(version: str, field: str) -> None:
    value: Any = "You are Codex." if field == "instructions" else {"text": "You are Codex."}
    got = _codex({"cli_version": version, field: value}, _user("fix it"), _said("done"))
    assert _kinds(got) == ["run.started", "task.created", "model.called"]
    assert [t["title"] for t in _payloads(got, "task.created")] == ["fix it"]


def test_codex_drift_0_142_multi_agent_envelopes_are_counted() -> None:
    envelope = {"type": "agent_message_v2", "from": "parent", "to": "child", "text": "hi"}
    got = _codex(
        {"cli_version": "0.142.0"},
        _user("fix it"),
        ("inter_agent_communication", envelope),
        ("inter_agent_communication_metadata", {"thread": "x"}),
        _said("done"),
    )
    assert _kinds(got) == ["run.started", "task.created", "model.called"]
    assert got.diagnostics.ignored["inter_agent_communication"] == 1


def test_codex_drift_0_150_labelled_injected_content_is_no_task() -> None:
    got = _codex(
        {"cli_version": "0.150.0"},
        _user("<environment_context>cwd=/r</environment_context>", content_item_kinds=["env"]),
        _user("# AGENTS.md instructions for /r", content_item_kinds=["agents_md"]),
        _user("fix it", content_item_kinds=["user"]),
        _said("done"),
    )
    assert [t["title"] for t in _payloads(got, "task.created")] == ["fix it"]
    assert got.diagnostics.injected["environment context"] == 1
    assert got.diagnostics.injected["AGENTS.md"] == 1


def test_codex_drift_0_153_a_changed_turn_record_is_counted_not_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    got = _codex(
        {"cli_version": "0.153.4"},
        ("turn_record", {"turn_id": "t2", "items": []}),  # a record this projector never saw
        _user("fix it"),
        _said("done"),
    )
    assert _kinds(got) == ["run.started", "task.created", "model.called"]
    assert got.diagnostics.unknown_types["turn_record"] == 1
    assert any("turn_record (1)" in w for w in got.diagnostics.warnings())  # said, not silent
    # a rollout of nothing but such records is an error, not an empty run
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    path = tmp_path / f"rollout-2026-08-28T10-00-00-{T.CODEX_SESSION}.jsonl"
    line = {"timestamp": "2026-08-28T10:00:00.000Z", "type": "turn_record", "payload": {}}
    path.write_text(json.dumps(line) + "\n")
    capsys.readouterr()
    assert main(["import", "codex", str(path), "--repo", str(repo)]) == 1
    assert "nothing in it is a codex record" in capsys.readouterr().err
