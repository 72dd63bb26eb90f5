"""Benchmarks of git gasp import and usage (issue 19), runnable on its own:

    python benchmarks/imports.py

Targets: importing a 10,000-line Claude Code transcript <= 1 s; re-importing
it after it grew by 100 lines <= 0.3 s; usage over 1,000 imported sessions
<= 2 s. Prints the times; asserts nothing (STYLE 13).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tests import transcripts as T


def _gasp(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "git_gasp", *args], check=True, capture_output=True)
    return time.perf_counter() - start


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


def main() -> None:
    env = {
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    os.environ.update(env)
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "agent")
        _gasp("init", repo, "--agent-id", "bench")
        m = T.Claude("2.1.173")
        _grow(m, 2500)  # 4 lines a turn: 10,000 lines
        path = os.path.join(tmp, f"{T.SESSION}.jsonl")
        with open(path, "w") as fh:
            fh.write(m.text())
        first = _gasp("import", "claude-code", path, "--repo", repo)
        _grow(m, 25)  # +100 lines
        with open(path, "w") as fh:
            fh.write(m.text())
        grown = _gasp("import", "claude-code", path, "--repo", repo)
        print(f"import of a 10,000-line transcript: {first:.2f} s (target 1 s)")
        print(f"re-import after +100 lines:          {grown:.2f} s (target 0.3 s)")
        sessions = os.path.join(tmp, "many")
        os.makedirs(sessions)
        for i in range(1000):
            s = T.Claude("2.1.173", session=f"{i:08d}-0000-4000-8000-000000000000")
            _grow(s, 1)
            with open(os.path.join(sessions, f"{s.session}.jsonl"), "w") as fh:
                fh.write(s.text())
        imported = _gasp("import", "claude-code", sessions, "--repo", repo)
        usage = _gasp("usage", "--repo", repo, "--by", "session")
        print(f"import of 1,000 sessions:            {imported:.2f} s (one commit each)")
        print(f"usage over 1,001 sessions:           {usage:.2f} s (target 2 s)")


if __name__ == "__main__":
    main()
