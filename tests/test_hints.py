"""Hints that lead somewhere (issue 15): a pushed append-only edit says to
rewrite the unpushed commits (a revert is refused too), and a server hook
that cannot find git-gasp says to reinstall it with ``--server``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from git_gasp.hooks.install import shim
from tests.conftest import git
from tests.test_hooks import commit, edit_line, rejected, served


def test_a_pushed_edit_says_to_rewrite_the_unpushed_commits(
    work: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = served(work, tmp_path, capsys)
    edit_line(work)
    commit(work, "edited")
    stderr = rejected(work, url, "HEAD:refs/heads/main")
    assert "rewrite the commits not yet pushed" in stderr
    assert "git rebase -i @{upstream}" in stderr
    git(work, "revert", "--no-edit", "HEAD")  # what the old hint led to: refused as well
    assert "was edited" in rejected(work, url, "HEAD:refs/heads/main")
    git(work, "reset", "-q", "--hard", "HEAD~2")  # the rewrite the hint names
    assert (
        subprocess.run(
            ["git", "-C", str(work), "push", url, "HEAD:refs/heads/main"], capture_output=True
        ).returncode
        == 0
    )


@pytest.mark.parametrize("hook", ["pre-receive", "post-receive"])
def test_a_server_hook_without_git_gasp_names_the_server_install(hook: str, tmp_path: Path) -> None:
    script = tmp_path / hook
    script.write_text(shim(hook, None))
    script.chmod(0o755)
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([str(script)], input="", capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "git gasp hooks install --server --python /path/to/python" in proc.stderr
    assert "git-gasp on the server's PATH" in proc.stderr


def test_a_client_hook_without_git_gasp_names_the_client_install(tmp_path: Path) -> None:
    text = shim("pre-commit", None)
    assert "install --python /path/to/python" in text and "--server" not in text
