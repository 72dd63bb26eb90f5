"""``git gasp repair`` takes the lease: never under another worker's live writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.store.lease import Lease

from .conftest import git, run_cli

EVENTS = "state/events.jsonl"


@pytest.fixture
def torn(tmp_path: Path) -> Path:
    """A repository whose log ends in a domain event without its ops pair."""
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    with Agent.open(str(root), worker="writer") as agent:
        agent.record_goal("goal_cut", "cut")
    log = root / EVENTS
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))  # the ops pair is still to come
    return root


def test_repair_refuses_while_another_workers_writer_is_live(
    torn: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    Lease(str(torn), "writer").acquire()  # live: about to append the ops pair
    before = (torn / EVENTS).read_bytes()
    monkeypatch.setenv("GASP_WORKER_ID", "repairer")
    code, _, err = run_cli(capsys, "repair", "-C", str(torn))
    assert code == 1
    assert "lease held by worker `writer`" in err
    assert (torn / EVENTS).read_bytes() == before  # the live writer's event is kept


def test_repair_runs_once_the_lease_is_free_and_leaves_no_lease(
    torn: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GASP_WORKER_ID", "repairer")
    code, out, _ = run_cli(capsys, "repair", "-C", str(torn))
    assert code == 0
    assert "removed a last event whose ops pair a crash cut off" in out
    assert not (torn / ".agent/lease").exists()


def test_repair_by_the_worker_of_an_open_run_keeps_its_lease(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    with Agent.open(str(root), worker="w") as agent:
        agent.start_run("open")
    monkeypatch.setenv("GASP_WORKER_ID", "w")
    code, _, _ = run_cli(capsys, "repair", "-C", str(root))
    assert code == 0
    held = Lease(str(root), "w").holder()
    assert held is not None and held.worker_id == "w"
    assert git(root, "status", "--porcelain", "--", ".agent") == ""


def test_repair_takes_over_a_lease_whose_writer_died(
    torn: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import subprocess

    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is free now: the writer that crashed
    expires = Lease(str(torn), "writer").clock() + 600_000  # unexpired by the clock
    record = {"worker_id": "writer", "pid": dead.pid, "expires_at_ms": expires}
    (torn / ".agent/lease").write_text(json.dumps(record, separators=(",", ":")))
    monkeypatch.setenv("GASP_WORKER_ID", "repairer")
    code, out, err = run_cli(capsys, "repair", "-C", str(torn))
    assert code == 0, err
    assert "removed a last event whose ops pair a crash cut off" in out
    assert not (torn / ".agent/lease").exists()
