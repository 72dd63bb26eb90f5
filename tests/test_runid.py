"""A bogus ``Run-Id`` (issue 15), with real git: ``runs`` marks a run the
log lacks.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli


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
