"""Rows e and e' of the benchmarks: record throughput of the Agent API.

e   helper calls per second inside a run on the 600-run log, in this
    process: each call one batch (the domain event and its
    ``state.ops_applied`` pair) appended under the lock and fsynced;
e'  the same with ``os.fsync`` patched to a no-op (informational: not
    durable), rounds alternating with e's. Notes give the file system and the
    I/O pressure, since fsync costs depend on both.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from agentsim import AgentSim
from harness import WORKER, Row, clone_repo


def io_pressure() -> float | None:
    """Linux PSI ``some avg10`` for I/O (% of time tasks waited on I/O): other
    helpers' fsyncs slow row e far more than the load average shows."""
    try:
        with open("/proc/pressure/io", encoding="utf-8") as fh:
            first = fh.readline().split()
        return float(dict(f.split("=") for f in first[1:])["avg10"])
    except (OSError, ValueError, KeyError, IndexError):
        return None


def fs_type(path: Path) -> str:
    """The file system ``path`` lives on (fsync costs depend on it), from /proc/mounts."""
    real = os.path.realpath(path)
    best, kind = "", "unknown"
    try:
        with open("/proc/self/mounts", encoding="utf-8") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) < 3:
                    continue
                mount = fields[1].replace("\\040", " ")
                inside = real == mount or real.startswith(mount.rstrip("/") + "/")
                if inside and len(mount) > len(best):
                    best, kind = mount, f"{fields[2]} ({fields[0]} on {mount})"
    except OSError:
        pass
    return kind


class _Fsyncs:
    """``os.fsync`` replacements for the rounds: one that counts the calls and
    their callers and syncs, one that only counts (not durable)."""

    def __init__(self) -> None:
        self.real = os.fsync
        self.count = [0]
        self.callers: dict[str, int] = {}  # who fsyncs, in the durable rounds
        fsyncs, callers, real_fsync = self.count, self.callers, self.real

        def counting_fsync(fd: Any) -> None:
            fsyncs[0] += 1
            code = sys._getframe(1).f_code
            where = f"{os.path.basename(code.co_filename)}:{code.co_qualname}"
            callers[where] = callers.get(where, 0) + 1
            real_fsync(fd)

        def no_fsync(fd: Any) -> None:
            fsyncs[0] += 1

        self.modes = (("durable", counting_fsync), ("no_fsync", no_fsync))


def _timed_rounds(
    agent: Any, batch: Any, batches: int, rounds: int, fs: _Fsyncs
) -> dict[str, dict[str, list[float]]]:
    """``rounds`` x (durable, no-fsync) rounds of ``batches`` calls; per round
    its seconds, fsyncs per batch and the share of time renewing the lease."""
    lease_s = [0.0]
    acquire = agent.lease.acquire

    def timed_acquire() -> None:
        t = time.perf_counter()
        acquire()
        lease_s[0] += time.perf_counter() - t

    agent.lease.acquire = timed_acquire
    modes: dict[str, dict[str, list[float]]] = {
        m: {"seconds": [], "fsyncs": [], "lease": []} for m in ("durable", "no_fsync")
    }
    real_fsync = fs.real
    for _ in range(rounds):
        for mode, fake in fs.modes:
            fs.count[0], lease_s[0] = 0, 0.0
            os.fsync = fake
            try:
                t0 = time.perf_counter()
                for _ in range(batches):
                    batch()
                took = time.perf_counter() - t0
            finally:
                os.fsync = real_fsync
            modes[mode]["seconds"].append(took)
            modes[mode]["fsyncs"].append(fs.count[0] / batches)
            modes[mode]["lease"].append(lease_s[0] / took)
    agent.lease.acquire = acquire
    return modes


def bench_record(
    repo: Path, work: Path, batches: int, rounds: int, seed: int
) -> tuple[list[Row], dict[str, Any]]:
    """Helper calls per second inside a run, in this process: each call is one
    batch (the domain event + its ``state.ops_applied`` pair) appended under
    the lock and fsynced. Alternating rounds with ``os.fsync`` real and
    patched to a no-op (informational: not durable)."""
    from git_gasp.agent.api import Agent

    load, psi = os.getloadavg()[0], io_pressure()
    clone = clone_repo(repo, work / f"record-{os.getpid()}")
    log_path = clone / "state" / "events.jsonl"
    sim = AgentSim(random.Random(f"git-gasp-bench:{seed}:record"))
    texts = [sim.text(300) for _ in range(64)]
    fs = _Fsyncs()
    try:
        size0 = log_path.stat().st_size
        t0 = time.perf_counter()
        agent = Agent.open(str(clone), worker=WORKER)
        open_s = time.perf_counter() - t0
        events0 = len(agent.events())
        agent.start_run("benchmark: record throughput")
        made = [0]

        def batch() -> None:
            i = made[0]
            made[0] += 1
            if i % 2:
                agent.record_goal(None, f"benchmark goal {i}", texts[i % len(texts)])
            else:
                agent.record_observation(None, f"benchmark observation {i}", texts[i % len(texts)])

        for _ in range(20):  # warm-up
            batch()
        modes = _timed_rounds(agent, batch, batches, rounds, fs)
        appended = len(agent.events()) - events0
        added_bytes = log_path.stat().st_size - size0
    finally:
        os.fsync = fs.real
        shutil.rmtree(clone, ignore_errors=True)
    per_batch = (appended - 2) / made[0]  # start_run wrote 2 events in 2 batches
    out: dict[str, Any] = {
        "log_events_before": events0,
        "log_bytes_before": size0,
        "open_seconds": open_s,
        "batches_per_round": batches,
        "rounds": rounds,
        "warmup_batches": 20,
        "events_per_batch": per_batch,
        "bytes_per_event": added_bytes / appended,
        "fs": fs_type(work),
        "loadavg": load,
        "io_pressure": [psi, io_pressure()],
        "fsync_callers_per_batch": {
            k: v / (rounds * batches) for k, v in sorted(fs.callers.items(), key=lambda kv: -kv[1])
        },
    }
    for mode, m in modes.items():
        out[mode] = _rates(m, batches, per_batch)
    return _rows(events0, out["durable"], out["no_fsync"]), out


def _rates(m: dict[str, list[float]], batches: int, per_batch: float) -> dict[str, Any]:
    """One mode's medians over its rounds."""
    rate = statistics.median(batches / t for t in m["seconds"])
    return {
        "batches_per_s": rate,
        "events_per_s": rate * per_batch,
        "fsyncs_per_batch": statistics.median(m["fsyncs"]),
        "lease_share": statistics.median(m["lease"]),
        "all_seconds": [round(t, 4) for t in m["seconds"]],
    }


def _rows(events0: int, durable: dict[str, Any], fast: dict[str, Any]) -> list[Row]:
    return [
        Row(
            "e",
            f"Agent API record in a run, {events0:,}-event log: durable (fsync)",
            "-",
            f"{durable['events_per_s']:,.0f} ev/s ({durable['batches_per_s']:,.0f} batch/s)",
            "-",
            "-",
            "info",
        ),
        Row(
            "e'",
            "  informational: os.fsync patched to a no-op (NOT durable)",
            "-",
            f"{fast['events_per_s']:,.0f} ev/s ({fast['batches_per_s']:,.0f} batch/s)",
            f"{durable['events_per_s']:,.0f} ev/s",
            f"{fast['events_per_s'] / durable['events_per_s']:.2f}x",
            "info",
        ),
    ]
