"""Row k of the benchmarks: what a hook's imports cost against the command line's
(issue 17 item 1), both measured with ``python -X importtime`` in the same run.

k   for every hook, the imports the hook entry makes (``git_gasp.entry``, the
    dispatcher ``git_gasp.hooks.dispatch`` and the hook's own module) against
    those of the full command line (``git_gasp.entry`` and ``git_gasp.cli.root``,
    which registers every command); the sum of the "self" column over every module
    imported (but those the interpreter imports before any code runs), the
    median of several fresh interpreters, alternating. Target: the
    hook at most 0.3x the command line. "The command line" is ``git gasp`` with
    all its commands: the two modules above and every module of the package the
    commands import when they run (the CLI imports them lazily, so
    ``git_gasp.cli.root`` alone is only its start-up: row k' compares with that
    too, for information). For pre-commit the hook itself also runs
    (``python -X importtime -m git_gasp hooks run pre-commit`` on a clone of the
    10-commit history with a staged change), so the imports it makes while
    judging are counted too: that is the table in the notes.

Bytecode is cached (``PYTHONPYCACHEPREFIX`` under the work directory,
``PYTHONDONTWRITEBYTECODE`` dropped), as an installed package has it, and one
untimed round compiles it first: otherwise every "self" time would include
compiling the module from source, which no user's hook pays.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import Row, clone_repo, verdict

TARGET = 0.3
#: The modules ``hooks.dispatch.run_hook`` imports for each hook.
HOOK_MODULES = {
    "pre-commit": "git_gasp.hooks.commithooks",
    "prepare-commit-msg": "git_gasp.hooks.sessiontrailer",
    "commit-msg": "git_gasp.hooks.commitmsg",
    "post-commit": "git_gasp.sessions.pushnotes",
    "post-rewrite": "git_gasp.sessions.pushnotes",
    "pre-push": "git_gasp.hooks.pushhooks",
    "pre-receive": "git_gasp.hooks.serverhooks",
    "post-receive": "git_gasp.hooks.serverhooks",
}
CLI = ("git_gasp.entry", "git_gasp.cli.root")
PACKAGE = Path(__file__).resolve().parent.parent / "git_gasp"


def every_command() -> tuple[str, ...]:
    """The command line with all its commands loaded: ``CLI`` and every module
    of the package its commands import when they run (all but ``__main__``,
    which would run the command line)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts[-1] != "__main__":
            names.append(".".join(parts))
    return (*CLI, *names)


def hook_imports(hook: str) -> tuple[str, ...]:
    return (
        "git_gasp.entry",
        "git_gasp.hooks.dispatch",
        "git_gasp.hooks.protocol",
        HOOK_MODULES[hook],
    )


_ENV: dict[str, str] = {}


def cached_bytecode(work: Path) -> None:
    """Every interpreter of this row reads compiled bytecode from under ``work``."""
    _ENV.clear()
    _ENV.update(os.environ)
    _ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    _ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")


def importtime(modules: tuple[str, ...]) -> dict[str, int]:
    """Module -> its own import time in microseconds, in one fresh interpreter."""
    code = "; ".join(f"import {m}" for m in modules)
    cmd = [sys.executable, "-X", "importtime", "-c", code]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=_ENV or None)
    return _own(proc.stderr)


def hook_run_importtime(repo: Path) -> dict[str, int]:
    """The same for the pre-commit hook run in ``repo``, as the shims start it."""
    cmd = [sys.executable, "-X", "importtime", "-m", "git_gasp", "hooks", "run", "pre-commit"]
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=_ENV or None)
    if proc.returncode not in (0, 1):  # 1: the hook judged and refused; imports all made
        raise RuntimeError(f"the pre-commit hook failed:\n{proc.stderr[-2000:]}")
    return _own(proc.stderr)


def staged_clone(small: Path, work: Path) -> Path:
    """A clone of ``small`` with its log's last line appended again, staged."""
    clone = clone_repo(small, work / "imports-k")
    log = clone / "state" / "events.jsonl"
    last = log.read_bytes().splitlines(keepends=True)[-1]
    with log.open("ab") as fh:
        fh.write(last)
    subprocess.run(["git", "-C", str(clone), "add", "state/events.jsonl"], check=True)
    return clone


def _own(stderr: str) -> dict[str, int]:
    """Module -> self time, leaving out what the interpreter imports before any
    code runs (``python -X importtime -c pass``: encodings, site, ...), which
    is no import of a hook's entry nor of the command line."""
    own: dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        fields = line[len("import time:") :].split("|")
        own[fields[2].strip()] = int(fields[0])
    return {name: us for name, us in own.items() if name.strip() not in _startup()}


_STARTUP: set[str] = set()


def _startup() -> set[str]:
    if not _STARTUP:
        cmd = [sys.executable, "-X", "importtime", "-c", "pass"]
        err = subprocess.run(
            cmd, capture_output=True, text=True, check=True, env=_ENV or None
        ).stderr
        for line in err.splitlines():
            if line.startswith("import time:") and "self [us]" not in line:
                _STARTUP.add(line.split("|")[2].strip())
    return _STARTUP


def bench_imports(small: Path, work: Path, rounds: int) -> tuple[list[Row], dict[str, Any]]:
    clone = staged_clone(small, work)
    cached_bytecode(work)
    importtime(every_command())  # compiles the package once, untimed
    hook_run_importtime(clone)
    cli_times: list[int] = []
    every_times: list[int] = []
    hooks: dict[str, list[int]] = {hook: [] for hook in HOOK_MODULES}
    running: list[int] = []
    table: dict[str, int] = {}
    for _ in range(rounds):
        cli_times.append(sum(importtime(CLI).values()))
        every_times.append(sum(importtime(every_command()).values()))
        for hook in hooks:
            hooks[hook].append(sum(importtime(hook_imports(hook)).values()))
        table = hook_run_importtime(clone)
        running.append(sum(table.values()))
    shutil.rmtree(clone, ignore_errors=True)
    cli = statistics.median(cli_times)
    every = statistics.median(every_times)
    rows = []
    for hook, times in [("pre-commit (running)", running), *hooks.items()]:
        took = statistics.median(times)
        ratio = took / every
        rows.append(
            Row(
                "k",
                f"imports of `hooks run {hook}` vs the command line with all its commands",
                f"<= {TARGET:.1f}x",
                f"{took / 1000:.0f} ms",
                f"{every / 1000:.0f} ms (all commands)",
                f"{ratio:.2f}x",
                verdict(ratio <= TARGET),
            )
        )
    took = statistics.median(running)
    rows.append(
        Row(
            "k'",
            "  the running pre-commit hook vs the command line's start-up alone",
            "info",
            f"{took / 1000:.0f} ms",
            f"{cli / 1000:.0f} ms (git_gasp.cli.root)",
            f"{took / cli:.2f}x",
            "info",
        )
    )
    top = sorted(table.items(), key=lambda kv: -kv[1])[:15]
    detail = {
        "running_pre_commit_us": statistics.median(running),
        "cli_us": cli,
        "every_command_us": every,
        "cli_all_us": cli_times,
        "hooks_us": {h: statistics.median(t) for h, t in hooks.items()},
        # how many modules each imports: no load on the machine changes it
        "modules": {
            "all commands": len(importtime(every_command())),
            "pre-commit (running)": len(table),
            **{h: len(importtime(hook_imports(h))) for h in hooks},
        },
        "pre_commit_top_self_us": top,
        "pre_commit_has_click": "click" in table,
    }
    return rows, detail


def note(k: dict[str, Any]) -> list[str]:
    lines = [
        f"k: the command line with all its commands imports in {k['every_command_us'] / 1000:.0f} "
        f"ms, its start-up alone (git_gasp.cli.root) in {k['cli_us'] / 1000:.0f} ms "
        "(sums of self times); "
        f"the pre-commit hook, running, loads click: {k['pre_commit_has_click']}. "
        "Its costliest imports (self, one interpreter):"
    ]
    lines += [f"     {us / 1000:7.1f} ms  {name}" for name, us in k["pre_commit_top_self_us"]]
    counts = ", ".join(f"{name} {n}" for name, n in k["modules"].items())
    lines.append(f"k, modules imported (past the interpreter's start-up): {counts}")
    return lines
