"""Shared test fixtures: a hermetic git environment and repository builders."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest


def _scratch_in_memory() -> None:
    """The tests' scratch files on a RAM disk when the machine has one.

    The suite makes and removes hundreds of thousands of small files: a
    repository or two per test, git's index and lock files, hook inputs,
    caches written atomically. On a disk every unlink, rename over a file and
    fsync costs the kernel time (about 2 ms an unlink on an ext4 mounted with
    ``discard``); the hook tests spent a fifth of their CPU so. Where TMPDIR
    is not set and ``/dev/shm`` is a writable directory with 2 GiB free, TMPDIR
    points there for this process and every process it starts: pytest's
    ``tmp_path``, the shared bytecode cache, the temporary files of git-gasp,
    its hooks and git. Set TMPDIR (``TMPDIR=/tmp python -m pytest``) to choose
    the place yourself.
    """
    if os.environ.get("TMPDIR"):
        return
    shm = "/dev/shm"
    try:
        free = os.statvfs(shm)
    except OSError:
        return
    if free.f_bavail * free.f_frsize < 2 << 30 or not os.access(shm, os.W_OK | os.X_OK):
        return
    os.environ["TMPDIR"] = shm
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


_scratch_in_memory()


def _share_bytecode() -> None:
    """Compile the package once, not in every process the tests spawn.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on the machines this project
    runs on), each of the thousands of hook and CLI processes the tests start
    compiled git_gasp and its dependencies from source. Here the variable is
    dropped for this process and its children, and their bytecode goes to one
    cache outside the work tree (``PYTHONPYCACHEPREFIX``), which every pytest
    worker and every child shares: Python checks each entry against its
    source's mtime and size, so the cache can outlive a run. A prefix the
    caller already chose is kept.
    """
    if "PYTHONPYCACHEPREFIX" not in os.environ:
        cache = Path(tempfile.gettempdir()) / f"git-gasp-tests-pycache-{os.getuid()}"
        os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False


_share_bytecode()

from git_gasp.agent.fixture import fixture_files  # noqa: E402

HERMETIC = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_AUTHOR_DATE": "1739000000 +0000",
    "GIT_COMMITTER_DATE": "1739000000 +0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_EDITOR": "false",
    "GIT_TERMINAL_PROMPT": "0",
}


#: Each test's ~/.gitconfig, and the shared fixtures'. Git's automatic
#: housekeeping is off: after every commit git would start ``git maintenance
#: run --auto``, and after every push a server ``git gc --auto``, thousands of
#: processes that never have anything to do in a test's few objects (and that
#: no test is about).
GITCONFIG = (
    "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
    "[maintenance]\n\tauto = false\n[receive]\n\tautogc = false\n[gc]\n\tauto = 0\n"
)


@pytest.fixture(autouse=True)
def hermetic_git(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Scrub inherited GIT_* variables; a private HOME; fixed identities and dates."""
    for key in list(os.environ):
        if key.startswith("GIT_"):
            monkeypatch.delenv(key)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for key, value in HERMETIC.items():
        monkeypatch.setenv(key, value)
    (home / ".gitconfig").write_text(GITCONFIG)
    yield


def git(repo: Path | str, *args: str, check: bool = True) -> str:
    """Run real git in ``repo`` and return its stdout."""
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def commit_all(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def committed_repo(repo: Path, files: Mapping[str, bytes | None]) -> Path:
    """A fresh one-commit repository holding ``files`` (None entries are left out)."""
    for rel, data in files.items():
        if data is not None:
            path = repo / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    git(repo, "init", "-q")
    commit_all(repo, "fixture")
    return repo


ROOT = Path(__file__).resolve().parent.parent
HOOK_SOURCES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "git_gasp", "man")


@pytest.fixture(scope="session")
def precommit_hooks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A committed copy of this project, what a user's config points the
    pre-commit framework at, and an environment whose ``PRE_COMMIT_HOME``
    every test of the ``pre-commit-framework`` xdist group shares, so the
    framework builds the hooks' environment once for a config naming it
    (``try-repo`` always builds its own). pip builds git-gasp without build
    isolation: the framework's virtualenv holds setuptools already.

    Each environment the framework builds is a new virtualenv at a new path,
    so the shared ``PYTHONPYCACHEPREFIX`` (keyed by a source's path) never
    holds its modules: pip compiled itself and setuptools from source in every
    one (~2 s of CPU a build). Here bytecode lives beside the sources, as on a
    user's machine: the virtualenvs link pip and setuptools from virtualenv's
    one app-data folder (compiled once) and the hooks read the bytecode pip
    wrote when it installed git-gasp."""
    base = tmp_path_factory.mktemp("framework")
    (base / ".gitconfig").write_text(GITCONFIG)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HERMETIC, HOME=str(base), PRE_COMMIT_HOME=str(base / "pre-commit"))
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PIP_NO_BUILD_ISOLATION"] = "0"  # pip's spelling of --no-build-isolation
    env.pop("PYTHONPYCACHEPREFIX", None)
    env["VIRTUALENV_SYMLINK_APP_DATA"] = "1"
    repo = base / "git-gasp"
    repo.mkdir()
    for name in HOOK_SOURCES:
        source = ROOT / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(source, repo / name, ignore=ignore)
        else:
            shutil.copy(source, repo / name)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "hooks"]):
        subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)
    return repo, env


@contextlib.contextmanager
def _hermetic_session(base: Path) -> Iterator[None]:
    """:func:`hermetic_git`'s environment, with ``base`` as HOME, for a
    session fixture (which no function fixture's monkeypatch reaches)."""
    with pytest.MonkeyPatch.context() as patch:
        for key in list(os.environ):
            if key.startswith("GIT_"):
                patch.delenv(key)
        patch.setenv("HOME", str(base))
        for key, value in HERMETIC.items():
            patch.setenv(key, value)
        (base / ".gitconfig").write_text(GITCONFIG)
        yield


@pytest.fixture(scope="session")
def fixture_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The canonical fixture in a one-commit repository, built once per test
    session with a test's identities and dates (so the same commit); copy it."""
    base = tmp_path_factory.mktemp("fixture-template")
    with _hermetic_session(base):
        return committed_repo(base / "fixture", fixture_files())


@pytest.fixture
def fixture_repo(fixture_template: Path, tmp_path: Path) -> Path:
    """The canonical fixture copied into a fresh one-commit repository (§10.4):
    a copy of :func:`fixture_template` (git init, add and commit cost ~4 times
    what copying its 68 files does)."""
    dest = tmp_path / "fixture"
    shutil.copytree(fixture_template, dest, symlinks=True)
    return dest


def log_path(repo: Path) -> Path:
    return repo / "state" / "events.jsonl"


def log_lines(repo: Path) -> list[str]:
    return log_path(repo).read_text(encoding="utf-8").splitlines()


def write_lines(repo: Path, lines: list[str]) -> None:
    log_path(repo).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``git gasp ARGV`` in this process: exit code, stdout, stderr (never a traceback)."""
    from git_gasp.cli import root as cli

    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `git gasp demo` repository (two closed runs with sessions and notes),
    built once per test session in its own hermetic environment; copy it."""
    import sys

    base = tmp_path_factory.mktemp("template")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HERMETIC, HOME=str(base), XDG_CACHE_HOME=str(base / "cache"))
    (base / ".gitconfig").write_text(GITCONFIG)
    demo = base / "demo"
    cmd = [sys.executable, "-m", "git_gasp", "demo", str(demo)]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return demo


@pytest.fixture
def work(template: Path, tmp_path: Path) -> Path:
    """A copy of :func:`template` to change (a module may define its own)."""
    dest = tmp_path / "work"
    shutil.copytree(template, dest, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def story_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real-shaped history of :mod:`tests.history` (600 generated runs and
    a two-run self-evolution arc), built once per test session; read it, or
    copy it before changing it."""
    from tests import history

    base = tmp_path_factory.mktemp("story")
    with _hermetic_session(base):
        return history.build(base / "agent")


#: Modules whose single tests run longest (hypothesis properties at full
#: max_examples, the credential screen's regex oracle): collected first, so
#: xdist hands them out early and neither core waits at the end on one of them
#: while the other is idle (loadgroup's groups are handed out first anyway).
SLOW_FIRST = (
    "tests/test_secrets.py",
    "tests/test_properties.py",
    "tests/test_notes_format.py",
    "tests/test_durability.py",
    "tests/test_contextcache.py",
)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The :data:`SLOW_FIRST` modules' tests first, every test's order kept
    otherwise (a stable sort: the same on every worker)."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return SLOW_FIRST.index(path) if path in SLOW_FIRST else len(SLOW_FIRST)

    items.sort(key=rank)
