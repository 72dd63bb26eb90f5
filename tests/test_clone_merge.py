"""A restored clone merges the journal with git-gasp's ``gasp-append`` driver:
``.gitattributes`` names it, but git configuration is never cloned, so
``git gasp restore`` defines it in the clone (as ``init`` and ``hooks
install`` do); a journal that both sides appended to then merges without a
conflict.
"""

from __future__ import annotations

import shutil
import subprocess
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


def test_a_restored_clone_merges_both_sides_journal_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shutil.which("git-gasp"), "the merge driver runs git-gasp from PATH"
    origin = tmp_path / "origin"
    code, _, err = run_cli(capsys, "init", str(origin), "--agent-id", "bot")
    assert code == 0, err
    clone = tmp_path / "clone"
    code, _, err = run_cli(capsys, "restore", str(origin), str(clone), "--quiet")
    assert code == 0, err
    driver = git(clone, "config", "merge.gasp-append.driver").strip()
    assert driver == "git-gasp hooks merge-driver %O %A %B %P"
    monkeypatch.setenv("GASP_WORKER_ID", "worker-origin")
    _run(origin, capsys, "work on the origin")
    monkeypatch.setenv("GASP_WORKER_ID", "worker-clone")
    _run(clone, capsys, "work in the clone")
    pulled = subprocess.run(
        ["git", "-C", str(clone), "pull", "-q", "--no-rebase", "--no-edit", "origin"],
        capture_output=True,
        text=True,
    )
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    journal = (clone / "journal" / "JOURNAL.md").read_text()
    assert "work on the origin" in journal and "work in the clone" in journal
    assert "<<<<<<<" not in journal
    code, out, err = run_cli(capsys, "check", "-C", str(clone))
    assert code == 0, out + err
