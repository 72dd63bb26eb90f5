"""Committing an agent's identity change (§9.7), with its new hash (§9.2).

Computing and verifying the hash (a read) is :mod:`git_gasp.restore.identity`.
:func:`commit_identity` is the human-gated identity change (commit rule 4):
one commit holding the staged ``identity/`` change, ``AGENT.md`` with only its
``identity_hash`` value rewritten, and a ``decision.created`` event (status
``Approved``, decided by the named user) appended to ``state/events.jsonl``.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import git_gasp.agent.closeretry as closeretry
import git_gasp.agent.faults as faults
import git_gasp.agent.identityretry as retry
from git_gasp import git
from git_gasp.agent.actorkind import ACTOR_KIND_CONFIG, ACTOR_KIND_ENV, actor_kind
from git_gasp.core.log import RUST_WHITESPACE
from git_gasp.core.manifest import FENCE
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.restore.identity import IDENTITY_DIR, compute, os_reason
from git_gasp.restore.repofiles import MANIFEST
from git_gasp.store.worktree import EVENTS_PATH

_KEY = "identity_hash:"


# -- rewriting the manifest ------------------------------------------------------


def set_identity_hash(text: str, digest: str) -> str:
    """``text`` with the value of the first fenced block's ``identity_hash`` line
    replaced by ``digest`` (every other byte kept); a line is added before the
    block's closing fence when there is none."""
    lines = text.split("\n")
    opened: int | None = None
    for i, line in enumerate(lines):
        bare = line[:-1] if line.endswith("\r") else line
        if bare.strip(RUST_WHITESPACE).startswith(FENCE):
            if opened is None:
                opened = i
                continue
            cr = "\r" if line.endswith("\r") else ""
            lines.insert(i, f"{_KEY} {digest}{cr}")
            return "\n".join(lines)
        if opened is not None and bare.strip(RUST_WHITESPACE).startswith(_KEY):
            start = bare.index(_KEY) + len(_KEY)
            rest = bare[start:]
            lead = len(rest) - len(rest.lstrip(RUST_WHITESPACE))
            value = rest.strip(RUST_WHITESPACE)
            tail = rest[lead + len(value) :] if value else ""
            gap = rest[:lead] if lead else " "
            lines[i] = bare[:start] + gap + digest + tail + line[len(bare) :]
            return "\n".join(lines)
    raise GaspError(
        f"{MANIFEST} has no fenced block to hold identity_hash",
        "add a ```yaml block with spec_version, agent_id and identity_hash",
        USAGE,
    )


# -- the human-gated commit ---------------------------------------------------------


class Committed(NamedTuple):
    commit: str
    identity_hash: str
    decision_id: str
    approved_by: str
    already: bool = False  # an earlier try made the commit (killed after it)
    locks: str | None = None  # git's lock files a killed git left, and how to clear them


def _one_line(what: str, value: str) -> str:
    if "\n" in value or "\r" in value:
        raise GaspError(f"{what} must not contain newlines (would forge commit trailers)")
    if not value.strip():
        raise GaspError(f"{what} must not be empty", None, USAGE)
    return value.strip()


def _names(root: str, args: list[str]) -> list[str]:
    out = git.run(root, [*args, "-z", "--", f"{IDENTITY_DIR}/"])
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def commit_message(reason: str, approved_by: str, decision_id: str) -> str:
    return f"{retry.message_head(reason, approved_by)}{decision_id}\n"


_PATHS = (IDENTITY_DIR, MANIFEST, EVENTS_PATH)


def commit_identity(
    root: str, approved_by: str, reason: str, worker: str | None = None
) -> Committed:
    """Commit the staged identity/ change with the new hash and an approval
    decision (safe to retry: run again with the same arguments after a
    failure or a kill, it completes what the earlier try began)."""
    from git_gasp.agent.runs import boundary_commit

    approved_by = _one_line("--approved-by", approved_by)
    reason = _one_line("--reason", reason)
    _refuse_an_agent(root)
    made = _made_already(root, approved_by, reason)
    if made is not None:
        return made
    _refuse_unless_ready(root)
    git.run(root, ["var", "GIT_COMMITTER_IDENT"])  # fail before writing anything
    digest = compute(root)
    path = os.path.join(root, MANIFEST)
    updated = _updated_manifest(root, path, digest)
    decision = retry.pending_decision(root, reason, approved_by)
    if decision is None:
        decision = _record_approval(root, worker, path, updated, reason, approved_by)
    else:
        _write(path, updated[1])  # the earlier try's decision, taken again
    faults.point("identity:decided")
    message = commit_message(reason, approved_by, decision)
    try:
        commit = boundary_commit(root, message, _PATHS)
    except git.GitError as exc:
        raise GaspError(
            f"the commit failed: {exc.reason()}",
            f"{MANIFEST} and the decision {decision} are written; fix the cause, then run "
            "the same identity commit again (it takes them up, recording nothing twice)",
            FINDINGS,
        ) from None
    except GaspError as exc:  # git-gasp's own hook refused it (or a lock is in the way)
        said, run_open, _ = (exc.hint or "").partition("; the run stays open")
        if run_open:  # the words of a close: an identity commit has no run
            exc.hint = f"{said}; the decision {decision} is written: then run it again"
        raise
    if commit is None:  # a git killed after moving HEAD made it
        again = _made_already(root, approved_by, reason)
        if again is None:
            raise GaspError("nothing was committed", None, FINDINGS)
        return again._replace(already=False)
    faults.point("identity:committed")
    return Committed(commit, digest, decision, approved_by)


def _made_already(root: str, approved_by: str, reason: str) -> Committed | None:
    """The commit an earlier try made, when nothing is staged under identity/
    and HEAD is the commit these arguments make."""
    if _names(root, ["diff", "--cached", "--name-only"]):
        return None
    made = retry.made_already(root, reason, approved_by)
    if made is None:
        return None
    locks = closeretry.locks_said(root, _PATHS)
    return Committed(made.commit, compute(root), made.decision_id, approved_by, True, locks)


def _refuse_an_agent(root: str) -> None:
    if actor_kind(root) == "agent":
        raise GaspError(
            "identity changes are human-gated: the caller declares itself an agent "
            f"(${ACTOR_KIND_ENV} or git config {ACTOR_KIND_CONFIG})",
            "a human must run: git gasp identity commit --approved-by NAME --reason TEXT",
            FINDINGS,
        )


def _refuse_unless_ready(root: str) -> None:
    """Refuse a work tree whose identity/ holds anything the commit would not
    cover exactly."""
    if not _names(root, ["diff", "--cached", "--name-only"]):
        raise GaspError(
            "no staged change under identity/",
            "stage the identity edit first: git add identity/",
            USAGE,
        )
    unstaged = _names(root, ["diff", "--name-only"]) + _names(root, ["ls-files", "--others"])
    if unstaged:
        raise GaspError(
            f"identity/ has unstaged or untracked changes ({unstaged[0]}); "
            "the hash must cover exactly what is committed",
            "stage them (git add identity/) or discard them",
            USAGE,
        )


def _updated_manifest(root: str, path: str, digest: str) -> tuple[bytes, bytes]:
    """AGENT.md's bytes now, and with the new ``identity_hash``. Refused
    when it holds changes of its own (they would ride along in the approved
    commit); an earlier try's rewrite of the hash is its own leftover."""
    original, text = _read_manifest(path)
    at_head = retry.manifest_at_head(root, MANIFEST)
    if at_head is None or not git.run(root, ["diff", "--name-only", "HEAD", "--", MANIFEST]):
        return original, set_identity_hash(text, digest).encode("utf-8")
    try:
        updated = set_identity_hash(at_head.decode("utf-8"), digest).encode("utf-8")
    except (UnicodeDecodeError, GaspError):
        updated = b""
    if updated and retry.same_text(original, updated):
        return original, original  # an earlier try's rewrite: nothing else changed
    raise GaspError(
        f"{MANIFEST} has changes of its own (staged or not)",
        f"commit or stash them first (git stash push -- {MANIFEST}); identity commit "
        "changes only its identity_hash value",
        USAGE,
    )


def _read_manifest(path: str) -> tuple[bytes, str]:
    """AGENT.md's bytes and text (GaspError if unreadable or not UTF-8)."""
    try:
        with open(path, "rb") as fh:
            original = fh.read()
        return original, original.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = os_reason(exc) if isinstance(exc, OSError) else "not valid UTF-8"
        raise GaspError(f"cannot read {MANIFEST}: {why}", None, USAGE) from None


def _record_approval(
    root: str,
    worker: str | None,
    path: str,
    manifests: tuple[bytes, bytes],
    reason: str,
    approved_by: str,
) -> str:
    """Write the updated AGENT.md (``manifests``: before, after) and append
    the approval decision, between runs; AGENT.md is put back if the decision
    is not recorded. Returns the decision's id."""
    from git_gasp.agent.api import Agent
    from git_gasp.core.event import Actor

    original, updated = manifests
    agent = Agent.open(root, worker=worker)
    try:
        if agent.open_run is not None:
            raise GaspError(
                f"run {agent.open_run.run_id} is open; identity changes are made between runs",
                "close or abandon it first: git gasp run close --outcome TEXT",
            )
        _write(path, updated)
        faults.point("identity:manifest")
        try:
            return agent.record_decision(
                None, "Approved", reason, decided_by=Actor("user", approved_by)
            )
        except BaseException:
            _write(path, original)
            raise
    finally:
        agent.close()


def _write(path: str, data: bytes) -> None:
    from git_gasp.store.writer import write_atomically

    write_atomically(path, data)
