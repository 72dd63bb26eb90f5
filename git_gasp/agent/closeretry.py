"""Retrying a close: what an earlier (killed) close, or a racing one, did.

A close killed after its boundary commit (or a child git killed after
moving HEAD) leaves nothing to commit: the retry reports that commit as
made. A close that lost the race for the run lock reports the winner's
commit. Git's own lock files left by a killed git are named, with the
command that clears them.
"""

from __future__ import annotations

import re
import shlex

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
        "then run the close again (the run stays open)",
        FINDINGS,
    )
