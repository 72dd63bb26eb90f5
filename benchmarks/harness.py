"""The shared harness of the benchmarks: sizes, targets, one table row,
timing and medians, formatting, and the processes rows run.

Every row module measures with these (``time.perf_counter``; whole
processes through :func:`time_process`), reports a :class:`Row` and formats
its figures with :func:`fmt_s`. ``git gasp`` runs with this interpreter's
scripts first on PATH (:func:`git_env`); rows f and h share the environment
of a close (:func:`close_env`) and the untimed start of a round
(:func:`setup_round`).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from repofiles import GIT_ENV

MiB = 1024 * 1024


# sizes per mode
FULL = {
    "a_events": 8000,
    "a_bytes": 4_000_000,
    "commits": 600,
    "real_commits": 639,
    "log_bytes": 4_000_000,
    "d_events": 1_000_000,
    "e_batches": 200,
    "f_small_commits": 10,
}


QUICK = {
    "a_events": 8000,
    "a_bytes": 4_000_000,
    "commits": 60,
    "real_commits": 64,
    "log_bytes": 400_000,
    "d_events": 100_000,
    "e_batches": 60,
    "f_small_commits": 10,
}


TARGETS = {
    "a": 0.060,  # seconds
    "b": 2.0,  # seconds
    "b_ratio": 8.0,  # times faster than the reference check 4
    "c": 0.3,  # seconds
    "d": 1.5 * 1024,  # MiB (1.5 GiB)
    "f": 0.5,  # seconds, the close on the large history
    "f_ratio": 1.5,  # large-history close / small-history close
    "g": 1.5,  # seconds, restore from a local bare remote
    "g_ratio": 0.2,  # seeded fold part / full fold part (snapshot at 90 %)
    "h": 0.3,  # seconds, the pre-commit hook on the large history (interpreter included)
    "h_ratio": 1.3,  # large-history pre-commit / small-history pre-commit
    "i": 0.5,  # seconds the pre-receive hook adds to a push of one run commit
    "j": 5.0,  # seconds, push of the whole history to an empty server with the hook
}


WORKER = "bench-worker"  # the worker id rows e and f write as


class Row(NamedTuple):
    key: str
    what: str
    target: str
    measured: str
    baseline: str
    ratio: str
    verdict: str

    def as_dict(self) -> dict[str, str]:
        return self._asdict()


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def git_env() -> dict[str, str]:
    """The environment for ``git gasp``: this interpreter's scripts first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def summarize(times: Sequence[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(times),
        "best": min(times),
        "runs": len(times),
        "all": [round(t, 6) for t in times],
    }


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def run_timed(cmd: list[str], cwd: Path | None, env: dict[str, str] | None) -> tuple[float, float]:
    """Run ``cmd``, which must succeed: its wall seconds and the CPU seconds
    of its whole process tree (the CPU figure moves less with other load)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        out = proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out}")
    return took, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def time_process(cmd: list[str], repeats: int, warmups: int = 1) -> list[float]:
    env = git_env()
    times = []
    for i in range(warmups + repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, env=env)
        took = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(cmd)} exited {proc.returncode}:\n"
                f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}"
            )
        if i >= warmups:
            times.append(took)
    return times


def check_cmd(repo: Path, *flags: str) -> list[str]:
    return ["git", "gasp", "check", str(repo), *flags]


def verify_conformant(repo: Path) -> dict[str, Any]:
    """All seven checks pass (``--json``), or raise."""
    proc = subprocess.run(
        check_cmd(repo, "--json", "--no-cache"), capture_output=True, env=git_env()
    )
    report = json.loads(proc.stdout)
    passed = [c["number"] for c in report["checks"] if c["passed"]]
    if proc.returncode != 0 or passed != list(range(1, 8)) or not report["conformant"]:
        raise RuntimeError(f"generated repository is not conformant:\n{proc.stdout.decode()}")
    return report


def clone_repo(repo: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    subprocess.run(["git", "clone", "-q", str(repo), str(dest)], check=True)
    return dest


def install_server_hooks(path: Path, env: dict[str, str]) -> None:
    """``git gasp hooks install --server`` in the bare repository ``path``,
    pinned to this interpreter."""
    cmd = [sys.executable, "-m", "git_gasp", "hooks", "install", "--server"]
    cmd += ["--python", sys.executable, "-C", str(path)]
    subprocess.run(cmd, env=env, check=True, capture_output=True)


def bare_server(path: Path, hooked: bool, env: dict[str, str]) -> Path:
    """An empty bare repository at ``path`` (made anew), with git-gasp's
    server hooks or without."""
    shutil.rmtree(path, ignore_errors=True)
    git = ["git", "init", "-q", "--bare", str(path)]
    subprocess.run(git, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)
    if hooked:
        install_server_hooks(path, env)
    return path


def close_env(work: Path) -> dict[str, str]:
    """``git gasp`` for row f: a fixed committer and worker, and compiled
    bytecode cached under ``work`` (as an installed package has it), even
    where PYTHONDONTWRITEBYTECODE is set."""
    env = git_env()
    env.update(GIT_ENV)
    env["GASP_WORKER_ID"] = WORKER
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def setup_round(clone: Path, env: dict[str, str], label: str) -> None:
    """Not timed: ``git gasp run start``, then an observation and a tool call
    through the Python API (2 batches, 4 events)."""
    from git_gasp.agent.api import Agent

    proc = subprocess.run(
        ["git", "gasp", "run", "start", "--task", f"benchmark {label}"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git gasp run start failed:\n{proc.stderr.decode(errors='replace')}")
    with Agent.open(str(clone), worker=WORKER) as agent:
        agent.record_observation(None, f"{label}: retries", "the counter survives a timeout")
        agent.record_tool_call("pytest -q", "pytest -q tests/retry", "ok: 12 passed", True)
