"""Rows a and d of the benchmarks: parsing and folding a log.

a   ``parse_log`` + ``fold`` in-process on an 8,000-event, ~4 MB log;
d   ``git gasp fold --json`` (the streaming path) on a 1,000,000-event log,
    one process, its peak RSS; d' the in-memory ``parse_log`` + ``fold`` of
    the same log in a fresh process, its peak ``ru_maxrss`` by stage and a
    tracemalloc breakdown of live memory by part.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import TARGETS, MiB, Row, fmt_s, git_env, summarize, verdict
from logs import log_text

from git_gasp.core.fold import fold
from git_gasp.core.log import parse_log

HERE = Path(__file__).resolve().parent


BREAKDOWN_PARTS = {
    "text": "log held in memory",
    "parsed": "parse_log result (events)",
    "parse_transient": "transient during parse_log",
    "graph": "fold graph",
}


def bench_parse_fold(
    events: int, nbytes: int, seed: int, repeats: int
) -> tuple[Row, dict[str, Any]]:
    text = log_text(events, nbytes, seed)
    parsed = parse_log(text)
    assert parsed.ok and len(parsed.events) == events, "generated log does not parse"
    result = fold(parsed.events)
    assert not result.skipped
    times = []
    for i in range(repeats + 2):
        t0 = time.perf_counter()
        fold(parse_log(text).events)
        took = time.perf_counter() - t0
        if i >= 2:  # two warm-ups
            times.append(took)
    s = summarize(times)
    size = len(text.encode("utf-8"))
    row = Row(
        "a",
        f"parse_log + fold, {events:,} events ({size / 1e6:.1f} MB)",
        f"<= {fmt_s(TARGETS['a'])}",
        fmt_s(s["median"]),
        "-",
        "-",
        verdict(s["median"] <= TARGETS["a"]),
    )
    detail = {
        **s,
        "events": events,
        "bytes": size,
        "nodes": len(result.graph.nodes),
        "relations": len(result.graph.relations),
        "version": result.graph.version,
    }
    return row, detail


_MEMORY_SCRIPT = r"""
import inspect, json, resource, sys, time
from git_gasp.core.log import parse_log
from git_gasp.core.fold import fold

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

# parse_log takes the log's bytes where its signature allows it (no decoded
# copy is needed then); otherwise the decoded text.
takes_bytes = "bytes" in str(inspect.signature(parse_log).parameters["text"].annotation)
out = {"start_maxrss": rss(), "stages": {}, "input": "bytes" if takes_bytes else "str"}
t0 = time.perf_counter()
with open(sys.argv[1], "rb") as fh:
    data = fh.read()
if not takes_bytes:
    data = data.decode("utf-8")
t1 = time.perf_counter()
out["stages"]["read"] = {"seconds": t1 - t0, "maxrss": rss()}
parsed = parse_log(data)
t2 = time.perf_counter()
out["stages"]["parse_log"] = {"seconds": t2 - t1, "maxrss": rss()}
result = fold(parsed.events)
t3 = time.perf_counter()
out["stages"]["fold"] = {"seconds": t3 - t2, "maxrss": rss()}
out.update(events=len(parsed.events), errors=len(parsed.errors), nodes=len(result.graph.nodes),
           relations=len(result.graph.relations), seconds=t3 - t0, maxrss=rss())
print(json.dumps(out))
"""


_BREAKDOWN_SCRIPT = r"""
import gc, inspect, itertools, json, sys, tracemalloc
from git_gasp.core.log import parse_log
from git_gasp.core.fold import fold

takes_bytes = "bytes" in str(inspect.signature(parse_log).parameters["text"].annotation)
with open(sys.argv[1], "rb") as fh:
    head = b"".join(itertools.islice(fh, int(sys.argv[2])))
gc.collect()
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
data = bytes(bytearray(head)) if takes_bytes else head.decode("utf-8")  # the log as held
del head
gc.collect()
t_text = tracemalloc.get_traced_memory()[0] - base
tracemalloc.reset_peak()
before = tracemalloc.get_traced_memory()[0]
parsed = parse_log(data)
gc.collect()
t_parsed = tracemalloc.get_traced_memory()[0] - before
t_parse_peak = tracemalloc.get_traced_memory()[1] - before
before = tracemalloc.get_traced_memory()[0]
result = fold(parsed.events)
gc.collect()
t_graph = tracemalloc.get_traced_memory()[0] - before
print(json.dumps({"events": len(parsed.events), "text": t_text, "parsed": t_parsed,
                  "parse_transient": t_parse_peak - t_parsed, "graph": t_graph}))
"""


def bench_memory(path: Path, events: int, breakdown_events: int) -> tuple[Row, dict[str, Any]]:
    env = git_env()
    env["PYTHONPATH"] = str(HERE.parent) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", _MEMORY_SCRIPT, str(path)], capture_output=True, env=env
    )
    if proc.returncode != 0:
        raise RuntimeError(f"memory probe failed:\n{proc.stderr.decode(errors='replace')}")
    out = json.loads(proc.stdout)
    if out["events"] != events or out["errors"]:
        raise RuntimeError(f"memory probe parsed {out['events']} events, {out['errors']} errors")
    peak = out["maxrss"] / MiB
    size = path.stat().st_size
    out["bytes"] = size
    prev = out["start_maxrss"]
    stages = {}
    for name, st in out["stages"].items():
        stages[name] = {
            "seconds": round(st["seconds"], 2),
            "maxrss_mib": round(st["maxrss"] / MiB),
            "adds_mib": round((st["maxrss"] - prev) / MiB),
        }
        prev = st["maxrss"]
    out["stages_mib"] = stages
    # Where the memory goes, per event (tracemalloc on a prefix of the log;
    # per-event costs scale linearly, so they are extrapolated to the full log).
    n = min(breakdown_events, events)
    proc = subprocess.run(
        [sys.executable, "-c", _BREAKDOWN_SCRIPT, str(path), str(n)], capture_output=True, env=env
    )
    if proc.returncode == 0:
        bd = json.loads(proc.stdout)
        scale = events / bd["events"]
        out["breakdown"] = {
            "measured_on_events": bd["events"],
            "per_event_bytes": {k: round(bd[k] / bd["events"]) for k in BREAKDOWN_PARTS},
            "extrapolated_mib": {k: round(bd[k] * scale / MiB) for k in BREAKDOWN_PARTS},
        }
    else:
        out["breakdown_error"] = proc.stderr.decode(errors="replace")[-2000:]
    row = Row(
        "d'",
        "  informational: in-memory parse_log + fold (what check holds)",
        "-",
        f"{peak:,.0f} MiB",
        "-",
        "-",
        "info",
    )
    return row, out


def bench_stream_fold(path: Path, work: Path, events: int) -> tuple[Row, dict[str, Any]]:
    """``git gasp fold`` (the streaming path) on the same log, as a whole process."""
    repo = work / f"fold-{os.getpid()}"
    (repo / "state").mkdir(parents=True, exist_ok=True)
    target = repo / "state" / "events.jsonl"
    try:
        try:
            os.link(path, target)
        except OSError:
            target.symlink_to(path)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                ["git", "gasp", "fold", str(repo), "--json"], stdout=out, stderr=err, env=git_env()
            )
            _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
            took = time.perf_counter() - t0
            proc.returncode = code = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
    finally:
        shutil.rmtree(repo, ignore_errors=True)
    if code != 0:
        raise RuntimeError(f"git gasp fold failed:\n{stderr.decode(errors='replace')}")
    summary = json.loads(stdout)
    if summary.get("events") != events:
        raise RuntimeError(f"git gasp fold folded {summary.get('events')} events, not {events}")
    peak = usage.ru_maxrss * 1024 / MiB
    row = Row(
        "d",
        f"git gasp fold, {events:,} events (streams the log): peak RSS",
        f"<= {TARGETS['d'] / 1024:.1f} GiB",
        f"{peak:,.0f} MiB",
        "-",
        "-",
        verdict(peak <= TARGETS["d"]),
    )
    return row, {"seconds": took, "maxrss_mib": peak, "nodes": summary.get("nodes")}
