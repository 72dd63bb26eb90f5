"""Rows m, m', n and n' of the benchmarks: what git-gasp's hooks cost a developer
(issue 17 item 2), each against a baseline measured in the same rounds.

m   the pre-commit hook (``python -P -m git_gasp hooks run pre-commit``, a fresh
    process) on a staged run in the 600-commit history, against ``python -c
    pass``: target <= 3x; m' the same on the 10-commit history, m' / m <= 1.2x.
n   what *all* the native hooks (``git gasp hooks install``: pre-commit,
    prepare-commit-msg, commit-msg, post-commit) add to one ``git commit`` of
    a staged run: the hooked commit minus the same commit with
    ``-c core.hooksPath=/dev/null``, against ``python -c pass``: target <= 8x;
    n' the same on the 10-commit history, n' / n <= 1.2x.

The two histories' rounds are interleaved (600, 10, 600, ...). Each round
stages a run (``git gasp run start``, an observation and a tool call, not
timed), times the hook alone, the hooked commit, then (after ``git reset
--soft HEAD~1``) the unhooked commit of the same index, and ``python -c pass``;
then resets to the round's start (the run unstarted, its marker removed).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import generate as gen
from harness import Row, clone_repo, close_env, fmt_s, run_timed, setup_round, verdict

#: what any Python pre-commit hook doing this job pays before judging: the
#: interpreter, the standard modules such a hook needs, the four git
#: processes this one starts (as it starts them: posix_spawn and a pipe, no
#: subprocess module), and hashing the log twice (the work tree's copy
#: against the index, the index's prefix against HEAD's blob)
FLOOR = (
    "import hashlib, json, os, re, select, typing\n"
    "for _ in range(4):\n"
    "    r, w = os.pipe()\n"
    "    pid = os.posix_spawnp('git', ['git', 'rev-parse', 'HEAD'], os.environ,"
    " file_actions=[(os.POSIX_SPAWN_DUP2, w, 1)])\n"
    "    os.close(w); os.read(r, 4096); os.close(r); os.waitpid(pid, 0)\n"
    "data = open('state/events.jsonl', 'rb').read()\n"
    "hashlib.sha1(data).digest(); hashlib.sha1(data).digest()\n"
)
HOOK_RATIO = 3.0
COMMIT_RATIO = 8.0
HISTORY_RATIO = 1.2


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    return run_timed(cmd, cwd, env)[0]


def _prepare(repo: Path, work: Path, label: str, env: dict[str, str]) -> Path:
    clone = clone_repo(repo, work / f"commit-{label}")
    install = [sys.executable, "-m", "git_gasp", "hooks", "install", "--python", sys.executable]
    subprocess.run(install, cwd=clone, env=env, check=True, capture_output=True)
    return clone


def _round(
    clone: Path, env: dict[str, str], label: str
) -> tuple[float, float, float, float, float]:
    """One round: (the hook alone, the hooked commit, the unhooked commit,
    ``python -c pass``, the floor), then back to the round's start."""
    setup_round(clone, env, label)
    gen._git(clone, "add", "--", "state/events.jsonl")
    message = f"work in progress {label}"
    # as the shim runs it
    hook = [sys.executable, "-P", "-m", "git_gasp", "hooks", "run", "pre-commit"]
    took_hook = _timed(hook, clone, env)
    took_hooked = _timed(["git", "commit", "-q", "-m", message], clone, env)
    gen._git(clone, "reset", "-q", "--soft", "HEAD~1")
    off = ["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", message]
    took_plain = _timed(off, clone, env)
    took_pass = _timed([sys.executable, "-c", "pass"], clone, env)
    took_floor = _timed([sys.executable, "-c", FLOOR], clone, env)
    # back to HEAD, the run not started: the next round starts its own
    gen._git(clone, "reset", "-q", "--hard", "HEAD~1")
    (clone / ".agent" / "RUN").unlink(missing_ok=True)
    return took_hook, took_hooked, took_plain, took_pass, took_floor


def _summary(times: list[tuple[float, float, float, float, float]]) -> dict[str, Any]:
    hook, hooked, plain, interpreter, floor = (list(column) for column in zip(*times, strict=True))
    added = [a - b for a, b in zip(hooked, plain, strict=True)]
    return {
        "hook": statistics.median(hook),
        "hooked_commit": statistics.median(hooked),
        "plain_commit": statistics.median(plain),
        "added": statistics.median(added),
        "interpreter": statistics.median(interpreter),
        "floor": statistics.median(floor),
        "all": {"hook": hook, "hooked": hooked, "plain": plain, "pass": interpreter},
    }


def _histories(
    large: Path, small: Path, work: Path, rounds: int, env: dict[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both histories' rounds interleaved (600, 10, 600, ...), so that other
    load on the machine weighs on both alike; the first round of each warms
    the caches (the hook's context of HEAD's log) and is not counted."""
    clones = {
        "large": _prepare(large, work, "large", env),
        "small": _prepare(small, work, "small", env),
    }
    times: dict[str, list[tuple[float, float, float, float, float]]] = {"large": [], "small": []}
    for n in range(rounds + 1):
        for label, clone in clones.items():
            took = _round(clone, env, f"commit-{label}-{n}")
            if n:
                times[label].append(took)
    for clone in clones.values():
        shutil.rmtree(clone, ignore_errors=True)
    return _summary(times["large"]), _summary(times["small"])


def bench_commits(
    small: Path, large: Path, work: Path, rounds: int
) -> tuple[list[Row], dict[str, Any]]:
    env = close_env(work)
    big, little = _histories(large, small, work, rounds, env)
    py = statistics.median([big["interpreter"], little["interpreter"]])
    hook_x = big["hook"] / py
    commit_x = big["added"] / py
    rows = [
        Row(
            "m",
            "pre-commit hook on a staged run, 600-commit history, vs python -c pass",
            f"<= {HOOK_RATIO:.1f}x",
            fmt_s(big["hook"]),
            f"{fmt_s(py)} (python -c pass)",
            f"{hook_x:.2f}x",
            verdict(hook_x <= HOOK_RATIO),
        ),
        _history_row("m'", "  the same on a 10-commit history", big["hook"], little["hook"]),
        Row(
            "m floor",
            "  interpreter + the stdlib a hook needs + 4 git processes + hashing the log twice",
            "info",
            fmt_s(big["floor"]),
            f"{fmt_s(py)} (python -c pass)",
            f"{big['floor'] / py:.2f}x",
            "info",
        ),
        Row(
            "n",
            "all native hooks' cost on one git commit (hooked - no hooks), 600 commits",
            f"<= {COMMIT_RATIO:.1f}x",
            fmt_s(big["added"]),
            f"{fmt_s(py)} (python -c pass)",
            f"{commit_x:.2f}x",
            verdict(commit_x <= COMMIT_RATIO),
        ),
        _history_row("n'", "  the same on a 10-commit history", big["added"], little["added"]),
    ]
    return rows, {"large": big, "small": little}


def _history_row(key: str, what: str, large: float, small: float) -> Row:
    ratio = large / small
    return Row(
        key,
        what,
        f"<= {HISTORY_RATIO:.1f}x",
        fmt_s(large),
        fmt_s(small),
        f"{ratio:.2f}x",
        verdict(ratio <= HISTORY_RATIO),
    )
