"""One worker, many processes: start, close and append race, and never double a run.

Real processes (forked Python API callers, and the command line), 2 and 8 at
once, released together by a barrier; the rounds are those of the soak in
benchmarks/races.py, a few of each here (20 in all, with the worker-id race).
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import time
from pathlib import Path

import pytest

from git_gasp.agent.api import Agent
from git_gasp.check.conformance import run_all
from git_gasp.store.runmarker import WORKER_PATH, local_worker_id, run_lock

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import races  # noqa: E402

ROUNDS = [(2, 4), (8, 1)]  # (processes, rounds) of each kind through the API


@pytest.mark.parametrize("kind", ["start", "close", "append"])
def test_racing_processes_of_one_worker_never_double_a_run(tmp_path: Path, kind: str) -> None:
    for procs, rounds in ROUNDS:
        for n in range(rounds):
            root = races.new_repo(str(tmp_path), f"{procs}-{n}")
            if kind != "start":
                races.open_run(root)
            actions = [kind] * procs
            if kind == "append":
                actions[-1] = "close"
            outcome = races.race(root, actions)
            assert outcome.doubles == 0, (kind, procs, n)
            if kind == "start":  # one opens, every other is refused naming it
                assert (outcome.ok, outcome.refused) == (1, procs - 1)
                with Agent.open(root, worker=races.WORKER) as agent:
                    assert agent.open_run is not None
            else:  # the loser of a close reports the winner's commit: all succeed
                assert outcome.ok + outcome.refused == procs
                assert kind == "append" or outcome.ok == procs
                assert len(races._run_ids(root)) == 1


def test_racing_closes_on_the_command_line_report_one_commit(tmp_path: Path) -> None:
    root = races.new_repo(str(tmp_path), "cli")
    races.open_run(root)
    cmd = races._cli("close", root)
    with run_lock(root):  # both see the run open, then race for the lock
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        for proc in procs:
            _wait_blocked(proc.pid)
    said = [p.communicate()[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    commit = races._run_ids(root)
    assert len(commit) == 1 and races.doubles(root) == 0
    hashes = {line.split("commit ")[1][:12] for line in said if "commit " in line}
    assert len(hashes) == 1  # both name the one boundary commit
    assert [r.failures for r in run_all(root)] == [()] * 7


def _wait_blocked(pid: int) -> None:
    """Until process ``pid`` waits for a file lock (Linux's /proc)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/wchan") as fh:
            if "lock" in fh.read():
                return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} never reached the run lock")


def test_racing_starts_on_the_command_line_open_one_run(tmp_path: Path) -> None:
    root = races.new_repo(str(tmp_path), "cli")
    outcome = races.race(root, ["start", "start"], via="cli")
    assert (outcome.ok, outcome.refused, outcome.doubles) == (1, 1, 0)


def _worker_id(root: str, barrier: object, results: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    results.put(local_worker_id(root))  # type: ignore[attr-defined]


def test_first_commands_of_a_fresh_clone_agree_on_the_worker_id(tmp_path: Path) -> None:
    root = races.new_repo(str(tmp_path), "fresh")
    ctx = multiprocessing.get_context("fork")
    for _ in range(3):
        (Path(root) / WORKER_PATH).unlink(missing_ok=True)
        barrier, results = ctx.Barrier(8), ctx.Queue()
        children = [ctx.Process(target=_worker_id, args=(root, barrier, results)) for _ in range(8)]
        for child in children:
            child.start()
        ids = {results.get(timeout=60) for _ in children}
        for child in children:
            child.join()
        assert ids == {(Path(root) / WORKER_PATH).read_text().strip()}
