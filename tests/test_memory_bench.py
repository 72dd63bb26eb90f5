"""``benchmarks/memory.py`` runs: each reader on a small generated log, its
peak RSS reported against the interpreter's (no figure is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "memory.py"


def test_the_memory_benchmark_reports_each_reader(tmp_path: Path) -> None:
    # 4 MB: the commands import so little now that a fold of 1 MB peaked no higher than the
    # RSS every child starts with (the parent's, inherited across fork and exec)
    cmd = [sys.executable, str(SCRIPT), "--mb", "4", "--rounds", "1", "--json"]
    cmd += ["--keep", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    result = json.loads(done.stdout)
    assert result["log_mib"] > 0.5 and result["baseline_mib"] > 0
    for command in ("restore", "status", "check", "fold"):
        row = result[command]
        assert row["exit"] == 0, (command, done.stderr)  # the generated log conforms
        assert row["peak_mib"] > result["baseline_mib"]
