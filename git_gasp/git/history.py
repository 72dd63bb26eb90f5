"""Walks of history and what commits say: parents, run commits, messages, blame.

One process per walk (``rev-list``, ``log``), never one per commit.
"""

from __future__ import annotations

from collections.abc import Sequence

from git_gasp.core.runlog import LOG_FORMAT, RunCommit, parse_run_log
from git_gasp.git.process import GitError, run
from git_gasp.git.refs import head, repo_info


def commits_touching(
    path: str, file: str, tip: str, exclude: Sequence[str] = ()
) -> list[tuple[str, tuple[str, ...]]]:
    """Commits reachable from ``tip`` (not from ``exclude``) that touch ``file``,
    parents before children, each with its parents rewritten to the nearest
    ancestors that touch it (``--full-history --parents``). Nothing when
    ``tip`` is one of ``exclude`` (a warm check on an unchanged HEAD), and
    then git is not asked."""
    if tip in exclude:
        return []
    args = ["rev-list", "--full-history", "--parents", "--topo-order", "--reverse"]
    args += ["--ignore-missing", tip, *(f"^{c}" for c in exclude), "--", file]
    return _with_parents(run(path, args))


def commit_walk(path: str, revs: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """``git rev-list --topo-order --reverse --parents REVS``: commits,
    parents before children, each with its parents."""
    args = ["rev-list", "--topo-order", "--reverse", "--parents", *revs]
    return _with_parents(run(path, args))


def new_commits(path: str, tip: str) -> list[tuple[str, tuple[str, ...]]]:
    """Commits reachable from ``tip`` and from no ref (``rev-list TIP --not
    --all``), parents before children, with their parents."""
    return commit_walk(path, [tip, "--not", "--all"])


def _with_parents(out: bytes) -> list[tuple[str, tuple[str, ...]]]:
    walk = []
    for line in out.decode().split("\n"):
        if line:
            commit, *parents = line.split(" ")
            walk.append((commit, tuple(parents)))
    return walk


RANGE_HINT = "pass a range git log accepts, e.g. main~5..main or a branch name"


def _log(path: str, rev_range: str, fmt: Sequence[str]) -> bytes | None:
    """``git log`` of ``rev_range`` (None: HEAD in a repository with no
    commits yet); its failures carry :data:`RANGE_HINT`."""
    try:
        if rev_range == "HEAD" and head(path) is None:
            repo_info(path)  # GitError when path is not in a repository at all
            return None
        return run(path, ["log", *fmt, "--end-of-options", rev_range, "--"])
    except GitError as exc:
        raise GitError(exc.message, RANGE_HINT) from None


def run_commits(path: str, rev_range: str = "HEAD") -> list[RunCommit]:
    """The commits in ``rev_range`` whose final trailer block has a ``Run-Id``,
    newest first, from one ``git log`` (git parses the trailers)."""
    out = _log(path, rev_range, [f"--format={LOG_FORMAT}"])
    return parse_run_log(out.decode("utf-8", "replace")) if out is not None else []


def commit_message(path: str, rev: str) -> str:
    """The message of commit ``rev``: one ``cat-file commit``."""
    raw = run(path, ["cat-file", "commit", rev])
    return raw.partition(b"\n\n")[2].decode("utf-8", "replace")


def _messages(out: bytes) -> list[tuple[str, str]]:
    """``(commit, raw message)`` pairs from ``git log -z --format=%H%n%B``."""
    found = []
    for record in out.decode("utf-8", "replace").split("\0"):
        commit, sep, message = record.lstrip("\n").partition("\n")
        if commit and sep:
            found.append((commit, message))
    return found


def commit_messages(
    path: str, rev_range: str = "HEAD", since: str | None = None, until: str | None = None
) -> list[tuple[str, str]]:
    """``(commit, raw message)`` of every commit in ``rev_range`` (dated
    ``since``..``until`` as ``git log`` reads them), newest first, from one
    ``git log`` (empty in a repository with no commits)."""
    dates = [f"--since={since}"] if since else []
    dates += [f"--until={until}"] if until else []
    out = _log(path, rev_range, ["-z", "--format=%H%n%B", *dates])
    return _messages(out) if out is not None else []


def messages_of(path: str, commits: Sequence[str]) -> dict[str, str]:
    """The raw message of each of ``commits`` (full ids), from one
    ``git log --no-walk --stdin``."""
    if not commits:
        return {}
    payload = "".join(f"{c}\n" for c in dict.fromkeys(commits)).encode()
    args = ["log", "--no-walk=unsorted", "-z", "--format=%H%n%B", "--stdin"]
    return dict(_messages(run(path, args, stdin=payload)))


def blame_porcelain(path: str, file: str, line: int | None = None, rev: str = "HEAD") -> bytes:
    """``git blame --porcelain [-L LINE,LINE] REV -- FILE`` (FILE relative to
    ``path``), one process; GitError with git's message when it fails."""
    span = ["-L", f"{line},{line}"] if line is not None else []
    return run(path, ["blame", "--porcelain", *span, rev, "--", file])
