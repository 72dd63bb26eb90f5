"""Races of one worker's processes: start, close and append at once.

Each round lets N processes of the *same* worker id act on one agent
repository at the same moment (a barrier), through the Python API or the
command line, then counts what the log and the history say:

- ``start``: N processes run ``run start``; exactly one run may be open;
- ``close``: a run is open and N processes close it; exactly one
  ``run.finished`` and one boundary commit per ``Run-Id``, and every
  process reports the run closed (exit 0);
- ``append``: a run is open and N processes record an observation while
  one of them closes the run; no event lands after the run's finish.

``python benchmarks/races.py --rounds 50 --procs 8`` is the soak (a few
minutes on 2 cores); tests/test_races.py runs a few rounds of each in CI.
Prints one line per kind: rounds run, doubles found (the expected count is 0).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import NamedTuple

WORKER = "worker-race"


class Outcome(NamedTuple):
    ok: int  # processes that succeeded
    refused: int  # processes refused with a one-line error
    doubles: int  # runs open at once beyond one, finishes or commits beyond one


def _events(root: str) -> list[dict[str, object]]:
    with open(os.path.join(root, "state/events.jsonl"), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _run_ids(root: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", root, "log", "--format=%(trailers:key=Run-Id,valueonly)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def doubles(root: str) -> int:
    """Runs finished twice, runs committed twice, and runs open beyond one."""
    events = _events(root)
    started = [e["payload"]["run_id"] for e in events if e["kind"] == "run.started"]  # type: ignore[index]
    finished = [e["payload"]["run_id"] for e in events if e["kind"] == "run.finished"]  # type: ignore[index]
    commits = _run_ids(root)
    extra = len(finished) - len(set(finished)) + len(commits) - len(set(commits))
    extra += len(_after_finish(events))
    still_open = len(set(started) - set(finished))
    return extra + max(0, still_open - 1)


def _after_finish(events: list[dict[str, object]]) -> list[dict[str, object]]:
    """Events chained into a run after its ``run.finished`` (its ops pair aside)."""
    done: dict[object, object] = {}
    late = []
    for event in events:
        run = event.get("correlation_id")
        if run in done and event.get("causation_id") != done[run]:
            late.append(event)
        if event["kind"] == "run.finished":
            done[run] = event["id"]
    return late


def _api(action: str, root: str, barrier: object, results: object) -> None:
    from git_gasp.agent.api import Agent
    from git_gasp.agent.runs import close_run
    from git_gasp.errors import GaspError

    barrier.wait()  # type: ignore[attr-defined]
    try:
        with Agent.open(root, worker=WORKER) as agent:
            if action == "start":
                agent.start_run("race")
            elif action == "close":
                close_run(agent, "raced")
            else:
                agent.record_observation(None, "raced", "an observation")
        results.put("ok")  # type: ignore[attr-defined]
    except GaspError as exc:
        results.put(f"refused: {exc.message}")  # type: ignore[attr-defined]


def _cli(action: str, root: str) -> list[str]:
    args = {
        "start": ["run", "start", "--task", "race"],
        "close": ["run", "close", "--outcome", "raced"],
        "append": ["record", "observation", "--title", "raced"],
    }[action]
    return [sys.executable, "-m", "git_gasp", *args, "-C", root, "--worker", WORKER]


def race(root: str, actions: list[str], via: str = "api") -> Outcome:
    """Run ``actions`` (one process each) at once on ``root``."""
    if via == "cli":
        procs = [subprocess.Popen(_cli(a, root), stderr=subprocess.PIPE) for a in actions]
        codes = [(p.wait(), p.stderr.read() if p.stderr else b"") for p in procs]
        for proc in procs:
            if proc.stderr:
                proc.stderr.close()
        for _code, err in codes:
            assert b"Traceback" not in err, err
        ok = sum(1 for code, _ in codes if code == 0)
        return Outcome(ok, len(codes) - ok, doubles(root))
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(len(actions)), ctx.Queue()
    children = [ctx.Process(target=_api, args=(a, root, barrier, results)) for a in actions]
    for child in children:
        child.start()
    said = [results.get(timeout=120) for _ in children]
    for child in children:
        child.join()
    ok = said.count("ok")
    return Outcome(ok, len(said) - ok, doubles(root))


def new_repo(base: str, name: str) -> str:
    from git_gasp.agent.init import init_repo

    root = os.path.join(base, name)
    init_repo(root, "racer")
    return root


def open_run(root: str) -> None:
    from git_gasp.agent.api import Agent

    with Agent.open(root, worker=WORKER) as agent:
        agent.start_run("the run the racers share")


def soak(rounds: int, procs: int, via: str, say: Callable[[str], None]) -> int:
    """``rounds`` rounds of each kind; the doubles found in all of them."""
    found = 0
    with tempfile.TemporaryDirectory() as base:
        for kind in ("start", "close", "append"):
            seen = 0
            for n in range(rounds):
                root = new_repo(base, f"{kind}-{n}")
                if kind != "start":
                    open_run(root)
                actions = [kind] * procs
                if kind == "append":
                    actions[-1] = "close"
                seen += race(root, actions, via).doubles
            say(f"{kind}: {rounds} rounds of {procs} processes ({via}), doubles found: {seen}")
            found += seen
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--via", choices=("api", "cli"), default="api")
    opts = parser.parse_args(argv)
    return 1 if soak(opts.rounds, opts.procs, opts.via, print) else 0


if __name__ == "__main__":
    sys.exit(main())
