"""git-gasp performance benchmarks: one command, one table.

    python benchmarks/run.py [--quick] [--keep DIR] [--json] [--seed N]

Rows (see benchmarks/README.md):

a. ``parse_log`` + ``fold`` in-process on an 8,000-event, ~4 MB log;
b. ``git gasp check --no-cache`` (all seven checks, cold check-4 cache) as a
   whole process on a 600-commit history whose log grows to ~4 MB, and its
   speed-up over the reference method for check 4 alone (one ``git show``
   process per commit and path, string-prefix test: REFERENCE §10.2);
c. ``git gasp check`` after one more run commit, with a warm cache;
d. peak memory (``ru_maxrss``) of reading, parsing and folding a
   1,000,000-event log in a fresh process;
e. record throughput of the Agent API inside a run on the 600-run log (events
   and batches per second, durable; and with ``os.fsync`` patched out, for
   information);
f. ``git gasp run close`` as a whole process on a 600-run and a 10-run
   history, and the ratio of the two.

Generated repositories and logs are deterministic (seeded). With ``--keep DIR``
they are cached in DIR (e.g. ``benchmarks/out``, which git ignores) and reused
by later runs; otherwise they live in a temporary directory removed at exit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import generate as gen  # noqa: E402

from git_gasp.core.fold import fold  # noqa: E402
from git_gasp.core.log import parse_log  # noqa: E402

MiB = 1024 * 1024
# sizes per mode
FULL = {
    "a_events": 8000,
    "a_bytes": 4_000_000,
    "commits": 600,
    "log_bytes": 4_000_000,
    "d_events": 1_000_000,
    "e_batches": 200,
    "f_small_commits": 10,
}
QUICK = {
    "a_events": 8000,
    "a_bytes": 4_000_000,
    "commits": 60,
    "log_bytes": 400_000,
    "d_events": 100_000,
    "e_batches": 60,
    "f_small_commits": 10,
}
TARGETS = {
    "a": 0.060,  # seconds
    "b": 2.0,  # seconds
    "b_ratio": 8.0,  # times faster than the reference check 4
    "c": 0.3,  # seconds
    "d": 1.5 * 1024,  # MiB (1.5 GiB)
    "f": 0.5,  # seconds, the close on the large history
    "f_ratio": 1.5,  # large-history close / small-history close
    "g": 1.5,  # seconds, restore from a local bare remote
    "g_ratio": 0.2,  # seeded fold part / full fold part (snapshot at 90 %)
    "h": 0.3,  # seconds, the pre-commit hook on the large history (interpreter included)
    "h_ratio": 1.3,  # large-history pre-commit / small-history pre-commit
    "i": 0.5,  # seconds the pre-receive hook adds to a push of one run commit
    "j": 5.0,  # seconds, push of the whole history to an empty server with the hook
}
WORKER = "bench-worker"  # the worker id rows e and f write as
BREAKDOWN_PARTS = {
    "text": "log held in memory",
    "parsed": "parse_log result (events)",
    "parse_transient": "transient during parse_log",
    "graph": "fold graph",
}
# cached inputs are regenerated whenever the generator's source changes
GEN_VERSION = hashlib.sha256(Path(gen.__file__).read_bytes()).hexdigest()[:16]
CHECK4_PATHS = ("state/events.jsonl", "journal/JOURNAL.md", "JOURNAL.md")


class Row(NamedTuple):
    key: str
    what: str
    target: str
    measured: str
    baseline: str
    ratio: str
    verdict: str

    def as_dict(self) -> dict[str, str]:
        return self._asdict()


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def git_env() -> dict[str, str]:
    """The environment for ``git gasp``: this interpreter's scripts first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def summarize(times: Sequence[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(times),
        "best": min(times),
        "runs": len(times),
        "all": [round(t, 6) for t in times],
    }


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


# -- cached inputs -------------------------------------------------------------


def ensure_repo(base: Path, commits: int, log_bytes: int, seed: int) -> tuple[Path, float]:
    """A generated history under ``base`` (reused when its marker matches)."""
    path = base / f"repo-{commits}c-{log_bytes}b-s{seed}"
    params = {"commits": commits, "log_bytes": log_bytes, "seed": seed, "gen": GEN_VERSION}
    marker = path / ".git" / "gasp-bench.json"
    if marker.is_file():
        try:
            saved = json.loads(marker.read_text())
            head = subprocess.run(
                ["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True
            ).stdout.strip()
            dirty = subprocess.run(
                ["git", "-C", str(path), "status", "--porcelain"], capture_output=True, text=True
            ).stdout.strip()
            if saved.get("params") == params and saved.get("head") == head and not dirty:
                log(f"reusing {path}")
                return path, 0.0
        except (OSError, ValueError):
            pass
    if path.exists():
        shutil.rmtree(path)
    log(f"generating {commits}-commit history in {path} ...")
    t0 = time.perf_counter()
    head = gen.generate(path, commits=commits, target_log_bytes=log_bytes, seed=seed)
    took = time.perf_counter() - t0
    marker.write_text(json.dumps({"params": params, "head": head}))
    log(f"generated in {took:.1f} s (HEAD {head[:12]})")
    return path, took


def ensure_log(base: Path, events: int, seed: int) -> Path:
    path = base / f"log-{events}e-s{seed}.jsonl"
    marker = base / f"log-{events}e-s{seed}.json"
    params = {"events": events, "seed": seed, "gen": GEN_VERSION}
    if path.is_file() and marker.is_file():
        try:
            saved = json.loads(marker.read_text())
            if saved.get("params") == params and saved.get("size") == path.stat().st_size:
                log(f"reusing {path}")
                return path
        except (OSError, ValueError):
            pass
    log(f"generating {events:,}-event log in {path} ...")
    t0 = time.perf_counter()
    size = gen.write_log(path, events, seed=seed)
    marker.write_text(json.dumps({"params": params, "size": size}))
    log(f"generated {size / MiB:.0f} MiB in {time.perf_counter() - t0:.1f} s")
    return path


# -- a. parse + fold in process ---------------------------------------------------


def bench_parse_fold(
    events: int, nbytes: int, seed: int, repeats: int
) -> tuple[Row, dict[str, Any]]:
    text = gen.log_text(events, nbytes, seed)
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


# -- b. whole check, cold, and the reference check 4 ------------------------------


def check_cmd(repo: Path, *flags: str) -> list[str]:
    return ["git", "gasp", "check", str(repo), *flags]


def time_process(cmd: list[str], repeats: int, warmups: int = 1) -> list[float]:
    env = git_env()
    times = []
    for i in range(warmups + repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, env=env)
        took = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(cmd)} exited {proc.returncode}:\n"
                f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}"
            )
        if i >= warmups:
            times.append(took)
    return times


def verify_conformant(repo: Path) -> dict[str, Any]:
    """All seven checks pass (``--json``), or raise."""
    proc = subprocess.run(
        check_cmd(repo, "--json", "--no-cache"), capture_output=True, env=git_env()
    )
    report = json.loads(proc.stdout)
    passed = [c["number"] for c in report["checks"] if c["passed"]]
    if proc.returncode != 0 or passed != list(range(1, 8)) or not report["conformant"]:
        raise RuntimeError(f"generated repository is not conformant:\n{proc.stdout.decode()}")
    return report


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True)


def reference_check4(repo: Path) -> list[str]:
    """Check 4 exactly as REFERENCE §10.2 describes the reference checker:
    per path, ``rev-list --reverse --full-history HEAD -- path``, then one
    ``git show <sha>:./<path>`` process per commit, lossy decode, string-prefix
    test against the previous version; then the working tree."""
    if _git(repo, "rev-parse", "--git-dir").returncode != 0:
        return ["not a git repository (conformance rule 1: state lives in a git repo)"]
    if _git(repo, "rev-parse", "--verify", "HEAD").returncode != 0:
        return []
    failures: list[str] = []
    paths = list(CHECK4_PATHS)
    listed = _git(repo, "ls-files", "--", "facts.jsonl", "*/facts.jsonl")
    if listed.returncode != 0:
        failures.append(f"cannot enumerate facts.jsonl paths: {listed.stderr.decode()}")
    else:
        paths += [p for p in listed.stdout.decode().split("\n") if p and p not in paths]
    for path in paths:
        walk = _git(repo, "rev-list", "--reverse", "--full-history", "HEAD", "--", path)
        if walk.returncode != 0:
            failures.append(f"{path}: cannot walk history: {walk.stderr.decode()}")
            continue
        prev: str | None = None
        for sha in walk.stdout.decode().split():
            shown = _git(repo, "show", f"{sha}:./{path}")
            if shown.returncode == 0:
                content = shown.stdout.decode("utf-8", "replace")
                if prev is not None and not content.startswith(prev):
                    failures.append(f"{path}: commit {sha[:7]} edits existing lines")
                prev = content
            elif prev is not None:
                failures.append(f"{path}: deleted in commit {sha[:7]}")
                prev = None
        if prev is not None:
            try:
                with open(repo / path, encoding="utf-8") as fh:
                    current = fh.read()
            except FileNotFoundError:
                failures.append(f"{path}: committed file missing from working tree")
                continue
            except (OSError, UnicodeDecodeError) as exc:
                failures.append(f"{path}: working tree unreadable: {exc}")
                continue
            if not current.startswith(prev):
                failures.append(f"{path}: working tree edits committed lines")
    return failures


def bench_check_cold(
    repo: Path, repeats: int, base_repeats: int
) -> tuple[list[Row], dict[str, Any]]:
    verify_conformant(repo)
    times = time_process(check_cmd(repo, "--no-cache"), repeats)
    ours = summarize(times)
    log(f"check --no-cache: median {fmt_s(ours['median'])}; running the reference check 4 ...")
    base_times = []
    for _ in range(base_repeats):
        t0 = time.perf_counter()
        problems = reference_check4(repo)
        base_times.append(time.perf_counter() - t0)
        if problems:
            raise RuntimeError(f"reference check 4 fails on the generated repo: {problems[:3]}")
    base = summarize(base_times)
    ratio = base["median"] / ours["median"]
    rows = [
        Row(
            "b",
            "git gasp check --no-cache (all 7 checks, whole process)",
            f"<= {fmt_s(TARGETS['b'])}",
            fmt_s(ours["median"]),
            "-",
            "-",
            verdict(ours["median"] <= TARGETS["b"]),
        ),
        Row(
            "b'",
            "  speed-up: reference check 4 alone vs our whole check",
            f">= {TARGETS['b_ratio']:.0f}x",
            fmt_s(ours["median"]),
            fmt_s(base["median"]),
            f"{ratio:.1f}x",
            verdict(ratio >= TARGETS["b_ratio"]),
        ),
    ]
    return rows, {"ours": ours, "baseline": base, "ratio": ratio}


# -- c. warm cache after one more commit -------------------------------------------


def bench_check_warm(repo: Path, work: Path, repeats: int, seed: int) -> tuple[Row, dict[str, Any]]:
    clone = work / f"warm-{os.getpid()}"
    if clone.exists():
        shutil.rmtree(clone)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    try:
        env = git_env()
        subprocess.run(check_cmd(clone), capture_output=True, env=env, check=True)  # warm
        times = []
        for _ in range(repeats):
            gen.append_run(clone, seed=seed)
            times.extend(time_process(check_cmd(clone), 1, warmups=0))
        verify_conformant(clone)
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    s = summarize(times)
    row = Row(
        "c",
        "git gasp check after +1 run commit, warm cache",
        f"<= {fmt_s(TARGETS['c'])}",
        fmt_s(s["median"]),
        "-",
        "-",
        verdict(s["median"] <= TARGETS["c"]),
    )
    return row, s


# -- d. memory of a 1,000,000-event fold ----------------------------------------------

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


# -- e. record throughput through the Agent API -------------------------------------


def clone_repo(repo: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    subprocess.run(["git", "clone", "-q", str(repo), str(dest)], check=True)
    return dest


def io_pressure() -> float | None:
    """Linux PSI ``some avg10`` for I/O (% of time tasks waited on I/O): other
    helpers' fsyncs slow row e far more than the load average shows."""
    try:
        with open("/proc/pressure/io", encoding="utf-8") as fh:
            first = fh.readline().split()
        return float(dict(f.split("=") for f in first[1:])["avg10"])
    except (OSError, ValueError, KeyError, IndexError):
        return None


def fmt_psi(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def fs_type(path: Path) -> str:
    """The file system ``path`` lives on (fsync costs depend on it), from /proc/mounts."""
    real = os.path.realpath(path)
    best, kind = "", "unknown"
    try:
        with open("/proc/self/mounts", encoding="utf-8") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) < 3:
                    continue
                mount = fields[1].replace("\\040", " ")
                inside = real == mount or real.startswith(mount.rstrip("/") + "/")
                if inside and len(mount) > len(best):
                    best, kind = mount, f"{fields[2]} ({fields[0]} on {mount})"
    except OSError:
        pass
    return kind


def bench_record(
    repo: Path, work: Path, batches: int, rounds: int, seed: int
) -> tuple[list[Row], dict[str, Any]]:
    """Helper calls per second inside a run, in this process: each call is one
    batch (the domain event + its ``state.ops_applied`` pair) appended under
    the lock and fsynced. Alternating rounds with ``os.fsync`` real and
    patched to a no-op (informational: not durable)."""
    from git_gasp.agent.api import Agent

    load, psi = os.getloadavg()[0], io_pressure()
    clone = clone_repo(repo, work / f"record-{os.getpid()}")
    log_path = clone / "state" / "events.jsonl"
    sim = gen.AgentSim(random.Random(f"git-gasp-bench:{seed}:record"))
    texts = [sim.text(300) for _ in range(64)]
    real_fsync = os.fsync
    fsyncs = [0]
    callers: dict[str, int] = {}  # who fsyncs, in the durable rounds

    def counting_fsync(fd: Any) -> None:
        fsyncs[0] += 1
        code = sys._getframe(1).f_code
        where = f"{os.path.basename(code.co_filename)}:{code.co_qualname}"
        callers[where] = callers.get(where, 0) + 1
        real_fsync(fd)

    def no_fsync(fd: Any) -> None:
        fsyncs[0] += 1

    try:
        size0 = log_path.stat().st_size
        t0 = time.perf_counter()
        agent = Agent.open(str(clone), worker=WORKER)
        open_s = time.perf_counter() - t0
        events0 = len(agent.events())
        agent.start_run("benchmark: record throughput")
        lease_s = [0.0]
        acquire = agent.lease.acquire

        def timed_acquire() -> None:
            t = time.perf_counter()
            acquire()
            lease_s[0] += time.perf_counter() - t

        agent.lease.acquire = timed_acquire  # type: ignore[method-assign]
        made = [0]

        def batch() -> None:
            i = made[0]
            made[0] += 1
            if i % 2:
                agent.record_goal(None, f"benchmark goal {i}", texts[i % len(texts)])
            else:
                agent.record_observation(None, f"benchmark observation {i}", texts[i % len(texts)])

        for _ in range(20):  # warm-up
            batch()
        modes: dict[str, dict[str, list[float]]] = {
            m: {"seconds": [], "fsyncs": [], "lease": []} for m in ("durable", "no_fsync")
        }
        for _ in range(rounds):
            for mode, fake in (("durable", counting_fsync), ("no_fsync", no_fsync)):
                fsyncs[0], lease_s[0] = 0, 0.0
                os.fsync = fake
                try:
                    t0 = time.perf_counter()
                    for _ in range(batches):
                        batch()
                    took = time.perf_counter() - t0
                finally:
                    os.fsync = real_fsync
                modes[mode]["seconds"].append(took)
                modes[mode]["fsyncs"].append(fsyncs[0] / batches)
                modes[mode]["lease"].append(lease_s[0] / took)
        appended = len(agent.events()) - events0
        added_bytes = log_path.stat().st_size - size0
        agent.lease.acquire = acquire  # type: ignore[method-assign]
    finally:
        os.fsync = real_fsync
        shutil.rmtree(clone, ignore_errors=True)
    per_batch = (appended - 2) / made[0]  # start_run wrote 2 events in 2 batches
    out: dict[str, Any] = {
        "log_events_before": events0,
        "log_bytes_before": size0,
        "open_seconds": open_s,
        "batches_per_round": batches,
        "rounds": rounds,
        "warmup_batches": 20,
        "events_per_batch": per_batch,
        "bytes_per_event": added_bytes / appended,
        "fs": fs_type(work),
        "loadavg": load,
        "io_pressure": [psi, io_pressure()],
        "fsync_callers_per_batch": {
            k: v / (rounds * batches) for k, v in sorted(callers.items(), key=lambda kv: -kv[1])
        },
    }
    for mode, m in modes.items():
        rate = statistics.median(batches / t for t in m["seconds"])
        out[mode] = {
            "batches_per_s": rate,
            "events_per_s": rate * per_batch,
            "fsyncs_per_batch": statistics.median(m["fsyncs"]),
            "lease_share": statistics.median(m["lease"]),
            "all_seconds": [round(t, 4) for t in m["seconds"]],
        }
    durable, fast = out["durable"], out["no_fsync"]
    rows = [
        Row(
            "e",
            f"Agent API record in a run, {events0:,}-event log: durable (fsync)",
            "-",
            f"{durable['events_per_s']:,.0f} ev/s ({durable['batches_per_s']:,.0f} batch/s)",
            "-",
            "-",
            "info",
        ),
        Row(
            "e'",
            "  informational: os.fsync patched to a no-op (NOT durable)",
            "-",
            f"{fast['events_per_s']:,.0f} ev/s ({fast['batches_per_s']:,.0f} batch/s)",
            f"{durable['events_per_s']:,.0f} ev/s",
            f"{fast['events_per_s'] / durable['events_per_s']:.2f}x",
            "info",
        ),
    ]
    return rows, out


# -- f. git gasp run close on a short and a long history ------------------------------

_CLOSE_PHASES_SCRIPT = r"""
import json, sys, time
T0 = time.perf_counter()
from git_gasp.agent import api as agent
from git_gasp.cli import root as cli
from git_gasp import git as gitrepo
from git_gasp.store import lease
from git_gasp.agent import projecting
from git_gasp.agent import runs
from git_gasp.store import seeding
T1 = time.perf_counter()
stats = {}

def wrap(owner, name, label):
    fn = getattr(owner, name)
    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            took = time.perf_counter() - t
            keys = [label]
            if label == "git":  # also per subcommand: gitrepo.run(cwd, [subcommand, ...])
                keys.append("git " + str((args[1] if len(args) > 1 else kwargs["args"])[0]))
            for key in keys:
                s = stats.setdefault(key, [0, 0.0])
                s[0] += 1
                s[1] += took
    setattr(owner, name, timed)

for owner, name, label in (
    (agent.Agent, "__init__", "open"),
    (agent.Agent, "_sync", "sync"),
    (seeding, "choose", "seed"),
    (agent, "parse_log", "parse_log"),
    (projecting, "parse_log", "parse_log"),
    (agent.Agent, "events", "events"),
    (runs, "close_run", "close_run"),
    (agent.Agent, "finish_run", "finish_run"),
    (projecting, "append_journal", "journal"),
    (projecting, "regenerate_memory", "memory"),
    (projecting, "snapshot_due", "snapshot_due"),
    (projecting, "write_snapshot", "write_snapshot"),
    (runs, "boundary_commit", "commit"),
    (gitrepo, "run", "git"),
    (lease.Lease, "acquire", "lease"),
    (lease.Lease, "release", "lease"),
):
    if hasattr(owner, name):
        wrap(owner, name, label)
code = cli.main(["run", "close", "--outcome", sys.argv[1]])
T2 = time.perf_counter()
print(json.dumps({"code": code, "imports": T1 - T0, "main": T2 - T1, "phases": stats}))
"""

_CLOSE_PROFILE_SCRIPT = r"""
import cProfile, sys
from git_gasp.cli import root as cli
cProfile.run("cli.main(['run', 'close', '--outcome', sys.argv[2]])", sys.argv[1])
"""

# (label, key in the phase script's stats, indent) for the notes
CLOSE_PHASES = (
    ("Agent.open (read the log, seed, fold the rest, marker)", "open", 0),
    ("of which seeding.choose (locate + hash the prefix, load the snapshot)", "seed", 1),
    ("of which Agent._sync (parse + fold)", "sync", 1),
    ("close_run", "close_run", 0),
    ("finish_run (run.finished pair appended)", "finish_run", 1),
    ("append_journal", "journal", 1),
    ("regenerate_memory", "memory", 1),
    ("snapshot_due (snapshot names only)", "snapshot_due", 1),
    ("write_snapshot", "write_snapshot", 1),
    ("boundary_commit (ls-files, add -N if new files, commit, rev-parse)", "commit", 1),
    ("git processes (all)", "git", 0),
    ("lease acquire/release (all)", "lease", 0),
    ("parse_log calls (all)", "parse_log", 0),
    ("Agent.events() calls (all)", "events", 0),
)


def close_env(work: Path) -> dict[str, str]:
    """``git gasp`` for row f: a fixed committer and worker, and compiled
    bytecode cached under ``work`` (as an installed package has it), even
    where PYTHONDONTWRITEBYTECODE is set."""
    env = git_env()
    env.update(gen.GIT_ENV)
    env["GASP_WORKER_ID"] = WORKER
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def write_cadence_snapshots(root: Path) -> list[str]:
    """Snapshots where ``git gasp run close`` would have taken them while the
    history was written (every ``[gasp] snapshot_every`` events, at the end of
    the run that crosses the mark), committed with ordinary ``git commit``."""
    from git_gasp.agent import projecting
    from git_gasp.core.log import parse_log

    every = projecting.snapshot_every(str(root))
    events = parse_log((root / "state" / "events.jsonl").read_bytes()).events
    starts = [i for i, e in enumerate(events) if e.kind == "run.started"]
    ends = [i - 1 for i in starts[1:]] + [len(events) - 1]
    written, latest = [], 0
    for end in ends:
        if every > 0 and end + 1 - latest >= every:
            written.append(projecting.write_snapshot(str(root), at=events[end].id))
            latest = end + 1
    if written:
        gen._git(root, "add", "--", "snapshots")
        gen._git(root, "commit", "-q", "--no-verify", "-m", "snapshots on cadence")
    return written


def setup_round(clone: Path, env: dict[str, str], label: str) -> None:
    """Not timed: ``git gasp run start``, then an observation and a tool call
    through the Python API (2 batches, 4 events)."""
    from git_gasp.agent.api import Agent

    proc = subprocess.run(
        ["git", "gasp", "run", "start", "--task", f"benchmark {label}"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git gasp run start failed:\n{proc.stderr.decode(errors='replace')}")
    with Agent.open(str(clone), worker=WORKER) as agent:
        agent.record_observation(None, f"{label}: retries", "the counter survives a timeout")
        agent.record_tool_call("pytest -q", "pytest -q tests/retry", "ok: 12 passed", True)


def timed_close(clone: Path, env: dict[str, str], label: str) -> float:
    head = gen._git(clone, "rev-parse", "HEAD")
    t0 = time.perf_counter()
    proc = subprocess.run(
        ["git", "gasp", "run", "close", "--outcome", f"benchmark {label}"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    took = time.perf_counter() - t0
    if proc.returncode != 0 or gen._git(clone, "rev-parse", "HEAD") == head:
        raise RuntimeError(
            f"git gasp run close exited {proc.returncode} or made no commit:\n"
            f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}"
        )
    return took


def close_phases(clone: Path, env: dict[str, str]) -> dict[str, Any]:
    """One more round, its close instrumented in a fresh process."""
    setup_round(clone, env, "instrumented round")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CLOSE_PHASES_SCRIPT, "benchmark instrumented round"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"instrumented close failed:\n{proc.stderr.decode(errors='replace')}")
    out: dict[str, Any] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    out["wall"] = wall
    out["startup"] = wall - out["imports"] - out["main"]
    return out


def close_profile(clone: Path, env: dict[str, str], work: Path) -> dict[str, Any]:
    """One more round, its close under cProfile: where the time goes."""
    import pstats

    setup_round(clone, env, "profiled round")
    prof = work / f"close-{os.getpid()}.prof"
    proc = subprocess.run(
        [sys.executable, "-c", _CLOSE_PROFILE_SCRIPT, str(prof), "benchmark profiled round"],
        cwd=clone,
        env=env,
        capture_output=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"profiled close failed:\n{proc.stderr.decode(errors='replace')}")
    stats = pstats.Stats(str(prof))
    prof.unlink()
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = stats.total_tt  # type: ignore[attr-defined]
    entries = []
    for (file, line, name), (_cc, ncalls, tottime, cumtime, _callers) in raw.items():
        short = f"{file.split('/git_gasp/')[-1]}:{line}({name})" if "/git_gasp/" in file else name
        entries.append((short, "/git_gasp/" in file, ncalls, tottime, cumtime))
    ours = sorted((e for e in entries if e[1]), key=lambda e: -e[4])
    own = sorted(entries, key=lambda e: -e[3])

    def as_dicts(rows: list[Any]) -> list[dict[str, Any]]:
        return [
            {"function": f, "ncalls": n, "tottime": round(t, 4), "cumtime": round(c, 4)}
            for f, _, n, t, c in rows
        ]

    return {"total": total, "by_cumtime": as_dicts(ours[:12]), "by_tottime": as_dicts(own[:8])}


class CloseClone(NamedTuple):
    clone: Path
    runs: int
    snapshots: int
    log_bytes: int
    log_events: int


def close_clone(repo: Path, work: Path, env: dict[str, str]) -> CloseClone:
    """A clone of ``repo`` with the cadence snapshots committed."""
    clone = clone_repo(repo, work / f"close-{repo.name}-{os.getpid()}")
    runs = int(gen._git(clone, "rev-list", "--count", "HEAD"))  # one commit per run
    snapshots = write_cadence_snapshots(clone)
    log_path = clone / "state" / "events.jsonl"
    data = log_path.read_bytes()
    return CloseClone(clone, runs, len(snapshots), len(data), data.count(b"\n"))


def close_histories(
    repos: tuple[Path, Path], work: Path, rounds: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The close on both histories, their rounds interleaved (small, large,
    small, ...) so that whatever else the machine does weighs on both alike.
    Each: one warm-up round (the first close writes memory/active_memory.md
    and the compressed-log cache), then ``rounds`` timed rounds, then one
    instrumented round; the large one is also profiled."""
    env = close_env(work)
    clones = [close_clone(repo, work, env) for repo in repos]
    try:
        firsts = []
        for c in clones:
            setup_round(c.clone, env, "warm-up round")
            firsts.append(timed_close(c.clone, env, "warm-up round"))
        times: list[list[float]] = [[], []]
        loads: list[list[float]] = [[], []]
        for i in range(rounds):
            for k, c in enumerate(clones):
                setup_round(c.clone, env, f"round {i + 1}")
                loads[k].append(os.getloadavg()[0])
                times[k].append(timed_close(c.clone, env, f"round {i + 1}"))
        out = []
        for k, c in enumerate(clones):
            phases = close_phases(c.clone, env)
            prof = close_profile(c.clone, env, work) if k == 1 else None
            verify_conformant(c.clone)
            out.append(
                {
                    **summarize(times[k]),
                    "runs_timed": rounds,
                    "first_close": firsts[k],
                    "runs": c.runs,
                    "log_bytes": c.log_bytes,
                    "log_events": c.log_events,
                    "snapshots": c.snapshots,
                    "loadavg": loads[k],
                    "phases": phases,
                    "profile": prof,
                }
            )
    finally:
        for c in clones:
            shutil.rmtree(c.clone, ignore_errors=True)
    return out[0], out[1]


def bench_restore(repo: Path, work: Path, repeats: int) -> tuple[list[Row], dict[str, Any]]:
    """Row g: `git gasp restore` from a local bare remote of the 600-commit history,
    with a snapshot at 90 % of the log; g': the fold part, seeded vs full."""
    from git_gasp.agent.projecting import write_snapshot
    from git_gasp.core.log import parse_log
    from git_gasp.restore.seededfold import fold_log

    source = work / f"restore-src-{os.getpid()}"
    bare = work / f"restore-bare-{os.getpid()}.git"
    try:
        subprocess.run(["git", "clone", "-q", str(repo), str(source)], check=True, env=git_env())
        shutil.rmtree(source / "snapshots", ignore_errors=True)
        events = parse_log((source / "state" / "events.jsonl").read_bytes()).events
        n_events = len(events)
        snapshot = write_snapshot(str(source), events[n_events * 9 // 10 - 1].id)
        del events  # not held while timing: restore's process does not hold them either
        subprocess.run(["git", "-C", str(source), "add", "-A"], check=True, env=git_env())
        subprocess.run(
            [
                "git",
                "-C",
                str(source),
                "-c",
                "user.name=bench",
                "-c",
                "user.email=b@b",
                "commit",
                "-q",
                "-m",
                "snapshot at 90%",
            ],
            check=True,
            env=git_env(),
        )
        subprocess.run(
            ["git", "clone", "-q", "--bare", str(source), str(bare)], check=True, env=git_env()
        )
        times = []
        for i in range(repeats + 1):
            dest = work / f"restored-{os.getpid()}-{i}"
            t0 = time.perf_counter()
            proc = subprocess.run(
                ["git", "gasp", "restore", str(bare), str(dest), "--json"],
                capture_output=True,
                env=git_env(),
            )
            took = time.perf_counter() - t0
            if proc.returncode != 0:
                raise RuntimeError(f"restore failed:\n{proc.stderr.decode(errors='replace')}")
            report = json.loads(proc.stdout)
            if i:
                times.append(took)
            shutil.rmtree(dest, ignore_errors=True)

        def timed(fn: Any) -> float:
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0

        # seeded and full folds interleaved, so that whatever else the machine
        # does weighs on both alike; the snapshot is moved aside for a full one
        log_rel = "state/events.jsonl"
        aside = work / f"snapshots-aside-{os.getpid()}"
        seeded_times, full_times = [], []
        for _ in range(11):
            seeded_times.append(timed(lambda: fold_log(str(source), log_rel, None)))
            shutil.move(str(source / "snapshots"), str(aside))
            full_times.append(timed(lambda: fold_log(str(source), log_rel, None)))
            shutil.move(str(aside), str(source / "snapshots"))
        seeded = statistics.median(seeded_times)
        full = statistics.median(full_times)
        # and each fold in a fresh process, as a restore runs it once: cold
        # caches, and every page of its memory faulted in anew
        probe = (
            "import sys, time\n"
            "from git_gasp.restore.seededfold import fold_log\n"
            "t = time.perf_counter()\n"
            "fold_log(sys.argv[1], 'state/events.jsonl', None)\n"
            "print(time.perf_counter() - t)\n"
        )

        def fresh() -> float:
            cmd = [sys.executable, "-c", probe, str(source)]
            return float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)

        fresh_seeded_times, fresh_full_times = [], []
        for _ in range(7):
            fresh_seeded_times.append(fresh())
            shutil.move(str(source / "snapshots"), str(aside))
            fresh_full_times.append(fresh())
            shutil.move(str(aside), str(source / "snapshots"))
        fresh_seeded = statistics.median(fresh_seeded_times)
        fresh_full = statistics.median(fresh_full_times)
    finally:
        shutil.rmtree(source, ignore_errors=True)
        shutil.rmtree(bare, ignore_errors=True)
    s = summarize(times)
    ratio = seeded / full
    rows = [
        Row(
            "g",
            f"git gasp restore, 600 commits / {n_events:,} events, local bare remote",
            f"<= {fmt_s(TARGETS['g'])}",
            fmt_s(s["median"]),
            "-",
            "-",
            verdict(s["median"] <= TARGETS["g"]),
        ),
        Row(
            "g'",
            "  its fold part, seeded by a snapshot at 90 % vs a full fold",
            f"<= {TARGETS['g_ratio']:.2f}x",
            fmt_s(seeded),
            fmt_s(full),
            f"{ratio:.2f}x",
            verdict(ratio <= TARGETS["g_ratio"]),
        ),
        Row(
            "g''",
            "  the same, each fold in a fresh process (as restore runs it)",
            f"<= {TARGETS['g_ratio']:.2f}x",
            fmt_s(fresh_seeded),
            fmt_s(fresh_full),
            f"{fresh_seeded / fresh_full:.2f}x",
            verdict(fresh_seeded / fresh_full <= TARGETS["g_ratio"]),
        ),
    ]
    seed = report.get("fold", {})
    return rows, {
        "restore": s,
        "seeded_fold": seeded,
        "full_fold": full,
        "fresh_process": {"seeded_fold": fresh_seeded_times, "full_fold": fresh_full_times},
        "snapshot": snapshot,
        "seeded_from": seed.get("snapshot") if isinstance(seed, dict) else None,
    }


def bench_close(
    small: Path, large: Path, work: Path, rounds: int
) -> tuple[list[Row], dict[str, Any]]:
    s, big = close_histories((small, large), work, rounds)
    ratio = big["median"] / s["median"]
    ok_wall = big["median"] <= TARGETS["f"]
    ok_ratio = ratio <= TARGETS["f_ratio"]
    rows = [
        Row(
            "f",
            f"git gasp run close, {big['runs']}-run history (whole process)",
            f"<= {fmt_s(TARGETS['f'])}",
            fmt_s(big["median"]),
            "-",
            "-",
            verdict(ok_wall),
        ),
        Row(
            "f'",
            f"  vs the same close on a {s['runs']}-run history",
            f"<= {TARGETS['f_ratio']:.1f}x",
            fmt_s(big["median"]),
            fmt_s(s["median"]),
            f"{ratio:.2f}x",
            verdict(ok_ratio),
        ),
    ]
    return rows, {"small": s, "large": big, "ratio": ratio}


# -- the table -------------------------------------------------------------------------


def bench_hooks(
    small: Path, large: Path, work: Path, rounds: int
) -> tuple[list[Row], dict[str, Any]]:
    """Rows h, h', i, j (see benchmarks/hooks.py)."""
    import hooks

    env = close_env(work)
    pc = hooks.pre_commit(small, large, work, rounds, env)
    pr = hooks.pre_receive(large, work, rounds, env)
    big, little = pc["large"]["warm"], pc["small"]["warm"]
    ratio = big / little
    rows = [
        Row(
            "h",
            "pre-commit hook on a staged run, 600-commit history (whole process)",
            f"<= {fmt_s(TARGETS['h'])}",
            fmt_s(big),
            f"{fmt_s(pc['interpreter'])} (python -c pass)",
            "-",
            verdict(big <= TARGETS["h"]),
        ),
        Row(
            "h'",
            "  vs the same on a 10-commit history",
            f"<= {TARGETS['h_ratio']:.1f}x",
            fmt_s(big),
            fmt_s(little),
            f"{ratio:.2f}x",
            verdict(ratio <= TARGETS["h_ratio"]),
        ),
        Row(
            "i",
            "pre-receive: time added to `git push` of one run commit",
            f"<= {fmt_s(TARGETS['i'])}",
            fmt_s(pr["one_added"]),
            f"{fmt_s(pr['one_plain'])} (push, no hook)",
            f"{pr['one_hooked'] / pr['one_plain']:.2f}x",
            verdict(pr["one_added"] <= TARGETS["i"]),
        ),
        Row(
            "j",
            "push of the whole history to an empty server, with the hook",
            f"<= {fmt_s(TARGETS['j'])}",
            fmt_s(pr["full_hooked"]),
            f"{fmt_s(pr['full_plain'])} (no hook)",
            f"{pr['full_hooked'] / pr['full_plain']:.2f}x",
            verdict(pr["full_hooked"] <= TARGETS["j"]),
        ),
    ]
    return rows, {"pre_commit": pc, "pre_receive": pr}


def render(rows: list[Row]) -> str:
    head = Row("", "benchmark", "target", "measured", "baseline", "ratio", "verdict")
    table = [head, *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = []
    for n, r in enumerate(table):
        lines.append("  ".join(f"{c:<{w}}" for c, w in zip(r, widths, strict=True)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="git-gasp benchmarks (prints a table)")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes for a smoke run (60 commits, 100k events)",
    )
    ap.add_argument(
        "--keep",
        metavar="DIR",
        help="cache generated repositories and logs in DIR (e.g. benchmarks/out)",
    )
    ap.add_argument("--json", action="store_true", help="print a JSON document instead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--only",
        default="abcdefgh",
        help="run only these rows (letters; h also runs i and j), e.g. 'ab'",
    )
    args = ap.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    tmp: str | None = None
    if args.keep:
        work = Path(args.keep).resolve()
        work.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="git-gasp-bench-")
        work = Path(tmp)
    rows: list[Row] = []
    details: dict[str, Any] = {}
    load_at_start = os.getloadavg()
    steps: list[tuple[str, Callable[[], None]]] = []

    def step_a() -> None:
        row, d = bench_parse_fold(sizes["a_events"], sizes["a_bytes"], args.seed, repeats=20)
        rows.append(row)
        details["a"] = d

    repo_holder: list[Path] = []

    def repo() -> Path:
        if not repo_holder:
            path, took = ensure_repo(work, sizes["commits"], sizes["log_bytes"], args.seed)
            details["repo"] = repo_facts(path, took)
            repo_holder.append(path)
        return repo_holder[0]

    def step_b() -> None:
        r, d = bench_check_cold(repo(), repeats=5, base_repeats=3 if args.quick else 1)
        rows.extend(r)
        details["b"] = d

    def step_c() -> None:
        row, d = bench_check_warm(repo(), work, repeats=5, seed=args.seed)
        rows.append(row)
        details["c"] = d

    def step_d() -> None:
        path = ensure_log(work, sizes["d_events"], args.seed)
        row, d = bench_stream_fold(path, work, sizes["d_events"])
        rows.append(row)
        details["d_stream"] = d
        row, d = bench_memory(path, sizes["d_events"], breakdown_events=100_000)
        rows.append(row)
        details["d"] = d

    def step_e() -> None:
        r, d = bench_record(repo(), work, sizes["e_batches"], rounds=3, seed=args.seed)
        rows.extend(r)
        details["e"] = d

    def step_f() -> None:
        # the short history has the long one's density (events and bytes per run)
        n = sizes["f_small_commits"]
        small, _ = ensure_repo(work, n, sizes["log_bytes"] * n // sizes["commits"], args.seed)
        r, d = bench_close(small, repo(), work, rounds=9)
        rows.extend(r)
        details["f"] = d

    def step_h() -> None:
        n = sizes["f_small_commits"]
        small, _ = ensure_repo(work, n, sizes["log_bytes"] * n // sizes["commits"], args.seed)
        r, d = bench_hooks(small, repo(), work, rounds=5)
        rows.extend(r)
        details["h"] = d

    def step_g() -> None:
        r, d = bench_restore(repo(), work, repeats=5)
        rows.extend(r)
        details["g"] = d

    for key, fn in (
        ("a", step_a),
        ("b", step_b),
        ("c", step_c),
        ("d", step_d),
        ("e", step_e),
        ("f", step_f),
        ("g", step_g),
        ("h", step_h),
    ):
        if key in args.only:
            steps.append((key, fn))
    try:
        for key, fn in steps:
            log(f"row {key} ...")
            fn()
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    env = {**environment(), "loadavg_at_start": load_at_start}
    if args.json:
        print(
            json.dumps(
                {
                    "quick": args.quick,
                    "environment": env,
                    "rows": [r.as_dict() for r in rows],
                    "details": details,
                },
                indent=2,
            )
        )
    else:
        print(report(rows, details, env, args.quick))
    return 0 if all(r.verdict in ("PASS", "info") for r in rows) else 1


def repo_facts(path: Path, took: float) -> dict[str, Any]:
    log_path = path / "state" / "events.jsonl"
    data = log_path.read_bytes()
    commits = int(
        subprocess.run(
            ["git", "-C", str(path), "rev-list", "--count", "HEAD"], capture_output=True, text=True
        ).stdout
    )
    return {
        "path": str(path),
        "commits": commits,
        "log_bytes": len(data),
        "log_events": data.count(b"\n"),
        "generate_seconds": round(took, 1),
        "versions_bytes_approx": commits * len(data) // 2,
    }


def environment() -> dict[str, Any]:
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "python": platform.python_version(),
        "git": git,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "loadavg_at_end": os.getloadavg(),
    }


def report(rows: list[Row], details: dict[str, Any], env: dict[str, Any], quick: bool) -> str:
    out = [render(rows), ""]
    if quick:
        out.append("QUICK MODE: sizes reduced (60 commits, 100k events); verdicts are indicative.")
    out.append(
        f"environment: Python {env['python']}, {env['git']}, {env['cpus']} CPUs; "
        f"load average at start {env['loadavg_at_start'][0]:.2f}, at end "
        f"{env['loadavg_at_end'][0]:.2f} (other work on the machine skews timings)"
    )
    if "a" in details:
        a = details["a"]
        out.append(
            f"a: median of {a['runs']} in-process runs after 2 warm-ups (best "
            f"{fmt_s(a['best'])}); {a['events']:,} events, {a['bytes']:,} bytes -> "
            f"{a['nodes']:,} nodes, {a['relations']:,} relations, version {a['version']:,}"
        )
    if "repo" in details:
        r = details["repo"]
        out.append(
            f"repo: {r['commits']} commits, final log {r['log_bytes']:,} bytes / "
            f"{r['log_events']:,} events, ~{r['versions_bytes_approx'] / 1e9:.2f} GB of "
            f"log versions in history"
        )
    if "h" in details:
        h = details["h"]
        pc, pr = h["pre_commit"], h["pre_receive"]
        out.append(
            f"h: warm = HEAD's log context cached by the previous commit's hook; cold (no "
            f"cache, first commit after a clone): {fmt_s(pc['large']['cold'])} on 600 "
            f"commits, {fmt_s(pc['small']['cold'])} on 10. i: medians of runs pushing to a "
            f"hooked and a plain server in turn; the first push (no cached context on the "
            f"server) added {fmt_s(pr['one_added_cold'])}. j: median of 3, alternating."
        )
    if "b" in details:
        b = details["b"]
        out.append(
            f"b: ours = `git gasp check PATH --no-cache` (all seven checks), median of "
            f"{b['ours']['runs']} runs after 1 warm-up (best {fmt_s(b['ours']['best'])}); "
            f"baseline = reference check 4 ONLY (3 paths, one `git show` per commit), "
            + (
                "single run"
                if b["baseline"]["runs"] == 1
                else f"median of {b['baseline']['runs']} runs"
            )
            + ", same repo, same run"
        )
    if "c" in details:
        c = details["c"]
        out.append(
            f"c: median of {c['runs']} rounds of (append one run commit, time "
            f"`git gasp check PATH`) on a clone whose cache was warmed first "
            f"(best {fmt_s(c['best'])})"
        )
    if "d" in details:
        d = details["d"]
        st = d["stages_mib"]
        out.append(
            f"d': one fresh process, parse_log given {d['input']}; "
            f"peak ru_maxrss {d['maxrss'] / MiB:,.0f} MiB, "
            f"total {d['seconds']:.1f} s; staged maxrss: "
            + ", ".join(
                f"{k} {v['maxrss_mib']:,} MiB (+{v['adds_mib']:,}, {v['seconds']} s)"
                for k, v in st.items()
            )
        )
        if "breakdown" in d:
            bd = d["breakdown"]
            pe, ex = bd["per_event_bytes"], bd["extrapolated_mib"]
            out.append(
                f"   live memory by part (tracemalloc on the first "
                f"{bd['measured_on_events']:,} events, scaled to the full log): "
                + ", ".join(
                    f"{BREAKDOWN_PARTS[k]} {ex[k]:,} MiB ({pe[k]:,} B/event)"
                    for k in BREAKDOWN_PARTS
                )
            )
    if "d_stream" in details:
        ds = details["d_stream"]
        out.append(
            f"d: `git gasp fold PATH --json` (stream_events + Folder, line by line), one "
            f"process: peak ru_maxrss {ds['maxrss_mib']:,.0f} MiB, {ds['seconds']:.1f} s "
            f"wall"
        )
    if "e" in details:
        out.extend(report_record(details["e"]))
    if "f" in details:
        out.extend(report_close(details["f"]))
    return "\n".join(out)


def report_record(e: dict[str, Any]) -> list[str]:
    durable, fast = e["durable"], e["no_fsync"]
    return [
        f"e: in this process, on a clone of the row-b repository ({e['log_events_before']:,} "
        f"events, {e['log_bytes_before'] / 1e6:.1f} MB; Agent.open took "
        f"{fmt_s(e['open_seconds'])}): start_run, {e['warmup_batches']} warm-up calls, then "
        f"{e['rounds']} rounds x {e['batches_per_round']} helper calls per mode, modes "
        f"alternating; medians. Calls alternate record_observation / record_goal, each one "
        f"batch of {e['events_per_batch']:.0f} events (~{e['bytes_per_event']:.0f} B/event) "
        f"appended under the lock; file system {e['fs']}; load {e['loadavg']:.2f}; I/O "
        f"pressure (PSI some avg10) {fmt_psi(e['io_pressure'][0])} before, "
        f"{fmt_psi(e['io_pressure'][1])} after",
        f"   durable: {durable['fsyncs_per_batch']:g} fsyncs per batch ("
        + ", ".join(f"{k} {v:g}" for k, v in e["fsync_callers_per_batch"].items())
        + f"); Lease.acquire, which every append calls, is {durable['lease_share']:.0%} "
        f"of the time",
        f"   e' (informational, NOT durable): os.fsync patched to a no-op; Lease.acquire "
        f"(its temp files, link/rename) is still {fast['lease_share']:.0%} of the time",
    ]


def report_close(f: dict[str, Any]) -> list[str]:
    s, big = f["small"], f["large"]

    def loads(d: dict[str, Any]) -> str:
        return "/".join(f"{x:.2f}" for x in d["loadavg"])

    out = [
        f"f: `git gasp run close --outcome ...` as a whole process (bytecode cached, as "
        f"installed). Per history: a clone; the snapshots the cadence ([gasp] snapshot_every) "
        f"would have taken, written and committed ({s['snapshots']} / {big['snapshots']}); one "
        f"warm-up round (first close {fmt_s(s['first_close'])} / {fmt_s(big['first_close'])}: "
        f"it writes memory/active_memory.md and the compressed-log cache); then "
        f"{big['runs_timed']} rounds of (`git gasp run start`, an observation and a tool call "
        f"through the Python API - not timed - then time the close), the two histories' rounds "
        f"interleaved, median. {s['runs']} runs: {s['log_events']:,} events, "
        f"{s['log_bytes'] / 1e6:.2f} MB, best {fmt_s(s['best'])}, load {loads(s)}; "
        f"{big['runs']} runs: {big['log_events']:,} events, {big['log_bytes'] / 1e6:.2f} MB, "
        f"best {fmt_s(big['best'])}, load {loads(big)}",
        f"   where a close's time goes (one more round each, instrumented, fresh `python -c`; "
        f"ms, {s['runs']} runs -> {big['runs']} runs):",
    ]
    sp, bp = s["phases"], big["phases"]
    lines = [
        ("python start-up + exit", sp["startup"], bp["startup"], 0, 0, 0),
        ("imports (git_gasp.cli.root, click, ...)", sp["imports"], bp["imports"], 0, 0, 0),
    ]
    subcommands = sorted(
        {k for k in [*sp["phases"], *bp["phases"]] if k.startswith("git ")},
        key=lambda k: -bp["phases"].get(k, [0, 0.0])[1],
    )
    for label, key, indent in CLOSE_PHASES:
        a = sp["phases"].get(key, [0, 0.0])
        b = bp["phases"].get(key, [0, 0.0])
        lines.append(("  " * indent + label, a[1], b[1], a[0], b[0], 1))
        if key == "git":
            for sub in subcommands:
                a = sp["phases"].get(sub, [0, 0.0])
                b = bp["phases"].get(sub, [0, 0.0])
                lines.append((f"  {sub}", a[1], b[1], a[0], b[0], 1))
    lines.append(("whole process (this round)", sp["wall"], bp["wall"], 0, 0, 0))
    width = max(len(x[0]) for x in lines)
    for label, a, b, na, nb, counted in lines:
        calls = f"  ({na} -> {nb} calls)" if counted and (na > 1 or nb > 1) else ""
        out.append(
            f"     {label:<{width}}  {a * 1000:7.1f}  {b * 1000:7.1f}  "
            f"({(b - a) * 1000:+.1f}){calls}"
        )
    prof = big.get("profile")
    if prof and not (big["median"] <= TARGETS["f"] and f["ratio"] <= TARGETS["f_ratio"]):
        out.append(
            f"   cProfile of one more close, {big['runs']} runs ({prof['total'] * 1000:.0f} ms "
            f"under the profiler); git_gasp functions by cumulative time:"
        )
        for e in prof["by_cumtime"]:
            out.append(
                f"     {e['cumtime'] * 1000:7.1f} ms cum  {e['tottime'] * 1000:6.1f} ms own  "
                f"{e['ncalls']:>6}x  {e['function']}"
            )
        out.append("   by own time (all functions):")
        for e in prof["by_tottime"]:
            out.append(
                f"     {e['tottime'] * 1000:7.1f} ms own  {e['ncalls']:>6}x  {e['function']}"
            )
    return out


if __name__ == "__main__":
    sys.exit(main())
