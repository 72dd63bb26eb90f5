"""The real pre-commit framework: `pre-commit try-repo`, `pre-commit run` and
`pre-commit install` with this repository as the hook repository
(`.pre-commit-hooks.yaml`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import git

LOG = "state/events.jsonl"

# one worker builds the hook repository and pre-commit environments
# (test_sessions' framework test shares them: tests/conftest.precommit_hooks)
pytestmark = pytest.mark.xdist_group("pre-commit-framework")


@pytest.fixture
def hook_repo(precommit_hooks: tuple[Path, dict[str, str]]) -> tuple[Path, dict[str, str]]:
    return precommit_hooks


def _demo(path: Path, template: Path) -> Path:
    """A `git gasp demo` repository: a copy of the session's (the same
    identities and dates as the framework's environment, so the same commits)."""
    shutil.copytree(template, path, symlinks=True)
    return path


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _config(tmp_path: Path, repo: Path, *hooks: str) -> Path:
    """A config outside the work tree naming the hook repository at its
    commit: the framework runs its hooks in the environment it built once for
    it (in the group's shared PRE_COMMIT_HOME)."""
    config = tmp_path / "pre-commit-config.yaml"
    rev = git(repo, "rev-parse", "HEAD").strip()
    ids = "".join(f"  - id: {hook}\n" for hook in hooks)
    config.write_text(f"repos:\n- repo: {repo}\n  rev: {rev}\n  hooks:\n{ids}")
    return config


def test_try_repo_fails_a_bad_change_and_the_same_hook_passes_the_fix(
    hook_repo: tuple[Path, dict[str, str]], template: Path, tmp_path: Path
) -> None:
    """`try-repo` clones the hook repository and builds a fresh environment
    for it (pip building git-gasp) on every call, as it does for a user: it
    runs once here, on the bad change, and its verdict and the hook's reason
    come through. The fixed change passes the same hook of the same commit
    run from a config (whose environment the framework builds once)."""
    repo, env = hook_repo
    agent = _demo(tmp_path / "agent", template)
    with open(agent / LOG, "ab") as fh:
        fh.write(b'{"not":"an event"}\n')
    git(agent, "add", LOG)
    bad = _run(["pre-commit", "try-repo", str(repo), "gasp-validate"], agent, env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "[envelope]" in bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "Using config:" in bad.stdout
    assert f"rev: {git(repo, 'rev-parse', 'HEAD').strip()}" in bad.stdout
    git(agent, "checkout", "HEAD", "--", LOG)
    config = _config(tmp_path, repo, "gasp-validate")
    good = _run(["pre-commit", "run", "--config", str(config), "gasp-validate"], agent, env)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


def test_installed_hooks_guard_commits_and_messages(
    hook_repo: tuple[Path, dict[str, str]], template: Path, tmp_path: Path
) -> None:
    repo, env = hook_repo
    agent = _demo(tmp_path / "agent", template)
    rev = git(repo, "rev-parse", "HEAD").strip()
    (agent / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"- repo: {repo}\n"
        f"  rev: {rev}\n"
        "  hooks:\n"
        "  - id: gasp-validate\n"
        "  - id: gasp-commit-msg\n"
        "  - id: gasp-pre-push\n"
    )
    types = ["--hook-type", "pre-commit", "--hook-type", "commit-msg", "--hook-type", "pre-push"]
    installed = _run(["pre-commit", "install", *types], agent, env)
    assert installed.returncode == 0, installed.stderr
    git(agent, "add", ".pre-commit-config.yaml")
    ok = _run(["git", "commit", "-q", "-m", "config"], agent, env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    lines = (agent / LOG).read_bytes().splitlines(keepends=True)
    (agent / LOG).write_bytes(b"".join(lines[:-1]))  # drops a committed line
    git(agent, "add", LOG)
    refused = _run(["git", "commit", "-q", "-m", "truncate"], agent, env)
    assert refused.returncode != 0
    assert "the file was truncated" in refused.stdout + refused.stderr
    git(agent, "checkout", "HEAD", "--", LOG)
    (agent / "notes.txt").write_text("x\n")
    git(agent, "add", "notes.txt")
    message = "notes\n\nAgent-Session: https://example.invalid/s/1\n"
    bad_msg = _run(["git", "commit", "-q", "-m", message], agent, env)
    assert bad_msg.returncode != 0
    assert "is not <agent>:[<namespace>:]<sessionId>" in bad_msg.stdout + bad_msg.stderr
    good = "notes\n\nAgent-Session: claude:ses_1\n"
    good_msg = _run(["git", "commit", "-q", "-m", good], agent, env)
    assert good_msg.returncode == 0, good_msg.stdout + good_msg.stderr
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    git(agent, "remote", "add", "origin", str(server))
    noted = [sys.executable, "-m", "git_gasp", "notes", "add", "HEAD", "--session", "claude:ses_1"]
    assert _run(noted, agent, env).returncode == 0
    pushed = _run(["git", "push", "-q", "origin", "HEAD:refs/heads/main"], agent, env)
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    # the session notes went with the branch, through the framework's pre-push
    notes = "refs/notes/agent-sessions"
    assert git(server, "rev-parse", notes) == git(agent, "rev-parse", notes)


def test_a_named_range_judges_commits_and_native_hooks_warn_of_the_framework(
    hook_repo: tuple[Path, dict[str, str]], template: Path, tmp_path: Path
) -> None:
    """`--all-files` reads no history; `--from-ref`/`--to-ref` (also at the
    manual stage, for CI) judge the commits, so a committed violation is
    not a false green. Installing the native hooks over the framework's says
    that they chain it."""
    repo, env = hook_repo
    agent = _demo(tmp_path / "agent", template)
    base = git(agent, "rev-parse", "HEAD").strip()
    lines = (agent / LOG).read_bytes().splitlines(keepends=True)
    (agent / LOG).write_bytes(b"".join(lines[:-1]))  # drops a committed line
    git(agent, "commit", "-q", "--no-verify", "-am", "truncate")
    # (try-repo, which builds an environment of its own each time, is the first test's)
    config = _config(tmp_path, repo, "gasp-validate")
    run = ["pre-commit", "run", "--config", str(config), "gasp-validate"]
    staged = _run([*run, "--all-files"], agent, env)
    assert staged.returncode == 0, staged.stdout + staged.stderr
    ranged = [*run, "--hook-stage", "manual", "--from-ref", base, "--to-ref", "HEAD"]
    refused = _run(ranged, agent, env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "the file was truncated" in refused.stdout + refused.stderr
    assert _run(["pre-commit", "install"], agent, env).returncode == 0
    native = [sys.executable, "-m", "git_gasp", "hooks", "install", "--python", sys.executable]
    done = _run(native, agent, env)
    assert done.returncode == 0, done.stderr
    assert "pre-commit chain the pre-commit framework's hooks" in done.stderr
