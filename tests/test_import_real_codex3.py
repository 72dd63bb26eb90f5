"""Codex rollouts of the oldest lines (round 3): the TypeScript CLI's
``.json`` rollout (0.1.x, spring 2025) and the Rust CLI's pre-envelope
rollout (mid 2025: a bare header, ``record_type`` markers, bare items), each
a synthetic fixture written here in the shape converters of such files
document (no real content copied).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_gasp.cli.root import main

SESSION = "0b4b1a2e-0000-4000-8000-000000000001"


def _items() -> list[dict[str, object]]:
    return [
        {
            "id": "msg_1",
            "type": "message",
            "role": "user",
            "status": "completed",
            "content": [{"type": "input_text", "text": "explain this repo"}],
        },
        {
            "id": "fc_1",
            "type": "function_call",
            "status": "completed",
            "call_id": "call_1",
            "name": "shell",
            "arguments": json.dumps({"command": ["ls"]}),
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": json.dumps({"output": "a\nb\n", "metadata": {"exit_code": 0}}),
        },
        {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "It is a parser."}],
        },
    ]


def _imported(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(["import", "codex", *args, "--repo", str(repo), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    return session  # type: ignore[no-any-return]


def _kinds(repo: Path) -> list[str]:
    lines = (repo / "state" / "events.jsonl").read_text().splitlines()
    return [json.loads(x)["kind"] for x in lines if '"state.ops_applied"' not in x]


def test_codex_the_typescript_cli_s_json_rollout_is_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TypeScript CLI saved each session as one pretty-printed JSON
    document, ``~/.codex/sessions/rollout-<date>-<id>.json``: ``{"session":
    {id, timestamp, instructions}, "items": [response items]}``. It is found
    in $CODEX_HOME and projected as the lines it holds (it was not even
    found: "no codex sessions"); another JSON file there is not a rollout."""
    home = tmp_path / "codex"
    (home / "sessions").mkdir(parents=True)
    document = {
        "session": {"timestamp": "2025-04-20T10:00:00.000Z", "id": SESSION, "instructions": ""},
        "items": _items(),
    }
    (home / "sessions" / f"rollout-2025-04-20-{SESSION}.json").write_text(
        json.dumps(document, indent=2)
    )
    (home / "sessions" / "state.json").write_text('{"model": "o4-mini"}')
    monkeypatch.setenv("CODEX_HOME", str(home))
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    session = _imported(repo, capsys)
    assert session["session"] == SESSION and session["task"] == "explain this repo"
    diag = session["diagnostics"]
    assert isinstance(diag, dict) and diag["unknown_types"] == {} and diag["corrupt_lines"] == []
    assert _kinds(repo) == [
        "run.started",
        "task.created",
        "model.called",
        "tool.called",
        "model.called",
        "run.finished",
    ]
    # named on the command line, its directory too, it is the same session
    again = _imported(repo, capsys, str(home / "sessions"))
    assert again["unchanged"] is True


def test_codex_a_pre_envelope_rollout_s_bare_ghost_snapshot_is_known(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mid-2025 rollouts begin with a bare header (``id``, ``timestamp``,
    ``instructions``, ``git``), then ``record_type`` markers and bare items,
    ``ghost_snapshot`` among them: a known item (ignored), not an unknown
    line type."""
    lines: list[dict[str, object]] = [
        {"id": SESSION, "timestamp": "2025-08-26T00:00:00Z", "instructions": None, "git": {}},
        {"record_type": "state"},
        {"type": "ghost_snapshot", "ghost_commit": {"id": "ghost-1", "parent": None}},
        *_items(),
        {"record_type": "state"},
    ]
    rollout = tmp_path / f"rollout-2025-08-26T00-00-00-{SESSION}.jsonl"
    rollout.write_text("".join(json.dumps(x) + "\n" for x in lines))
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    session = _imported(repo, capsys, str(rollout))
    assert session["task"] == "explain this repo"
    diag = session["diagnostics"]
    assert isinstance(diag, dict) and diag["unknown_types"] == {}
    assert diag["ignored"] == {"record_type state": 2, "response_item/ghost_snapshot": 1}
