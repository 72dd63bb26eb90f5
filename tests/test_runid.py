"""A bogus ``Run-Id`` (issue 15), with real git and the hooks installed:
commit-msg refuses a Run-Id that names no run the staged log starts or
finishes and says which runs it holds; a real close, an amend, a
cherry-picked boundary commit and a merge pass; ``gasp.rule.run-id`` sets
its level; ``runs`` marks a run the log lacks.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp.core.commitmessage import holds_run, run_id_findings, runs_held
from git_gasp.hooks.commitmsg import staged_logs
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


def _newest_run(repo: Path) -> str:
    return git(repo, "log", "-1", "--format=%(trailers:key=Run-Id,valueonly)").strip()


def test_commit_msg_refuses_a_run_id_naming_no_staged_run(work: Path) -> None:
    newest = _newest_run(work)
    result = _commit(work, "--allow-empty", "-m", "x", "-m", "Run-Id: run_123")
    assert result.returncode == 1
    assert (
        "[run-id] Run-Id 'run_123' names no run the staged log starts or finishes "
        f"(the staged log holds 2 runs, the newest {newest}; this commit adds to none)"
    ) in result.stderr
    assert "comes from: git gasp run close --outcome TEXT" in result.stderr
    assert "Traceback" not in result.stderr
    assert _newest_run(work) == newest  # nothing committed


def test_a_staged_run_is_named_in_the_refusal(work: Path) -> None:
    """A commit that appends a run's lines but names another run."""
    done = subprocess.run(
        [sys.executable, "-m", "git_gasp", "run", "start", "--task", "t", "-C", str(work)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    started = done.stdout.strip()
    git(work, "add", "state/events.jsonl")
    result = _commit(work, "-m", "x", "-m", "Run-Id: run_123")
    assert result.returncode == 1
    assert f"(this commit's log lines start or finish {started})" in result.stderr


def test_a_real_close_an_amend_and_a_cherry_pick_pass(work: Path) -> None:
    cli = [sys.executable, "-m", "git_gasp"]
    for args in (["run", "start", "--task", "t"], ["run", "close", "--outcome", "done"]):
        done = subprocess.run([*cli, *args, "-C", str(work)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    closed = git(work, "rev-parse", "HEAD").strip()
    message = git(work, "log", "-1", "--format=%B")
    assert f"Run-Id: {_newest_run(work)}" in message
    # an amend of the boundary commit keeps its run (the staged log holds it)
    result = _commit(work, "--amend", "-m", message.replace("\n\n", "\n\nreworded\n\n", 1))
    assert result.returncode == 0, result.stderr
    # the boundary commit picked onto a branch before the run: its lines come with it
    git(work, "checkout", "-q", "-b", "side", "HEAD~1")
    result = subprocess.run(
        ["git", "-C", str(work), "cherry-pick", closed], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    # a commit naming a run the log already holds (a boundary commit picked by hand)
    result = _commit(work, "--allow-empty", "-m", message)
    assert result.returncode == 0, result.stderr
    # a merge is judged by the merge rules, not this one
    git(work, "checkout", "-q", "main")
    result = _commit(work, "--allow-empty", "-m", "on main")
    assert result.returncode == 0, result.stderr
    result = subprocess.run(
        ["git", "-C", str(work), "merge", "-q", "--no-ff", "side", "-m", "merge\n\nRun-Id: run_1"],
        capture_output=True,
        text=True,
    )
    assert "[run-id]" not in result.stderr


def test_the_rule_takes_a_level(work: Path) -> None:
    git(work, "config", "gasp.rule.run-id", "warn")
    result = _commit(work, "--allow-empty", "-m", "x", "-m", "Run-Id: run_123")
    assert result.returncode == 0, result.stderr
    assert "warning:" in result.stderr and "[run-id] Run-Id 'run_123'" in result.stderr
    git(work, "config", "gasp.rule.run-id", "off")
    result = _commit(work, "--allow-empty", "-m", "y", "-m", "Run-Id: run_456")
    assert result.returncode == 0 and "run_456" not in result.stderr, result.stderr


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


def test_a_run_in_a_declared_log_is_found(work: Path) -> None:
    """A log the staged AGENT.md's Locations table declares counts too."""
    manifest = work / "AGENT.md"
    manifest.write_text(
        manifest.read_text() + "\n| Location | Path |\n|---|---|\n| log | logs/b.jsonl |\n"
    )
    lines = (work / "state/events.jsonl").read_text().splitlines()
    line = next(x for x in lines if '"kind":"run.started"' in x)
    (work / "logs").mkdir()
    (work / "logs/b.jsonl").write_text(line.replace('"run_id":"', '"run_id":"run_b_') + "\n")
    git(work, "add", "logs/b.jsonl")
    staged = staged_logs(str(work))
    assert b"run_b_" not in staged  # the committed AGENT.md declares no second log yet
    git(work, "add", "AGENT.md")
    assert b"run_b_" in staged_logs(str(work))


def test_the_pure_rule() -> None:
    start = (
        b'{"id":"e1","schema_version":1,"ts_ms":1,"actor":{"kind":"agent","id":"a"},'
        b'"kind":"run.started","payload":{"run_id":"run_a","task":"t"},'
        b'"causation_id":null,"correlation_id":null}\n'
    )
    assert holds_run(start, "run_a") and not holds_run(start, "run_b")
    assert runs_held(start + start.replace(b"run_a", b"run_c")) == ["run_a", "run_c"]
    message = "x\n\nRun-Id: run_a\n"
    assert run_id_findings(message, [], start, "m") == []
    (found,) = run_id_findings("x\n\nRun-Id: run_b\n", [], start, "m")
    assert found.rule == "run-id" and "holds one run, run_a" in found.message
