"""What ``run close`` and ``run abandon`` say after the boundary commit, on
standard error: where the commit went when that is a trap."""

from __future__ import annotations

from git_gasp import git, output

#: The files of the layout a clone needs to restore the agent (``init
#: --no-commit`` leaves them to be committed by hand).
_LAYOUT = ("AGENT.md", ".gitattributes")


def after_close(root: str, commit: str | None) -> None:
    """Notes on the commit just made: on a detached HEAD it is on no branch
    (git's own ``[detached HEAD …]`` line is not shown); without the agent's
    manifest in it (after ``init --no-commit``), a clone is no agent."""
    if not commit:
        return
    if git.attempt(root, ["symbolic-ref", "-q", "HEAD"]).code == 1:
        output.diag(
            f"note: HEAD is detached: commit {commit[:12]} is on no branch; "
            f"keep it with: git switch -c BRANCH (or: git branch BRANCH {commit[:12]})"
        )
    tracked = set(git.tracked(root, [f":(literal){path}" for path in _LAYOUT]))
    missing = [path for path in _LAYOUT if path not in tracked]
    if "AGENT.md" in missing:
        output.diag(
            f"warning: {', '.join(missing)} not committed: a clone of this history is no agent "
            "repository; commit the layout: git add -A -- AGENT.md identity skills .agent "
            ".gitattributes .gitignore && git commit -m 'agent layout'"
        )
