"""The ``pre-commit`` hook: the staged index against HEAD (or, under the
pre-commit framework with a range, every commit of the range). The
``commit-msg`` hook is :mod:`git_gasp.hooks.commitmsg`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from git_gasp import git
from git_gasp.core.finding import Judged
from git_gasp.errors import USAGE, GaspError
from git_gasp.hooks import changes, levels
from git_gasp.hooks.protocol import ZERO, done, report
from git_gasp.hooks.steps import index_step, nested_warning
from git_gasp.output import visible


def pre_commit(repo: str, out: TextIO, env: Mapping[str, str] | None = None) -> None:
    """Judge the staged index against HEAD, or, when the pre-commit framework
    names a range (``pre-commit run --from-ref A --to-ref B`` sets
    ``PRE_COMMIT_FROM_REF`` and ``PRE_COMMIT_TO_REF``), every commit of
    ``A..B`` against its parents, as ``git gasp validate A..B`` does."""
    env = os.environ if env is None else env
    start, end = env.get("PRE_COMMIT_FROM_REF"), env.get("PRE_COMMIT_TO_REF")
    if start and end:
        tip = _commit_named(repo, end, "PRE_COMMIT_TO_REF")
        base = None if start in ZERO else _commit_named(repo, start, "PRE_COMMIT_FROM_REF")
        since = [f"^{base}"] if base else []  # a new branch: all of it
        from git_gasp.sessions.notecommits import commit_steps

        steps = commit_steps(repo, git.commit_walk(repo, [tip, *since, "--"]))
        found = _settled(repo, changes.judge(repo, steps), out)
        report(found, out)
        done(found, f"{start}..{end} refused", f"git gasp validate --all {start}..{end}")
        return
    state = git.repo_state(repo)  # HEAD and where the repository is: one process
    step = index_step(repo, state)
    if not step.paths:
        return
    warning = nested_warning(step.paths)
    if warning:
        out.write(visible(warning) + "\n")
    found = _settled(repo, changes.judge(repo, [step], info=state.info), out)
    report(found, out)
    done(found, "commit refused", "git gasp validate --staged --json")


def _commit_named(repo: str, name: str, what: str) -> str:
    """The commit ``name`` names (never read as an option); a usage error
    when it names none, so a bad range never judges nothing and passes."""
    got = git.attempt(
        repo, ["rev-parse", "--verify", "-q", "--end-of-options", f"{name}^{{commit}}"]
    )
    oid = got.out.decode().strip()
    if got.code != 0 or not oid:
        raise GaspError(
            f"{what} {name!r} names no commit", "pass commits to --from-ref/--to-ref", USAGE
        )
    return oid


def _settled(repo: str, found: list[Judged], out: TextIO) -> list[Judged]:
    """The errors among ``found``, its warnings printed (git-gasp-hooks(1))."""
    if not found:
        return []
    return [j for _, j in levels.settle(repo, [(None, j) for j in found], out)]
