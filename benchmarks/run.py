"""git-gasp performance benchmarks: one command, one table.

    python benchmarks/run.py [--quick] [--only ROWS] [--keep DIR] [--json] [--seed N]

Rows (see benchmarks/README.md), each group measured by its own module:

a, d  parsing and folding a log (``fold_rows``);
b, c  ``git gasp check``, cold and its speed-up over the reference check 4,
      then warm after one more commit (``check_rows``);
e     record throughput of the Agent API, durable and not (``record_rows``);
f     ``git gasp run close`` on a 600-run and a 10-run history (``close_rows``);
g     ``git gasp restore`` and its seeded fold (``restore_rows``), and over a
      ``file://`` URL, partial clones served and not (``restore_url_rows``);
h-j   the pre-commit and pre-receive hooks (``hook_rows``);
k     a hook's imports against the command line's (``import_rows``);
l     pushes of many refs and a forced push, hooked and not, on the real-shaped
      history (``push_rows``);
m, n  the pre-commit hook and all native hooks on one commit (``commit_rows``);
o     the onboarding push of issue 15's shapes, hooked and not (``push_rows``);
r, s  check and a whole push on the real-shaped history (``real_rows``).

The shared harness (sizes, targets, timing, medians, processes) is
``harness``; the cached inputs ``inputs``; the table and its notes
``report``. Generated repositories and logs are deterministic (seeded). With
``--keep DIR`` they are cached in DIR (e.g. ``benchmarks/out``, which git
ignores) and reused by later runs; otherwise they live in a temporary
directory removed at exit.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import check_rows  # noqa: E402
import close_rows  # noqa: E402
import commit_rows  # noqa: E402
import fold_rows  # noqa: E402
import hook_rows  # noqa: E402
import import_rows  # noqa: E402
import inputs  # noqa: E402
import push_rows  # noqa: E402
import real_rows  # noqa: E402
import record_rows  # noqa: E402
import restore_rows  # noqa: E402
import restore_url_rows  # noqa: E402
from harness import FULL, QUICK, Row, log  # noqa: E402
from report import environment, report  # noqa: E402


class Benchmarks:
    """One invocation's rows and details, and the step measuring each row group."""

    def __init__(self, work: Path, sizes: dict[str, int], seed: int, quick: bool) -> None:
        self.work, self.sizes, self.seed, self.quick = work, sizes, seed, quick
        self.rows: list[Row] = []
        self.details: dict[str, Any] = {}
        self._repo: Path | None = None
        self._real: Path | None = None

    def repo(self) -> Path:
        """The large generated history (rows b-h), made or reused once."""
        if self._repo is None:
            sizes = self.sizes
            path, took = inputs.ensure_repo(
                self.work, sizes["commits"], sizes["log_bytes"], self.seed
            )
            self.details["repo"] = inputs.repo_facts(path, took)
            self._repo = path
        return self._repo

    def real_repo(self) -> Path:
        """The history shaped like the real one (rows l, r, s): 639 commits, a
        second facts file AGENT.md's Locations names, all appended every commit."""
        if self._real is None:
            sizes = self.sizes
            path, took = inputs.ensure_repo(
                self.work, sizes["real_commits"], sizes["log_bytes"], self.seed, social=True
            )
            self.details["real_repo"] = inputs.repo_facts(path, took)
            self._real = path
        return self._real

    def small_repo(self) -> Path:
        """The short history, at the long one's density (events and bytes per run)."""
        n = self.sizes["f_small_commits"]
        log_bytes = self.sizes["log_bytes"] * n // self.sizes["commits"]
        small, _ = inputs.ensure_repo(self.work, n, log_bytes, self.seed)
        return small

    def step_a(self) -> None:
        sizes = self.sizes
        row, d = fold_rows.bench_parse_fold(
            sizes["a_events"], sizes["a_bytes"], self.seed, repeats=20
        )
        self.rows.append(row)
        self.details["a"] = d

    def step_b(self) -> None:
        r, d = check_rows.bench_check_cold(
            self.repo(), repeats=5, base_repeats=3 if self.quick else 1
        )
        self.rows.extend(r)
        self.details["b"] = d

    def step_c(self) -> None:
        row, d = check_rows.bench_check_warm(self.repo(), self.work, repeats=5, seed=self.seed)
        self.rows.append(row)
        self.details["c"] = d

    def step_d(self) -> None:
        events = self.sizes["d_events"]
        path = inputs.ensure_log(self.work, events, self.seed)
        row, d = fold_rows.bench_stream_fold(path, self.work, events)
        self.rows.append(row)
        self.details["d_stream"] = d
        row, d = fold_rows.bench_memory(path, events, breakdown_events=100_000)
        self.rows.append(row)
        self.details["d"] = d

    def step_e(self) -> None:
        r, d = record_rows.bench_record(
            self.repo(), self.work, self.sizes["e_batches"], rounds=3, seed=self.seed
        )
        self.rows.extend(r)
        self.details["e"] = d

    def step_f(self) -> None:
        small = self.small_repo()
        r, d = close_rows.bench_close(small, self.repo(), self.work, rounds=9)
        self.rows.extend(r)
        self.details["f"] = d

    def step_g(self) -> None:
        r, d = restore_rows.bench_restore(self.repo(), self.work, repeats=5)
        self.rows.extend(r)
        self.details["g"] = d
        r, d = restore_url_rows.bench_restore_url(self.repo(), self.work, repeats=5)
        self.rows.extend(r)
        self.details["g_url"] = d

    def step_h(self) -> None:
        small = self.small_repo()
        r, d = hook_rows.bench_hooks(small, self.repo(), self.work, rounds=5)
        self.rows.extend(r)
        self.details["h"] = d

    def step_k(self) -> None:
        r, d = import_rows.bench_imports(
            self.small_repo(), self.work, rounds=3 if self.quick else 7
        )
        self.rows.extend(r)
        self.details["k"] = d

    def step_l(self) -> None:
        r, d = push_rows.bench_pushes(self.real_repo(), self.work, rounds=3)
        self.rows.extend(r)
        self.details["l"] = d

    def step_m(self) -> None:
        # ms-sized medians: with 5 rounds they moved by 10% from run to run
        r, d = commit_rows.bench_commits(self.small_repo(), self.repo(), self.work, rounds=15)
        self.rows.extend(r)
        self.details["m"] = d

    def step_o(self) -> None:
        r, d = push_rows.bench_onboarding(self.work, rounds=3 if self.quick else 5)
        self.rows.extend(r)
        self.details["o"] = d

    def step_r(self) -> None:
        r, d = real_rows.bench_check(self.real_repo(), self.work, rounds=5, seed=self.seed)
        self.rows.extend(r)
        self.details["r"] = d

    def step_s(self) -> None:
        row, d = real_rows.bench_push(self.real_repo(), self.work, rounds=3)
        self.rows.append(row)
        self.details["s"] = d

    def steps(self, only: str) -> list[tuple[str, Callable[[], None]]]:
        """The steps of the rows asked for, in the table's order."""
        every = (
            ("a", self.step_a),
            ("b", self.step_b),
            ("c", self.step_c),
            ("d", self.step_d),
            ("e", self.step_e),
            ("f", self.step_f),
            ("g", self.step_g),
            ("h", self.step_h),
            ("k", self.step_k),
            ("l", self.step_l),
            ("m", self.step_m),
            ("o", self.step_o),
            ("r", self.step_r),
            ("s", self.step_s),
        )
        return [(key, fn) for key, fn in every if key in only]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="git-gasp benchmarks (prints a table)")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes for a smoke run (60 commits, 100k events)",
    )
    ap.add_argument(
        "--keep",
        metavar="DIR",
        help="cache generated repositories and logs in DIR (e.g. benchmarks/out)",
    )
    ap.add_argument("--json", action="store_true", help="print a JSON document instead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--only",
        default="abcdefghklmors",
        help="run only these rows (letters; h also runs i and j), e.g. 'ab'",
    )
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sizes = QUICK if args.quick else FULL
    tmp: str | None = None
    if args.keep:
        work = Path(args.keep).resolve()
        work.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="git-gasp-bench-")
        work = Path(tmp)
    bench = Benchmarks(work, sizes, args.seed, args.quick)
    load_at_start = os.getloadavg()
    steps = bench.steps(args.only)
    try:
        for key, fn in steps:
            log(f"row {key} ...")
            fn()
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    rows, details = bench.rows, bench.details
    env = {**environment(), "loadavg_at_start": load_at_start}
    if args.json:
        print(
            json.dumps(
                {
                    "quick": args.quick,
                    "environment": env,
                    "rows": [r.as_dict() for r in rows],
                    "details": details,
                },
                indent=2,
            )
        )
    else:
        print(report(rows, details, env, args.quick))
    return 0 if all(r.verdict in ("PASS", "info") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
