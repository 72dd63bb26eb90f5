"""Rows h, h', i and j of the benchmarks: the hooks.

h   the pre-commit hook (``git gasp hooks run pre-commit``, a fresh process,
    interpreter start included) on a staged run (run.started, an observation
    and a tool call, 6 events) in the 600-commit repository; h' the same
    over the 10-commit repository (same density).
i   what the pre-receive hook adds to ``git push`` of one run commit onto
    the 600-commit history: the same push to a twin server without the hook
    is the baseline, measured in the same round.
j   a push of the whole 600-commit history to an empty server with the hook,
    against the same push to a server without it.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import generate as gen
from harness import (
    TARGETS,
    Row,
    bare_server,
    clone_repo,
    close_env,
    fmt_s,
    run_timed,
    setup_round,
    verdict,
)

HOOK = [sys.executable, "-m", "git_gasp", "hooks", "run"]


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    return run_timed(cmd, cwd, env)[0]


def _staged_run(repo: Path, work: Path, name: str, env: dict[str, str]) -> Path:
    clone = clone_repo(repo, work / name)
    setup_round(clone, env, name)
    gen._git(clone, "add", "--", "state/events.jsonl")
    return clone


def pre_commit(
    small: Path, large: Path, work: Path, rounds: int, env: dict[str, str]
) -> dict[str, Any]:
    """Row h: warm (the context of HEAD's log cached, as after any commit made
    with the hook) and cold (no cache: the first commit after a clone)."""
    out: dict[str, Any] = {}
    for label, repo in (("large", large), ("small", small)):
        clone = _staged_run(repo, work, f"hooks-h-{label}", env)
        cache = Path(gen._git(clone, "rev-parse", "--git-common-dir"))
        cache = (clone / cache if not cache.is_absolute() else cache) / "gasp" / "contexts-v1"
        cold = []
        for _ in range(max(3, rounds // 2)):
            shutil.rmtree(cache, ignore_errors=True)
            cold.append(_run([*HOOK, "pre-commit"], clone, env))
            # warm: the run closes through the installed hooks, whose pre-commit
            # caches the context of the log it commits; then the next run is staged
            cmd = [sys.executable, "-m", "git_gasp", "hooks", "install", "--python", sys.executable]
        subprocess.run(cmd, cwd=clone, env=env, check=True, capture_output=True)
        close = ["git", "gasp", "run", "close", "--outcome", "benchmark"]
        subprocess.run(close, cwd=clone, env=env, check=True, capture_output=True)
        setup_round(clone, env, f"{label}-2")
        gen._git(clone, "add", "--", "state/events.jsonl")
        warm = [_run([*HOOK, "pre-commit"], clone, env) for _ in range(rounds)]
        out[label] = {
            "warm": statistics.median(warm),
            "cold": statistics.median(cold),
            "warm_all": [round(t, 4) for t in warm],
            "cold_all": [round(t, 4) for t in cold],
        }
        shutil.rmtree(clone, ignore_errors=True)
    baseline = [_run([sys.executable, "-c", "pass"], work, env) for _ in range(rounds)]
    out["interpreter"] = statistics.median(baseline)
    return out


def pre_receive(large: Path, work: Path, rounds: int, env: dict[str, str]) -> dict[str, Any]:
    """Rows i and j (see the module docstring)."""
    push = ["git", "push", "-q"]
    # j: the whole history to an empty server, hooked and not, alternating
    full_hooked, full_plain = [], []
    for r in range(3):
        for hooked, times in ((True, full_hooked), (False, full_plain)):
            server = bare_server(work / f"hooks-j-{'h' if hooked else 'p'}", hooked, env)
            times.append(_run([*push, str(server), "HEAD:refs/heads/main"], large, env))
            if r == 2 and hooked:
                hooked_server = server
    shutil.rmtree(work / "hooks-j-p", ignore_errors=True)
    plain_server = bare_server(work / "hooks-i-p", False, env)
    _run([*push, str(plain_server), "HEAD:refs/heads/main"], large, env)
    clone = clone_repo(large, work / "hooks-i-client")
    added_hooked, added_plain, cold = [], [], None
    for n in range(rounds + 1):
        setup_round(clone, env, f"push-{n}")
        subprocess.run(
            ["git", "gasp", "run", "close", "--outcome", f"push {n}"],
            cwd=clone,
            env=env,
            check=True,
            capture_output=True,
        )
        hooked_t = _run([*push, str(hooked_server), "HEAD:refs/heads/main"], clone, env)
        plain_t = _run([*push, str(plain_server), "HEAD:refs/heads/main"], clone, env)
        if n == 0:
            cold = hooked_t - plain_t  # the server had no cached context yet
            continue
        added_hooked.append(hooked_t)
        added_plain.append(plain_t)
    shutil.rmtree(clone, ignore_errors=True)
    for name in ("hooks-j-h", "hooks-i-p"):
        shutil.rmtree(work / name, ignore_errors=True)
    return {
        "full_hooked": statistics.median(full_hooked),
        "full_plain": statistics.median(full_plain),
        "full_all": [
            [round(a, 3), round(b, 3)] for a, b in zip(full_hooked, full_plain, strict=True)
        ],
        "one_hooked": statistics.median(added_hooked),
        "one_plain": statistics.median(added_plain),
        "one_added": statistics.median(
            a - b for a, b in zip(added_hooked, added_plain, strict=True)
        ),
        "one_added_cold": cold,
    }


def bench_hooks(
    small: Path, large: Path, work: Path, rounds: int
) -> tuple[list[Row], dict[str, Any]]:
    """Rows h, h', i, j (see the module docstring)."""
    env = close_env(work)
    pc = pre_commit(small, large, work, rounds, env)
    pr = pre_receive(large, work, rounds, env)
    big, little = pc["large"]["warm"], pc["small"]["warm"]
    ratio = big / little
    rows = [
        Row(
            "h",
            "pre-commit hook on a staged run, 600-commit history (whole process)",
            f"<= {fmt_s(TARGETS['h'])}",
            fmt_s(big),
            f"{fmt_s(pc['interpreter'])} (python -c pass)",
            "-",
            verdict(big <= TARGETS["h"]),
        ),
        Row(
            "h'",
            "  vs the same on a 10-commit history",
            f"<= {TARGETS['h_ratio']:.1f}x",
            fmt_s(big),
            fmt_s(little),
            f"{ratio:.2f}x",
            verdict(ratio <= TARGETS["h_ratio"]),
        ),
        Row(
            "i",
            "pre-receive: time added to `git push` of one run commit",
            f"<= {fmt_s(TARGETS['i'])}",
            fmt_s(pr["one_added"]),
            f"{fmt_s(pr['one_plain'])} (push, no hook)",
            f"{pr['one_hooked'] / pr['one_plain']:.2f}x",
            verdict(pr["one_added"] <= TARGETS["i"]),
        ),
        Row(
            "j",
            "push of the whole history to an empty server, with the hook",
            f"<= {fmt_s(TARGETS['j'])}",
            fmt_s(pr["full_hooked"]),
            f"{fmt_s(pr['full_plain'])} (no hook)",
            f"{pr['full_hooked'] / pr['full_plain']:.2f}x",
            verdict(pr["full_hooked"] <= TARGETS["j"]),
        ),
    ]
    return rows, {"pre_commit": pc, "pre_receive": pr}
