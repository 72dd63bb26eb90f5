"""``git gasp fixture``: the canonical GASP fixture as a committed repository.

The data ships inside the package (``git_gasp/data/fixture``, a copy of the
kit's ``fixture/``; ``_agent`` stands for ``.agent``). The commit is made with
a fixed author and date, so every fixture repository has the same commit id.
"""

from __future__ import annotations

import os
from importlib import resources
from importlib.abc import Traversable

from git_gasp import git
from git_gasp.errors import GaspError

FIXTURE_ENV = {
    "GIT_AUTHOR_NAME": "git-gasp fixture",
    "GIT_AUTHOR_EMAIL": "fixture@git-gasp.invalid",
    "GIT_AUTHOR_DATE": "1739000000 +0000",
    "GIT_COMMITTER_NAME": "git-gasp fixture",
    "GIT_COMMITTER_EMAIL": "fixture@git-gasp.invalid",
    "GIT_COMMITTER_DATE": "1739000000 +0000",
}


def fixture_files() -> dict[str, bytes]:
    """Repository-relative path -> bytes of every fixture file."""
    root = resources.files("git_gasp") / "data" / "fixture"
    out: dict[str, bytes] = {}

    def walk(node: Traversable, rel: str) -> None:
        for child in node.iterdir():
            name = ".agent" if child.name == "_agent" and not rel else child.name
            path = f"{rel}{name}"
            if child.is_dir():
                walk(child, path + "/")
            else:
                out[path] = child.read_bytes()

    walk(root, "")
    return dict(sorted(out.items()))


def write_fixture(dest: str) -> str:
    """Create ``dest`` as a one-commit git repository holding the fixture."""
    if os.path.lexists(dest) and (not os.path.isdir(dest) or os.listdir(dest)):
        # (a dangling symbolic link is something there too)
        raise GaspError(
            f"{dest}: already exists and is not an empty directory",
            "name a new directory: git gasp fixture DIR",
        )
    for rel, data in fixture_files().items():
        path = os.path.join(dest, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
    # The new repository is ours alone: inherited GIT_DIR / GIT_WORK_TREE /
    # GIT_INDEX_FILE must not send the commit somewhere else.
    env = git.scrubbed_env() | FIXTURE_ENV
    git.run(dest, ["init", "-q"], env=env, inherit=False)
    git.run(dest, ["add", "-A"], env=env, inherit=False)
    commit = ["-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "fixture"]
    git.run(dest, commit, env=env, inherit=False)
    return git.run(dest, ["rev-parse", "HEAD"], env=env, inherit=False).decode().strip()
