"""Retrying a commit: what an earlier (killed) close or identity commit, or
a racing close, did.

A close killed after its boundary commit (or a child git killed after
moving HEAD) leaves nothing to commit: the retry reports that commit as
made. A close that lost the race for the run lock reports the winner's
commit. Git's own lock files left by a killed git are named, with the
commands that clear them.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

from git_gasp import git
from git_gasp.errors import FINDINGS, GaspError


def commit_of(root: str, run_id: str) -> str | None:
    """The boundary commit of ``run_id`` (a run another process closed while
    this one waited for the run lock), newest first."""
    commits = [c.commit for c in git.run_commits(root) if c.run_id == run_id]
    return commits[0] if commits else None


def made_already(root: str, run_id: str) -> str | None:
    """HEAD, when it is this run's boundary commit: a close killed after its
    commit (or a git killed after moving HEAD) made it, and a retry finds
    nothing left to commit. Reported as made, never as "no commit"."""
    head = git.head(root)
    if head is None:
        return None
    message = git.commit_message(root, head)
    return head if f"\nRun-Id: {run_id}\n" in f"\n{message}\n" else None


_STALE_LOCK = re.compile(r"Unable to create '([^']+\.lock)': File exists")


def stale_lock(exc: git.GitError) -> GaspError | None:
    """Git's lock file left by a git that was killed, named with the command
    that clears it."""
    found = _STALE_LOCK.search(exc.message)
    if found is None:
        return None
    path = found.group(1)
    return GaspError(
        f"git's lock {path} is left over (a git process was killed, or one is still running)",
        f"if no git is running in this repository: rm {shlex.quote(path)}; "
        "then run the same command again (nothing it wrote is lost)",
        FINDINGS,
    )


def left_locks(root: str) -> list[str]:
    """Git's lock files a killed ``git commit`` leaves: the index's (and its
    temporary index's) and those of HEAD and the branch HEAD names."""
    info = git.repo_info(root)
    found = []
    for where in dict.fromkeys([info.git_dir, info.common_dir]):
        try:
            names = sorted(os.listdir(where))
        except OSError:
            continue
        found += [os.path.join(where, n) for n in names if n.endswith(".lock")]
    branch = git.attempt(root, ["symbolic-ref", "-q", "HEAD"]).out.decode().strip()
    if branch.startswith("refs/"):
        lock = os.path.join(info.common_dir, *branch.split("/")) + ".lock"
        found += [lock] if os.path.isfile(lock) else []
    return list(dict.fromkeys(found))


def locks_said(root: str, paths: Sequence[str]) -> str | None:
    """The lock files left behind by a git killed after it made the commit,
    with the commands that clear them, or None when there are none. The
    index is then the one from before the commit, so ``paths`` are reset to
    the commit made."""
    locks = left_locks(root)
    if not locks:
        return None
    named = " ".join(shlex.quote(p) for p in locks)
    reset = " ".join(shlex.quote(p) for p in paths)
    return (
        f"git's lock files are left over ({named}): a git process was killed, or one is "
        f"still running; if none is running: rm {named} && git reset -q -- {reset}"
    )
