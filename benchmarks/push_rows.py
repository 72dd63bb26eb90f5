"""Rows l and l' of the benchmarks: pushes whose cost the pre-receive hook must
keep following the new commits, not the refs (issue 17 item 6). Each is timed
against the same push to a twin server without the hook, alternating, in the
same run.

l   50 refs of one commit each (a commit adding one small file on the tip of the
    600-commit history) pushed at once: what the hook adds, target <= 1 s.
l'  a 100-commit force push: the history's last 100 commits rebuilt with the
    same trees (so every append-only file keeps its lines) and the same messages,
    pushed with ``--force`` over the old ones (new ids from a later committer
    date): what the hook adds, target <= 1 s.
o   the onboarding push (issue 15): the history of ``onboarding.py`` (a seed
    with 233 older-format fact lines and 15 skills, a commit changing 8, one
    changing two) pushed whole with ``-o gasp.onboard`` to an empty server,
    hooked (accepted, 236 warnings summed up per rule) and not: what the hook
    adds, target <= 1 s (the aim: at most twice the plain push).

For l and l', the servers hold the history before the timed push (pushed
without the hook, which is installed afterwards); for o they are empty.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import generate as gen
import onboarding
from harness import (
    Row,
    bare_server,
    clone_repo,
    close_env,
    fmt_s,
    install_server_hooks,
    run_timed,
    verdict,
)

REFS = 50
REWRITTEN = 100
TARGET = 1.0  # seconds the hook may add


_timed = run_timed  # wall and CPU seconds (every process of the push)


def _server(work: Path, name: str, source: Path, hooked: bool, env: dict[str, str]) -> Path:
    """A bare server holding ``source``'s HEAD as main; the hook installed after."""
    path = bare_server(work / name, False, env)
    gen._git(source, "push", "-q", str(path), "HEAD:refs/heads/main")
    if hooked:
        install_server_hooks(path, env)
    return path


def _one_commit_refs(clone: Path) -> list[str]:
    """``REFS`` refspecs, each a new commit adding one file on HEAD."""
    head = gen._git(clone, "rev-parse", "HEAD").strip()
    tree = gen._git(clone, "rev-parse", "HEAD^{tree}").strip()
    specs = []
    for n in range(REFS):
        blob = (
            subprocess.run(
                ["git", "-C", str(clone), "hash-object", "-w", "--stdin"],
                input=f"ref {n}\n".encode(),
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        gen._git(clone, "read-tree", tree)
        gen._git(clone, "update-index", "--add", "--cacheinfo", f"100644,{blob},ref-{n}.txt")
        new_tree = gen._git(clone, "write-tree").strip()
        commit = gen._git(clone, "commit-tree", new_tree, "-p", head, "-m", f"ref {n}").strip()
        specs.append(f"{commit}:refs/heads/topic-{n}")
    gen._git(clone, "read-tree", "HEAD")
    return specs


def _rewritten_tip(clone: Path) -> str:
    """The last ``REWRITTEN`` commits (fewer on a shorter history: --quick)
    again, same trees, new messages."""
    count = int(gen._git(clone, "rev-list", "--count", "HEAD"))
    base = gen._git(clone, "rev-parse", f"HEAD~{min(REWRITTEN, count - 1)}").strip()
    commits = gen._git(clone, "rev-list", "--reverse", f"{base}..HEAD").split()
    parent = base
    later = {"GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z"}  # new ids, same trailers
    for commit in commits:
        tree = gen._git(clone, "rev-parse", f"{commit}^{{tree}}").strip()
        message = gen._git(clone, "log", "-1", "--format=%B", commit)
        args = ["commit-tree", tree, "-p", parent, "-m", message]
        parent = gen._git(clone, *args, env=later).strip()
    return parent


def _pair(
    work: Path, clone: Path, push: list[str], rounds: int, env: dict[str, str]
) -> dict[str, Any]:
    hooked, plain = [], []
    cpu: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds):
        for is_hooked, times in ((True, hooked), (False, plain)):
            server = _server(work, f"push-{'h' if is_hooked else 'p'}", clone, is_hooked, env)
            took, used = _timed(["git", "push", "-q", str(server), *push], clone, env)
            times.append(took)
            cpu[is_hooked].append(round(used, 3))
    for name in ("push-h", "push-p"):
        shutil.rmtree(work / name, ignore_errors=True)
    added = [a - b for a, b in zip(hooked, plain, strict=True)]
    return {
        "hooked": statistics.median(hooked),
        "plain": statistics.median(plain),
        "added": statistics.median(added),
        "all": [[round(a, 3), round(b, 3)] for a, b in zip(hooked, plain, strict=True)],
        "cpu": [list(x) for x in zip(cpu[True], cpu[False], strict=True)],
    }


def bench_pushes(large: Path, work: Path, rounds: int) -> tuple[list[Row], dict[str, Any]]:
    env = close_env(work)
    clone = clone_repo(large, work / "push-client")
    refs = _pair(work, clone, _one_commit_refs(clone), rounds, env)
    tip = _rewritten_tip(clone)
    forced = _pair(work, clone, ["--force", f"{tip}:refs/heads/main"], rounds, env)
    shutil.rmtree(clone, ignore_errors=True)
    rows = []
    for key, what, d in (
        ("l", f"pre-receive: time added to a push of {REFS} refs of one commit each", refs),
        ("l'", f"pre-receive: time added to a {REWRITTEN}-commit force push", forced),
    ):
        rows.append(
            Row(
                key,
                what,
                f"<= {fmt_s(TARGET)}",
                fmt_s(d["added"]),
                f"{fmt_s(d['plain'])} (push, no hook)",
                f"{d['hooked'] / d['plain']:.2f}x",
                verdict(d["added"] <= TARGET),
            )
        )
    return rows, {"refs": refs, "forced": forced}


def _empty_server(path: Path, hooked: bool, env: dict[str, str]) -> Path:
    """An empty bare server taking push options; with the server hook or not."""
    bare_server(path, False, env)
    gen._git(path, "config", "receive.advertisePushOptions", "true")
    if hooked:
        install_server_hooks(path, env)
    return path


def bench_onboarding(work: Path, rounds: int) -> tuple[list[Row], dict[str, Any]]:
    """Row o: the onboarding push, hooked and not, alternating after a
    warm-up round; the hooked push's output (what the pusher sees) kept in
    the details."""
    env = close_env(work)
    agent = work / "onboarding-agent"
    shutil.rmtree(agent, ignore_errors=True)
    onboarding.build(agent)
    push = ["git", "push", "-q", "-o", "gasp.onboard"]
    hooked, plain, shown = [], [], ""
    for n in range(rounds + 1):  # round 0 is a warm-up (bytecode compiled), not timed
        for is_hooked, times in ((True, hooked if n else []), (False, plain if n else [])):
            server = _empty_server(work / f"onboard-{int(is_hooked)}.git", is_hooked, env)
            t0 = time.perf_counter()
            proc = subprocess.run(
                [*push, str(server), "HEAD:refs/heads/main"],
                cwd=agent,
                env=env,
                capture_output=True,
            )
            times.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                raise RuntimeError(
                    f"onboarding push failed:\n{proc.stderr.decode(errors='replace')}"
                )
            shown = proc.stderr.decode(errors="replace") if is_hooked else shown
    for name in ("onboard-0.git", "onboard-1.git", "onboarding-agent"):
        shutil.rmtree(work / name, ignore_errors=True)
    added = statistics.median([a - b for a, b in zip(hooked, plain, strict=True)])
    d = {
        "hooked": statistics.median(hooked),
        "plain": statistics.median(plain),
        "added": added,
        "all": [[round(a, 3), round(b, 3)] for a, b in zip(hooked, plain, strict=True)],
        "output": shown,
    }
    row = Row(
        "o",
        "pre-receive: time added to the onboarding push of issue 15's shapes (4 commits)",
        f"<= {fmt_s(TARGET)}",
        fmt_s(added),
        f"{fmt_s(d['plain'])} (push, no hook)",
        f"{d['hooked'] / d['plain']:.2f}x",
        verdict(added <= TARGET),
    )
    return [row], d
