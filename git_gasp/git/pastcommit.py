"""The commit that holds an event: the first commit, along HEAD's first
parents, whose log has the event's id in it.

An append-only log only grows along the history, so the commits that hold
an event are all those from the one that added it on: a binary search reads
about log2(commits) versions of the log (one ``git cat-file`` each; in a
blob-less clone each is fetched on demand).
"""

from __future__ import annotations

from git_gasp.git import GitError, run


def _holds(root: str, commit: str, path: str, needle: bytes) -> bool:
    try:
        return needle in run(root, ["cat-file", "blob", f"{commit}:{path}"])
    except GitError:  # no such file in that commit
        return False


def commit_holding(root: str, path: str, event_id: str) -> str | None:
    """The oldest first-parent commit of HEAD whose ``path`` holds
    ``event_id`` (as the JSON string ``"<id>"``); None when HEAD's does not."""
    try:
        out = run(root, ["rev-list", "--first-parent", "HEAD", "--"])
    except GitError:
        return None
    commits = out.decode("ascii", "replace").split()[::-1]  # oldest first
    needle = f'"{event_id}"'.encode()
    if not commits or not _holds(root, commits[-1], path, needle):
        return None
    lo, hi = 0, len(commits) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _holds(root, commits[mid], path, needle):
            hi = mid
        else:
            lo = mid + 1
    return commits[lo]
