"""Where a repository keeps its data and what HEAD and other revisions name."""

import os
from typing import NamedTuple

from git_gasp.git.process import GitError, attempt, run


class RepoInfo(NamedTuple):
    git_dir: str  # absolute
    common_dir: str  # absolute; shared by linked worktrees
    prefix: str  # the checked path relative to the top of the work tree ("" or "sub/")
    object_format: str  # "sha1" or "sha256"


_INFO_ARGS = ["--absolute-git-dir", "--git-common-dir", "--show-prefix", "--show-object-format"]


def repo_info(path: str) -> RepoInfo:
    """Where the repository containing ``path`` keeps its data (GitError if none)."""
    out = run(path, ["rev-parse", *_INFO_ARGS])
    return _info(path, out.decode("utf-8", "surrogateescape").split("\n"))


def _info(path: str, lines: list[str]) -> RepoInfo:
    """The :class:`RepoInfo` in the first lines ``rev-parse`` printed for ``_INFO_ARGS``."""
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
    return head, _merging(os.path.join(path, lines[0]))


def _merging(merge_head: str) -> tuple[str, ...]:
    """The commits the ``MERGE_HEAD`` file lists (none when there is no file)."""
    try:
        with open(merge_head, encoding="ascii", errors="replace") as fh:
            return tuple(line.split()[0] for line in fh if line.strip())
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise GitError(f"cannot read MERGE_HEAD: {exc.strerror}") from None


class RepoState(NamedTuple):
    info: RepoInfo
    head: str | None  # None before the first commit
    merging: tuple[str, ...]  # what MERGE_HEAD lists while a merge is committed


def repo_state(path: str) -> RepoState:
    """:func:`repo_info` and :func:`head_and_merging` from one ``rev-parse``
    (a commit hook asks for both, and pays a process for each question)."""
    done = attempt(
        path,
        ["rev-parse", *_INFO_ARGS, "--git-path", "MERGE_HEAD", "--verify", "-q", "HEAD^{commit}"],
    )
    lines = done.out.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 6:  # not a repository: git said why, and printed nothing
        raise GitError(done.err.decode("utf-8", "replace").strip() or "git rev-parse failed")
    head = lines[5].strip() or None if done.code == 0 else None
    return RepoState(_info(path, lines), head, _merging(os.path.join(path, lines[4])))


def resolve(path: str, rev: str) -> str | None:
    """The object ``rev`` names (``rev-parse --verify -q``), or None."""
    got = attempt(path, ["rev-parse", "--verify", "-q", "--end-of-options", rev])
    return got.out.decode().strip() or None if got.code == 0 else None
