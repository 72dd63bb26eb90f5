"""Deterministic generator of realistic GASP agent histories, for benchmarks.

A history is a git repository in which every commit closes one agent run
(REFERENCE §8): the run's events are appended to ``state/events.jsonl`` — a
``run.started`` pair, a mix of the paired domain events real agents write
(§4.3-4.5: observation, tool and model calls, failures, hypotheses, patches,
evals, decisions, patch status changes), a ``run.finished`` pair — together
with one fact appended to ``memory/facts.jsonl`` (§9.5) and one entry
appended to ``journal/JOURNAL.md``. The commit message is the runtime's
``run <id>: <outcome>`` with ``Run-Id``/``Goal``/``Outcome`` trailers.

Everything is derived from a seed: event ids (``event_`` + 32 hex), node ids,
timestamps (integer ``ts_ms``), texts, commit dates, hence commit ids. Events
average about 500 bytes (summaries and metadata are padded with realistic
text) and are sized so the log reaches about ``target_log_bytes``.

The history is streamed into ``git fast-import`` (every version of the log is
written once, never held all at once: a 600-commit, 4 MB log is ~1.2 GB of
versions), then checked out. :func:`append_run` adds one more run commit to a
generated repository with ordinary ``git commit``.

This module writes histories into git and is the command line; the runs come
from ``agentsim`` (the seeded agent; its events from ``runevents`` and
``fixevents``), whole logs from ``logs``, the fixed files and the commit
message from ``repofiles``.

Usage::

    python benchmarks/generate.py repo DEST --commits 600 --bytes 4000000 --seed 1
    python benchmarks/generate.py append DEST
    python benchmarks/generate.py log FILE --events 1000000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agentsim import T0_MS, AgentSim, RunRecord
from logs import default_events, iter_runs, write_log
from repofiles import (
    COMMITTER,
    GIT_ENV,
    JOURNAL_HEADER,
    SOCIAL_FACTS,
    commit_message,
    social_fact,
    static_files,
)

_PATCH_CREATE = re.compile(rb'"CreateNode":\{"id":"(patch_[0-9a-f]{32})","kind":"patch"')


def _git(repo: str | os.PathLike[str], *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        env={**os.environ, **GIT_ENV, **(env or {})},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


def generate(
    dest: str | os.PathLike[str],
    commits: int = 600,
    target_log_bytes: int = 4_000_000,
    seed: int = 1,
    events: int | None = None,
    social: bool = False,
) -> str:
    """Create ``dest`` as a git repository with ``commits`` run commits; returns HEAD.

    ``social``: the real agent's shape, a second facts file
    (:data:`repofiles.SOCIAL_FACTS`) that AGENT.md's Locations table names,
    appended every commit with the others."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} exists and is not empty")
    events = events or default_events(commits, target_log_bytes)
    records = list(iter_runs(seed, commits, events, target_log_bytes))  # ~B bytes of text
    dest.mkdir(parents=True, exist_ok=True)
    _git(dest, "init", "-q", "-b", "main")
    static = static_files(social)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            ["git", "-C", str(dest), "fast-import", "--quiet", "--done"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, **GIT_ENV},
        )
        assert proc.stdin is not None
        try:
            _stream(proc.stdin, records, static, social)
            proc.stdin.close()
        except BrokenPipeError:
            pass
        if proc.wait() != 0:
            err.seek(0)
            raise RuntimeError(f"git fast-import failed: {err.read().decode(errors='replace')}")
    _git(dest, "checkout", "-q", "-f", "main")
    return _git(dest, "rev-parse", "HEAD").strip()


def _stream(
    out: Any, records: list[RunRecord], static: dict[str, bytes], social: bool = False
) -> None:
    """The fast-import stream. Each file's versions are written consecutively
    (fast-import deltas a blob against the previous blob it stored), then the
    commits refer to them by mark."""
    n = len(records)
    files: list[tuple[str, str, Any]] = [
        ("state/events.jsonl", "", lambda r, i: r.log),
        ("memory/facts.jsonl", "", lambda r, i: r.fact),
        ("journal/JOURNAL.md", JOURNAL_HEADER, lambda r, i: r.journal),
    ]
    if social:
        files.append((SOCIAL_FACTS, "", lambda r, i: social_fact(r.run_id, r.ts_ms, i)))
    width = len(files)
    for f, (_, header, part) in enumerate(files):
        acc = bytearray(header.encode())
        for i, record in enumerate(records):
            acc += part(record, i).encode()
            out.write(b"blob\nmark :%d\ndata %d\n" % (f * n + i + 1, len(acc)))
            out.write(acc)
            out.write(b"\n")
    for i, record in enumerate(records):
        msg = commit_message(record.run_id, record.goal_id, record.outcome).encode()
        when = f"{record.ts_ms // 1000} +0000"
        out.write(
            f"commit refs/heads/main\nmark :{width * n + i + 1}\n"
            f"author {COMMITTER} {when}\ncommitter {COMMITTER} {when}\n".encode()
        )
        out.write(b"data %d\n%s\n" % (len(msg), msg))
        if i == 0:
            for path, data in static.items():
                out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        for f, (path, _, _) in enumerate(files):
            out.write(b"M 100644 :%d %s\n" % (f * n + i + 1, path.encode()))
        out.write(b"\n")
    out.write(b"done\n")


def _last_json_line(path: Path) -> dict[str, Any] | None:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 65536))
        tail = fh.read().decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)[-1]
    try:
        value = json.loads(tail)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def append_run(dest: str | os.PathLike[str], seed: int = 1, pairs: int = 7) -> str:
    """Append one more run commit to a generated repository (``git commit``);
    returns the new HEAD."""
    dest = Path(dest)
    log = dest / "state" / "events.jsonl"
    data = log.read_bytes()
    first = json.loads(data[: data.index(b"\n")])
    goal_id = first["payload"]["id"] if first.get("kind") == "goal.created" else None
    last = _last_json_line(log) or {}
    fact = _last_json_line(dest / "memory" / "facts.jsonl") or {}
    count = int(_git(dest, "rev-list", "--count", "HEAD").strip())
    patches = [m.decode() for m in _PATCH_CREATE.findall(data)][-50:]
    rng = random.Random(f"git-gasp-bench:{seed}:append:{count}")
    sim = AgentSim(rng, int(last.get("ts_ms", T0_MS)), goal_id, patches, fact.get("id"))
    events_so_far = data.count(b"\n") or 1
    record = sim.run(pairs, 2 * pairs * len(data) // events_so_far)
    appended = [
        ("state/events.jsonl", record.log),
        ("memory/facts.jsonl", record.fact),
        ("journal/JOURNAL.md", record.journal),
    ]
    if (dest / SOCIAL_FACTS).is_file():
        appended.append((SOCIAL_FACTS, social_fact(record.run_id, record.ts_ms, count)))
    for rel, text in appended:
        with open(dest / rel, "a", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    when = f"{record.ts_ms // 1000} +0000"
    date_env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    _git(dest, "add", "--", *(rel for rel, _ in appended))
    _git(
        dest,
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "--no-verify",
        "-m",
        commit_message(record.run_id, record.goal_id, record.outcome).rstrip("\n"),
        env=date_env,
    )
    return _git(dest, "rev-parse", "HEAD").strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("repo", help="generate a repository with N run commits")
    p.add_argument("dest")
    p.add_argument("--commits", type=int, default=600)
    p.add_argument("--bytes", type=int, default=4_000_000, help="target final log size")
    p.add_argument("--events", type=int, default=None, help="events in all (default ~bytes/500)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--social", action="store_true", help="a second facts file AGENT.md's Locations names"
    )
    p = sub.add_parser("append", help="append one run commit to a generated repository")
    p.add_argument("dest")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("log", help="write a log file only (streamed)")
    p.add_argument("file")
    p.add_argument("--events", type=int, default=8000)
    p.add_argument("--bytes", type=int, default=None, help="target size (default events*500)")
    p.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.cmd == "repo":
        head = generate(args.dest, args.commits, args.bytes, args.seed, args.events, args.social)
        print(f"{args.dest}: {args.commits} commits, HEAD {head}")
    elif args.cmd == "append":
        print(append_run(args.dest, args.seed))
    else:
        size = write_log(args.file, args.events, args.bytes, args.seed)
        print(f"{args.file}: {args.events} events, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
