"""A real-shaped agent history for the read-side tests: 600 generated runs
(the benchmark generator's agent, ``benchmarks/agentsim.py`` and
``logs.py``, imported, never edited), one boundary
commit each, then two runs recorded through the API that carry one whole
self-evolution arc across them:

    patch_first -validated_by-> eval_first (Failed), -rejected_by-> decision (Rejected);
    eval_first -observes-> failure_limit; patch_fix -addresses-> failure_limit,
    -supersedes-> patch_first, -validated_by-> eval_fix (Passed),
    -approved_by-> decision (Approved); patch_fix is Promoted.

The generated part is written with one ``git fast-import`` in which each
commit carries only its run's message (so building it takes a second); the
log, memory and journal land whole in the last generated commit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from git_gasp.agent.api import Agent
from git_gasp.agent.runs import close_run

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import repofiles  # noqa: E402
from agentsim import RunRecord  # noqa: E402
from logs import iter_runs  # noqa: E402

RUNS = 600
EVENTS = 16_000
ARC = {
    "first": "patch_first",
    "eval_first": "eval_first",
    "failure": "failure_limit",
    "fix": "patch_fix",
    "eval_fix": "eval_fix",
}


def _fast_import(dest: Path, records: list[RunRecord]) -> None:
    files = {
        "state/events.jsonl": "".join(r.log for r in records).encode(),
        "memory/facts.jsonl": "".join(r.fact for r in records).encode(),
        "journal/JOURNAL.md": (
            repofiles.JOURNAL_HEADER + "".join(r.journal for r in records)
        ).encode(),
        **repofiles.static_files(),
    }
    stream = bytearray()
    for i, record in enumerate(records):
        msg = repofiles.commit_message(record.run_id, record.goal_id, record.outcome).encode()
        when = f"{record.ts_ms // 1000} +0000".encode()
        who = repofiles.COMMITTER.encode()
        stream += b"commit refs/heads/main\nauthor %s %s\ncommitter %s %s\n" % (
            who,
            when,
            who,
            when,
        )
        stream += b"data %d\n%s\n" % (len(msg), msg)
        if i == len(records) - 1:
            for path, data in files.items():
                stream += b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data)
        stream += b"\n"
    stream += b"done\n"
    env = {**os.environ, **repofiles.GIT_ENV}
    cmd = ["git", "-C", str(dest), "fast-import", "--quiet", "--done"]
    subprocess.run(cmd, input=bytes(stream), check=True, env=env, capture_output=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "-f", "main"], check=True, env=env)


def _arc(repo: Path, goal: str, after_ms: int) -> None:
    """The two arc runs, their events stamped minutes after ``after_ms`` (the
    generated runs' last event) so the history reads as one."""
    ticks = iter(range(after_ms + 600_000, after_ms + 10**9, 30_000))
    clocks = [m for name, m in sorted(sys.modules.items()) if name.startswith("git_gasp.agent.")]
    clocks = [m for m in clocks if hasattr(m, "now_ms")]  # the modules that stamp events
    saved = (
        [m.now_ms for m in clocks],
        {k: os.environ.get(k) for k in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")},
    )
    for module in clocks:
        module.now_ms = lambda: next(ticks)
    when = f"{after_ms // 1000 + 3600} +0000"  # the commits too: git log --since walks by date
    os.environ.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    try:
        _record_arc(repo, goal)
    finally:
        for module, clock in zip(clocks, saved[0], strict=True):
            module.now_ms = clock
        for key, value in saved[1].items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _record_arc(repo: Path, goal: str) -> None:
    with Agent.open(str(repo), worker="w") as agent:
        agent.start_run("halve the retry backoff", goal=goal)
        seen = agent.record_failure(None, "retries lose the counter", "counter is 0 after timeout")
        first = agent.propose_patch(
            ARC["first"], "halve the retry backoff", "wait 50 ms", evidence=[seen]
        )
        agent.link(first, "advances", goal)
        failed = agent.record_eval(ARC["eval_first"], "pytest -q", "Failed", 0.2, patch=first)
        agent.record_decision(None, "Rejected", "eval failed: rate limited", target=first)
        agent.update_patch_status(first, "Rejected", f"failed {failed}")
        limit = agent.record_failure(ARC["failure"], "upstream rate-limits fast retries")
        agent.link(failed, "observes", limit)
        close_run(agent, "rejected", goal=goal)

        agent.start_run("back off with jitter", goal=goal)
        fix = agent.propose_patch(
            ARC["fix"], "back off with jitter", "exponential backoff", evidence=[limit]
        )
        agent.link(fix, "supersedes", first)
        agent.link(fix, "advances", goal)
        passed = agent.record_eval(ARC["eval_fix"], "pytest -q", "Passed", 1.0, patch=fix)
        agent.record_decision(None, "Approved", "eval passed", target=fix)
        agent.update_patch_status(fix, "Promoted", f"validated by {passed}")
        close_run(agent, "promoted", goal=goal)


def build(dest: Path, seed: int = 18) -> Path:
    """The history at ``dest`` (created); returns it."""
    dest.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)
    records = list(iter_runs(seed, RUNS, EVENTS, EVENTS * 160))
    _fast_import(dest, records)
    _arc(dest, records[0].goal_id, records[-1].ts_ms)
    return dest
