"""The hostile restore: a small repository whose committed log is a 2 GB sparse file.

Git stores the 2 GB of zero bytes in a few MB, so cloning it is cheap; a
restore that reads the log whole would allocate gigabytes and be killed on a
small runner. ``git gasp restore`` must refuse it (over ``gasp.maxLogBytes``)
in seconds with a one-line error. Also measured: restore's peak RSS on the
largest log the default cap accepts would need a log that large; the ratio
printed is for the accepted log this script builds (``--accepted-mb``).

    python benchmarks/hostile.py                 # 2 GB hostile, 32 MB accepted
    python benchmarks/hostile.py --size-gb 1 --accepted-mb 64

Prints: the refusal's exit code, wall time, peak RSS and message; the
accepted restore's log size, peak RSS and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def _git(repo: str, *args: str) -> None:
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)


def _restore(src: str, dest: str) -> tuple[int, float, int, str]:
    """Exit code, seconds, the child's peak RSS (KB) and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    began = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "git_gasp", "restore", src, dest],
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.monotonic() - began
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return proc.returncode, took, max(peak, before), proc.stderr.strip()


def hostile_repo(base: str, size: int) -> str:
    from git_gasp.agent.init import init_repo

    root = os.path.join(base, "hostile")
    init_repo(root, "hostile")
    with open(os.path.join(root, "state/events.jsonl"), "r+b") as fh:
        fh.truncate(size)  # sparse: no disk blocks, 2 GB of zero bytes to a reader
    _git(root, "-c", "core.bigFileThreshold=1m", "commit", "-qam", "a 2 GB log", "--no-verify")
    return root


def accepted_repo(base: str, megabytes: int) -> str:
    """A conformant repository whose log is about ``megabytes`` MB of real events."""
    from git_gasp.agent.api import Agent
    from git_gasp.agent.init import init_repo

    root = os.path.join(base, "accepted")
    init_repo(root, "accepted")
    with Agent.open(root, worker="bench") as agent:
        while os.path.getsize(os.path.join(root, "state/events.jsonl")) < megabytes << 20:
            for _ in range(200):
                agent.record_observation(None, "an observation", "x" * 400)
    _git(root, "commit", "-qam", "events", "--no-verify")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=2.0)
    parser.add_argument("--accepted-mb", type=int, default=32)
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as base:
        src = hostile_repo(base, int(opts.size_gb * 1024**3))
        code, took, peak, err = _restore(src, os.path.join(base, "copy"))
        hostile = {"exit": code, "seconds": round(took, 2), "peak_rss_mb": peak >> 10}
        hostile["message"] = err.splitlines()[0] if err else ""
        print("hostile:", json.dumps(hostile))
        src = accepted_repo(base, opts.accepted_mb)
        size = os.path.getsize(os.path.join(src, "state/events.jsonl"))
        code, took, peak, _ = _restore(src, os.path.join(base, "copy2"))
        ratio = round((peak << 10) / size, 2)
        accepted = {"exit": code, "log_mb": size >> 20, "peak_rss_mb": peak >> 10, "ratio": ratio}
        print("accepted:", json.dumps(accepted))
    return 0 if hostile["exit"] != 0 and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
