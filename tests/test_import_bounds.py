"""What last session's hostile review of ``git gasp import`` found unfixed: a
Claude Code message id that comes back in a later turn, lines too long to hold
and runs of blank lines, and an unreadable entry in a directory of
transcripts. Pure projector tests on plain data where it is a question of
projection; the real command line and real git where it is one of the process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from git_gasp.adapters import claudecode, files, usage
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.lines import Source
from git_gasp.core.event import Actor
from git_gasp.errors import GaspError
from tests import transcripts as T
from tests.conftest import run_cli

ACTOR = Actor("agent", "importer")


def _never(_: str) -> bool:
    return False


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _text(values: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(v) + "\n" for v in values)


def _reused(content: list[dict[str, Any]], tokens: int = 40) -> list[dict[str, Any]]:
    """The 2.1.173 session with, in its last turn, an assistant line reusing the
    first message's id (``msg_a1``) with ``content``, then the results of its calls."""
    values = _lines(T.claude_session("2.1.173")[0])
    first, last = values[3], values[21]  # msg_a1's first line; the closing message
    line = json.loads(json.dumps(first))
    line.update(uuid="u0900-5555", parentUuid=last["parentUuid"], timestamp=last["timestamp"])
    line["message"]["content"] = content
    line["message"]["usage"]["output_tokens"] = tokens
    added = [line]
    for block in content:
        if block.get("type") == "tool_use":
            result = json.loads(json.dumps(values[12]))  # a user line with a tool result
            result.update(uuid=f"u09{len(added):02d}-5555", parentUuid=added[-1]["uuid"])
            result["timestamp"] = last["timestamp"]
            result["message"]["content"] = [
                {"type": "tool_result", "tool_use_id": block["id"], "content": "ok"}
            ]
            result.pop("toolUseResult", None)
            added.append(result)
    last["parentUuid"] = added[-1]["uuid"]
    return values[:21] + added + values[21:]


def _project(values: list[dict[str, Any]]) -> Any:
    session = Session(T.SESSION, [Source("main.jsonl", _text(values))], {})
    return claudecode.project(session, ACTOR, _never)


def _totals(events: list[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for _, _, counts in usage.counted(events):
        for field, n in counts.items():
            out[field] = out.get(field, 0) + n
    return out


# -- a message id that comes back in a later turn ----------------------------------------


NEW_CALL = {"type": "tool_use", "id": "toolu_again", "name": "Bash", "input": {"command": "ls"}}
NEW_TEXT = {"type": "text", "text": "Listing the files once more."}


def test_a_reused_message_id_projects_the_blocks_never_seen() -> None:
    plain = _project(_lines(T.claude_session("2.1.173")[0]))
    got = _project(_reused([NEW_TEXT, NEW_CALL]))
    tools = [e.payload["input_summary"] for e in got.events if e.kind == "tool.called"]
    assert "Bash ls" in tools  # was: counted as a copy, never projected
    calls = [e.payload for e in got.events if e.kind == "model.called"]
    assert len(calls) == len([e for e in plain.events if e.kind == "model.called"]) + 1
    again = [c for c in calls if c["output_summary"] == NEW_TEXT["text"]]
    assert len(again) == 1 and again[0]["metadata"]["message_id"] == "msg_a1"
    assert "usage" not in again[0]["metadata"]  # the message's usage is counted once
    diag = got.diagnostics.to_value()
    assert diag["unknown_fields"]["message id seen again (its new blocks projected)"] == 1
    assert diag["unfinished_tool_calls"] == 0
    assert _totals(got.events) == _totals(plain.events)  # as ccusage de-duplicates


def test_a_reused_message_id_with_nothing_new_is_a_copy() -> None:
    plain = _project(_lines(T.claude_session("2.1.173")[0]))
    repeated = {"type": "text", "text": "I'll survey the code with two agents."}
    got = _project(_reused([repeated]))
    assert [e.id for e in got.events] == [e.id for e in plain.events]
    assert got.diagnostics.copied == plain.diagnostics.copied + 1


def test_a_reused_message_id_with_new_usage_is_counted_once_at_its_last_figures() -> None:
    got = _project(_reused([NEW_CALL], tokens=90))
    counted = [c for e, _, c in usage.counted(got.events) if e.payload["metadata"].get(
        "message_id") == "msg_a1"]  # fmt: skip
    assert [c["output"] for c in counted] == [90]  # the last usage logged for it, as before


def test_usage_counts_a_reused_message_id_as_before_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", str(repo), "--agent-id", "importer")[0] == 0
    path = tmp_path / "in" / f"{T.SESSION}.jsonl"
    path.parent.mkdir()
    path.write_text(_text(_reused([NEW_TEXT, NEW_CALL])))
    code, _, err = run_cli(capsys, "import", "claude-code", str(path), "--repo", str(repo))
    assert code == 0, err
    assert run_cli(capsys, "check", str(repo))[0] == 0
    code, out, _ = run_cli(capsys, "usage", "--repo", str(repo), "--json")
    row = next(r for r in json.loads(out)["rows"] if r["model"] == "claude-sonnet-4-5-20250929")
    # the main file's share of the figures ccusage printed (test_import): unchanged
    plain = _project(_lines(T.claude_session("2.1.173")[0]))
    assert {k: row[k] for k in usage.FIELDS} == _totals(plain.events)


# -- an entry of a directory that cannot be read -----------------------------------------


def _repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", str(repo), "--agent-id", "importer")[0] == 0
    return repo


def test_an_unreadable_entry_of_a_directory_is_skipped_and_the_rest_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, capsys)
    top = tmp_path / "projects"
    T.write_claude(str(top), "2.1.173")  # a session and its subagents
    os.symlink(top / "gone.jsonl", top / "dead.jsonl")  # root cannot read it either
    os.symlink(top / "loop.jsonl", top / "loop.jsonl")
    os.mkfifo(top / "agent-pipe.jsonl")
    args = ["import", "claude-code", str(top), "--repo", str(repo), "--json"]
    code, out, err = run_cli(capsys, *args)
    assert code == 1  # was: exit 2, nothing imported
    warnings = [line for line in err.splitlines() if line.endswith("(skipped)")]
    assert warnings == [  # the main files first, then the subagents'
        f"warning: {top}/dead.jsonl: not a regular file (skipped)",
        f"warning: {top}/loop.jsonl: not a regular file (skipped)",
        f"warning: {top}/agent-pipe.jsonl: not a regular file (skipped)",
    ]
    got = json.loads(out)
    assert [s["path"].rsplit("/", 1)[1] for s in got["skipped"]] == [
        "dead.jsonl", "loop.jsonl", "agent-pipe.jsonl"
    ]  # fmt: skip
    assert {s["reason"] for s in got["skipped"]} == {"not a regular file"}
    assert got["sessions"][0]["session"] == T.SESSION and got["sessions"][0]["appended"] > 0
    assert run_cli(capsys, "check", str(repo))[0] == 0
    code, out, err = run_cli(capsys, *args)  # again: nothing new, the same skips
    assert code == 1 and json.loads(out)["sessions"][0]["unchanged"]


def test_a_directory_of_nothing_readable_is_an_error_naming_the_first_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, capsys)
    top = tmp_path / "rollouts"
    top.mkdir()
    os.symlink(top / "gone", top / f"rollout-x-{T.CODEX_SESSION}.jsonl")
    code, _, err = run_cli(capsys, "import", "codex", str(top), "--repo", str(repo))
    assert code == 1
    assert err.startswith("error: no codex sessions found (1 skipped, the first ")
    assert "not a regular file)" in err and "\nhint: " in err


def test_a_codex_directory_with_an_unreadable_rollout_imports_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, capsys)
    top = tmp_path / "rollouts"
    top.mkdir()
    (top / f"rollout-x-{T.CODEX_SESSION}.jsonl").write_text(T.codex_rollout("0.128.0"))
    os.symlink(top / "gone", top / "rollout-y-0000.jsonl")
    (top / "rollout-z-0000.jsonl.zst").write_bytes(b"not zstd")  # damaged (or no zstd here)
    code, _, err = run_cli(capsys, "import", "codex", str(top), "--repo", str(repo))
    assert code == 1 and "rollout-y-0000.jsonl: not a regular file (skipped)" in err
    assert "rollout-z-0000.jsonl.zst: " in err and err.count("(skipped)") == 2
    assert "model.called" in (repo / "state" / "events.jsonl").read_text()


def test_a_directory_that_cannot_be_listed_is_skipped_not_silently_dropped() -> None:
    # root lists any directory, so the walk's error is handed over as os.walk would
    found = files.Found()
    files._unlisted(found)(PermissionError(13, "Permission denied", "/in/locked"))
    assert found.skipped == [files.Skipped("/in/locked", "cannot list: Permission denied")]
    strict = files.Found(strict=True)
    with pytest.raises(GaspError, match=r"^/in/locked: cannot list: Permission denied$"):
        files._unlisted(strict)(PermissionError(13, "Permission denied", "/in/locked"))
