"""Rows g-url and g-url' of the benchmarks: ``git gasp restore`` over a real
transport (issue 17 item 4). Row g names a plain path, which git clones with hard
links, so it never sees ``index-pack`` rebuild every version of the log.

g-url   ``git gasp restore file://BARE DIR --json`` from a bare clone of the
        600-commit history (a snapshot at 90 % committed) whose server serves
        blob-less partial clones (``uploadpack.allowFilter``); target <= 1.5 s.
g-url'  the same from a twin bare repository that does not (git sends every
        version of every file), reported against g-url.

One warm-up each, then the two alternate; median of ``repeats``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from harness import TARGETS, Row, fmt_s, git_env, verdict
from restore_rows import _source_with_snapshot


def _restore_once(url: str, dest: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        ["git", "gasp", "restore", url, str(dest), "--json"], capture_output=True, env=git_env()
    )
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"restore failed:\n{proc.stderr.decode(errors='replace')}")
    shutil.rmtree(dest, ignore_errors=True)
    return took


def bench_restore_url(repo: Path, work: Path, repeats: int) -> tuple[list[Row], dict[str, Any]]:
    source = work / f"restore-url-src-{os.getpid()}"
    served = work / f"restore-url-filter-{os.getpid()}.git"
    plain = work / f"restore-url-plain-{os.getpid()}.git"
    filtered_times: list[float] = []
    plain_times: list[float] = []
    try:
        n_events, _ = _source_with_snapshot(repo, source, served)
        subprocess.run(["git", "clone", "-q", "--bare", str(served), str(plain)], check=True)
        for bare, allow in ((served, "true"), (plain, "false")):
            subprocess.run(["git", "-C", str(bare), "config", "uploadpack.allowFilter", allow])
        dest = work / f"restored-url-{os.getpid()}"
        for i in range(repeats + 1):
            for bare, times in ((served, filtered_times), (plain, plain_times)):
                took = _restore_once(f"file://{bare}", dest)
                if i:  # the first of each is the warm-up
                    times.append(took)
    finally:
        for path in (source, served, plain):
            shutil.rmtree(path, ignore_errors=True)
    filtered = statistics.median(filtered_times)
    whole = statistics.median(plain_times)
    rows = [
        Row(
            "g-url",
            f"git gasp restore file://, 600 commits / {n_events:,} events, partial clone served",
            f"<= {fmt_s(TARGETS['g'])}",
            fmt_s(filtered),
            "-",
            "-",
            verdict(filtered <= TARGETS["g"]),
        ),
        Row(
            "g-url'",
            "  the same from a server that serves no partial clone",
            "info",
            fmt_s(whole),
            fmt_s(filtered),
            f"{whole / filtered:.2f}x",
            "info",
        ),
    ]
    return rows, {"filtered": filtered_times, "whole": plain_times}
