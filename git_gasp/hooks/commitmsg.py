"""The ``commit-msg`` hook: a commit that appends a ``run.finished`` carries
exactly one ``Run-Id``, ``Goal`` and ``Outcome`` trailer naming that run and
its outcome; a ``Run-Id`` names a run the staged log starts or finishes;
every ``Agent-Session`` value follows the grammar.

Git runs it on every commit, so it imports only what judging a message
needs, asks git about the index, HEAD and a merge in one ``cat-file``, and
reads the staged log from the work tree when that copy is byte-identical
(its blob id matches), as the pre-commit hook does.
"""

from __future__ import annotations

import os
from typing import TextIO

from git_gasp import git
from git_gasp.core.commitmessage import run_id_findings, trailer_findings
from git_gasp.core.event import Event
from git_gasp.core.finding import Finding, Judged
from git_gasp.core.locations import DEFAULT_LOCATIONS
from git_gasp.core.trailers import SESSION_TRAILER_KEYS
from git_gasp.errors import USAGE, GaspError
from git_gasp.hooks.protocol import done, report

LOG_PATH = DEFAULT_LOCATIONS["log"][0]
_HASHES = {40: "sha1", 64: "sha256"}
#: in the git directory: "<staged log> <HEAD's log, or ->" when the pre-commit
#: hook saw the index append no run.finished to the log (see :func:`note_no_run_end`)
NO_RUN_END = os.path.join("gasp", "no-run-end")
#: what a message whose trailers this hook judges holds (ASCII, case aside)
NEEDLES = ("run-id", *sorted(SESSION_TRAILER_KEYS))


def ends_a_run(chunk: bytes) -> bool:
    """Whether appended log bytes may hold a ``run.finished`` (False only
    when no line can: the kind is neither written out nor escaped)."""
    return b"run.finished" in chunk or b"\\u" in chunk


def note_no_run_end(git_dir: str, staged: str, head: str) -> None:
    """Tell the commit-msg shim that this index appends no run.finished to the
    log: with a message that holds none of :data:`NEEDLES`, the hook would
    find nothing, so the shim starts no Python. A pure function of the two
    blob ids, so a note left from another commit is still true. Failing to
    write it only costs the next commit-msg its Python."""
    path = os.path.join(git_dir, NO_RUN_END)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(f"{staged} {head}\n")
        os.replace(tmp, path)
    except OSError:
        pass


def commit_msg(repo: str, message_file: str, out: TextIO) -> None:
    try:
        with open(message_file, "rb") as fh:
            message = fh.read().decode("utf-8", "replace")
    except OSError as exc:
        raise GaspError(f"cannot read {message_file}: {exc.strerror}", None, USAGE) from None
    where = os.path.basename(message_file)
    merging, staged, before = git.object_info(
        repo, ["MERGE_HEAD", f":{LOG_PATH}", f"HEAD:{LOG_PATH}"]
    )
    if merging is not None:
        # a merge brings in runs its other parent closed (the validator skips
        # merges' trailers too); only the Agent-Session grammar applies
        found = [Judged("", f) for f in trailer_findings(message, [], where)]
    else:
        events = _appended(repo, staged, before)
        found = [Judged("", f) for f in trailer_findings(message, events, where)]
        found += [Judged("", f) for f in _run_id_findings(repo, message, events, where)]
    found = settled(repo, found, out)
    report(found, out)
    done(found, "commit refused")


def _appended(
    repo: str, staged: git.ObjectInfo | None, before: git.ObjectInfo | None
) -> list[Event]:
    if staged is None or (before is not None and before.oid == staged.oid):
        return []
    from git_gasp.core.log import parse_log

    data = _worktree_copy(repo, staged)
    if data is None:
        with git.BlobReader(repo) as reader:
            data = reader.read(staged.oid)
    start = before.size if before is not None else 0
    return list(parse_log(data[start:]).events)


def _worktree_copy(repo: str, staged: git.ObjectInfo) -> bytes | None:
    """The work tree's log when it is the staged blob byte for byte (git
    runs the hook at the top of the work tree), else None."""
    from git_gasp.core.appendonly import blob_id

    hash_name = _HASHES.get(len(staged.oid))
    try:
        with open(os.path.join(repo, LOG_PATH), "rb") as fh:
            data = fh.read(staged.size + 1)
    except OSError:
        return None
    if hash_name is None or len(data) != staged.size:
        return None
    return data if blob_id(data, staged.size, hash_name) == staged.oid else None


def staged_logs(repo: str) -> bytes:
    """Every staged log (the default path and what the staged ``AGENT.md``
    declares), whole, one after the other: what a ``Run-Id`` may name."""
    from git_gasp.hooks.objects import Locations

    with git.BlobReader(repo) as reader:
        manifest = git.object_info(repo, [":AGENT.md"])[0]
        text = reader.read(manifest.oid).decode("utf-8", "replace") if manifest else ""
        paths = sorted(Locations.from_manifest(text).logs)
        blobs = [b for b in git.object_info(repo, [f":{p}" for p in paths]) if b is not None]
        return b"".join(_ended(reader.read(b.oid)) for b in blobs)


def _ended(data: bytes) -> bytes:
    return data if data.endswith(b"\n") or not data else data + b"\n"


def _run_id_findings(repo: str, message: str, events: list[Event], where: str) -> list[Finding]:
    """Run-Id trailers naming no run: the appended ``events`` first, the whole
    staged logs only when a trailer names a run they do not hold."""
    found = run_id_findings(message, events, b"", where)
    return run_id_findings(message, events, staged_logs(repo), where) if found else []


def settled(repo: str, found: list[Judged], out: TextIO) -> list[Judged]:
    """The errors among ``found``, its warnings printed (git-gasp-hooks(1))."""
    if not found:
        return []
    from git_gasp.hooks import levels

    return [j for _, j in levels.settle(repo, [(None, j) for j in found], out)]
