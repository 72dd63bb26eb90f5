"""Peak memory of the log readers (issue 16, item 3): restore, status, check
and fold on one large generated log, against the interpreter's baseline.

Target: each command's peak RSS beyond the interpreter's (``python -c pass``)
is at most 2x the log's size. The log is generated once (``generate.py log``:
the benchmark's realistic events, ~500 bytes each), committed into an agent
repository (hooks off), then each command runs as a fresh process and its
peak RSS is taken from ``wait4``. Rounds alternate the commands; the median
of the rounds is reported.

    python benchmarks/memory.py                    # 150 MB log, 3 rounds
    python benchmarks/memory.py --mb 100 --rounds 1 --only fold,check
    python benchmarks/memory.py --keep /tmp/mem    # reuse the repository
    python benchmarks/memory.py --before /tmp/old  # and from an older tree, e.g. made by
    git archive main git_gasp | tar -x -C /tmp/old

Prints one row per command: log MB, peak RSS MB, baseline MB, (peak -
baseline) / log, and the verdict against 2x; ``--json`` for the values.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MiB = 1 << 20
TARGET = 2.0
COMMANDS = ("restore", "status", "check", "fold")


def _peak(argv: list[str], source: str | None = None) -> tuple[int, int]:
    """Run ``argv`` (with git_gasp imported from ``source``, a source tree,
    when given); its exit code and its peak RSS in bytes (``wait4``)."""
    env = _env()
    if source is not None:
        env["PYTHONPATH"] = source
    # started outside any source tree: ``-m`` puts the working directory first
    # on the module path, which would shadow ``source``
    cwd = tempfile.gettempdir()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.stderr.write(err.decode(errors="replace"))
    return proc.returncode, usage.ru_maxrss * 1024


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.setdefault("GIT_AUTHOR_NAME", "bench")
    env.setdefault("GIT_AUTHOR_EMAIL", "bench@example.com")
    env.setdefault("GIT_COMMITTER_NAME", "bench")
    env.setdefault("GIT_COMMITTER_EMAIL", "bench@example.com")
    return env


def build(base: str, megabytes: int) -> str:
    """An agent repository whose committed log is about ``megabytes`` MB."""
    from logs import EVENT_BYTES, write_log

    from git_gasp.agent.init import init_repo

    root = os.path.join(base, f"agent-{megabytes}mb")
    if os.path.isfile(os.path.join(root, ".git", "gasp-bench-done")):
        return root
    shutil.rmtree(root, ignore_errors=True)
    init_repo(root, "memory-bench")
    log = os.path.join(root, "state", "events.jsonl")
    events = (megabytes * MiB // EVENT_BYTES) // 2 * 2
    write_log(log, events, megabytes * MiB)
    git = ["git", "-C", root, "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*git, "add", "-A"], check=True, env=_env())
    subprocess.run([*git, "commit", "-qm", "a large log"], check=True, env=_env())
    open(os.path.join(root, ".git", "gasp-bench-done"), "w").close()
    return root


def _argv(command: str, root: str, dest: str) -> list[str]:
    gasp = [sys.executable, "-m", "git_gasp"]
    return {
        "restore": [*gasp, "restore", root, dest],
        "status": [*gasp, "status", "-C", root],
        "check": [*gasp, "check", root, "--no-cache"],
        "fold": [*gasp, "fold", root, "--json"],
    }[command]


def measure(
    root: str, base: str, commands: list[str], rounds: int, before: str | None
) -> dict[str, object]:
    """Each command's median peak; with ``before`` (a source tree of the code
    to compare with), the same command run from it, in the same rounds."""
    size = os.path.getsize(os.path.join(root, "state", "events.jsonl"))
    peaks: dict[str, list[int]] = {}
    codes: dict[str, int] = {}
    for n in range(rounds):
        peaks.setdefault("baseline", []).append(_peak([sys.executable, "-c", "pass"])[1])
        for command in commands:
            for tag, source in [("", None), *([("before ", before)] if before else [])]:
                dest = os.path.join(base, f"restored-{n}")
                shutil.rmtree(dest, ignore_errors=True)  # a run cut short left it
                code, peak = _peak(_argv(command, root, dest), source)
                shutil.rmtree(dest, ignore_errors=True)
                codes[tag + command] = code
                peaks.setdefault(tag + command, []).append(peak)
                sys.stderr.write(
                    f"round {n + 1}: {tag}{command} exit {code}, {peak / MiB:.1f} MiB\n"
                )
    baseline = statistics.median(peaks.pop("baseline"))
    rows = {}
    for key, values in peaks.items():
        peak = statistics.median(values)
        ratio = (peak - baseline) / size
        rows[key] = {
            "exit": codes[key],
            "peak_mib": round(peak / MiB, 1),
            "ratio": round(ratio, 2),
            "verdict": "pass" if ratio <= TARGET else "FAIL",
        }
    return {"log_mib": round(size / MiB, 1), "baseline_mib": round(baseline / MiB, 1), **rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=150, help="the log's size (default 150)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=",".join(COMMANDS), help="commands, comma-separated")
    parser.add_argument("--keep", help="a directory to keep (and reuse) the repository in")
    parser.add_argument(
        "--before", metavar="SRC", help="also run each command from this source tree (PYTHONPATH)"
    )
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    commands = [c for c in opts.only.split(",") if c]
    if any(c not in COMMANDS for c in commands):
        parser.error(f"--only takes {', '.join(COMMANDS)}")
    base = opts.keep or tempfile.mkdtemp(prefix="gasp-memory-")
    os.makedirs(base, exist_ok=True)
    try:
        result = measure(build(base, opts.mb), base, commands, opts.rounds, opts.before)
    finally:
        if not opts.keep:
            shutil.rmtree(base, ignore_errors=True)
    if opts.json:
        print(json.dumps(result))
    else:
        print(
            f"log {result['log_mib']} MiB; baseline (python -c pass) {result['baseline_mib']} MiB"
        )
        print(f"{'command':<16}{'exit':>5}{'peak MiB':>10}{'(peak-base)/log':>17}  verdict (<= 2x)")
        for key, row in result.items():
            if isinstance(row, dict):
                print(
                    f"{key:<16}{row['exit']:>5}{row['peak_mib']:>10}{row['ratio']:>17}  "
                    f"{row['verdict']}"
                )
    rows = [result[c] for c in commands]
    return 0 if all(isinstance(r, dict) and r["verdict"] == "pass" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
