"""Onboarding an existing agent (issue 15): a generated history with the
shapes of a real agent's, pushed whole to an empty bare repository with
git-gasp's server hook and to one without it.

The shapes, on top of the canonical fixture (all seven checks pass):

* the seed commit (the root) holds ``memory/facts.jsonl`` with LEGACY lines
  in an older fact format, then one fact in the GASP envelope, and adds
  SEED_SKILLS skills;
* a seed-completion commit changes COMPLETION_SKILLS skills;
* a later commit changes two skills at once, another appends a GASP fact.

::

    python benchmarks/onboarding.py [--legacy 233] [--rounds 3]

prints the hooked push's output and both pushes' times (median of the rounds);
both push with ``-o gasp.onboard`` (a server without the hook ignores it).
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
from pathlib import Path

from git_gasp.agent.fixture import fixture_files

LEGACY = 233
SEED_SKILLS = 15
COMPLETION_SKILLS = 8


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def legacy_line(n: int) -> str:
    """A line in the agent's older fact format (no GASP envelope)."""
    day = 1 + n % 28
    record = {
        "type": "lesson",
        "day": day,
        "ts": f"2026-03-{day:02d}T17:14Z",
        "source": "evolution",
        "title": f"lesson {n}",
        "context": "kept verbatim from the agent's older format",
    }
    return json.dumps(record)


def gasp_fact(n: int) -> str:
    """A fact in the GASP envelope (REFERENCE §9.5), derived from the log."""
    record = {
        "id": f"fact_{n:04d}",
        "ts_ms": 1739000000000 + n,
        "text": f"fact {n}",
        "derived_from": ["event_01"],
        "supersedes": None,
    }
    return json.dumps(record)


def skill(name: str, version: int = 1) -> bytes:
    return (
        f"---\nname: {name}\ndescription: The {name} skill, version {version}.\n---\n"
        f"# {name}\nStep {version}.\n"
    ).encode()


def _write(repo: Path, rel: str, data: bytes) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def build(repo: Path, legacy: int = LEGACY) -> dict[str, str]:
    """The history in a new repository at ``repo``; its commits by role."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for rel, data in fixture_files().items():
        if data is not None:
            _write(repo, rel, data)
    facts = [legacy_line(n) for n in range(1, legacy + 1)] + [gasp_fact(1)]
    _write(repo, "memory/facts.jsonl", "".join(f"{line}\n" for line in facts).encode())
    names = [f"skill{n:02d}" for n in range(1, SEED_SKILLS + 1)]
    for name in names:
        _write(repo, f"skills/{name}/SKILL.md", skill(name))
    commits = {"seed": _commit(repo, "seed: the agent as it was")}
    for name in names[:COMPLETION_SKILLS]:
        _write(repo, f"skills/{name}/SKILL.md", skill(name, 2))
    commits["completion"] = _commit(repo, "seed: complete the skills")
    with open(repo / "memory/facts.jsonl", "a", encoding="utf-8") as fh:
        fh.write(gasp_fact(2) + "\n")
    commits["fact"] = _commit(repo, "memory: a fact")
    for name in names[-2:]:
        _write(repo, f"skills/{name}/SKILL.md", skill(name, 3))
    commits["two-skills"] = _commit(repo, "skills: two at once")
    return commits


def bare(path: Path, hooked: bool) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    # both take the push option (install --server turns it on for the hooked one)
    subprocess.run(
        ["git", "-C", str(path), "config", "receive.advertisePushOptions", "true"], check=True
    )
    if hooked:
        subprocess.run(
            ["git-gasp", "hooks", "install", "--server", "-C", str(path)],
            check=True,
            capture_output=True,
        )
    return path


def push(repo: Path, server: Path, *options: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    url = f"file://{server}"
    proc = subprocess.run(
        ["git", "-C", str(repo), "push", "-q", *options, url, "HEAD:refs/heads/main"],
        capture_output=True,
        text=True,
        check=False,
    )
    return time.perf_counter() - start, proc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--legacy", type=int, default=LEGACY, help="legacy fact lines")
    parser.add_argument("--rounds", type=int, default=3, help="pushes of each kind")
    args = parser.parse_args(argv)
    if shutil.which("git-gasp") is None:
        sys.exit("git-gasp is not on PATH: activate the venv it is installed in")
    base = Path(tempfile.mkdtemp(prefix="gasp-onboarding-"))
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.invalid")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.invalid")
    try:
        build(base / "agent", args.legacy)
        times: dict[bool, list[float]] = {True: [], False: []}
        shown = None
        for n in range(args.rounds):
            for hooked in (False, True):
                server = bare(base / f"server-{n}-{int(hooked)}.git", hooked)
                took, proc = push(base / "agent", server, "-o", "gasp.onboard")
                if proc.returncode != 0:
                    print(proc.stderr, file=sys.stderr)
                    return 1
                times[hooked].append(took)
                shown = proc.stderr if hooked else shown
        print(f"$ git push -o gasp.onboard  # {args.legacy} legacy fact lines")
        print(shown or "", end="")
        plain, hooked_ = statistics.median(times[False]), statistics.median(times[True])
        print(f"push without the hook: {plain * 1000:.0f} ms (median of {args.rounds})")
        print(f"push with the hook:    {hooked_ * 1000:.0f} ms (median of {args.rounds})")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
