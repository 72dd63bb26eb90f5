"""The ``pre-push`` hook: every commit being pushed that the remote does not
have; then the session notes go along (:func:`git_gasp.sessions.pushnotes.pre_push`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TextIO

from git_gasp import git
from git_gasp.core.finding import Judged, Step
from git_gasp.hooks import changes, levels
from git_gasp.hooks.protocol import ZERO, done, report_refs
from git_gasp.sessions.notecommits import commit_steps


def pushed_commits(repo: str, tip: str, exclude: Sequence[str], remote: str | None) -> list[Step]:
    """Commits reachable from ``tip`` that the remote lacks, parents first."""
    revs = [tip, *(f"^{c}" for c in exclude)]
    if remote:
        revs += ["--not", f"--remotes={remote}"]
    return commit_steps(repo, git.commit_walk(repo, revs))


def _exists(repo: str, oid: str) -> bool:
    info = git.object_info(repo, [oid])
    return bool(info and info[0] is not None)


def pre_push(
    repo: str, remote: str | None, lines: Iterable[str], env: Mapping[str, str], out: TextIO
) -> None:
    """Validate what is being pushed: git's stdin lines, or the pre-commit
    framework's ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``."""
    targets: list[tuple[str, str, str]] = []  # (local oid, remote oid, ref)
    if env.get("PRE_COMMIT_TO_REF"):
        remote = env.get("PRE_COMMIT_REMOTE_NAME") or remote
        ref = env.get("PRE_COMMIT_REMOTE_BRANCH") or env.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
        targets.append((env["PRE_COMMIT_TO_REF"], env.get("PRE_COMMIT_FROM_REF", ""), ref))
    elif env.get("PRE_COMMIT") and env.get("PRE_COMMIT_REMOTE_NAME"):
        # the framework gives a first push to an empty remote neither refs nor
        # stdin: judge what this branch has that the remote's branches lack
        remote = env["PRE_COMMIT_REMOTE_NAME"]
        targets.append(("HEAD", "", env.get("PRE_COMMIT_REMOTE_BRANCH") or "HEAD"))
    for line in lines:
        fields = line.split()
        if len(fields) == 4:
            targets.append((fields[1], fields[3], fields[2]))
    found: list[tuple[str, Judged]] = []
    for local, theirs, ref in targets:
        if local in ZERO or ref.startswith("refs/notes/"):
            continue
        exclude = [theirs] if theirs and theirs not in ZERO and _exists(repo, theirs) else []
        steps = pushed_commits(repo, local, exclude, remote)
        found += [(ref, j) for j in changes.judge(repo, steps)]
    errors = levels.settle(repo, [(r, j) for r, j in found], out)
    report_refs(errors, out)
    if errors:
        levels.first_push_hint(repo, remote, [theirs for _, theirs, _ in targets], errors, out)
    done([j for _, j in errors], "push refused", "git gasp validate --all REMOTE/BRANCH..HEAD")
    # notes and their sync: only a push needs them
    from git_gasp.sessions import pushnotes as notehooks

    notehooks.pre_push(repo, remote, [ref for local, _, ref in targets if local not in ZERO], out)
