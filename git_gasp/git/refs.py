"""Where a repository keeps its data and what HEAD and other revisions name."""

from __future__ import annotations

import os
from typing import NamedTuple

from git_gasp.git.process import GitError, attempt, run


class RepoInfo(NamedTuple):
    git_dir: str  # absolute
    common_dir: str  # absolute; shared by linked worktrees
    prefix: str  # the checked path relative to the top of the work tree ("" or "sub/")
    object_format: str  # "sha1" or "sha256"


def repo_info(path: str) -> RepoInfo:
    """Where the repository containing ``path`` keeps its data (GitError if none)."""
    out = run(
        path,
        [
            "rev-parse",
            "--absolute-git-dir",
            "--git-common-dir",
            "--show-prefix",
            "--show-object-format",
        ],
    )
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    git_dir, common, prefix, fmt = ([*lines, "", "", "", ""])[:4]
    common = common if os.path.isabs(common) else os.path.normpath(os.path.join(path, common))
    return RepoInfo(git_dir, common, prefix, fmt or "sha1")


def head(path: str) -> str | None:
    """The commit HEAD names, or None in a repository with no commits yet."""
    try:
        return run(path, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]).decode().strip() or None
    except GitError:
        return None


def head_and_merging(path: str) -> tuple[str | None, tuple[str, ...]]:
    """The commit HEAD names (None before the first commit) and, while a
    merge is being committed, the commits ``MERGE_HEAD`` lists (one
    ``rev-parse``; the file is read only when it exists)."""
    done = attempt(
        path, ["rev-parse", "--git-path", "MERGE_HEAD", "--verify", "-q", "HEAD^{commit}"]
    )
    lines = done.out.decode("utf-8", "surrogateescape").splitlines()
    if not lines:
        raise GitError(done.err.decode("utf-8", "replace").strip() or "git rev-parse failed")
    head = lines[1].strip() if done.code == 0 and len(lines) > 1 else None
    try:
        with open(os.path.join(path, lines[0]), encoding="ascii", errors="replace") as fh:
            merging = tuple(line.split()[0] for line in fh if line.strip())
    except FileNotFoundError:
        merging = ()
    except OSError as exc:
        raise GitError(f"cannot read MERGE_HEAD: {exc.strerror}") from None
    return head, merging


def resolve(path: str, rev: str) -> str | None:
    """The object ``rev`` names (``rev-parse --verify -q``), or None."""
    got = attempt(path, ["rev-parse", "--verify", "-q", "--end-of-options", rev])
    return got.out.decode().strip() or None if got.code == 0 else None
