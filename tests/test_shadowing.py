"""A repository's own ``git_gasp/`` folder never stands in for the installed
package: git runs a hook at the top of the work tree (a push's in the git
directory), and ``python -m`` would put that directory first on the module
path. Shims pinned to an interpreter, the merge driver, the server scripts
and a live handler's detached flush all start Python with ``-P``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp.hooks import install
from git_gasp.live import handler

from .conftest import git
from .conftest import run_cli as main
from .test_hooks import LOG, append, commit, goal_pair, try_commit

ROOT = Path(__file__).resolve().parent.parent


def plant(folder: Path, marker: Path) -> None:
    """A ``git_gasp`` package in ``folder`` that, imported, leaves ``marker``
    and lets everything pass."""
    package = folder / "git_gasp"
    package.mkdir()
    code = f"open({str(marker)!r}, 'w').write('ran')\nraise SystemExit(0)\n"
    (package / "__init__.py").write_text(code)
    (package / "__main__.py").write_text(code)


def test_a_git_gasp_folder_in_the_work_tree_does_not_replace_the_pinned_hook(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    marker = tmp_path / "ran"
    plant(work, marker)
    commit(work, "a folder named like the package")
    with open(work / LOG, "rb") as fh:
        first = fh.readline()
    append(work, LOG, first)  # a duplicate id: the real hook refuses it
    git(work, "add", "-A")
    refused = try_commit(work, "a duplicated event")
    assert refused.returncode != 0, refused.stderr
    assert "gasp:" in refused.stderr
    assert not marker.exists()
    assert "-P -m git_gasp hooks run pre-commit" in (work / ".git/hooks/pre-commit").read_text()


def test_installing_with_an_interpreter_that_only_imports_the_folder_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--python`` naming an interpreter without git-gasp: that the work
    tree's top holds a ``git_gasp/`` folder does not make it look usable."""
    bare = tmp_path / "bare-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    plant(work, tmp_path / "ran")
    code, _, err = main(
        capsys, "hooks", "install", "--python", str(bare / "bin" / "python"), "-C", str(work)
    )
    assert code != 0
    assert "cannot import git_gasp" in err
    assert not (tmp_path / "ran").exists()


def test_the_merge_driver_keeps_the_work_tree_off_the_module_path(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    driver = git(work, "config", "merge.gasp-append.driver").strip()
    assert driver.startswith(f"{sys.executable} -P -m git_gasp hooks merge-driver ")


def test_the_server_script_with_gasp_python_ignores_a_folder_in_the_git_dir(
    work: Path, tmp_path: Path
) -> None:
    """``hooks/pre-receive`` copied into a server, ``GASP_PYTHON`` set: a
    ``git_gasp/`` in the git directory (where git runs it) is not imported,
    and the push is judged."""
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    script = server / "hooks" / "pre-receive"
    script.write_text((ROOT / "hooks" / "pre-receive").read_text())
    script.chmod(0o755)
    marker = tmp_path / "ran"
    plant(server, marker)
    with open(work / LOG, "rb") as fh:
        first = fh.readline()
    append(work, LOG, first)
    commit(work, "a duplicated event")
    env = {**os.environ, "GASP_PYTHON": sys.executable}
    branch = git(work, "branch", "--show-current").strip()
    done = subprocess.run(
        ["git", "-C", str(work), "push", str(server), f"HEAD:refs/heads/{branch}"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode != 0, done.stderr
    assert "gasp:" in done.stderr
    assert not marker.exists()
    # and a good push goes through the same script
    git(work, "reset", "-q", "--hard", "HEAD~1")
    append(work, LOG, goal_pair("shadow"))
    commit(work, "a goal")
    good = subprocess.run(
        ["git", "-C", str(work), "push", str(server), f"HEAD:refs/heads/{branch}"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert good.returncode == 0, good.stderr
    assert not marker.exists()


def test_a_live_handlers_detached_flush_runs_python_with_a_safe_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(handler.spool, "in_background", lambda start: start())
    monkeypatch.setattr(handler.os, "execv", lambda program, argv: started.append(list(argv)))
    handler.detach(["adapt", "flush", "--repo", "/nowhere"])
    flush = ["adapt", "flush", "--repo", "/nowhere"]
    assert started == [[sys.executable, "-P", "-m", "git_gasp", *flush]]


def test_an_older_shim_without_the_safe_path_is_outdated(work: Path) -> None:
    new = install.shim("pre-commit", sys.executable)
    assert f"{sys.executable} -P -m git_gasp hooks run pre-commit" in new
    old = new.replace(" -P -m git_gasp", " -m git_gasp")
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text(old)
    hook.chmod(0o755)
    assert install.pinned_interpreter(str(hook)) == sys.executable
    assert install.status(str(work), ["pre-commit"]) == {"pre-commit": "outdated"}


def test_an_interpreter_too_old_for_the_safe_path_is_named_as_such(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``--python`` older than 3.11 has no ``-P``: the refusal says so, not
    Python's usage text."""
    old = tmp_path / "python3.10"
    old.write_text(
        '#!/bin/sh\necho "Unknown option: -P" >&2\necho "usage: python3.10" >&2\nexit 2\n'
    )
    old.chmod(0o755)
    code, _, err = main(capsys, "hooks", "install", "--python", str(old), "-C", str(work))
    assert code == 2
    assert "is older than Python 3.11, which git-gasp needs" in err
    assert "name a Python 3.11 or newer" in err
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
