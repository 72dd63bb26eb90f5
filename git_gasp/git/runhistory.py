"""Run commits with ``git log``'s own date filters (``--since``/``--until``
read dates as git reads them: ``2025-03-01``, ``2 weeks ago``)."""

from __future__ import annotations

from git_gasp.core.runlog import LOG_FORMAT, RunCommit, parse_run_log
from git_gasp.git import RANGE_HINT, GitError, head, repo_info, run


def run_commits_dated(
    path: str, rev_range: str = "HEAD", since: str | None = None, until: str | None = None
) -> list[RunCommit]:
    """:func:`~git_gasp.git.history.run_commits` limited to commits dated
    ``since``..``until``, newest first."""
    dates = [f"--since={since}"] if since else []
    dates += [f"--until={until}"] if until else []
    try:
        if rev_range == "HEAD" and head(path) is None:
            repo_info(path)  # GitError when path is not in a repository at all
            return []
        out = run(
            path, ["log", f"--format={LOG_FORMAT}", *dates, "--end-of-options", rev_range, "--"]
        )
    except GitError as exc:
        raise GitError(exc.message, RANGE_HINT) from None
    return parse_run_log(out.decode("utf-8", "replace"))
