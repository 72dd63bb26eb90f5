"""The benchmarks' generated inputs, cached between runs.

A history (``generate.generate``) or a log (``logs.write_log``) is generated
under the work directory and reused by a later run when its marker file
records the same parameters and the same generator source (every module of
the generator: :data:`GENERATOR_SOURCES`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import generate as gen
from harness import MiB, log
from logs import write_log

HERE = Path(__file__).resolve().parent
# the generator's modules: a cached input is regenerated whenever one changes
GENERATOR_SOURCES = (
    "generate.py",
    "agentsim.py",
    "runevents.py",
    "fixevents.py",
    "logs.py",
    "repofiles.py",
)


GEN_VERSION = hashlib.sha256(
    b"".join((HERE / name).read_bytes() for name in GENERATOR_SOURCES)
).hexdigest()[:16]


def ensure_repo(
    base: Path, commits: int, log_bytes: int, seed: int, social: bool = False
) -> tuple[Path, float]:
    """A generated history under ``base`` (reused when its marker matches);
    ``social``: the real agent's shape (a second facts file AGENT.md names)."""
    shape = "-social" if social else ""
    path = base / f"repo-{commits}c-{log_bytes}b-s{seed}{shape}"
    params = {"commits": commits, "log_bytes": log_bytes, "seed": seed, "gen": GEN_VERSION}
    if social:
        params["social"] = True
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
    head = gen.generate(path, commits=commits, target_log_bytes=log_bytes, seed=seed, social=social)
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
    size = write_log(path, events, seed=seed)
    marker.write_text(json.dumps({"params": params, "size": size}))
    log(f"generated {size / MiB:.0f} MiB in {time.perf_counter() - t0:.1f} s")
    return path


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
