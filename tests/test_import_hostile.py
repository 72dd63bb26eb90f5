"""Hostile and damaged transcripts through the real command line and real git:
values of the wrong JSON type, lone surrogate escapes, NaN and nesting past
the log's depth, secrets where ids go, parentUuid cycles, reused call ids,
threads nested two deep or in a cycle, a pipe among the files, a truncated
``.zst``, a byte order mark, a session id no trailer can carry. Each import
either projects what it recognises (counted in the diagnostics, and the
repository passes ``git gasp check``) or fails with a one-line error and a
hint, having written nothing; never a traceback, a hang or a silent drop.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests import transcripts as T
from tests.conftest import run_cli

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # the shape of a GitHub token
ROLLOUT = f"rollout-2026-08-28T10-00-00-{T.CODEX_SESSION}.jsonl"


@pytest.fixture
def repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "agent"
    assert run_cli(capsys, "init", str(path), "--agent-id", "importer")[0] == 0
    return path


def _imported(
    capsys: pytest.CaptureFixture[str], repo: Path, agent: str, *paths: Path
) -> dict[str, Any]:
    """Import ``paths``; the repository then passes check and usage reads it."""
    args = ["import", agent, *map(str, paths), "--repo", str(repo), "--json"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert run_cli(capsys, "check", str(repo))[0] == 0
    code, usage, _ = run_cli(capsys, "usage", "--repo", str(repo), "--json")
    assert code == 0 and json.loads(usage)
    session: dict[str, Any] = json.loads(out)["sessions"][0]
    return session


def _events(repo: Path) -> list[dict[str, Any]]:
    lines = (repo / "state" / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _text(values: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(v) + "\n" for v in values)


def _cc_file(tmp_path: Path, values: list[dict[str, Any]] | str) -> Path:
    path = tmp_path / "in" / f"{T.SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(values if isinstance(values, str) else _text(values))
    return path


# -- Claude Code ---------------------------------------------------------------------------


def test_cc_values_of_the_wrong_type_are_counted_not_a_crash(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main, _ = T.claude_session("2.1.173")
    values = _lines(main)
    deep: Any = 1
    for _ in range(200):  # deeper than the log's 128 levels
        deep = {"a": deep}
    values[0]["type"] = ["user"]
    values[1]["parentUuid"] = {"a": 1}
    values[3]["uuid"] = [1]
    values[3]["message"]["model"] = deep
    values[-1]["message"]["usage"]["server_tool_use"] = deep
    values[-1]["message"]["usage"]["output_tokens"] = float("nan")
    path = _cc_file(tmp_path, _text(values).replace("Fix the retry", "Fix \\ud800 the retry"))
    got = _imported(capsys, repo, "claude-code", path)
    assert got["diagnostics"]["unknown_types"] == {"['user']": 1}
    events = _events(repo)
    assert events[0]["payload"]["task"].startswith("Fix \ufffd the retry")
    usage = [e["payload"]["metadata"]["usage"] for e in events if e["kind"] == "model.called"]
    assert "[nested too deep: not kept]" in json.dumps(usage)
    assert usage[-1]["output_tokens"] is None  # NaN is not JSON: kept as null


def test_cc_a_parent_uuid_cycle_is_read_as_a_root_not_a_rewind(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main, _ = T.claude_session("2.1.173")
    values = _lines(main)
    prompt, answer = values[2], values[3]
    prompt["parentUuid"], answer["parentUuid"] = answer["uuid"], prompt["uuid"]
    values[5]["parentUuid"] = values[5]["uuid"]  # its own parent
    got = _imported(capsys, repo, "claude-code", _cc_file(tmp_path, values))
    diag = got["diagnostics"]
    assert diag["abandoned_records"] == 0  # was: everything after the prompt, as a rewind
    assert diag["unknown_fields"]["parentUuid cycle (read as a root)"] == 3
    kinds = [e["kind"] for e in _events(repo)]
    assert kinds.count("model.called") == 6 and kinds.count("tool.called") == 5


def test_cc_secrets_in_the_prompt_ids_and_names_are_redacted_not_refused(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main, _ = T.claude_session("2.1.173")
    text = main.replace("Fix the retry bug", f"Fix the retry bug for {GHP}")
    text = text.replace('"req_msg_a1"', f'"{GHP}"').replace("/src/retry.py", f"/{GHP} x.py")
    text = text.replace('"claude-sonnet-4-5-20250929"', f'"{GHP}"', 1)
    _imported(capsys, repo, "claude-code", _cc_file(tmp_path, text))  # was: exit 1, nothing
    log = (repo / "state" / "events.jsonl").read_text()
    assert GHP not in log and "[redacted: github-token]" in log
    assert _events(repo)[0]["payload"]["task"].startswith("Fix the retry bug for [redacted")


def test_cc_a_credential_glued_to_a_tool_name_is_redacted(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a classic GitHub token (its base62 CRC32 checksum holds) run into the word before it
    token = "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsT" + "2Q67Zp"
    main, _ = T.claude_session("2.1.173")
    text = main.replace("pytest -q tests/test_retry.py", f"Bash{token} pytest -q")
    text = text.replace("Fix the retry bug", f"Fix the retry bug (see Bash{token})", 1)
    _imported(capsys, repo, "claude-code", _cc_file(tmp_path, text))
    log = (repo / "state" / "events.jsonl").read_text()
    assert token not in log and token[4:] not in log  # was: logged as it was
    tools = [e["payload"]["input_summary"] for e in _events(repo) if e["kind"] == "tool.called"]
    assert "Bash Bash[redacted: github-token] pytest -q" in tools


def test_cc_a_byte_order_mark_does_not_cost_the_first_line(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main, _ = T.claude_session("2.1.173")
    got = _imported(capsys, repo, "claude-code", _cc_file(tmp_path, "\ufeff" + main))
    assert got["diagnostics"]["corrupt_lines"] == []
    assert got["diagnostics"]["injected"]["slash command"] == 1  # the first line's


def test_cc_a_pipe_among_the_files_is_an_error_not_a_hang(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main, _ = T.claude_session("2.1.173")
    path = _cc_file(tmp_path, main)
    os.mkfifo(path.parent / "agent-pipe.jsonl")  # opened, it would wait for a writer
    os.symlink(path.parent / "gone.jsonl", path.parent / "dead.jsonl")
    # named, the dangling link is an error (found in a directory, it is skipped:
    # test_import_bounds)
    dead = str(path.parent / "dead.jsonl")
    code, _, err = run_cli(capsys, "import", "claude-code", str(path), dead, "--repo", str(repo))
    assert code == 2
    assert "dead.jsonl: not a regular file" in err and "hint: " in err
    assert not (repo / "state" / "events.jsonl").read_text()
    code, _, err = run_cli(capsys, "import", "claude-code", str(path.parent), "--repo", str(repo))
    assert code == 1 and "agent-pipe.jsonl: not a regular file (skipped)" in err


def test_cc_a_session_id_no_trailer_can_carry_is_refused_before_writing(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main, _ = T.claude_session("2.1.173")
    path = _cc_file(tmp_path, main.replace(T.SESSION, "a/b c#d"))
    code, _, err = run_cli(capsys, "import", "claude-code", str(path), "--repo", str(repo))
    assert code == 2 and "cannot name a session" in err and "hint: " in err
    assert not (repo / "state" / "events.jsonl").read_text()  # was: appended, run left open
    assert run_cli(capsys, "check", str(repo))[0] == 0


# -- Codex ---------------------------------------------------------------------------------


def _rollout(tmp_path: Path, text: str, name: str = ROLLOUT) -> Path:
    path = tmp_path / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_codex_values_of_the_wrong_type_are_counted_not_a_crash(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = _lines(T.codex_rollout("0.128.0"))
    values[2]["type"] = {"a": 1}
    values[3]["payload"]["type"] = ["x"]
    values[6]["payload"]["summary"] = 7
    totals = [v for v in values if v["payload"].get("type") == "token_count"]
    totals[2]["payload"]["info"]["total_token_usage"]["input_tokens"] = "30000"
    totals[3]["payload"]["info"]["total_token_usage"]["output_tokens"] = float("inf")
    text = _text(values).replace('"call_id": "c1"', '"call_id": "c\\udc001"')
    got = _imported(capsys, repo, "codex", _rollout(tmp_path, text))
    diag = got["diagnostics"]
    assert diag["unknown_types"] == {"event_msg/['x']": 1, "{'a': 1}": 1}
    assert diag["unfinished_tool_calls"] == 0  # the call and its output, both read as c\ufffd1
    finished = [e["payload"] for e in _events(repo) if e["kind"] == "model.finished"]
    assert all("Infinity" not in json.dumps(p) for p in finished)


def test_codex_a_reused_call_id_keeps_both_calls(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = T.codex_rollout("0.128.0").replace('"call_id": "c3"', '"call_id": "c1"')
    got = _imported(capsys, repo, "codex", _rollout(tmp_path, text))
    assert got["diagnostics"]["unknown_fields"] == {"reused call_id (kept apart by its line)": 1}
    tools = [e["payload"]["input_summary"] for e in _events(repo) if e["kind"] == "tool.called"]
    assert "go test ./... -run TestRetry" in tools and "go test ./..." in tools  # was: one


def _thread(tmp_path: Path, name: str, thread: str, parent: str) -> None:
    values = _lines(T.codex_rollout("0.128.0"))
    meta = values[0]["payload"]
    meta.update(id=thread, thread_source="subagent")
    meta["source"] = {"subagent": {"thread_spawn": {"parent_thread_id": parent}}}
    _rollout(tmp_path, _text(values), f"rollout-{name}.jsonl")


def test_codex_a_grandchild_thread_goes_into_its_grandparents_run(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _rollout(tmp_path, T.codex_rollout("0.128.0"))
    _thread(tmp_path, "child", "t-child", T.CODEX_SESSION)
    _thread(tmp_path, "grandchild", "t-grandchild", "t-child")
    got = _imported(capsys, repo, "codex", tmp_path / "in")
    assert got["session"] == T.CODEX_SESSION
    frames = [e["payload"]["title"] for e in _events(repo) if e["kind"] == "frame.created"]
    assert frames == ["subagent t-child", "subagent t-grandchild"]  # was: the grandchild lost


def test_codex_threads_that_are_each_others_parents_are_still_imported(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _thread(tmp_path, "a", "t-a", "t-b")
    _thread(tmp_path, "b", "t-b", "t-a")
    got = _imported(capsys, repo, "codex", tmp_path / "in")  # was: "no codex sessions found"
    assert got["session"] == "t-a"
    frames = [e["payload"]["title"] for e in _events(repo) if e["kind"] == "frame.created"]
    assert frames == ["subagent t-b"]


def test_codex_a_truncated_zst_is_a_one_line_error(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zstandard = pytest.importorskip("zstandard")
    whole = zstandard.ZstdCompressor().compress(T.codex_rollout("0.128.0").encode())
    path = tmp_path / (ROLLOUT + ".zst")
    path.write_bytes(whole[:-30])
    code, _, err = run_cli(capsys, "import", "codex", str(path), "--repo", str(repo))
    assert code == 2  # was: exit 1, "nothing in it is a codex record"
    assert err.startswith(f"error: {path}: the zstd stream is truncated\nhint: check it with: zstd")
    path.write_bytes(whole + whole)  # two frames, as zstd reads a concatenation
    got = _imported(capsys, repo, "codex", path)
    assert got["diagnostics"]["unknown_fields"] == {"reused call_id (kept apart by its line)": 3}


def test_codex_a_reasoning_summary_with_a_secret_and_arguments_too_deep(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = _lines(T.codex_rollout("0.128.0"))
    values[6]["payload"]["summary"] = [{"type": "summary_text", "text": f"use {GHP} " + "r" * 5000}]
    values[7]["payload"]["arguments"] = "[" * 50000 + "]" * 50000  # JSON too deep to read
    _imported(capsys, repo, "codex", _rollout(tmp_path, _text(values)))  # were: exit 1, exit 3
    calls = [e["payload"] for e in _events(repo) if e["kind"] == "model.called"]
    reasoning = calls[0]["metadata"]["reasoning"]
    assert reasoning.startswith("use [redacted: github-token] r") and len(reasoning) < 2100
    assert GHP not in (repo / "state" / "events.jsonl").read_text()


def test_codex_a_file_name_with_bytes_that_are_not_utf8(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    top = os.fsdecode(os.fsencode(tmp_path) + b"/in-\xff")
    name = os.fsdecode(b"rollout-\xfe-" + ROLLOUT.removeprefix("rollout-").encode())
    os.makedirs(top)
    with open(os.path.join(top, name), "w") as fh:
        fh.write(T.codex_rollout("0.128.0") + "{torn")
    got = _imported(capsys, repo, "codex", Path(top))  # was: exit 3 (an id of its name)
    assert got["diagnostics"]["torn_last_line"][0].endswith(".jsonl:26")
