"""Local control files (issue 15), with real git: in a repository another
runtime wrote (no ``.gitignore`` lines for them), ``run start`` and restore
put them in ``info/exclude``; ``git add -A`` then never stages them, and the
tracked ``.gitignore`` is not edited.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from git_gasp.store.runmarker import LOCAL_PATHS
from tests.conftest import git, run_cli


def _exclude(repo: Path) -> list[str]:
    path = Path(git(repo, "rev-parse", "--git-path", "info/exclude").strip())
    path = path if path.is_absolute() else repo / path
    return path.read_text().splitlines()


def test_run_start_excludes_the_control_files_of_another_runtimes_repository(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (fixture_repo / ".gitignore").write_text("build/\n")
    git(fixture_repo, "add", ".gitignore")
    git(fixture_repo, "commit", "-qm", "the other runtime's ignores")
    assert run_cli(capsys, "run", "abandon", "-C", str(fixture_repo))[0] == 0  # run_42 is open
    code, _, err = run_cli(capsys, "run", "start", "--task", "t", "-C", str(fixture_repo))
    assert code == 0, err
    assert (fixture_repo / ".agent" / "RUN").exists()
    assert (fixture_repo / ".agent" / "worker").exists()
    git(fixture_repo, "add", "-A")
    staged = git(fixture_repo, "diff", "--cached", "--name-only").split()
    assert ".agent/RUN" not in staged and ".agent/worker" not in staged
    assert ".agent/lease" not in staged
    assert (fixture_repo / ".gitignore").read_text() == "build/\n"
    assert set(LOCAL_PATHS) <= set(_exclude(fixture_repo))
    before = _exclude(fixture_repo)
    run_cli(capsys, "run", "abandon", "-C", str(fixture_repo))
    run_cli(capsys, "run", "start", "--task", "t2", "-C", str(fixture_repo))
    assert _exclude(fixture_repo) == before  # written once


def test_restore_excludes_the_control_files(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "restored"
    code, _, err = run_cli(capsys, "restore", str(fixture_repo), str(dest))
    assert code == 0, err
    assert set(LOCAL_PATHS) <= set(_exclude(dest))
    assert not (dest / ".gitignore").exists()
