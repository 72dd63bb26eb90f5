"""Rows f and f' of the benchmarks: ``git gasp run close``.

f   ``git gasp run close`` as a whole process on a clone of the 600-run
    history with the cadence snapshots committed; f' the same close on a
    10-run history of the same density, the ratio of the two. Also where one
    close's time goes (an instrumented close in a fresh process) and, on the
    large history, a cProfile of one more close.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import generate as gen
from harness import (
    TARGETS,
    Row,
    clone_repo,
    close_env,
    fmt_s,
    setup_round,
    summarize,
    verdict,
    verify_conformant,
)

_CLOSE_PHASES_SCRIPT = r"""
import json, sys, time
T0 = time.perf_counter()
from git_gasp.agent import api as agent
from git_gasp.agent import eventlog
from git_gasp.cli import root as cli
from git_gasp import git as gitrepo
from git_gasp.store import lease
from git_gasp.agent import projecting
from git_gasp.agent import runs
from git_gasp.store import seeding
T1 = time.perf_counter()
stats = {}

def wrap(owner, name, label):
    fn = getattr(owner, name)
    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            took = time.perf_counter() - t
            keys = [label]
            if label == "git":  # also per subcommand: gitrepo.run(cwd, [subcommand, ...])
                keys.append("git " + str((args[1] if len(args) > 1 else kwargs["args"])[0]))
            for key in keys:
                s = stats.setdefault(key, [0, 0.0])
                s[0] += 1
                s[1] += took
    setattr(owner, name, timed)

for owner, name, label in (
    (agent.Agent, "__init__", "open"),
    (eventlog.EventLog, "_sync", "sync"),
    (seeding, "choose", "seed"),
    (eventlog, "parse_log", "parse_log"),
    (projecting, "parse_log", "parse_log"),
    (agent.Agent, "events", "events"),
    (runs, "close_run", "close_run"),
    (agent.Agent, "finish_run", "finish_run"),
    (projecting, "append_journal", "journal"),
    (projecting, "regenerate_memory", "memory"),
    (projecting, "snapshot_due", "snapshot_due"),
    (projecting, "write_snapshot", "write_snapshot"),
    (runs, "boundary_commit", "commit"),
    (gitrepo, "run", "git"),
    (lease.Lease, "acquire", "lease"),
    (lease.Lease, "release", "lease"),
):
    if hasattr(owner, name):
        wrap(owner, name, label)
code = cli.main(["run", "close", "--outcome", sys.argv[1]])
T2 = time.perf_counter()
print(json.dumps({"code": code, "imports": T1 - T0, "main": T2 - T1, "phases": stats}))
"""


_CLOSE_PROFILE_SCRIPT = r"""
import cProfile, sys
from git_gasp.cli import root as cli
cProfile.run("cli.main(['run', 'close', '--outcome', sys.argv[2]])", sys.argv[1])
"""


# (label, key in the phase script's stats, indent) for the notes
CLOSE_PHASES = (
    ("Agent.open (read the log, seed, fold the rest, marker)", "open", 0),
    ("of which seeding.choose (locate + hash the prefix, load the snapshot)", "seed", 1),
    ("of which EventLog._sync (parse + fold)", "sync", 1),
    ("close_run", "close_run", 0),
    ("finish_run (run.finished pair appended)", "finish_run", 1),
    ("append_journal", "journal", 1),
    ("regenerate_memory", "memory", 1),
    ("snapshot_due (snapshot names only)", "snapshot_due", 1),
    ("write_snapshot", "write_snapshot", 1),
    ("boundary_commit (ls-files, add -N if new files, commit, rev-parse)", "commit", 1),
    ("git processes (all)", "git", 0),
    ("lease acquire/release (all)", "lease", 0),
    ("parse_log calls (all)", "parse_log", 0),
    ("Agent.events() calls (all)", "events", 0),
)


def write_cadence_snapshots(root: Path) -> list[str]:
    """Snapshots where ``git gasp run close`` would have taken them while the
    history was written (every ``[gasp] snapshot_every`` events, at the end of
    the run that crosses the mark), committed with ordinary ``git commit``."""
    from git_gasp.agent import projecting
    from git_gasp.core.log import parse_log

    every = projecting.snapshot_every(str(root))
    events = parse_log((root / "state" / "events.jsonl").read_bytes()).events
    starts = [i for i, e in enumerate(events) if e.kind == "run.started"]
    ends = [i - 1 for i in starts[1:]] + [len(events) - 1]
    written, latest = [], 0
    for end in ends:
        if every > 0 and end + 1 - latest >= every:
            written.append(projecting.write_snapshot(str(root), at=events[end].id))
            latest = end + 1
    if written:
        gen._git(root, "add", "--", "snapshots")
        gen._git(root, "commit", "-q", "--no-verify", "-m", "snapshots on cadence")
    return written


def timed_close(clone: Path, env: dict[str, str], label: str) -> float:
    head = gen._git(clone, "rev-parse", "HEAD")
    t0 = time.perf_counter()
    proc = subprocess.run(
        ["git", "gasp", "run", "close", "--outcome", f"benchmark {label}"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    took = time.perf_counter() - t0
    if proc.returncode != 0 or gen._git(clone, "rev-parse", "HEAD") == head:
        raise RuntimeError(
            f"git gasp run close exited {proc.returncode} or made no commit:\n"
            f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}"
        )
    return took


def close_phases(clone: Path, env: dict[str, str]) -> dict[str, Any]:
    """One more round, its close instrumented in a fresh process."""
    setup_round(clone, env, "instrumented round")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CLOSE_PHASES_SCRIPT, "benchmark instrumented round"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"instrumented close failed:\n{proc.stderr.decode(errors='replace')}")
    out: dict[str, Any] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    out["wall"] = wall
    out["startup"] = wall - out["imports"] - out["main"]
    return out


def close_profile(clone: Path, env: dict[str, str], work: Path) -> dict[str, Any]:
    """One more round, its close under cProfile: where the time goes."""
    import pstats

    setup_round(clone, env, "profiled round")
    prof = work / f"close-{os.getpid()}.prof"
    proc = subprocess.run(
        [sys.executable, "-c", _CLOSE_PROFILE_SCRIPT, str(prof), "benchmark profiled round"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"profiled close failed:\n{proc.stderr.decode(errors='replace')}")
    stats = pstats.Stats(str(prof))
    prof.unlink()
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = stats.total_tt  # type: ignore[attr-defined]
    entries = []
    for (file, line, name), (_cc, ncalls, tottime, cumtime, _callers) in raw.items():
        short = f"{file.split('/git_gasp/')[-1]}:{line}({name})" if "/git_gasp/" in file else name
        entries.append((short, "/git_gasp/" in file, ncalls, tottime, cumtime))
    ours = sorted((e for e in entries if e[1]), key=lambda e: -e[4])
    own = sorted(entries, key=lambda e: -e[3])

    def as_dicts(rows: list[Any]) -> list[dict[str, Any]]:
        return [
            {"function": f, "ncalls": n, "tottime": round(t, 4), "cumtime": round(c, 4)}
            for f, _, n, t, c in rows
        ]

    return {"total": total, "by_cumtime": as_dicts(ours[:12]), "by_tottime": as_dicts(own[:8])}


class CloseClone(NamedTuple):
    clone: Path
    runs: int
    snapshots: int
    log_bytes: int
    log_events: int


def close_clone(repo: Path, work: Path, env: dict[str, str]) -> CloseClone:
    """A clone of ``repo`` with the cadence snapshots committed."""
    clone = clone_repo(repo, work / f"close-{repo.name}-{os.getpid()}")
    runs = int(gen._git(clone, "rev-list", "--count", "HEAD"))  # one commit per run
    snapshots = write_cadence_snapshots(clone)
    log_path = clone / "state" / "events.jsonl"
    data = log_path.read_bytes()
    return CloseClone(clone, runs, len(snapshots), len(data), data.count(b"\n"))


def close_histories(
    repos: tuple[Path, Path], work: Path, rounds: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The close on both histories, their rounds interleaved (small, large,
    small, ...) so that whatever else the machine does weighs on both alike.
    Each: one warm-up round (the first close writes memory/active_memory.md
    and the compressed-log cache), then ``rounds`` timed rounds, then one
    instrumented round; the large one is also profiled."""
    env = close_env(work)
    clones = [close_clone(repo, work, env) for repo in repos]
    try:
        firsts = []
        for c in clones:
            setup_round(c.clone, env, "warm-up round")
            firsts.append(timed_close(c.clone, env, "warm-up round"))
        times: list[list[float]] = [[], []]
        loads: list[list[float]] = [[], []]
        for i in range(rounds):
            for k, c in enumerate(clones):
                setup_round(c.clone, env, f"round {i + 1}")
                loads[k].append(os.getloadavg()[0])
                times[k].append(timed_close(c.clone, env, f"round {i + 1}"))
        out = []
        for k, c in enumerate(clones):
            phases = close_phases(c.clone, env)
            prof = close_profile(c.clone, env, work) if k == 1 else None
            verify_conformant(c.clone)
            out.append(
                {
                    **summarize(times[k]),
                    "runs_timed": rounds,
                    "first_close": firsts[k],
                    "runs": c.runs,
                    "log_bytes": c.log_bytes,
                    "log_events": c.log_events,
                    "snapshots": c.snapshots,
                    "loadavg": loads[k],
                    "phases": phases,
                    "profile": prof,
                }
            )
    finally:
        for c in clones:
            shutil.rmtree(c.clone, ignore_errors=True)
    return out[0], out[1]


def bench_close(
    small: Path, large: Path, work: Path, rounds: int
) -> tuple[list[Row], dict[str, Any]]:
    s, big = close_histories((small, large), work, rounds)
    ratio = big["median"] / s["median"]
    ok_wall = big["median"] <= TARGETS["f"]
    ok_ratio = ratio <= TARGETS["f_ratio"]
    rows = [
        Row(
            "f",
            f"git gasp run close, {big['runs']}-run history (whole process)",
            f"<= {fmt_s(TARGETS['f'])}",
            fmt_s(big["median"]),
            "-",
            "-",
            verdict(ok_wall),
        ),
        Row(
            "f'",
            f"  vs the same close on a {s['runs']}-run history",
            f"<= {TARGETS['f_ratio']:.1f}x",
            fmt_s(big["median"]),
            fmt_s(s["median"]),
            f"{ratio:.2f}x",
            verdict(ok_ratio),
        ),
    ]
    return rows, {"small": s, "large": big, "ratio": ratio}
