"""A bogus ``Run-Id`` (issue 15), with real git: commit-msg refuses a Run-Id
that names no run the staged log starts or finishes, and says which runs
it holds; an amend keeps its run; ``runs`` marks a run the log lacks.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_cli


@pytest.fixture
def work(template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    dest = tmp_path / "work"
    shutil.copytree(template, dest, symlinks=True)
    code, _, err = run_cli(capsys, "hooks", "install", "--python", sys.executable, "-C", str(dest))
    assert code == 0, err
    return dest


def _commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", *args], capture_output=True, text=True
    )


def test_commit_msg_refuses_a_run_id_naming_no_staged_run(work: Path) -> None:
    result = _commit(work, "--allow-empty", "-m", "x", "-m", "Run-Id: run_123")
    assert result.returncode == 1
    assert "[trailer] Run-Id 'run_123' names no run this commit's log starts or finishes" in (
        result.stderr
    )
    assert "(the staged log holds no run)" in result.stderr
    assert "hint: drop the trailer" in result.stderr


def test_an_amend_keeps_its_run_id(work: Path) -> None:
    message = git(work, "log", "-1", "--format=%B")
    assert "Run-Id: " in message
    result = _commit(work, "--amend", "-m", message.replace("\n\n", "\n\nreworded\n\n", 1))
    assert result.returncode == 0, result.stderr


def test_runs_marks_a_run_the_log_lacks(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _commit(work, "--no-verify", "--allow-empty", "-m", "x", "-m", "Run-Id: run_123")
    code, out, _ = run_cli(capsys, "runs", "-C", str(work))
    assert code == 0
    first, *rest = out.splitlines()
    assert first.endswith("run_123  -  -  (not in the log)")
    assert rest and not any("not in the log" in line for line in rest)
    code, out, _ = run_cli(capsys, "runs", "--json", "-C", str(work))
    flags = {r["run_id"]: r["in_log"] for r in json.loads(out)["runs"]}
    assert flags.pop("run_123") is False and all(flags.values())
