"""What last session's hostile review of ``git gasp import`` found unfixed: a
Claude Code message id that comes back in a later turn, lines too long to hold
and runs of blank lines, and an unreadable entry in a directory of
transcripts. Pure projector tests on plain data where it is a question of
projection; the real command line and real git where it is one of the process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.adapters import claudecode, files, reading, usage
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.lines import LINE_CAP, Diagnostics, Source, capped, file_cursor, records
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
    found = reading.Found()
    files._unlisted(found)(PermissionError(13, "Permission denied", "/in/locked"))
    assert found.skipped == [reading.Skipped("/in/locked", "cannot list: Permission denied")]
    strict = reading.Found(strict=True)
    with pytest.raises(GaspError, match=r"^/in/locked: cannot list: Permission denied$"):
        files._unlisted(strict)(PermissionError(13, "Permission denied", "/in/locked"))


# -- lines too long to hold, and runs of blank lines ---------------------------------------


def _reference(data: bytes, cap: int) -> tuple[list[tuple[int, Any]], list[int], int, list[str]]:
    """What records() must see in ``data`` read whole: (line, value) of each
    record, the lines over ``cap`` bytes, the blank lines, the corrupt lines."""
    recs: list[tuple[int, Any]] = []
    long: list[int] = []
    corrupt: list[str] = []
    blank = 0
    for number, raw in enumerate(data.split(b"\n")[:-1], 1):  # complete lines only
        if len(raw) > cap:
            long.append(number)
        elif not raw.decode("utf-8", "replace").strip():
            blank += 1
        else:
            try:
                value = json.loads(raw)
            except ValueError:
                corrupt.append(f"f:{number}")
                continue
            if isinstance(value, dict):
                recs.append((number, value))
            else:
                corrupt.append(f"f:{number}")
    return recs, long, blank, corrupt


PIECES = ['{"a": 1}', '{"b": [2, 3]}', "", "", "", " ", "\r", "\t ", "x" * 9, "[1]", "nope"]


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(PIECES), max_size=40),
    cap=st.integers(min_value=8, max_value=16),
    size=st.integers(min_value=1, max_value=16),
    start=st.integers(min_value=0, max_value=40),
)
def test_the_capped_reader_keeps_the_files_line_numbers(
    lines: list[str], cap: int, size: int, start: int
) -> None:
    data = "".join(line + "\n" for line in lines).encode()
    size = min(size, cap)  # a chunk is never longer than the cap
    text, gaps, long = capped((data[i : i + size] for i in range(0, len(data), size)), cap)
    assert len(text) <= len(data) and text.count(b"\n") <= data.count(b"\n")
    source = Source("f", text.decode(), tuple(gaps), tuple(long))
    diag = Diagnostics()
    got = [(r.line, r.value) for r in records(source, diag)]
    want, want_long, want_blank, want_corrupt = _reference(data, cap)
    assert got == want
    assert [int(w.split(":")[1]) for w in diag.long] == want_long
    assert diag.blank == want_blank and [c.split(": ")[0] for c in diag.corrupt] == want_corrupt
    assert file_cursor(source)["lines"] == data.count(b"\n")
    # a resume from any line start numbers the tail's records as the whole file does
    starts = [0, *(i + 1 for i, c in enumerate(source.text) if c == "\n")]
    offset = starts[start % len(starts)]
    before = source.physical(0, offset)
    tail = [(r.line, r.value) for r in records(source.tail(offset), Diagnostics(), before + 1)]
    assert tail == [(n, v) for n, v in want if n > before]


def test_a_line_over_the_cap_is_reported_and_skipped_and_blank_lines_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, capsys)
    lines = T.claude_session("2.1.173")[0].splitlines(keepends=True)
    path = tmp_path / "in" / f"{T.SESSION}.jsonl"
    path.parent.mkdir()
    huge = '{"type": "user", "pad": "' + "x" * LINE_CAP + '"}\n'
    path.write_text("".join(lines[:3]) + "\n" * 5000 + huge + "\n\n" + "".join(lines[3:]))
    args = ["import", "claude-code", str(path), "--repo", str(repo), "--json"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    diag = json.loads(out)["sessions"][0]["diagnostics"]
    assert diag["long_lines"] == [
        f"{path}:5004: {len(huge) - 1} bytes, over the {LINE_CAP}-byte cap"
    ]
    assert diag["blank_lines"] == 5002 and diag["corrupt_lines"] == []
    assert f"{path}:5004: {len(huge) - 1} bytes" in err  # a warning on stderr
    kinds = [json.loads(line)["kind"] for line in (repo / "state" / "events.jsonl").open()]
    assert kinds.count("model.called") == 6 and kinds.count("tool.called") == 5
    assert run_cli(capsys, "check", str(repo))[0] == 0
    with path.open("a") as fh:  # grown: the resumed import numbers its lines as the file does
        fh.write("\n\n\nnot json\n")
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    grown = len(lines) + 5000 + 1 + 2 + 3 + 1
    assert f"{path}:{grown}: not JSON" in err


def test_a_file_of_blank_lines_only_is_nothing_recognised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, capsys)
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_bytes(b"\n" * (3 << 20))  # three chunks of blank lines
    code, _, err = run_cli(capsys, "import", "claude-code", str(path), "--repo", str(repo))
    assert code == 1 and "nothing in it is a claude-code record" in err


def test_reading_blank_lines_and_a_long_line_stays_small(tmp_path: Path) -> None:
    # whole, 40 MB of blank lines held 40 million list entries (about 400 MB) and
    # a 40 MB line its bytes, text and JSON; read capped, the child stays far below
    path = tmp_path / f"{T.SESSION}.jsonl"
    main = T.claude_session("2.1.173")[0]
    with path.open("w") as fh:
        fh.write(main)
        fh.write("\n" * (40 << 20))
        fh.write('{"pad": "' + "x" * (40 << 20) + '"}\n')
    script = (  # VmHWM: this process's peak (ru_maxrss counts the parent's pages forked)
        "import sys\n"
        "from git_gasp.adapters import lines, reading\n"
        "source = reading.read_source(sys.argv[1])\n"
        "diag = lines.Diagnostics()\n"
        "assert len(lines.records(source, diag)) == len(sys.argv[2])\n"
        "peak = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
        "print(peak.split()[1], diag.blank, len(diag.long))\n"
    )
    got = subprocess.run(
        [sys.executable, "-c", script, str(path), "x" * main.count("\n")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    peak_kb, blank, long = map(int, got.stdout.split())
    assert (blank, long) == (40 << 20, 1)
    assert peak_kb < 150 << 10, peak_kb  # KB; measured about 51 MB with the 32 MiB cap
