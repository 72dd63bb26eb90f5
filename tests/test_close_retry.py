"""Retry is the recovery: a close killed at every step completes when run again.

Each kill point of :data:`git_gasp.agent.faults.CLOSE_POINTS` SIGKILLs the
``git gasp run close`` process there; the same command run again finishes
the run once, makes (or reports) one boundary commit, and writes the
session note. Git's stale lock is named with the command to clear it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp.agent.api import Agent
from git_gasp.agent.faults import CLOSE_POINTS
from git_gasp.agent.init import init_repo
from git_gasp.check.conformance import run_all

from .conftest import git

SESSION = "claude:ses_retry"


def _close(root: Path, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("GASP_FAULT", None)
    if fault is not None:
        env["GASP_FAULT"] = fault
    cmd = [sys.executable, "-m", "git_gasp", "run", "close", "--outcome", "done"]
    cmd += ["--session", SESSION, "-C", str(root), "--worker", "w"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)


def _kinds(root: Path) -> list[str]:
    import json

    lines = (root / "state/events.jsonl").read_text().splitlines()
    return [json.loads(line)["kind"] for line in lines if line.strip()]


@pytest.mark.parametrize("fault", CLOSE_POINTS)
def test_a_close_killed_at_each_step_completes_when_run_again(tmp_path: Path, fault: str) -> None:
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    with Agent.open(str(root), worker="w") as agent:
        run = agent.start_run("killed")
    killed = _close(root, fault)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    retried = _close(root)
    assert retried.returncode == 0, retried.stderr
    head = git(root, "rev-parse", "HEAD").strip()
    assert f"closed {run}: commit {head[:12]}" in retried.stdout  # made, never "no commit"
    assert "note written" in retried.stdout  # the --session note is not skipped
    assert _kinds(root).count("run.finished") == 1
    ids = git(root, "log", "--format=%(trailers:key=Run-Id,valueonly)").split()
    assert ids.count(run) == 1
    assert [r.failures for r in run_all(str(root))] == [()] * 7
    assert not (root / ".agent/RUN").exists()


def test_a_stale_index_lock_is_named_with_the_command_to_clear_it(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    with Agent.open(str(root), worker="w") as agent:
        agent.start_run("locked out")
    lock = root / ".git/index.lock"
    lock.write_text("")  # what a git killed mid-commit leaves
    refused = _close(root)
    assert refused.returncode == 1
    assert f"git's lock {lock} is left over" in refused.stderr
    assert f"rm {lock}" in refused.stderr
    assert "Traceback" not in refused.stderr
    lock.unlink()
    again = _close(root)
    assert again.returncode == 0, again.stderr
    assert _kinds(root).count("run.finished") == 1
