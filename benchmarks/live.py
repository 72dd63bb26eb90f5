"""Benchmarks of the live hook handler (issue 20), runnable on its own:

    python benchmarks/live.py [--repo AGENT_REPO] [--runs N]

On a 600-run agent repository (generated with benchmarks/generate.py unless
``--repo`` names one): the handler as its hook entry runs it (the
``git-gasp`` script, ``adapt hook claude-code --repo R``, a PostToolUse
payload on stdin) against ``python -c pass``, interleaved in the same run,
median and p99 of the wall time (target: median <= 2x); and SessionStart with
its rehydration document, from the cache a flush leaves (target <= 0.5 s),
with no cache (the first session start), and with a stale cache (the log
changed outside a flush: remade detached, waited for until 0.3 s after the
handler started); and Stop, which also starts a detached flush (the agent
waits only for the fork). Prints the figures; asserts nothing (STYLE 13).
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
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

SESSION = "55550000-0000-4000-8000-0000000000be"


def _script() -> list[str]:
    beside = os.path.join(os.path.dirname(sys.executable), "git-gasp")
    found = beside if os.path.exists(beside) else shutil.which("git-gasp")
    return [found] if found else [sys.executable, "-m", "git_gasp"]


def _wall(command: list[str], data: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=data, stdout=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - start


def _payload(event: str, cwd: str) -> bytes:
    value = {
        "session_id": SESSION,
        "transcript_path": None,
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q", "description": "Run the tests"},
        "tool_response": {"stdout": "3 passed in 0.41s", "stderr": ""},
        "tool_use_id": "toolu_01ABC",
        "duration_ms": 812,
    }
    if event == "SessionStart":
        value = {k: value[k] for k in ("session_id", "transcript_path", "cwd", "hook_event_name")}
        value["source"] = "startup"
    return json.dumps(value).encode()


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99


def _row(name: str, samples: list[float], base: tuple[float, float] | None = None) -> None:
    median, p99 = _stats(samples)
    text = f"{name:<52} median {median * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms"
    if base is not None:
        text += f"   ratio {median / base[0]:.2f}x (p99 {p99 / base[1]:.2f}x)"
    print(text, flush=True)


def _settle(cache: str, repo: str) -> None:
    """Wait until the detached refresh has kept the current document."""
    from git_gasp.live.rehydrate import cache_key

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with open(cache, encoding="utf-8") as fh:
                if json.load(fh).get("key") == cache_key(repo):
                    return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)


def measure(repo: str, runs: int) -> None:
    env = {**os.environ, "GASP_LIVE_FLUSH": "off"}
    hook = [*_script(), "adapt", "hook", "claude-code", "--repo", repo]
    tool = _payload("PostToolUse", repo)
    baseline, handler = [], []
    for _ in range(3):  # warm the caches of both
        _wall([sys.executable, "-c", "pass"], b"", env)
        _wall(hook, tool, env)
    for _ in range(runs):
        baseline.append(_wall([sys.executable, "-c", "pass"], b"", env))
        handler.append(_wall(hook, tool, env))
    base = _stats(baseline)
    _row("python -c pass", baseline)
    _row("handler, PostToolUse (spool only)", handler, base)
    start = _payload("SessionStart", repo)
    cache = os.path.join(repo, ".git", "gasp", "live", "context.json")
    cold, warm = [], []
    for _ in range(max(3, runs // 10)):
        if os.path.exists(cache):
            os.remove(cache)
        cold.append(_wall(hook, start, env))
        warm.append(_wall(hook, start, env))
    _row("handler, SessionStart, rehydration cached", warm, base)
    _row("handler, SessionStart, no cache (first start)", cold, base)
    log = os.path.join(repo, "state", "events.jsonl")
    stale = []
    for _ in range(max(3, runs // 10)):
        os.utime(log)  # the log changed outside a flush: the kept document is stale
        stale.append(_wall(hook, start, env))
        _settle(cache, repo)
    _row("handler, SessionStart, stale cache (remade detached)", stale, base)
    spooled = os.path.join(repo, ".git", "gasp", "live", "spool")
    shutil.rmtree(spooled, ignore_errors=True)  # the tool calls above are not flushed
    stop = _payload("Stop", repo)  # no transcript, no tool call: its flush appends nothing
    detaching = {**os.environ, "GASP_LIVE_FLUSH": "on"}
    stops = [_wall(hook, stop, detaching) for _ in range(max(3, runs // 10))]
    _row("handler, Stop (spool + a detached flush)", stops, base)
    deadline = time.monotonic() + 300
    while os.path.exists(os.path.join(spooled, "claude-code", SESSION)):
        if time.monotonic() > deadline:  # the detached flushes consume the payloads
            break
        time.sleep(0.2)
    shutil.rmtree(spooled, ignore_errors=True)
    from git_gasp.live import linkage, spool

    linkage.session_closed(spool.live_dir(repo), "claude-code", SESSION)  # leave no active session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", help="an agent repository (default: generate 600 runs)")
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    if args.repo:
        measure(os.path.abspath(args.repo), args.runs)
        return
    from benchmarks.generate import generate

    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "agent")
        generate(repo, 600, 4_000_000, 1)
        measure(repo, args.runs)


if __name__ == "__main__":
    main()
