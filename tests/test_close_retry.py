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


# A reference-transaction hook that SIGKILLs the next git to move a ref once
# it has (and, when the trigger file says "both", the process that started
# it): the index.lock git commit held stays. One shot: it removes the trigger.
KILL_GIT = """#!/bin/sh
[ "$1" = committed ] && [ -f "$GASP_TEST_KILL_GIT" ] || exit 0
what=$(cat "$GASP_TEST_KILL_GIT"); rm -f "$GASP_TEST_KILL_GIT"
[ "$what" = both ] && kill -9 "$(ps -o ppid= -p "$PPID" | tr -d ' ')"
kill -9 "$PPID"
"""


def kill_git_after_head_moves(root: Path, what: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Arm the hook once; ``what``: "git", or "both" (git and its parent)."""
    hooks = root / git(root, "rev-parse", "--git-path", "hooks").strip()
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "reference-transaction").write_text(KILL_GIT)
    (hooks / "reference-transaction").chmod(0o755)
    trigger = root.parent / "kill-git"
    trigger.write_text(what)
    monkeypatch.setenv("GASP_TEST_KILL_GIT", str(trigger))


def _clear(root: Path, warning: str) -> None:
    """Follow the warning's own commands (rm the locks, reset the paths)."""
    command = warning.split("if none is running: ", 1)[1].strip()
    subprocess.run(["sh", "-c", command], cwd=root, check=True)
    assert git(root, "status", "--porcelain") == ""


@pytest.mark.parametrize("killed", ["git", "both"])
def test_a_git_killed_after_moving_head_is_reported_as_the_commit_made(
    tmp_path: Path, killed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    with Agent.open(str(root), worker="w") as agent:
        run = agent.start_run("git killed")
    kill_git_after_head_moves(root, killed, monkeypatch)
    first = _close(root)
    head = git(root, "rev-parse", "HEAD").strip()
    assert git(root, "log", "-1", "--format=%(trailers:key=Run-Id,valueonly)").strip() == run
    done = first if killed == "git" else _close(root)  # the close killed too: run it again
    if killed == "both":
        assert first.returncode == -signal.SIGKILL
    assert done.returncode == 0, done.stderr
    assert f"closed {run}: commit {head[:12]}" in done.stdout  # never "no commit"
    assert "note written" in done.stdout  # the --session note is written, not skipped
    lock = root / ".git/index.lock"
    assert f"git's lock files are left over ({lock}" in done.stderr
    _clear(root, done.stderr)
    assert _kinds(root).count("run.finished") == 1
    assert git(root, "rev-parse", "HEAD").strip() == head  # no second commit
    assert [r.failures for r in run_all(str(root))] == [()] * 7
