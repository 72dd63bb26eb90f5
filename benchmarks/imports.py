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

Two transcripts of 10,000 lines. The dense one: turns of 4 lines (a prompt,
a tool call, its result, a reply), every line projected into an event pair:
25,002 events, a 16 MB log, the worst case per line. The real-shaped one:
turns as Claude Code 2.1 writes them (adapters.md §2.3): the prompt, its
``file-history-snapshot``, the response one line per content block (empty
thinking with its signature, text, a tool call: Bash, Read or Edit), the
tool's result (a Read returns 60 numbered lines), the closing text and the
``system``/``turn_duration`` line: 8 lines, of which 3 are meta or share a
message id.
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


#: the text of a source file a Read returns (numbered lines, as Claude Code shows them)
_SOURCE = "".join(
    f"{n:>6}\u2192    value = compute(item, {n}) if item else default_for({n})\n" for n in range(60)
)


def _real_turn(m: T.Claude, i: int, tool: bool = True) -> None:
    """One turn shaped as Claude Code 2.1 writes it (adapters.md §2.3): the
    prompt, its file-history snapshot, the response one line per content
    block (empty thinking with its signature, text, a tool call), the tool's
    result, the closing text, and the turn's duration. 8 lines; 4 without a
    tool (prompt, snapshot, text, duration)."""
    prompt = m.user(f"step {i}: " + "please look at the failing case and fix it " * (2 + i % 6))
    m.lines.append(
        json.dumps(
            {
                "type": "file-history-snapshot",
                "messageId": prompt["uuid"],
                "snapshot": {"messageId": prompt["uuid"], "trackedFileBackups": {}},
                "isSnapshotUpdate": False,
            }
        )
        + "\n"
    )
    usage = T.usage(3 + i % 7, 120 + i % 90, 0 if i % 9 else 4000, 18000 + 40 * i)
    text = {"type": "text", "text": "I will check the module first. " * (3 + i % 5)}
    if not tool:
        m.assistant(f"msg_r{i}", [text], usage)
    else:
        call = f"toolu_r{i}"
        kind = i % 3
        if kind == 0:
            inputs: dict[str, Any] = {"command": "pytest -q tests/test_app.py"}
            name, result = "Bash", "." * 40 + f"\n{12 + i % 5} passed in 0.{i % 9}s"
        elif kind == 1:
            inputs, name, result = {"file_path": f"/srv/app/mod{i % 40}.py"}, "Read", _SOURCE
        else:
            inputs = {"file_path": f"/srv/app/mod{i % 40}.py", "old_string": "x = 1" * 20}
            inputs["new_string"] = "x = 2" * 20
            name, result = "Edit", f"The file /srv/app/mod{i % 40}.py has been updated."
        thinking = {"type": "thinking", "thinking": "", "signature": "RXF1aXZhbGVudA" * 24}
        use = {"type": "tool_use", "id": call, "name": name, "input": inputs}
        m.assistant(f"msg_r{i}", [thinking, text, use], usage, stop="tool_use")
        m.tool_result(call, result)
        m.assistant(f"msg_r{i}b", [{"type": "text", "text": f"Done: step {i}. " * 12}], usage)
    m.add(m._base("system", subtype="turn_duration", isMeta=False))


def _grow_real(m: T.Claude, lines: int) -> None:
    """Real-shaped turns until ``lines`` more lines (a multiple of 4)."""
    target = len(m.lines) + lines
    i = len(m.lines)
    while len(m.lines) + 8 <= target:
        _real_turn(m, i)
        i += 1
    while len(m.lines) < target:
        _real_turn(m, i, tool=False)
        i += 1


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
    real_repo = os.path.join(tmp, "real-agent")  # the real-shaped transcript, in its own
    _gasp("init", real_repo, "--agent-id", "bench-real")
    real = T.Claude("2.1.173", session="66660000-0000-4000-8000-00000000000b")
    _grow_real(real, 10_000)
    real_path = os.path.join(tmp, f"{real.session}.jsonl")
    with open(real_path, "w") as fh:
        fh.write(real.text())
    out["import real"] = _gasp("import", "claude-code", real_path, "--repo", real_repo)
    _grow_real(real, 100)
    with open(real_path, "w") as fh:
        fh.write(real.text())
    out["re-import real"] = _gasp("import", "claude-code", real_path, "--repo", real_repo)
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
    ("import real", "the same, real-shaped (2.1 turns of 8 lines)", 1.0),
    ("re-import real", "its re-import after 100 more lines", 0.3),
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
