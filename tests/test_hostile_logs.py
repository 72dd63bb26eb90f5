"""Untrusted logs: a 2 GB sparse file, a FIFO, a device are refused before any read.

Restore, status, check and fold refuse a log over ``gasp.maxLogBytes`` from
its size alone (nothing allocated), and a log that is not a regular file
before opening it for reading (a FIFO would hang the open). The writer
refuses the same. benchmarks/hostile.py measures restore's peak RSS on the
committed 2 GB case. A log line whose ops payload no fold can read ends
restore, status and fold with a one-line error naming the event, never a crash.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

import pytest

from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.store.logfile import DEFAULT_MAX_LOG_BYTES

from .conftest import git, run_cli

GB2 = 2 * 1024**3


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "agent"
    init_repo(str(path), "evolve")
    return path


def _sparse(repo: Path, size: int) -> None:
    with open(repo / "state/events.jsonl", "r+b") as fh:
        fh.truncate(size)


@pytest.mark.parametrize("argv", [["status"], ["check"], ["fold"]])
def test_a_2_gb_sparse_log_is_refused_in_seconds_without_reading_it(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _sparse(repo, GB2)
    monkeypatch.chdir(repo)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, out, err = run_cli(capsys, *argv)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 64 * 1024  # far below the 2 GB it would allocate
    assert code != 0
    text = out + err
    assert f"over the {DEFAULT_MAX_LOG_BYTES}-byte cap (gasp.maxLogBytes" in text


def test_restore_refuses_a_committed_log_over_the_cap(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Agent.open(str(repo), worker="w") as agent:
        agent.record_goal(None, "a goal", "x" * 2000)
    git(repo, "commit", "-qam", "a goal")
    size = (repo / "state/events.jsonl").stat().st_size
    git(repo, "config", "--global", "gasp.maxLogBytes", "1000")  # the restorer's setting
    code, _, err = run_cli(capsys, "restore", str(repo), str(tmp_path / "copy"))
    assert code == 2
    assert f"state/events.jsonl is {size} bytes, over the 1000-byte cap" in err
    assert f"git config gasp.maxLogBytes {size}" in err  # the way out, for a log you trust
    git(repo, "config", "--global", "gasp.maxLogBytes", str(size))
    code, _, err = run_cli(capsys, "restore", str(repo), str(tmp_path / "copy2"))
    assert code == 0, err


@pytest.mark.parametrize("rel", ["state/events.jsonl", "AGENT.md", "memory/facts.jsonl"])
@pytest.mark.parametrize(
    "argv", [["status"], ["check"], ["fold"], ["record", "goal", "--title", "g"]]
)
def test_a_fifo_log_is_refused_not_waited_on(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    rel: str,
    argv: list[str],
) -> None:
    os.unlink(repo / rel)
    os.mkfifo(repo / rel)
    monkeypatch.chdir(repo)
    code, out, err = run_cli(capsys, *argv)
    assert code != 0
    assert f"{rel} is a FIFO, not a regular file" in out + err


def _unreadable_ops(repo: Path) -> None:
    """The last ops event's node kind made a list: a line that parses as an
    event but whose ops payload no fold can read (serde: a sequence where a
    string goes)."""
    import json

    log = repo / "state/events.jsonl"
    lines = log.read_text().splitlines()
    last = json.loads(lines[-1])
    assert last["kind"] == "state.ops_applied"
    last["payload"][0]["CreateNode"]["kind"] = [{}]
    lines[-1] = json.dumps(last, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("snapshot", [False, True], ids=["streaming", "seeded"])
@pytest.mark.parametrize("argv", [["status"], ["status", "--context", "-"], ["fold"]])
def test_an_ops_payload_no_fold_reads_is_a_one_line_error_not_a_crash(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    snapshot: bool,
) -> None:
    if snapshot:  # a snapshot before the broken line: restore seeds from it, folds the rest
        from git_gasp.agent.projecting import write_snapshot

        with Agent.open(str(repo), worker="w") as agent:
            agent.record_goal(None, "an earlier goal", "folded into the snapshot")
        write_snapshot(str(repo))
        assert list((repo / "snapshots").glob("*/graph.json"))
    with Agent.open(str(repo), worker="w") as agent:
        agent.record_goal(None, "a goal", "its summary")
    _unreadable_ops(repo)
    monkeypatch.chdir(repo)
    code, _out, err = run_cli(capsys, *argv)
    assert code == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert "invalid type: sequence, expected a string" in err
    assert "hint: see every finding with: git gasp check" in err
