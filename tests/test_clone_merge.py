"""Clones that ``git gasp restore`` makes, with real git: the journal merges with
git-gasp's ``gasp-append`` driver (``.gitattributes`` names it, but git
configuration is never cloned, so restore defines it, as ``init`` and ``hooks
install`` do); ``--branch`` restores a branch other than the one the remote's
HEAD names, and a remote whose HEAD names no branch it has, or that has no
commits, says so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import git, run_cli


def _run(repo: Path, capsys: pytest.CaptureFixture[str], task: str) -> None:
    for argv in (
        ["run", "start", "--task", task],
        ["record", "observation", "--title", f"seen: {task}"],
        ["run", "close", "--outcome", "done"],
    ):
        code, _, err = run_cli(capsys, *argv, "-C", str(repo))
        assert code == 0, err


def _diverged(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    work: Callable[[Path, pytest.CaptureFixture[str], str], None],
    what: tuple[str, str],
) -> Path:
    """An agent, a clone restored from it, ``work`` done on each side (by a
    worker of its own), then the clone's ``git pull`` merging both: the clone."""
    origin = tmp_path / "origin"
    code, _, err = run_cli(capsys, "init", str(origin), "--agent-id", "bot")
    assert code == 0, err
    clone = tmp_path / "clone"
    code, _, err = run_cli(capsys, "restore", str(origin), str(clone), "--quiet")
    assert code == 0, err
    for repo, task in zip((origin, clone), what, strict=True):
        monkeypatch.setenv("GASP_WORKER_ID", f"worker-{repo.name}")
        work(repo, capsys, task)
    pulled = subprocess.run(
        ["git", "-C", str(clone), "pull", "-q", "--no-rebase", "--no-edit", "origin"],
        capture_output=True,
        text=True,
    )
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    return clone


def test_a_restored_clone_merges_both_sides_journal_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shutil.which("git-gasp"), "the merge driver runs git-gasp from PATH"
    what = ("work on the origin", "work in the clone")
    clone = _diverged(tmp_path, capsys, monkeypatch, _run, what)
    driver = git(clone, "config", "merge.gasp-append.driver").strip()
    assert driver == "git-gasp hooks merge-driver %O %A %B %P"
    journal = (clone / "journal" / "JOURNAL.md").read_text()
    assert "work on the origin" in journal and "work in the clone" in journal
    assert "<<<<<<<" not in journal
    code, out, err = run_cli(capsys, "check", "-C", str(clone))
    assert code == 0, out + err
    # the merged log holds both runs, though the newest run commit's holds one
    code, out, err = run_cli(capsys, "runs", "--json", "-C", str(clone))
    assert code == 0, err
    listed = json.loads(out)["runs"]
    assert len(listed) == 2
    assert all(r["in_log"] for r in listed), listed


def _served(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A bare repository whose HEAD names ``master``, with the agent pushed
    to ``main`` only (a server made with one default branch name, pushed another)."""
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "--initial-branch=master", str(server))
    agent = tmp_path / "agent"
    code, _, err = run_cli(capsys, "init", str(agent), "--agent-id", "bot")
    assert code == 0, err
    git(agent, "push", "-q", str(server), "HEAD:refs/heads/main")
    return server


def test_a_remote_head_naming_no_branch_it_has_names_its_branches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = _served(tmp_path, capsys)
    code, _, err = run_cli(capsys, "restore", str(server), str(tmp_path / "r1"), "--quiet")
    assert code == 2
    assert "its HEAD names no branch it has; its branches: main" in err
    assert "git gasp restore --branch main" in err
    assert not (tmp_path / "r1").exists()  # a refused restore leaves nothing behind
    code, _, err = run_cli(
        capsys, "restore", "--branch", "main", str(server), str(tmp_path / "r2"), "--quiet"
    )
    assert code == 0, err
    assert git(tmp_path / "r2", "branch", "--show-current").strip() == "main"
    assert (tmp_path / "r2" / "AGENT.md").is_file()


def test_a_branch_the_remote_lacks_and_an_empty_remote_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = _served(tmp_path, capsys)
    code, _, err = run_cli(
        capsys, "restore", "-b", "nope", str(server), str(tmp_path / "r1"), "--quiet"
    )
    assert code == 2
    assert "nope" in err and "not found" in err, err  # git's reason, not its first warning
    assert "git ls-remote --heads" in err
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(empty))
    code, _, err = run_cli(capsys, "restore", str(empty), str(tmp_path / "r2"), "--quiet")
    assert code == 2
    assert "an empty repository (no commits)" in err
    assert len(err.strip().splitlines()) == 2  # the error and its hint


def test_a_server_that_ignores_the_filter_leaves_no_partial_clone_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Restore asks for a blob-less clone; a server that does not serve one
    sends everything, and the clone then keeps no filter, so a later pull
    does not warn that the server ignores it. One that serves it keeps it."""
    server = _served(tmp_path, capsys)
    url = f"file://{server}"
    whole = tmp_path / "whole"
    code, _, err = run_cli(capsys, "restore", "-q", "-b", "main", url, str(whole))
    assert code == 0, err
    assert git(whole, "config", "remote.origin.partialclonefilter", check=False).strip() == ""
    pulled = subprocess.run(
        ["git", "-C", str(whole), "pull", "--no-rebase", "origin", "main"],
        capture_output=True,
        text=True,
    )
    assert pulled.returncode == 0, pulled.stderr
    assert "filtering not recognized" not in pulled.stderr
    git(server, "config", "uploadpack.allowFilter", "true")
    partial = tmp_path / "partial"
    code, _, err = run_cli(capsys, "restore", "-q", "-b", "main", url, str(partial))
    assert code == 0, err
    assert git(partial, "config", "remote.origin.partialclonefilter").strip() == "blob:none"


def _fact_run(repo: Path, capsys: pytest.CaptureFixture[str], fact: str) -> None:
    for argv in (
        ["run", "start", "--task", f"learn {fact}"],
        ["fact", "add", fact],
        ["run", "close", "--outcome", "done"],
    ):
        code, _, err = run_cli(capsys, *argv, "-C", str(repo))
        assert code == 0, err


def test_facts_added_on_both_sides_merge_without_an_active_memory_conflict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both sides add a fact, so both regenerate the active memory: it merges
    as ours (git-gasp's on all three sides), the facts as a union, and the
    next close writes the memory from both facts."""
    what = ("the origin's lesson", "the clone's lesson")
    clone = _diverged(tmp_path, capsys, monkeypatch, _fact_run, what)
    memory = (clone / "memory" / "active_memory.md").read_text()
    assert "<<<<<<<" not in memory and "the clone's lesson" in memory
    facts = (clone / "memory" / "facts.jsonl").read_text()
    assert "the origin's lesson" in facts and "the clone's lesson" in facts
    _run(clone, capsys, "after the merge")
    memory = (clone / "memory" / "active_memory.md").read_text()
    assert "the origin's lesson" in memory and "the clone's lesson" in memory
    code, out, err = run_cli(capsys, "check", "-C", str(clone))
    assert code == 0, out + err


def test_an_active_memory_another_writer_keeps_merges_as_text(tmp_path: Path) -> None:
    """The projection driver keeps ours only for git-gasp's own memory; an
    agent's own synthesis is merged line by line as git would, a conflict
    marked and reported (exit 1), never one side dropped."""
    base = tmp_path / "base"
    ours = tmp_path / "ours"
    theirs = tmp_path / "theirs"
    base.write_text("# What I know\n\n- one\n")
    ours.write_text("# What I know\n\n- one\n- ours\n")
    theirs.write_text("# What I know\n\n- one\n- theirs\n")
    driver = ["git-gasp", "hooks", "merge-driver", "--projection"]
    done = subprocess.run(
        [*driver, str(base), str(ours), str(theirs), "memory/active_memory.md"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    merged = ours.read_text()
    assert "- ours" in merged and "- theirs" in merged and "<<<<<<<" in merged
    theirs.write_text("# What I know\n\n- one\n")  # only ours changed: a clean text merge
    ours.write_text("# What I know\n\n- one\n- ours\n")
    done = subprocess.run(
        [*driver, str(base), str(ours), str(theirs)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert ours.read_text() == "# What I know\n\n- one\n- ours\n"
