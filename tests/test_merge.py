"""Two clones of one agent, merged: the logs union, and a snapshot the merge
left behind its log is pruned (snapshots are projections)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import git


def gasp(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return subprocess.run(["git", "gasp", *args], cwd=root, env=env, capture_output=True, text=True)


def one_run(clone: Path, task: str) -> None:
    for args in (
        ("run", "start", "--task", task),
        ("record", "observation", "--title", f"seen in {task}"),
        ("run", "close", "--outcome", "done"),
    ):
        done = gasp(clone, *args)
        assert done.returncode == 0, (args, done.stderr)


def test_a_merge_unions_the_logs_and_stale_snapshots_are_pruned(
    template: Path, tmp_path: Path
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        git(tmp_path, "clone", "-q", str(template), str(clone))
        assert gasp(clone, "hooks", "install").returncode == 0  # the merge driver too
    one_run(b, "work on b")
    written = gasp(b, "snapshot")
    assert written.returncode == 0, written.stderr
    git(b, "add", "-A")
    git(b, "commit", "-q", "-m", "snapshot on b")
    one_run(a, "work on a")
    git(a, "pull", "-q", "--no-rebase", "--no-edit", str(b), "HEAD")
    events = (a / "state" / "events.jsonl").read_text()
    assert "seen in work on a" in events and "seen in work on b" in events
    checked = gasp(a, "check")
    assert checked.returncode == 1  # b's snapshot no longer ends where its prefix did
    assert "integrity hash mismatch" in checked.stdout
    assert "git gasp snapshot --prune" in checked.stderr
    pruned = gasp(a, "snapshot", "--prune")
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout.startswith("removed snapshots/") and "(its log prefix changed)" in (
        pruned.stdout
    )
    assert gasp(a, "snapshot", "--prune").stdout.strip() == "no stale snapshots"
    assert gasp(a, "check").returncode == 0
