"""Row k of the benchmarks: what a hook's imports cost against the command line's
(issue 17 item 1), both measured with ``python -X importtime`` in the same run.

k   for every hook, the imports the hook entry makes (``git_gasp.entry``, the
    dispatcher ``git_gasp.hooks.dispatch`` and the hook's own module) against
    those of the full command line (``git_gasp.entry`` and ``git_gasp.cli.root``,
    which registers every command); the sum of the "self" column over every module
    imported, the median of several fresh interpreters, alternating. Target: the
    hook at most 0.3x the command line.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from typing import Any

from harness import Row, verdict

TARGET = 0.3
#: The modules ``hooks.dispatch.run_hook`` imports for each hook.
HOOK_MODULES = {
    "pre-commit": "git_gasp.hooks.commithooks",
    "prepare-commit-msg": "git_gasp.hooks.sessiontrailer",
    "commit-msg": "git_gasp.hooks.commithooks",
    "post-commit": "git_gasp.sessions.pushnotes",
    "post-rewrite": "git_gasp.sessions.pushnotes",
    "pre-push": "git_gasp.hooks.pushhooks",
    "pre-receive": "git_gasp.hooks.serverhooks",
    "post-receive": "git_gasp.hooks.serverhooks",
}
CLI = ("git_gasp.entry", "git_gasp.cli.root")


def hook_imports(hook: str) -> tuple[str, ...]:
    return (
        "git_gasp.entry",
        "git_gasp.hooks.dispatch",
        "git_gasp.hooks.protocol",
        HOOK_MODULES[hook],
    )


def importtime(modules: tuple[str, ...]) -> dict[str, int]:
    """Module -> its own import time in microseconds, in one fresh interpreter."""
    code = "; ".join(f"import {m}" for m in modules)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    )
    own: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        fields = line[len("import time:") :].split("|")
        own[fields[2].strip()] = int(fields[0])
    return own


def bench_imports(rounds: int) -> tuple[list[Row], dict[str, Any]]:
    cli_times: list[int] = []
    hooks: dict[str, list[int]] = {hook: [] for hook in HOOK_MODULES}
    table: dict[str, int] = {}
    for _ in range(rounds):
        cli_times.append(sum(importtime(CLI).values()))
        for hook in hooks:
            own = importtime(hook_imports(hook))
            hooks[hook].append(sum(own.values()))
            if hook == "pre-commit":
                table = own
    cli = statistics.median(cli_times)
    rows = []
    for hook, times in hooks.items():
        took = statistics.median(times)
        ratio = took / cli
        rows.append(
            Row(
                "k",
                f"imports of `hooks run {hook}` vs the full command line",
                f"<= {TARGET:.1f}x",
                f"{took / 1000:.0f} ms",
                f"{cli / 1000:.0f} ms (git_gasp.cli.root)",
                f"{ratio:.2f}x",
                verdict(ratio <= TARGET),
            )
        )
    top = sorted(table.items(), key=lambda kv: -kv[1])[:15]
    detail = {
        "cli_us": cli,
        "cli_all_us": cli_times,
        "hooks_us": {h: statistics.median(t) for h, t in hooks.items()},
        "pre_commit_top_self_us": top,
        "pre_commit_has_click": "click" in table,
    }
    return rows, detail


def note(k: dict[str, Any]) -> list[str]:
    lines = [
        f"k: the full command line imports in {k['cli_us'] / 1000:.0f} ms (sum of self times); "
        f"the pre-commit hook's entry loads click: {k['pre_commit_has_click']}. "
        "Its costliest imports (self, one interpreter):"
    ]
    lines += [f"     {us / 1000:7.1f} ms  {name}" for name, us in k["pre_commit_top_self_us"]]
    return lines
