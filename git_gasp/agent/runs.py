"""Closing a run: ``run.finished``, projections, and the one boundary commit.

The commit is a normal ``git commit`` (the user's identity, ``commit.gpgsign``
and the repository's own hooks apply), limited by pathspec to the log, the
projections and the paths the caller names, so anything else the user staged
stays staged. Its message is the runtime's (REFERENCE §8) plus one
``Agent-Session`` trailer per session::

    run <run-id>: <outcome>

    Run-Id: <run-id>
    Goal: <goal-id or ->
    Outcome: <outcome>
    Agent-Session: <agent>:[<namespace>:]<sessionId>[#<recordRef>]
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from typing import NamedTuple

import git_gasp.agent.closeretry as closeretry
import git_gasp.agent.faults as faults
import git_gasp.agent.projecting as projecting
import git_gasp.agent.validate as validate
from git_gasp import git
from git_gasp.agent.api import Agent
from git_gasp.agent.closestore import committed_lines, store_soon
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store.looseobjects import loose_store
from git_gasp.store.runmarker import run_lock
from git_gasp.store.worktree import EVENTS_PATH


class Closed(NamedTuple):
    run_id: str
    commit: str | None  # None when nothing changed
    snapshot: str | None  # the snapshot written on cadence, if any
    note: str | None = None  # what the session note of the commit says, or why it is missing
    projections: tuple[str, ...] = ()  # the projections written (active memory when ours)
    kept: tuple[str, ...] = ()  # projections left alone: not git-gasp's to write
    snapshot_bytes: int | None = None  # the size of ``snapshot``
    already: bool = False  # another process closed the run first (commit: its commit)
    locks: str | None = None  # git's lock files a killed git left, and how to clear them


def check_session(ref: str) -> str:
    """``<agent>:[<namespace>:]<sessionId>[#<recordRef>]``, never a URL."""
    from git_gasp.core.secrets import find_secrets
    from git_gasp.core.trailers import is_session_ref

    if not is_session_ref(ref):
        raise GaspError(
            f"--session {ref!r} is not an Agent-Session reference",
            "use <agent>:[<namespace>:]<sessionId>[#<recordRef>], e.g. claude:ses_01H9X",
            USAGE,
        )
    secrets = find_secrets(ref)
    if secrets:
        raise GaspError(
            f"--session looks like it holds {secrets[0].label} ({secrets[0].preview})",
            "a session reference names the session and never carries a credential",
            USAGE,
        )
    return ref


def _trailer_problem(value: str) -> str | None:
    """Why ``value`` cannot be a trailer's value, if it cannot."""
    if "\n" in value or "\r" in value:
        return "must not contain newlines (would forge commit trailers)"
    return None if value.strip() else "must not be empty"


def commit_message(run_id: str, goal: str, outcome: str, sessions: Sequence[str]) -> str:
    for name, value in (("run id", run_id), ("goal", goal), ("outcome", outcome)):
        problem = _trailer_problem(value)
        if problem is not None:
            raise GaspError(f"{name} {problem}", None, USAGE)
    from git_gasp.hooks.sessiontrailer import session_message

    lines = [f"run {run_id}: {outcome}", "", f"Run-Id: {run_id}", f"Goal: {goal}"]
    lines.append(f"Outcome: {outcome}")
    for ref in sessions:
        check_session(ref)
    # the same trailer writer as the prepare-commit-msg hook (addIfDifferent)
    return session_message("\n".join(lines) + "\n", sessions)


def boundary_commit(
    root: str,
    message: str,
    paths: Sequence[str],
    info: git.RepoInfo | None = None,
    maintain: bool = True,
) -> str | None:
    """``git commit -- <paths>``; None if none of them changed.

    New files are announced with ``git add -N`` (no hashing). When nothing
    else is staged, ``--include`` commits the same tree as the default
    ``--only`` but hashes each changed file once instead of twice (``--only``
    hashes it for the index and again for the commit's own): for a 4 MB log
    that is a fifth of a close. Either way a refused commit leaves the index
    as it was. ``info``: the repository's locations, if already known;
    ``maintain=False``: no ``git maintenance run --auto`` after the commit (a
    caller making many commits runs it once after the last).
    """
    present = [p for p in dict.fromkeys(paths) if os.path.lexists(os.path.join(root, p))]
    entries = git.index_entries(root, list(paths)) if paths else []
    tracked = {p for _, p in entries}
    gone = [p for p in paths if p in tracked and p not in present]
    if EVENTS_PATH in gone:
        raise GaspError(f"{EVENTS_PATH} is tracked but missing: refusing to commit its deletion")
    pathspec = present + gone
    if not pathspec:
        return None
    new = [p for p in present if _has_untracked(root, p, tracked)]
    if new:
        git.run(root, ["add", "-N", "--", *new])
    # --include adds from the index's own view: an entry marked
    # assume-unchanged (core.ignoreStat) would be taken as unchanged
    trusting = any(tag.islower() for tag, _ in entries)
    info = info or git.repo_info(root)
    include = not trusting and not _in_progress(info) and not _staged_besides(root, pathspec, info)
    later = [] if maintain else ["-c", "maintenance.auto=false"]
    commit = [*later, "commit", "-q", "--include" if include else "--only", "-F", "-"]
    commit += ["--", *pathspec]
    try:
        git.run(root, commit, stdin=message.encode())
    except git.GitError as exc:
        if not _differs_from_head(root, pathspec):
            return None  # nothing to commit (or a git killed after moving HEAD made it)
        stale = closeretry.stale_lock(exc)
        if stale is not None:
            raise stale from None
        raise _refused(exc) from None  # a real failure: a hook refused, no identity, ...
    return git.run(root, ["rev-parse", "HEAD"]).decode().strip()


def _refused(exc: git.GitError) -> GaspError:
    """git-gasp's own pre-commit hook refusing the commit, as one line: its
    first finding and how many more (any other failure as git said it)."""
    findings = [
        line.removeprefix("gasp: ")
        for line in exc.message.splitlines()
        if line.startswith("gasp: ") and "] " in line and " (hint: " in line
    ]
    if not findings:
        return exc
    text, _, hint = findings[0].partition(" (hint: ")
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return GaspError(
        f"a hook refused the boundary commit: {text}{more}",
        f"{hint.removesuffix(')')}; the run stays open: fix that, then close it again",
        FINDINGS,
    )


AGAIN = "the run stays open with its outcome: fix that, then run what `git gasp run status` says"


def _failed(exc: git.GitError) -> GaspError:
    """A boundary commit git refused, not git-gasp's hook: git's reason on
    one line, and how to finish the run (its ``run.finished`` is in the log)."""
    author = "identity unknown" in exc.message
    fix = 'a commit needs an author: git config user.name "NAME" && git config user.email EMAIL; '
    said = f"Author identity unknown ({exc.reason()})" if author else exc.reason()
    return GaspError(f"the boundary commit failed: {said}", fix * author + AGAIN, exc.exit_code)


def _in_progress(info: git.RepoInfo) -> bool:
    """A merge, cherry-pick or revert stopped half way: ``--only`` refuses to
    conclude it, ``--include`` would."""
    marks = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD")
    return any(os.path.exists(os.path.join(info.git_dir, mark)) for mark in marks)


def _staged_besides(root: str, pathspec: Sequence[str], info: git.RepoInfo) -> bool:
    """Whether the index differs from HEAD outside ``pathspec`` (True before
    the first commit). No pathspec reaches git, so ``GIT_*_PATHSPECS`` cannot
    change the answer; submodules count whatever their ``ignore`` setting."""
    try:
        staged = git.staged_against_head(root)
    except git.GitError:
        return True
    ours = [info.prefix + p.rstrip("/") for p in pathspec]
    return any(not any(s == o or s.startswith(o + "/") for o in ours) for s in staged)


def _has_untracked(root: str, rel: str, tracked: set[str]) -> bool:
    """Whether ``rel`` (a file, or a directory such as ``snapshots``) holds a
    file the index does not list: ``git commit -- <dir>`` leaves those out."""
    if rel in tracked:
        return False
    path = os.path.join(root, rel)
    if not os.path.isdir(path) or os.path.islink(path):
        return True
    for dirpath, _, filenames in os.walk(path):
        base = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if any(f"{base}/{name}" not in tracked for name in filenames):
            return True
    return False


def _differs_from_head(root: str, pathspec: Sequence[str]) -> bool:
    """Whether the work tree differs from HEAD under ``pathspec``."""
    if git.head(root) is None:
        return True
    try:
        git.run(root, ["diff", "--quiet", "HEAD", "--", *pathspec])
    except git.GitError:
        return True
    return False


def close_run(
    agent: Agent,
    outcome: str,
    goal: str | None = None,
    sessions: Sequence[str] = (),
    paths: Sequence[str] = (),
    *,
    info: git.RepoInfo | None = None,
    maintain: bool = True,
    finished_at: int | None = None,
) -> Closed:
    """Finish the open run and make its boundary commit (safe to retry).

    The whole close runs under the run lock, deciding on the log as it is
    once the lock is held: of two closes racing (two processes of one
    worker), one records ``run.finished`` and commits, the other then finds
    the run closed and reports that commit (``already``). ``info`` and
    ``maintain``: as :func:`boundary_commit` takes them (an import of many
    sessions knows where the repository is, and maintains it once).
    ``finished_at``: when the run ended, if not now (epoch ms: an imported
    session's last record)."""
    seen = agent.open_run
    with run_lock(agent.root):
        agent.reread()
        if agent.open_run is None and seen is not None:
            commit = closeretry.commit_of(agent.root, seen.run_id)
            return Closed(seen.run_id, commit, None, None, already=True)
        return _close_open_run(agent, outcome, goal, sessions, paths, info, maintain, finished_at)


# long: the steps of a close in their order, each one call (their order is the protocol)
def _close_open_run(
    agent: Agent,
    outcome: str,
    goal: str | None,
    sessions: Sequence[str],
    paths: Sequence[str],
    info: git.RepoInfo | None = None,
    maintain: bool = True,
    finished_at: int | None = None,
) -> Closed:
    run = agent.open_run
    if run is None:
        raise GaspError("no run is open", "start one with: git gasp run start --task TEXT")
    recorded = agent.finished_outcome()
    # an earlier close wrote run.finished: its outcome has its say (unless no
    # commit could carry it, as another runtime may have written it)
    if recorded is not None and recorded != outcome and _trailer_problem(recorded) is None:
        raise GaspError(
            f"{run.run_id} already finished with outcome `{recorded}` "
            "(an earlier close recorded it; its commit is still to be made)",
            f"finish it with: git gasp run close --outcome {shlex.quote(recorded)}",
            USAGE,
        )
    goal_id = goal or run.goal or "-"
    if goal is not None and goal not in agent.graph.nodes:
        raise GaspError(f"unknown goal: {goal}", "name a goal node (git gasp fold --json)", USAGE)
    message = commit_message(run.run_id, goal_id, outcome, sessions)  # validate before writing
    validate.utf8("the outcome, goal or session", message)
    _check_paths(agent.root, paths)
    committed = committed_lines(agent.root, info)
    agent.lease.acquire()
    agent.finish_run(outcome, finished_at)
    faults.point("close:finished")
    # the log is final now: it is stored while the projections are written
    where = loose_store(agent.root, committed.info) if committed and committed.starts else None
    stored = store_soon(agent, committed, where, [EVENTS_PATH])
    task = projecting.task_of(agent, run.run_id)
    written = [EVENTS_PATH, projecting.FACTS_PATH]
    written.append(projecting.append_journal(agent, run.run_id, goal_id, outcome, task))
    ours = projecting.memory_is_ours(agent.root)
    if ours:
        written.append(projecting.regenerate_memory(agent.root))
    snapshot = None
    # after a seeded open the recent events are those since the latest snapshot
    if projecting.snapshot_due(agent.root, [e.id for e in agent.recent_events()]):
        snapshot = projecting.write_snapshot(agent.root, agent=agent)
        # announced by force: git-gasp's own file, which an ignore rule such as
        # `*.json` is not meant for (the commit left it out, without a word)
        git.run(agent.root, ["add", "-f", "-N", "--", snapshot])
    if os.path.isdir(os.path.join(agent.root, "snapshots")):
        written.append("snapshots")  # with any taken during the run
    log_oid = stored().get(EVENTS_PATH)  # the blob id of the log the agent holds
    store_soon(agent, committed, where, [projecting.FACTS_PATH, projecting.JOURNAL_PATH])()
    info = committed.info if committed is not None else info
    faults.point("close:projected")
    try:
        commit = boundary_commit(agent.root, message, [*written, *paths], info, maintain)
    except git.GitError as exc:  # a foreign hook, no author, ...: the outcome is recorded
        raise _failed(exc) from None
    locks = None
    if commit is None:  # made already, by a close or a git that was killed after it
        commit = closeretry.made_already(agent.root, run.run_id)
        locks = closeretry.locks_said(agent.root, [*written, *paths]) if commit else None
    faults.point("close:committed")
    agent.forget_run()
    note = None
    if commit and sessions:
        note = _write_note(agent, commit, run.run_id, sessions, log_oid)
    size = os.path.getsize(os.path.join(agent.root, snapshot)) if snapshot else None
    projections = (projecting.JOURNAL_PATH, *([projecting.MEMORY_PATH] if ours else []))
    kept = () if ours else (projecting.MEMORY_PATH,)
    return Closed(run.run_id, commit, snapshot, note, projections, kept, size, locks=locks)


def _write_note(
    agent: Agent, commit: str, run_id: str, sessions: Sequence[str], log_oid: str | None
) -> str:
    """The boundary commit's note under refs/notes/agent-sessions (the sessions,
    the run with its events and the digest of the log the agent holds when it
    is the committed blob, the stored transcript); a failure is reported, not
    raised, the commit being made (``git gasp notes add`` can write it later).
    ``log_oid``: the blob id of the log the agent holds, when it was stored."""
    from git_gasp.sessions import notes as sessionnotes

    root, transcripts = agent.root, []
    stored = f"transcripts/{run_id}.jsonl.gz"
    if os.path.isfile(os.path.join(root, stored)):
        digest, size = sessionnotes.digest_file(os.path.join(root, stored))
        transcripts.append((stored, digest, size))
    args = (root, commit, run_id, sessions, None, None, transcripts, agent.log_bytes(), log_oid)
    try:
        records = sessionnotes.run_records(*args)
        sessionnotes.add_records(root, commit, records)
    except GaspError as exc:
        return f"note not written: {exc}"
    return f"note written ({len(records)} records in {sessionnotes.NOTES_REF})"


_HUMAN_GATED = ("identity", "AGENT.md", "IDENTITY.md")


def _check_paths(root: str, paths: Sequence[str]) -> None:
    for path in paths:
        norm = os.path.normpath(path)
        if os.path.isabs(path) or norm.startswith(".."):
            raise GaspError(
                f"{path}: name paths inside the repository",
                "paths are relative to the agent repository",
                USAGE,
            )
        if norm.split(os.sep)[0] in _HUMAN_GATED:
            raise GaspError(
                f"{path}: identity changes are human-gated and never ride a run's commit",
                "commit them with: git gasp identity commit --approved-by NAME --reason TEXT",
                USAGE,
            )
        if not os.path.lexists(os.path.join(root, path)) and not git.tracked(root, [path]):
            where = (
                f"git -C {shlex.quote(root)} status --short"
                if root != "."
                else "git status --short"
            )
            raise GaspError(
                f"{path}: no such file in the agent repository {root}",
                f"name paths from its top, as {where} shows them",
                USAGE,
            )
    ignored = git.ignored(root, paths) if paths else []
    for path in paths:
        norm = os.path.normpath(path)
        if any(norm == n.rstrip("/") or (n.endswith("/") and norm.startswith(n)) for n in ignored):
            # git add refuses it by name, and would only after run.finished
            raise GaspError(
                f"{path}: ignored by .gitignore (or .git/info/exclude); "
                "a run's commit does not carry it",
                f"see why with: git check-ignore -v {shlex.quote(path)}",
                USAGE,
            )
