"""Rows g, g' and g'' of the benchmarks: ``git gasp restore``.

g   ``git gasp restore BARE DIR --json`` as a whole process, from a local
    bare clone of the 600-commit history with a snapshot at 90 % committed;
g'  its fold part in-process (``seededfold.fold_log``), seeded by the
    snapshot vs a full fold (the snapshot moved aside), interleaved;
g'' the same ratio with each fold in a fresh process, as restore runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import TARGETS, Row, fmt_s, git_env, summarize, verdict

_FRESH_PROBE = (
    "import sys, time\n"
    "from git_gasp.restore.seededfold import fold_log\n"
    "t = time.perf_counter()\n"
    "fold_log(sys.argv[1], 'state/events.jsonl', None)\n"
    "print(time.perf_counter() - t)\n"
)


def _source_with_snapshot(repo: Path, source: Path, bare: Path) -> tuple[int, str]:
    """A clone of ``repo`` with a snapshot at 90 % of its log committed, and
    a bare clone of that; returns the log's events and the snapshot."""
    from git_gasp.agent.projecting import write_snapshot
    from git_gasp.core.log import parse_log

    subprocess.run(["git", "clone", "-q", str(repo), str(source)], check=True, env=git_env())
    shutil.rmtree(source / "snapshots", ignore_errors=True)
    events = parse_log((source / "state" / "events.jsonl").read_bytes()).events
    n_events = len(events)
    snapshot = write_snapshot(str(source), events[n_events * 9 // 10 - 1].id)
    del events  # not held while timing: restore's process does not hold them either
    subprocess.run(["git", "-C", str(source), "add", "-A"], check=True, env=git_env())
    subprocess.run(
        [
            "git",
            "-C",
            str(source),
            "-c",
            "user.name=bench",
            "-c",
            "user.email=b@b",
            "commit",
            "-q",
            "-m",
            "snapshot at 90%",
        ],
        check=True,
        env=git_env(),
    )
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(source), str(bare)], check=True, env=git_env()
    )
    return n_events, snapshot


def _time_restores(bare: Path, work: Path, repeats: int) -> tuple[list[float], dict[str, Any]]:
    """One warm-up and ``repeats`` timed restores; the last restore's report."""
    times = []
    for i in range(repeats + 1):
        dest = work / f"restored-{os.getpid()}-{i}"
        t0 = time.perf_counter()
        proc = subprocess.run(
            ["git", "gasp", "restore", str(bare), str(dest), "--json"],
            capture_output=True,
            env=git_env(),
        )
        took = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"restore failed:\n{proc.stderr.decode(errors='replace')}")
        report = json.loads(proc.stdout)
        if i:
            times.append(took)
        shutil.rmtree(dest, ignore_errors=True)
    return times, report


def _interleaved(
    source: Path, aside: Path, pairs: int, measure: Callable[[], float]
) -> tuple[list[float], list[float]]:
    """Seeded and full folds interleaved, so that whatever else the machine
    does weighs on both alike; the snapshot is moved aside for a full one."""
    seeded_times, full_times = [], []
    for _ in range(pairs):
        seeded_times.append(measure())
        shutil.move(str(source / "snapshots"), str(aside))
        full_times.append(measure())
        shutil.move(str(aside), str(source / "snapshots"))
    return seeded_times, full_times


def bench_restore(repo: Path, work: Path, repeats: int) -> tuple[list[Row], dict[str, Any]]:
    """Row g: `git gasp restore` from a local bare remote of the 600-commit history,
    with a snapshot at 90 % of the log; g': the fold part, seeded vs full."""
    from git_gasp.restore.seededfold import fold_log

    source = work / f"restore-src-{os.getpid()}"
    bare = work / f"restore-bare-{os.getpid()}.git"
    try:
        n_events, snapshot = _source_with_snapshot(repo, source, bare)
        times, report = _time_restores(bare, work, repeats)

        def timed(fn: Any) -> float:
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0

        log_rel = "state/events.jsonl"
        aside = work / f"snapshots-aside-{os.getpid()}"
        seeded_times, full_times = _interleaved(
            source, aside, 11, lambda: timed(lambda: fold_log(str(source), log_rel, None))
        )
        seeded = statistics.median(seeded_times)
        full = statistics.median(full_times)

        # and each fold in a fresh process, as a restore runs it once: cold
        # caches, and every page of its memory faulted in anew
        def fresh() -> float:
            cmd = [sys.executable, "-c", _FRESH_PROBE, str(source)]
            return float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)

        fresh_seeded_times, fresh_full_times = _interleaved(source, aside, 7, fresh)
        fresh_seeded = statistics.median(fresh_seeded_times)
        fresh_full = statistics.median(fresh_full_times)
    finally:
        shutil.rmtree(source, ignore_errors=True)
        shutil.rmtree(bare, ignore_errors=True)
    s = summarize(times)
    rows = _rows(n_events, s["median"], (seeded, full), (fresh_seeded, fresh_full))
    seed = report.get("fold", {})
    return rows, {
        "restore": s,
        "seeded_fold": seeded,
        "full_fold": full,
        "fresh_process": {"seeded_fold": fresh_seeded_times, "full_fold": fresh_full_times},
        "snapshot": snapshot,
        "seeded_from": seed.get("snapshot") if isinstance(seed, dict) else None,
    }


def _rows(
    n_events: int,
    median: float,
    in_process: tuple[float, float],
    fresh: tuple[float, float],
) -> list[Row]:
    (seeded, full), (fresh_seeded, fresh_full) = in_process, fresh
    ratio = seeded / full
    return [
        Row(
            "g",
            f"git gasp restore, 600 commits / {n_events:,} events, local bare remote",
            f"<= {fmt_s(TARGETS['g'])}",
            fmt_s(median),
            "-",
            "-",
            verdict(median <= TARGETS["g"]),
        ),
        Row(
            "g'",
            "  its fold part, seeded by a snapshot at 90 % vs a full fold",
            f"<= {TARGETS['g_ratio']:.2f}x",
            fmt_s(seeded),
            fmt_s(full),
            f"{ratio:.2f}x",
            verdict(ratio <= TARGETS["g_ratio"]),
        ),
        Row(
            "g''",
            "  the same, each fold in a fresh process (as restore runs it)",
            f"<= {TARGETS['g_ratio']:.2f}x",
            fmt_s(fresh_seeded),
            fmt_s(fresh_full),
            f"{fresh_seeded / fresh_full:.2f}x",
            verdict(fresh_seeded / fresh_full <= TARGETS["g_ratio"]),
        ),
    ]
