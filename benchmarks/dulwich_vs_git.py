"""dulwich in-process against the git binary, on a hook's hot path (issue 17, item 3).

A commit hook makes a handful of small reads before it judges anything:
HEAD (and MERGE_HEAD), a few refs, two ``gasp.*`` config values, the paths
staged against HEAD, HEAD's tree for the agent paths, the index entries for
them, the notes tree of ``refs/notes/agent-sessions`` and a few small blobs.
git-gasp makes each of them today with one short ``git`` process (or one
``cat-file`` batch), through ``git_gasp.git``. This script times those same
calls against dulwich reading the same things in-process, on the same
repositories: a generated 600-commit history (4 MB log) and a 10-commit one
of the same density, each with a note on every commit and one staged change.

Each round runs each side in a fresh interpreter (``worker`` below), the two
sides alternating, so that both see the same machine. A side's time is taken
inside its process after ``git_gasp.git`` is imported (both pay that), and for
dulwich it starts *before* dulwich is imported: a hook pays that import on
every run. The process wall (interpreter start included) is reported too.
Both sides' answers are hashed and must agree, or the script fails.

Usage::

    python benchmarks/dulwich_vs_git.py [--keep DIR] [--rounds 15] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

NOTES_REF = "refs/notes/agent-sessions"
PREFIXES = ("state/", "memory/", "journal/", "identity/", "skills/", ".agent/", "AGENT.md")
BLOBS = ("AGENT.md", ".agent/config.toml", "identity/IDENTITY.md", "skills/retry/SKILL.md")
CONFIG = (("maxLineBytes", "int"), ("commitTranscripts", "bool"))
SIDES = ("git", "dulwich")


# -- the two sides (each run in a fresh interpreter) -----------------------------


class Clock:
    """Phase timings in milliseconds, in the order they were taken."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name] = (now - self._t) * 1000
        self._t = now


FIELDS = ("head", "merging", "refs", "config", "staged", "tree", "index", "notes", "blobs")


def answer(*values: Any) -> dict[str, Any]:
    """What one side read, by field, to be hashed and compared."""
    return dict(zip(FIELDS, values, strict=True))


def git_side(repo: str, clock: Clock) -> dict[str, Any]:
    """The reads as git-gasp makes them today: ``git_gasp.git``, one process each."""
    from git_gasp import git

    clock.lap("import-git_gasp")  # both sides pay it: not counted
    head, merging = git.head_and_merging(repo)
    refs = {name: git.resolve(repo, name) for name in (NOTES_REF, "refs/heads/main")}
    clock.lap("refs")
    config = {key: git.config_value(repo, f"gasp.{key}", kind) for key, kind in CONFIG}
    clock.lap("config")
    staged = sorted(git.staged_paths(repo, head))
    clock.lap("staged")
    tree = sorted(git.tree_files(repo, head, PREFIXES))
    clock.lap("tree")
    index = sorted(name for _, name in git.index_entries(repo, PREFIXES))
    clock.lap("index")
    notes = git.notes_list(repo, NOTES_REF)
    clock.lap("notes")
    infos = git.object_info(repo, [f"{head}:{path}" for path in BLOBS])
    with git.BlobReader(repo) as reader:
        blobs = [reader.read(info.oid).decode() if info else None for info in infos]
    clock.lap("blobs")
    return answer(head, list(merging), refs, config, staged, tree, index, notes, blobs)


def _under(path: bytes) -> bool:
    return any(
        path.startswith(p.encode()) if p.endswith("/") else path == p.encode() for p in PREFIXES
    )


def dulwich_side(repo: str, clock: Clock) -> dict[str, Any]:
    """The same reads through dulwich, in this process (its import included)."""
    from git_gasp import git  # both sides pay this import: not timed

    del git
    clock.lap("import-git_gasp")
    from dulwich.object_store import iter_tree_contents, tree_lookup_path
    from dulwich.repo import Repo

    clock.lap("import")
    r = Repo(repo)
    try:
        head = r.refs[b"HEAD"].decode()
        merging: list[str] = []
        merge_head = os.path.join(r.controldir(), "MERGE_HEAD")
        if os.path.exists(merge_head):
            with open(merge_head, encoding="ascii") as fh:
                merging = [line.split()[0] for line in fh if line.strip()]
        names = (NOTES_REF, "refs/heads/main")
        refs = {n: (r.refs[n.encode()].decode() if n.encode() in r.refs else None) for n in names}
        clock.lap("refs")
        stack = r.get_config_stack()
        config: dict[str, str | None] = {}
        for key, _ in CONFIG:
            try:
                config[key] = stack.get((b"gasp",), key.encode()).decode()
            except KeyError:
                config[key] = None
        clock.lap("config")
        root = r[head.encode()].tree  # type: ignore[attr-defined]
        index = r.open_index()
        changes = index.changes_from_tree(r.object_store, root)
        staged = sorted({(new or old).decode() for (old, new), _, _ in changes})  # type: ignore[union-attr]
        clock.lap("staged")
        tree = []
        for entry in iter_tree_contents(r.object_store, root):
            if _under(entry.path):
                tree.append((entry.path.decode(), entry.sha.decode()))
        tree.sort()
        clock.lap("tree")
        listed = sorted(path.decode() for path in index.paths() if _under(path))
        clock.lap("index")
        notes: dict[str, str] = {}
        tip = refs[NOTES_REF]
        if tip is not None:
            for entry in iter_tree_contents(r.object_store, r[tip.encode()].tree):  # type: ignore[attr-defined]
                notes[entry.path.replace(b"/", b"").decode()] = entry.sha.decode()
        clock.lap("notes")
        blobs = []
        for path in BLOBS:
            try:
                _, sha = tree_lookup_path(r.__getitem__, root, path.encode())
            except KeyError:
                blobs.append(None)
                continue
            blobs.append(r[sha].data.decode())  # type: ignore[attr-defined]
        clock.lap("blobs")
    finally:
        r.close()
    return answer(head, merging, refs, config, staged, tree, listed, notes, blobs)


def worker(side: str, repo: str) -> int:
    clock = Clock()
    reads: Callable[[str, Clock], dict[str, Any]] = git_side if side == "git" else dulwich_side
    got = reads(repo, clock)
    digest = hashlib.sha256(json.dumps(got, sort_keys=True).encode()).hexdigest()
    counts = {k: len(v) for k, v in got.items() if isinstance(v, list | dict)}
    print(json.dumps({"phases": clock.phases, "digest": digest, "counts": counts}))
    return 0


# -- the repositories ------------------------------------------------------------


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    import generate as gen

    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **gen.GIT_ENV},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


def add_notes(repo: Path) -> None:
    """A session note on every commit, in one ``git fast-import``."""
    commits = _git(repo, "rev-list", "HEAD").split()
    out = [f"commit {NOTES_REF}\ncommitter n <n@x.invalid> 1739000000 +0000\ndata 5\nnotes\n"]
    for i, commit in enumerate(commits):
        body = json.dumps({"session": f"session_{i:032x}", "commit": commit}) + "\n"
        out.append(f"N inline {commit}\ndata {len(body)}\n{body}")
    _git(repo, "fast-import", "--quiet", stdin=("".join(out) + "\n").encode())


def prepare(base: Path, commits: int, log_bytes: int) -> Path:
    """A generated history with notes and one staged change to the log."""
    import generate as gen

    path = base / f"dulwich-{commits}c"
    marker = path / ".git" / "gasp-dulwich-bench"
    if marker.is_file():
        return path
    if path.exists():
        shutil.rmtree(path)
    print(f"[bench] generating {commits}-commit history in {path} ...", file=sys.stderr)
    gen.generate(path, commits=commits, target_log_bytes=log_bytes, seed=1)
    add_notes(path)
    log = path / "state" / "events.jsonl"
    last = log.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    log.write_bytes(log.read_bytes() + last + b"\n")
    _git(path, "add", "--", "state/events.jsonl")
    marker.write_text("ok\n")
    return path


# -- measuring -------------------------------------------------------------------


def one_round(side: str, repo: Path) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "worker", side, str(repo)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1000
    if proc.returncode != 0:
        raise RuntimeError(f"{side} worker failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout)
    result["wall"] = wall
    return result


def measure(repo: Path, rounds: int) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    for i in range(rounds + 1):  # the first round warms the caches and is dropped
        for side in SIDES if i % 2 == 0 else SIDES[::-1]:
            got = one_round(side, repo)
            if i:
                runs[side].append(got)
    digests = {side: {r["digest"] for r in runs[side]} for side in SIDES}
    if len(digests["git"] | digests["dulwich"]) != 1:
        raise RuntimeError(f"dulwich and git disagree on {repo}: {digests}")
    summary: dict[str, Any] = {"counts": runs["git"][0]["counts"]}
    for side in SIDES:
        names = [p for p in runs[side][0]["phases"] if p != "import-git_gasp"]
        phases = {p: statistics.median(r["phases"][p] for r in runs[side]) for p in names}
        reads = [sum(r["phases"][p] for p in names if p != "import") for r in runs[side]]
        total = [sum(r["phases"][p] for p in names) for r in runs[side]]
        summary[side] = {
            "phases_ms": phases,
            "reads_ms": statistics.median(reads),
            "total_ms": statistics.median(total),
            "total_min_ms": min(total),
            "wall_ms": statistics.median(r["wall"] for r in runs[side]),
        }
    return summary


def render(results: dict[str, dict[str, Any]], load: tuple[float, float]) -> str:
    phases = ["import", "refs", "config", "staged", "tree", "index", "notes", "blobs"]
    lines = [f"load average {load[0]:.2f} at start, {load[1]:.2f} at end (1 min)", ""]
    head = f"{'repository':<12} {'side':<8}" + "".join(f"{p:>8}" for p in phases)
    lines.append(head + f"{'reads':>8}{'total':>8}{'wall':>8}   (ms, medians)")
    for name, res in results.items():
        for side in SIDES:
            s = res[side]
            got = s["phases_ms"]
            cells = "".join(f"{got[p]:8.1f}" if p in got else f"{'-':>8}" for p in phases)
            tail = f"{s['reads_ms']:8.1f}{s['total_ms']:8.1f}{s['wall_ms']:8.1f}"
            lines.append(f"{name:<12} {side:<8}{cells}{tail}")
        ratio = res["dulwich"]["total_ms"] / res["git"]["total_ms"]
        lines.append(f"{'':<12} dulwich/git, import included: {ratio:.2f}x  {res['counts']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["worker"]:
        return worker(args[1], args[2])
    ap = argparse.ArgumentParser(description="dulwich against the git binary on a hook's reads")
    ap.add_argument("--keep", metavar="DIR", help="cache the generated repositories in DIR")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--json", action="store_true", help="print a JSON document instead")
    opts = ap.parse_args(args)
    work = Path(opts.keep or tempfile.mkdtemp(prefix="git-gasp-dulwich-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        repos = {
            "600 commits": prepare(work, 600, 4_000_000),
            "10 commits": prepare(work, 10, 4_000_000 * 10 // 600),  # the same density
        }
        load0 = os.getloadavg()[0]
        results = {name: measure(repo, opts.rounds) for name, repo in repos.items()}
        load = (load0, os.getloadavg()[0])
    finally:
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)
    if opts.json:
        print(json.dumps({"load": load, "results": results}, indent=2))
    else:
        print(render(results, load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
