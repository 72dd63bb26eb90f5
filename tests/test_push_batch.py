"""Issue 17 item 6: the pre-receive hook judges all the refs of a push in one
batch, so its cost follows the new commits, not the refs."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from git_gasp import git as gitrepo
from git_gasp.hooks.protocol import Rejected
from git_gasp.hooks.serverhooks import pre_receive

from .conftest import git

ZERO = "0" * 40
LOG = "state/events.jsonl"


def _parked(repo: Path, name: str, edit: bool = False) -> str:
    """A commit on HEAD that no ref names, as a pushed one is in quarantine:
    it adds a file ``name``, or with ``edit`` also rewrites a committed log line."""
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "read-tree", head)
    (repo / name).write_text(name + "\n")
    git(repo, "add", name)
    if edit:
        lines = (repo / LOG).read_bytes().splitlines(keepends=True)
        lines[2] = lines[2].replace(b'"ts_ms":', b'"ts_ms":1', 1)
        (repo / LOG).write_bytes(b"".join(lines))
        git(repo, "add", LOG)
    tree = git(repo, "write-tree").strip()
    commit = git(repo, "commit-tree", tree, "-p", head, "-m", name).strip()
    git(repo, "reset", "-q", "--hard", head)
    return commit


def _count_git(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real_run, real_attempt = gitrepo.run, gitrepo.attempt

    def run(cwd: str, args: Any, *a: Any, **k: Any) -> bytes:
        calls.append(list(args))
        return real_run(cwd, args, *a, **k)

    def attempt(cwd: str, args: Any, *a: Any, **k: Any) -> Any:
        calls.append(list(args))
        return real_attempt(cwd, args, *a, **k)

    monkeypatch.setattr(gitrepo, "run", run)
    monkeypatch.setattr(gitrepo, "attempt", attempt)
    return calls


def _push(repo: Path, tips: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    lines = [f"{ZERO} {tip} refs/heads/b{n}" for n, tip in enumerate(tips)]
    out = io.StringIO()
    with monkeypatch.context() as patched:
        calls = _count_git(patched)
        try:
            pre_receive(str(repo), lines, {}, out)
        except Rejected:
            pass
    return len(calls), out.getvalue()


def test_the_git_calls_of_a_push_do_not_grow_with_its_refs(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two = [_parked(work, f"f{n}.txt") for n in range(2)]
    twenty = [_parked(work, f"g{n}.txt") for n in range(20)]
    few, said = _push(work, two, monkeypatch)
    many, said_many = _push(work, twenty, monkeypatch)
    assert said == said_many == ""
    assert many == few


def test_a_bad_commit_two_refs_bring_is_reported_once_under_the_first(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _parked(work, "good.txt")
    bad = _parked(work, "bad.txt", edit=True)
    lines = [
        f"{ZERO} {good} refs/heads/good",
        f"{ZERO} {bad} refs/heads/first",
        f"{ZERO} {bad} refs/heads/second",
    ]
    out = io.StringIO()
    with pytest.raises(Rejected):
        pre_receive(str(work), lines, {}, out)
    said = out.getvalue().splitlines()
    edits = [line for line in said if "committed line 3 was edited" in line]
    assert len(edits) == 1, said
    assert edits[0].startswith(f"gasp: refs/heads/first {bad[:7]} ")
    assert not any("refs/heads/good" in line for line in said)
