"""Whole generated logs: a history's runs, sized to a number of events and bytes.

:func:`iter_runs` is the one sequence of runs every generated history and log
is made of (the first run starts with the goal pair); :func:`log_text` joins
them in memory, :func:`write_log` streams them to a file.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

from agentsim import AgentSim, RunRecord

EVENT_BYTES = 500  # the average event size the generator aims for


def _pair_counts(rng: random.Random, runs: int, events: int, goal: bool) -> list[int]:
    """Pairs per run: ``events`` in all (a goal pair first if ``goal``), each
    run at least three pairs, varying from run to run."""
    pairs = events // 2 - (1 if goal else 0)
    if runs < 1 or pairs < 3 * runs:
        raise ValueError(f"{events} events are too few for {runs} runs (>= 6 per run)")
    base, extra = divmod(pairs, runs)
    counts = [base] * runs
    for i in rng.sample(range(runs), extra):
        counts[i] += 1
    for _ in range(runs):  # move pairs between runs: some runs are long, some short
        a, b = rng.randrange(runs), rng.randrange(runs)
        if counts[a] > 3 and counts[b] < 3 * base:
            counts[a] -= 1
            counts[b] += 1
    return counts


def iter_runs(seed: int, runs: int, events: int, target_bytes: int) -> Iterator[RunRecord]:
    """The runs of a generated history; their logs total ``events`` events and
    about ``target_bytes`` bytes (the first run starts with the goal pair)."""
    rng = random.Random(f"git-gasp-bench:{seed}")
    sim = AgentSim(rng)
    counts = _pair_counts(rng, runs, events, goal=True)
    written, remaining = 0, events
    for i, pairs in enumerate(counts):
        n = 2 * pairs + (2 if i == 0 else 0)
        target = (target_bytes - written) * n // remaining
        record = sim.run(pairs, target, with_goal=i == 0)
        written += len(record.log.encode("utf-8"))
        remaining -= record.events
        yield record


def default_events(commits: int, target_log_bytes: int) -> int:
    """About ``EVENT_BYTES`` per event, at least six events per run, even."""
    return max(6 * commits + 2, round(target_log_bytes / EVENT_BYTES / 2) * 2)


def default_runs(events: int) -> int:
    """Runs for a log-only history: ~13 events per run, as in the 600-commit repo."""
    return max(1, round(events * 600 / 8000))


def log_text(
    events: int = 8000, target_bytes: int = 4_000_000, seed: int = 1, runs: int | None = None
) -> str:
    """A whole log as one string (for in-process parse/fold timings)."""
    runs = runs or default_runs(events)
    return "".join(r.log for r in iter_runs(seed, runs, events, target_bytes))


def write_log(
    path: str | os.PathLike[str],
    events: int,
    target_bytes: int | None = None,
    seed: int = 1,
    runs: int | None = None,
) -> int:
    """Stream a log to ``path`` run by run; returns its size in bytes."""
    target_bytes = target_bytes or events * EVENT_BYTES
    runs = runs or default_runs(events)
    size = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for record in iter_runs(seed, runs, events, target_bytes):
            fh.write(record.log)
            size += len(record.log.encode("utf-8"))
    return size
