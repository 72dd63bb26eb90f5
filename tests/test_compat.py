"""What users already have keeps working across the package's re-layout (issue 14):
the documented Python API, ``python -m git_gasp``, and hook shims that an earlier
version (0.1.0, before the move into packages) wrote into repositories and servers.

The shims under ``tests/data/shims-0.1.0/`` are exactly what that version's
``hooks install`` wrote (``NAME`` for git-gasp on PATH, ``NAME.python`` for
``--python``, with ``@PYTHON@`` where the interpreter's path went).
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

from .conftest import git, log_lines, write_lines

SHIMS = Path(__file__).resolve().parent / "data" / "shims-0.1.0"


def test_the_documented_api_imports_from_its_old_and_new_homes() -> None:
    import git_gasp.init
    import git_gasp.projecting
    import git_gasp.runs
    from git_gasp.agent import Agent, add_fact, close_run, init_repo
    from git_gasp.agent.api import Agent as moved_agent
    from git_gasp.agent.init import init_repo as moved_init
    from git_gasp.agent.projecting import add_fact as moved_fact
    from git_gasp.agent.runs import close_run as moved_close

    assert Agent is moved_agent
    assert init_repo is git_gasp.init.init_repo is moved_init
    assert close_run is git_gasp.runs.close_run is moved_close
    assert add_fact is git_gasp.projecting.add_fact is moved_fact


def test_an_unknown_name_of_the_agent_package_is_an_attribute_error() -> None:
    import git_gasp.agent

    try:
        git_gasp.agent.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_python_dash_m_git_gasp_runs_the_command_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "git_gasp", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "git-gasp" in out.stdout


def _install(hooks: Path, name: str, python: bool) -> None:
    text = (SHIMS / (f"{name}.python" if python else name)).read_text()
    target = hooks / name
    target.write_text(text.replace("@PYTHON@", sys.executable))
    target.chmod(target.stat().st_mode | stat.S_IXUSR)


def _edit_first_line(repo: Path) -> None:
    lines = log_lines(repo)
    lines[0] = lines[0].replace('"id":', '"id" :', 1)
    write_lines(repo, lines)
    git(repo, "add", "state/events.jsonl")


def test_old_client_shims_still_judge_commits(fixture_repo: Path) -> None:
    hooks = Path(git(fixture_repo, "rev-parse", "--absolute-git-dir").strip()) / "hooks"
    for name in ("pre-commit", "commit-msg", "prepare-commit-msg", "post-commit"):
        _install(hooks, name, python=name != "pre-commit")  # both forms of shim
    assert shutil.which("git-gasp"), "the console script is installed with the package"
    _edit_first_line(fixture_repo)
    refused = subprocess.run(
        ["git", "-C", str(fixture_repo), "commit", "-q", "-m", "rewrite history"],
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0
    assert "append" in refused.stderr
    git(fixture_repo, "checkout", "HEAD", "--", "state/events.jsonl")
    (fixture_repo / "notes.txt").write_text("an ordinary change\n")
    git(fixture_repo, "add", "notes.txt")
    git(fixture_repo, "commit", "-q", "-m", "an ordinary change")


def test_old_server_shims_still_judge_pushes(fixture_repo: Path, tmp_path: Path) -> None:
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(fixture_repo), str(server))
    _install(server / "hooks", "pre-receive", python=True)
    _install(server / "hooks", "post-receive", python=False)
    _edit_first_line(fixture_repo)
    git(fixture_repo, "commit", "-q", "--no-verify", "-m", "rewrite history")
    push = subprocess.run(
        ["git", "-C", str(fixture_repo), "push", "-q", str(server), "HEAD:main"],
        capture_output=True,
        text=True,
    )
    assert push.returncode != 0
    assert "append" in push.stderr
    git(fixture_repo, "reset", "-q", "--hard", "HEAD~1")
    (fixture_repo / "notes.txt").write_text("an ordinary change\n")
    git(fixture_repo, "add", "notes.txt")
    git(fixture_repo, "commit", "-q", "-m", "an ordinary change")
    git(fixture_repo, "push", "-q", str(server), "HEAD:main")
