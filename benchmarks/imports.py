"""Benchmarks of git gasp import and usage (issue 19 item 10), runnable on its own:

    python benchmarks/imports.py [--rounds N] [--json PATH]

Targets: importing a 10,000-line Claude Code transcript <= 1 s; re-importing
it after it grew by 100 lines <= 0.3 s; usage over 1,000 imported sessions
<= 2 s. Each row is a fresh ``python -m git_gasp`` process, as a user runs
it, timed by the wall clock and by the CPU time it used (user + system, from
the children's resource usage: on a machine other processes load, the wall
clock also counts the waiting). Each row is set against baselines measured
in the same run: ``python -c pass`` (the interpreter's start) and reading
the same transcript (every line parsed with ``json.loads``) in a fresh
interpreter. The median of ``--rounds`` rounds, each on fresh repositories;
the sessions of the usage row are imported into a repository of their own.
The package's bytecode is compiled first, as an installed package's is.
Prints the table; asserts nothing (STYLE 13).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tests import transcripts as T

ENV = {
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
}


def _timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _gasp(*args: str) -> tuple[float, float]:
    return _timed([sys.executable, "-m", "git_gasp", *args])


def _grow(m: T.Claude, turns: int) -> None:
    for i in range(turns):
        n = len(m.lines)
        m.user(f"step {n}: run the tests again")
        m.assistant(
            f"msg_{n}",
            [
                {
                    "type": "tool_use",
                    "id": f"toolu_{n}",
                    "name": "Bash",
                    "input": {"command": "pytest -q"},
                }
            ],
            T.usage(10, 5, 0, 100),
            stop="tool_use",
        )
        m.tool_result(f"toolu_{n}", "3 passed")
        m.assistant(f"msg_{n}b", [{"type": "text", "text": f"passed {i}"}], T.usage(10, 5))


def one_round(tmp: str, sessions: int) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    repo = os.path.join(tmp, "agent")
    _gasp("init", repo, "--agent-id", "bench")
    m = T.Claude("2.1.173")
    _grow(m, 2500)  # 4 lines a turn: 10,000 lines
    path = os.path.join(tmp, f"{T.SESSION}.jsonl")
    with open(path, "w") as fh:
        fh.write(m.text())
    out["python -c pass"] = _timed([sys.executable, "-c", "pass"])
    read = f"import json\nfor line in open({path!r}): json.loads(line)"
    out["read the transcript"] = _timed([sys.executable, "-c", read])
    out["import"] = _gasp("import", "claude-code", path, "--repo", repo)
    _grow(m, 25)  # +100 lines
    with open(path, "w") as fh:
        fh.write(m.text())
    out["re-import"] = _gasp("import", "claude-code", path, "--repo", repo)
    out["check"] = _gasp("check", repo)
    if sessions:  # a repository of their own, as one per project would be
        repo = os.path.join(tmp, "many-agent")
        _gasp("init", repo, "--agent-id", "bench-many")
        many = os.path.join(tmp, "many")
        os.makedirs(many)
        for i in range(sessions):
            s = T.Claude("2.1.173", session=f"{i:08d}-0000-4000-8000-000000000000")
            _grow(s, 1)
            with open(os.path.join(many, f"{s.session}.jsonl"), "w") as fh:
                fh.write(s.text())
        out["import sessions"] = _gasp("import", "claude-code", many, "--repo", repo)
        out["usage"] = _gasp("usage", "--repo", repo, "--by", "session", "--json")
    return out


ROWS = (
    ("import", "import of a 10,000-line Claude Code transcript", 1.0),
    ("re-import", "re-import after it grew by 100 lines", 0.3),
    ("usage", "usage --by session over the imported sessions", 2.0),
    ("import sessions", "import of the one-turn sessions (a commit each)", None),
    ("check", "check of the repository after the two imports", None),
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--json", dest="json_path")
    opts = parser.parse_args()
    os.environ.update(ENV)
    # an installed package has its bytecode compiled (pip does it); this tree's is
    # compiled once here, since the environment may set PYTHONDONTWRITEBYTECODE
    # (every command would otherwise compile the modules it imports, ~1 s)
    package = os.path.join(os.path.dirname(__file__), "..", "git_gasp")
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True)
    rounds: list[dict[str, tuple[float, float]]] = []
    for _ in range(opts.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            rounds.append(one_round(tmp, opts.sessions))
    med = {
        k: (statistics.median(r[k][0] for r in rounds), statistics.median(r[k][1] for r in rounds))
        for k in rounds[0]
    }
    start, read = med["python -c pass"], med["read the transcript"]
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"baseline python -c pass:       wall {start[0]:.2f} s, cpu {start[1]:.2f} s")
    print(f"baseline read the transcript:  wall {read[0]:.2f} s, cpu {read[1]:.2f} s")
    table: list[dict[str, Any]] = []
    for key, title, target in ROWS:
        if key not in med:
            continue
        wall, cpu = med[key]
        goal = f"<= {target} s" if target else "info"
        verdict = "" if target is None else ("meets" if wall <= target else "misses")
        if target is not None and wall > target >= cpu:
            verdict = "misses on the wall clock, meets in CPU time"
        ratio = cpu / read[1] if read[1] else 0.0
        print(
            f"{title:<52} {goal:>8}  wall {wall:6.2f} s  cpu {cpu:6.2f} s  "
            f"{ratio:5.1f}x reading it  {verdict}"
        )
        table.append({"row": key, "title": title, "target_s": target, "wall_s": wall, "cpu_s": cpu})
    if opts.json_path:
        with open(opts.json_path, "w") as fh:
            json.dump({"rows": table, "baselines": {"start": start, "read": read}}, fh, indent=1)


if __name__ == "__main__":
    main()
