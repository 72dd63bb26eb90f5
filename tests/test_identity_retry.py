"""Retry is the recovery for ``git gasp identity commit`` too.

Each kill point of :data:`git_gasp.agent.faults.IDENTITY_POINTS` SIGKILLs the
command there, and a git commit killed once HEAD has moved is one more; a
pre-commit hook that refuses once is a failure without a kill. Run again
with the same arguments, the command completes: one approval decision, one
commit, the right hash in AGENT.md, nothing stashed, ``check`` passing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp.agent.faults import IDENTITY_POINTS
from git_gasp.agent.init import init_repo
from git_gasp.check.conformance import run_all
from git_gasp.restore.identity import compute

from .conftest import git
from .test_close_retry import kill_git_after_head_moves

REASON = "be kinder"


def _commit(root: Path, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("GASP_FAULT", None)
    if fault is not None:
        env["GASP_FAULT"] = fault
    cmd = [sys.executable, "-m", "git_gasp", "identity", "commit", "-C", str(root)]
    cmd += ["--approved-by", "Ann Example", "--reason", REASON]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)


@pytest.fixture
def staged(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    init_repo(str(root), "it-agent")
    (root / "identity" / "IDENTITY.md").write_text("# Identity\n\nI am kinder.\n")
    git(root, "add", "identity")
    return root


def _assert_done_once(root: Path, before: str) -> None:
    events = [json.loads(x) for x in (root / "state/events.jsonl").read_text().splitlines()]
    decisions = [e for e in events if e["kind"] == "decision.created"]
    assert [d["payload"]["reason"] for d in decisions] == [REASON]  # exactly one decision
    subjects = git(root, "log", "--format=%s", f"{before}..HEAD").splitlines()
    assert subjects == [f"identity: {REASON}"]  # exactly one commit
    decision = decisions[0]["payload"]["id"]
    assert f"Decision: {decision}" in git(root, "log", "-1", "--format=%B")
    manifest = (root / "AGENT.md").read_text()
    assert f"identity_hash: {compute(str(root))}" in manifest
    assert git(root, "stash", "list") == ""
    assert git(root, "status", "--porcelain") == ""
    assert [r.failures for r in run_all(str(root))] == [()] * 7


@pytest.mark.parametrize("fault", IDENTITY_POINTS)
def test_an_identity_commit_killed_at_each_step_completes_when_run_again(
    staged: Path, fault: str
) -> None:
    before = git(staged, "rev-parse", "HEAD").strip()
    killed = _commit(staged, fault)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    retried = _commit(staged)
    assert retried.returncode == 0, retried.stderr
    head = git(staged, "rev-parse", "HEAD").strip()
    assert f"committed {head[:12]}:" in retried.stdout
    assert ("committed already" in retried.stdout) == (fault == "identity:committed")
    _assert_done_once(staged, before)


@pytest.mark.parametrize("killed", ["git", "both"])
def test_an_identity_commit_whose_git_was_killed_after_moving_head(
    staged: Path, killed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = git(staged, "rev-parse", "HEAD").strip()
    kill_git_after_head_moves(staged, killed, monkeypatch)
    first = _commit(staged)
    done = first if killed == "git" else _commit(staged)  # the command killed too: again
    assert done.returncode == 0, done.stderr
    head = git(staged, "rev-parse", "HEAD").strip()
    assert f"committed {head[:12]}:" in done.stdout  # the commit git made, reported as made
    lock = staged / ".git/index.lock"
    assert f"git's lock files are left over ({lock}" in done.stderr
    command = done.stderr.split("if none is running: ", 1)[1].strip()
    subprocess.run(["sh", "-c", command], cwd=staged, check=True)
    _assert_done_once(staged, before)


REFUSE_ONCE = """#!/bin/sh
[ -f "$0.once" ] || exit 0
rm -f "$0.once"
echo "refused once" >&2
exit 1
"""


def test_an_identity_commit_refused_once_by_a_hook_completes_when_run_again(
    staged: Path,
) -> None:
    before = git(staged, "rev-parse", "HEAD").strip()
    hooks = staged / git(staged, "rev-parse", "--git-path", "hooks").strip()
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "pre-commit").write_text(REFUSE_ONCE)
    (hooks / "pre-commit").chmod(0o755)
    (hooks / "pre-commit.once").write_text("")
    refused = _commit(staged)
    assert refused.returncode == 1
    assert "refused once" in refused.stderr and "run the same identity commit again" in (
        refused.stderr
    )
    assert "Traceback" not in refused.stderr
    retried = _commit(staged)
    assert retried.returncode == 0, retried.stderr
    _assert_done_once(staged, before)


def test_a_second_run_after_success_changes_nothing(staged: Path) -> None:
    before = git(staged, "rev-parse", "HEAD").strip()
    assert _commit(staged).returncode == 0
    again = _commit(staged)
    assert again.returncode == 0, again.stderr
    assert "committed already" in again.stdout
    _assert_done_once(staged, before)
