"""Rows r, r' and s of the benchmarks: ``git gasp check`` and a push on a
history shaped like the real one (issue 17 items 5 and 6).

The history (``generate.generate(..., social=True)``): 639 run commits, the log
growing to ~4 MB, ``memory/facts.jsonl``, a second facts file that AGENT.md's
Locations table names (``memory/social_facts.jsonl``) and the journal, all
appended every commit.

r   ``git gasp check --no-cache`` (all seven checks, cold) as a whole process,
    against the floor measured in the same rounds: one ``git log --raw`` over
    check 4's paths, then one ``git cat-file --batch`` of every version of them
    (every byte read into this process). Target: <= 1.3x the floor.
r'  ``git gasp check`` after one more run commit, warm cache. Target <= 0.3 s.
s   ``git push`` of the whole history to an empty server with the hook,
    against the same push to one without it. Target: hooked <= 1.3x plain.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import generate as gen
from check_rows import CHECK4_PATHS
from harness import (
    Row,
    bare_server,
    check_cmd,
    close_env,
    fmt_s,
    log,
    run_timed,
    verdict,
    verify_conformant,
)

TARGET_R = 1.3  # x the floor
TARGET_R_WARM = 0.3  # seconds
TARGET_S = 1.3  # x the unhooked push


def _check4_paths(repo: Path) -> list[str]:
    listed = gen._git(repo, "ls-files", "--", "facts.jsonl", "*/facts.jsonl").split("\n")
    return sorted(set(CHECK4_PATHS) | {p for p in listed if p})


def floor(repo: Path) -> tuple[float, int, int]:
    """One ``git log --raw`` over check 4's paths and one ``cat-file --batch``
    of every version it names, every byte read here: (seconds, versions, bytes)."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "log",
            "--raw",
            "--no-abbrev",
            "--format=",
            "--",
            *_check4_paths(repo),
        ],
        capture_output=True,
        check=True,
    ).stdout
    oids = list(dict.fromkeys(line.split()[3] for line in out.split(b"\n") if line[:1] == b":"))
    oids = [o for o in oids if o.strip(b"0")]
    proc = subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    feed = b"".join(o + b"\n" for o in oids)

    def write() -> None:
        assert proc.stdin is not None
        proc.stdin.write(feed)
        proc.stdin.close()

    writer = threading.Thread(target=write)
    writer.start()
    buf = bytearray(1 << 20)
    total = 0
    while n := proc.stdout.readinto(buf):
        total += n
    writer.join()
    if proc.wait() != 0:
        raise RuntimeError("git cat-file --batch failed")
    return time.perf_counter() - t0, len(oids), total


def _cpu() -> float:
    """CPU seconds (user + system) of every child process waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


_run = run_timed  # wall and CPU seconds of a command that must succeed


def _time_check(
    env: dict[str, str], repo: Path, *flags: str, cpu: list[float] | None = None
) -> float:
    """One ``git gasp check`` with bytecode cached (:func:`harness.close_env`),
    as an installed package runs."""
    took, used = _run(check_cmd(repo, *flags), None, env)
    if cpu is not None:
        cpu.append(used)
    return took


def _self_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def bench_check(real: Path, work: Path, rounds: int, seed: int) -> tuple[list[Row], dict[str, Any]]:
    """Rows r and r': the cold check and the floor alternating, one warm-up of each."""
    env = close_env(work)
    verify_conformant(real)
    floor(real)
    _time_check(env, real, "--no-cache")
    ours, floors = [], []
    loads: list[float] = []
    cpu: list[float] = []
    floor_cpu: list[float] = []
    for _ in range(rounds):
        ours.append(_time_check(env, real, "--no-cache", cpu=cpu))
        before = _cpu() + _self_cpu()
        took, versions, size = floor(real)
        floor_cpu.append(_cpu() + _self_cpu() - before)
        floors.append(took)
        loads.append(os.getloadavg()[0])
    o, f = statistics.median(ours), statistics.median(floors)
    log(f"check --no-cache {fmt_s(o)}, floor {fmt_s(f)}; warm check ...")
    warm_cpu: list[float] = []
    warm = _warm(env, real, work, rounds, seed, warm_cpu)
    w = statistics.median(warm)
    rows = [
        Row(
            "r",
            "git gasp check --no-cache, real-shaped history",
            f"<= {TARGET_R:.1f}x floor",
            fmt_s(o),
            f"{fmt_s(f)} (floor)",
            f"{o / f:.2f}x",
            verdict(o / f <= TARGET_R),
        ),
        Row(
            "r'",
            "  git gasp check after +1 run commit, warm cache",
            f"<= {fmt_s(TARGET_R_WARM)}",
            fmt_s(w),
            "-",
            "-",
            verdict(w <= TARGET_R_WARM),
        ),
    ]
    detail = {
        "check": [round(t, 3) for t in ours],
        "floor": [round(t, 3) for t in floors],
        "check_cpu": [round(t, 3) for t in cpu],
        "floor_cpu": [round(t, 3) for t in floor_cpu],
        "floor_versions": versions,
        "floor_bytes": size,
        "warm": [round(t, 3) for t in warm],
        "warm_cpu": [round(t, 3) for t in warm_cpu],
        "loadavg": loads,
    }
    return rows, detail


def _warm(
    env: dict[str, str], real: Path, work: Path, rounds: int, seed: int, cpu: list[float]
) -> list[float]:
    clone = work / f"real-warm-{os.getpid()}"
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(real), str(clone)], check=True)
    try:
        _time_check(env, clone)  # fills the cache
        times = []
        for _ in range(rounds):
            gen.append_run(clone, seed=seed)
            times.append(_time_check(env, clone, cpu=cpu))
        verify_conformant(clone)
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    return times


def bench_push(real: Path, work: Path, rounds: int) -> tuple[Row, dict[str, Any]]:
    """Row s: the whole history to an empty server, hooked and not, alternating."""
    env = close_env(work)
    hooked, plain = [], []
    cpu: dict[bool, list[float]] = {True: [], False: []}
    for n in range(rounds + 1):  # the first round warms both (bytecode, page cache)
        for is_hooked, times in ((True, hooked), (False, plain)):
            server = bare_server(work / f"real-push-{'h' if is_hooked else 'p'}", is_hooked, env)
            cmd = ["git", "push", "-q", str(server), "HEAD:refs/heads/main"]
            took, used = _run(cmd, real, env)
            if n:
                times.append(took)
                cpu[is_hooked].append(used)
    for name in ("real-push-h", "real-push-p"):
        shutil.rmtree(work / name, ignore_errors=True)
    h, p = statistics.median(hooked), statistics.median(plain)
    row = Row(
        "s",
        "push of the whole real-shaped history to an empty hooked server",
        f"<= {TARGET_S:.1f}x plain",
        fmt_s(h),
        f"{fmt_s(p)} (push, no hook)",
        f"{h / p:.2f}x",
        verdict(h / p <= TARGET_S),
    )
    detail = {
        "hooked": [round(t, 3) for t in hooked],
        "plain": [round(t, 3) for t in plain],
        "hooked_cpu": [round(t, 3) for t in cpu[True]],
        "plain_cpu": [round(t, 3) for t in cpu[False]],
        "loadavg": os.getloadavg()[0],
    }
    return row, detail
