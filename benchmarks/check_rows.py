"""Rows b and c of the benchmarks: ``git gasp check``.

b   ``git gasp check --no-cache`` (all seven checks, cold check-4 cache) as a
    whole process on the 600-commit history; b' its speed-up over the
    reference method for check 4 alone (one ``git show`` process per commit
    and path, string-prefix test: REFERENCE §10.2), implemented here;
c   ``git gasp check`` after one more run commit, with a warm cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import generate as gen
from harness import (
    TARGETS,
    Row,
    check_cmd,
    fmt_s,
    git_env,
    log,
    summarize,
    time_process,
    verdict,
    verify_conformant,
)

CHECK4_PATHS = ("state/events.jsonl", "journal/JOURNAL.md", "JOURNAL.md")


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True)


def reference_check4(repo: Path) -> list[str]:
    """Check 4 exactly as REFERENCE §10.2 describes the reference checker:
    per path, ``rev-list --reverse --full-history HEAD -- path``, then one
    ``git show <sha>:./<path>`` process per commit, lossy decode, string-prefix
    test against the previous version; then the working tree."""
    if _git(repo, "rev-parse", "--git-dir").returncode != 0:
        return ["not a git repository (conformance rule 1: state lives in a git repo)"]
    if _git(repo, "rev-parse", "--verify", "HEAD").returncode != 0:
        return []
    failures: list[str] = []
    paths = list(CHECK4_PATHS)
    listed = _git(repo, "ls-files", "--", "facts.jsonl", "*/facts.jsonl")
    if listed.returncode != 0:
        failures.append(f"cannot enumerate facts.jsonl paths: {listed.stderr.decode()}")
    else:
        paths += [p for p in listed.stdout.decode().split("\n") if p and p not in paths]
    for path in paths:
        walk = _git(repo, "rev-list", "--reverse", "--full-history", "HEAD", "--", path)
        if walk.returncode != 0:
            failures.append(f"{path}: cannot walk history: {walk.stderr.decode()}")
            continue
        prev: str | None = None
        for sha in walk.stdout.decode().split():
            shown = _git(repo, "show", f"{sha}:./{path}")
            if shown.returncode == 0:
                content = shown.stdout.decode("utf-8", "replace")
                if prev is not None and not content.startswith(prev):
                    failures.append(f"{path}: commit {sha[:7]} edits existing lines")
                prev = content
            elif prev is not None:
                failures.append(f"{path}: deleted in commit {sha[:7]}")
                prev = None
        if prev is not None:
            try:
                with open(repo / path, encoding="utf-8") as fh:
                    current = fh.read()
            except FileNotFoundError:
                failures.append(f"{path}: committed file missing from working tree")
                continue
            except (OSError, UnicodeDecodeError) as exc:
                failures.append(f"{path}: working tree unreadable: {exc}")
                continue
            if not current.startswith(prev):
                failures.append(f"{path}: working tree edits committed lines")
    return failures


def bench_check_cold(
    repo: Path, repeats: int, base_repeats: int
) -> tuple[list[Row], dict[str, Any]]:
    verify_conformant(repo)
    times = time_process(check_cmd(repo, "--no-cache"), repeats)
    ours = summarize(times)
    log(f"check --no-cache: median {fmt_s(ours['median'])}; running the reference check 4 ...")
    base_times = []
    for _ in range(base_repeats):
        t0 = time.perf_counter()
        problems = reference_check4(repo)
        base_times.append(time.perf_counter() - t0)
        if problems:
            raise RuntimeError(f"reference check 4 fails on the generated repo: {problems[:3]}")
    base = summarize(base_times)
    ratio = base["median"] / ours["median"]
    rows = [
        Row(
            "b",
            "git gasp check --no-cache (all 7 checks, whole process)",
            f"<= {fmt_s(TARGETS['b'])}",
            fmt_s(ours["median"]),
            "-",
            "-",
            verdict(ours["median"] <= TARGETS["b"]),
        ),
        Row(
            "b'",
            "  speed-up: reference check 4 alone vs our whole check",
            f">= {TARGETS['b_ratio']:.0f}x",
            fmt_s(ours["median"]),
            fmt_s(base["median"]),
            f"{ratio:.1f}x",
            verdict(ratio >= TARGETS["b_ratio"]),
        ),
    ]
    return rows, {"ours": ours, "baseline": base, "ratio": ratio}


def bench_check_warm(repo: Path, work: Path, repeats: int, seed: int) -> tuple[Row, dict[str, Any]]:
    clone = work / f"warm-{os.getpid()}"
    if clone.exists():
        shutil.rmtree(clone)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    try:
        env = git_env()
        subprocess.run(check_cmd(clone), capture_output=True, env=env, check=True)  # warm
        times = []
        for _ in range(repeats):
            gen.append_run(clone, seed=seed)
            times.extend(time_process(check_cmd(clone), 1, warmups=0))
        verify_conformant(clone)
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    s = summarize(times)
    row = Row(
        "c",
        "git gasp check after +1 run commit, warm cache",
        f"<= {fmt_s(TARGETS['c'])}",
        fmt_s(s["median"]),
        "-",
        "-",
        verdict(s["median"] <= TARGETS["c"]),
    )
    return row, s
