"""Check 5's run lifecycle findings: a run finished twice, two runs open at once."""

from __future__ import annotations

from pathlib import Path

from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.check.conformance import run_all
from git_gasp.core import runpayloads
from git_gasp.core.event import Actor, Event
from git_gasp.core.runlifecycle import lifecycle_findings

AGENT = Actor("agent", "evolve")


def _event(n: int, kind: str, run: str, cause: str | None = None) -> Event:
    payload = {"run_id": run, "task": "t"} if kind == "run.started" else {"run_id": run}
    if kind == "run.finished":
        payload["outcome"] = "done"
    return Event(f"event_{n:032x}", 1, n, AGENT, kind, payload, cause, run)


def test_one_run_at_a_time_finished_once_has_no_finding() -> None:
    events = [
        _event(1, "run.started", "run_a"),
        _event(2, "run.finished", "run_a", "event_1"),
        _event(3, "run.started", "run_b"),
        _event(4, "run.finished", "run_b", "event_3"),
        _event(5, "run.started", "run_a"),  # a run id started again after its finish
        _event(6, "run.finished", "run_a", "event_5"),
    ]
    assert lifecycle_findings(events) == ()


def test_a_second_finish_and_a_second_open_run_are_findings() -> None:
    events = [
        _event(1, "run.started", "run_a"),
        _event(2, "run.started", "run_b"),
        _event(3, "run.finished", "run_b", "event_2"),
        _event(4, "run.finished", "run_b", "event_2"),
    ]
    assert lifecycle_findings(events) == (
        "line 2: run run_b started while run run_a (line 1) is open: two runs open at once",
        "line 4: run run_b finished twice (first at line 3)",
    )


def test_check_reports_a_run_finished_twice(tmp_path: Path) -> None:
    root = str(tmp_path / "agent")
    init_repo(root, "evolve")
    with Agent.open(root, worker="w") as agent:
        run = agent.start_run("twice")
        agent.finish_run("done")
        # what two racing closes wrote before the run lock: a second finish
        agent.record(runpayloads.run_finished(run, "done", True))
    reports = run_all(root)
    assert reports[4].failures and "finished twice" in reports[4].failures[-1]
    assert [r.failures for r in reports[:4] + reports[5:]] == [()] * 6


def test_a_close_commits_its_snapshot_through_an_ignore_rule(tmp_path: Path) -> None:
    """A `.gitignore` rule such as ``*.json`` is not meant for git-gasp's own
    snapshot: the boundary commit carries it (it left it out, without a word,
    and a clone had no snapshot to seed from)."""
    import re
    import subprocess

    from git_gasp.agent.runs import close_run

    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    config = root / ".agent" / "config.toml"
    config.write_text(re.sub(r"snapshot_every = \d+", "snapshot_every = 2", config.read_text()))
    with (root / ".gitignore").open("a") as fh:
        fh.write("*.json\n")
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "settings"], check=True)
    agent = Agent.open(str(root), worker="worker-1")
    agent.start_run("a run")
    agent.record_observation(None, "seen", "")
    closed = close_run(agent, "done")
    assert closed.snapshot is not None and closed.commit is not None
    tree = subprocess.run(
        ["git", "-C", str(root), "ls-tree", "-r", "--name-only", "HEAD", "--", "snapshots"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert tree == [closed.snapshot]
    assert all(report.passed for report in run_all(str(root)))
