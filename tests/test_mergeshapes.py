"""One rule for merges and deletions (issue 16, items 6 and 7): every merge
shape through a real ``git push`` (pre-push, then the server's pre-receive),
the pre-commit hook finishing the same merge, and ``git gasp check`` give
one verdict; a deletion or forced update is refused only where it drops
lines no kept ref holds, in any ref namespace."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import git
from .conftest import run_cli as main
from .test_hooks import LOG, append, bare_server, commit, goal_pair, mkcommit, push


def _lines(*tags: str) -> bytes:
    return "".join(goal_pair(t) for t in tags).encode()


def _branches(repo: Path) -> tuple[str, bytes]:
    """``side`` appends goal s1, s2; ``main`` appends m1, m2: the base's log."""
    base = (repo / LOG).read_bytes()
    start = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "side")
    for tag in ("s1", "s2"):
        append(repo, LOG, goal_pair(tag))
        commit(repo, tag)
    git(repo, "checkout", "-q", "-")
    for tag in ("m1", "m2"):
        append(repo, LOG, goal_pair(tag))
        commit(repo, tag)
    assert git(repo, "merge-base", "HEAD", "side").strip() == start
    return start, base


#: merge shapes: the merged log after the base's, and the verdict every judge gives
SHAPES: dict[str, tuple[Callable[[bytes], bytes], bool]] = {
    "union, first parent first": (lambda b: b + _lines("m1", "m2", "s1", "s2"), True),
    "union, second parent first": (lambda b: b + _lines("s1", "s2", "m1", "m2"), True),
    "interleaved, each parent in order": (lambda b: b + _lines("s1", "m1", "s2", "m2"), True),
    "union, then the merge's own line": (lambda b: b + _lines("m1", "m2", "s1", "s2", "x"), True),
    "a line dropped": (lambda b: b + _lines("m1", "m2", "s1"), False),
    "a line edited": (
        lambda b: b + _lines("m1", "m2", "s1", "s2").replace(b"goal s2", b"goal S2"),
        False,
    ),
    "a parent's lines reordered": (lambda b: b + _lines("m2", "m1", "s1", "s2"), False),
    "the merge's own line first": (lambda b: b + _lines("x", "m1", "m2", "s1", "s2"), False),
    "a base line edited": (
        lambda b: b.replace(b'"ts_ms":', b'"ts_ms":1', 1) + _lines("m1", "m2", "s1", "s2"),
        False,
    ),
}


def _checked(capsys: pytest.CaptureFixture[str], repo: Path) -> bool:
    code, out, err = main(capsys, "check", str(repo))
    assert code in (0, 1), out + err
    return code == 0


def _verdicts(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], tip: str, start: str
) -> dict[str, bool]:
    """Accepted (True) or refused by pre-push, by pre-receive, and by check."""
    plain = tmp_path / "plain.git"
    git(tmp_path, "init", "-q", "--bare", str(plain))
    pre_push = push(repo, f"file://{plain}", f"{tip}:refs/heads/main").returncode == 0
    server = bare_server(tmp_path, capsys)
    git(server, "fetch", "-q", str(repo), f"{start}:refs/heads/main")  # what it had before
    pushed = push(repo, f"file://{server}", "--no-verify", f"{tip}:refs/heads/main")
    git(repo, "checkout", "-q", "--detach", tip)
    checked = _checked(capsys, repo)
    return {"pre-push": pre_push, "pre-receive": pushed.returncode == 0, "check": checked}


@pytest.fixture(scope="module")
def branched_template(
    template: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, bytes]:
    """The template with the hooks installed and :func:`_branches` built, once
    per module (the merge tests each copy it): the repository, base, base's log."""
    repo = tmp_path_factory.mktemp("branched") / "work"
    shutil.copytree(template, repo, symlinks=True)
    code, _, err = _cli_quiet("hooks", "install", "--python", sys.executable, "-C", str(repo))
    assert code == 0, err
    start, base = _branches(repo)
    return repo, start, base


def _cli_quiet(*argv: str) -> tuple[int, str, str]:
    """``git gasp ARGV`` in this process outside a test (no capsys): its
    exit code and what it wrote."""
    import contextlib
    import io

    from git_gasp.cli import root as cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def branched(branched_template: tuple[Path, str, bytes], tmp_path: Path) -> tuple[Path, str, bytes]:
    """A copy of :func:`branched_template` to change."""
    source, start, base = branched_template
    work = tmp_path / "work"
    shutil.copytree(source, work, symlinks=True)
    return work, start, base


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_judge_gives_a_merge_shape_one_verdict(
    shape: str,
    branched: tuple[Path, str, bytes],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make, accepted = SHAPES[shape]
    work, start, base = branched
    git(work, "merge", "-q", "--no-commit", "-s", "ours", "side")
    (work / LOG).write_bytes(make(base))
    git(work, "add", LOG)
    finished = subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "-m", shape], capture_output=True, text=True
    )
    pre_commit = finished.returncode == 0
    if not pre_commit:
        git(work, "commit", "-q", "--no-verify", "-m", shape)
    tip = git(work, "rev-parse", "HEAD").strip()
    verdicts = _verdicts(work, tmp_path, capsys, tip, start)
    assert verdicts == {"pre-push": accepted, "pre-receive": accepted, "check": accepted}
    assert pre_commit == accepted, finished.stderr


def test_a_criss_cross_union_merge_made_by_git_passes_every_judge(
    branched: tuple[Path, str, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two branches each merge the other (union: in two orders), then one
    merges the other again: every line is there, in one of the orders."""
    work, start, _ = branched
    mine = git(work, "rev-parse", "HEAD").strip()
    git(work, "branch", "-q", "crossed", "side")
    git(work, "merge", "-q", "--no-edit", "side")
    git(work, "checkout", "-q", "crossed")
    git(work, "merge", "-q", "--no-edit", mine)
    git(work, "checkout", "-q", "main")
    merged = subprocess.run(
        ["git", "-C", str(work), "merge", "-q", "--no-edit", "crossed"],
        capture_output=True,
        text=True,
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert len(git(work, "merge-base", "--all", "HEAD~1", "crossed").split()) == 2
    log = (work / LOG).read_bytes()
    for tag in ("m1", "m2", "s1", "s2"):
        assert log.count(goal_pair(tag).encode()) == 1
    tip = git(work, "rev-parse", "HEAD").strip()
    verdicts = _verdicts(work, tmp_path, capsys, tip, start)
    assert verdicts == {"pre-push": True, "pre-receive": True, "check": True}


def _side(repo: Path, tag: str) -> str:
    """A commit on top of HEAD that appends one goal (HEAD stays)."""
    append(repo, LOG, goal_pair(tag))
    git(repo, "add", LOG)
    tip = mkcommit(repo, tag, "HEAD")
    git(repo, "checkout", "-q", "--", LOG)
    git(repo, "reset", "-q", "--hard", "HEAD")
    return tip


#: deletion and forced-update shapes: the refs the server has (name -> "main"
#: for main's tip, "side" for a commit with lines main lacks), the push, its verdict
DELETIONS: dict[str, tuple[dict[str, str], list[str], bool]] = {
    "delete a branch main holds": ({"refs/heads/b": "main"}, [":refs/heads/b"], True),
    "delete a branch with lines no ref holds": (
        {"refs/heads/b": "side"},
        [":refs/heads/b"],
        False,
    ),
    "delete a branch a backup ref holds": (
        {"refs/heads/b": "side", "refs/agents/backup": "side"},
        [":refs/heads/b"],
        True,
    ),
    "delete refs/agents/backup holding lines no ref holds": (
        {"refs/agents/backup": "side"},
        [":refs/agents/backup"],
        False,
    ),
    "delete refs/agents/backup main holds": (
        {"refs/agents/backup": "main"},
        [":refs/agents/backup"],
        True,
    ),
    "delete a tag holding lines no ref holds": ({"refs/tags/t": "side"}, [":refs/tags/t"], False),
    "delete main while a branch holds it": ({"refs/heads/b": "main"}, [":refs/heads/main"], True),
    "delete main and the branch holding it": (
        {"refs/heads/b": "main"},
        [":refs/heads/main", ":refs/heads/b"],
        False,
    ),
    "force a branch back while a backup ref holds it": (
        {"refs/heads/b": "side", "refs/agents/backup": "side"},
        ["+main:refs/heads/b"],
        True,
    ),
    "force a branch back, dropping lines no ref holds": (
        {"refs/heads/b": "side"},
        ["+main:refs/heads/b"],
        False,
    ),
    "force main back while another push keeps its tip": (
        {},
        ["+main~1:refs/heads/main", "main:refs/heads/keep"],
        True,
    ),
}


@pytest.mark.parametrize("shape", sorted(DELETIONS))
def test_a_deletion_is_refused_only_where_it_drops_lines(
    shape: str, work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refs, refspecs, accepted = DELETIONS[shape]
    append(work, LOG, goal_pair("main"))
    commit(work, "main")
    tips = {"main": git(work, "rev-parse", "HEAD").strip(), "side": _side(work, "side")}
    server = bare_server(tmp_path, capsys)
    git(server, "config", "receive.denyDeleteCurrent", "ignore")  # git's own rule aside
    pushes = ["main:refs/heads/main", *(f"{tips[what]}:{ref}" for ref, what in refs.items())]
    assert push(work, f"file://{server}", *pushes).returncode == 0
    before = git(server, "for-each-ref")
    result = push(work, f"file://{server}", *refspecs)
    assert (result.returncode == 0) == accepted, result.stderr
    if not accepted:
        assert "[append-only]" in result.stderr
        assert git(server, "for-each-ref") == before
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{server}", str(clone))
    if git(clone, "rev-parse", "--verify", "-q", "HEAD", check=False).strip():
        assert _checked(capsys, clone)
