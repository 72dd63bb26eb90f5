"""``git gasp repair``: recover the append-only files' tails after a crash.

The event log, the facts and the journal are appended to in whole batches; a
crash mid-append (a killed process, a power cut) can leave the first part of
one. Repair removes exactly that part, keeping a backup, and never touches
bytes a commit holds.
"""

from __future__ import annotations

import json
import os

import git_gasp.agent.unpaired as unpaired
from git_gasp import git
from git_gasp.agent.projecting import FACTS_PATH, JOURNAL_PATH
from git_gasp.core.checks import PAIRED_KINDS
from git_gasp.core.event import EventError, parse_event
from git_gasp.errors import GaspError
from git_gasp.store import writer
from git_gasp.store.lease import Lease
from git_gasp.store.runmarker import local_worker_id
from git_gasp.store.worktree import EVENTS_PATH


def repair_log(root: str) -> str:
    """Repair the log, then the facts and the journal; what was done, one line
    per file that needed it (or that nothing did)."""
    path = os.path.join(root, EVENTS_PATH)
    if not os.path.isfile(path):
        raise GaspError(f"{EVENTS_PATH}: no log here", "run it in an agent repository")
    try:
        info = git.repo_info(root)
    except git.GitError:
        raise GaspError(f"{root}: not a git repository", "repair needs the committed log") from None
    lease = Lease(root, os.environ.get("GASP_WORKER_ID") or local_worker_id(root))
    held = lease.holder()
    if held is not None and held.worker_id != lease.worker_id and not _alive(held.pid):
        lease.take_over(held)  # its writer crashed (the crash repair is for): no one to wait for
    lease.acquire()  # a live writer of another worker: refused, naming it
    try:
        return _repair_files(root, info)
    finally:
        if held is None or held.worker_id != lease.worker_id:
            lease.release()  # taken for the repair only; an open run's lease stays


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (the lease is a file of
    this clone, so its writer ran here)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def _repair_files(root: str, info: git.RepoInfo) -> str:
    backups = os.path.join(info.common_dir, "gasp", "repair")
    files = ((EVENTS_PATH, _log_tail), (FACTS_PATH, _facts_tail), (JOURNAL_PATH, _journal_tail))
    sizes = git.committed_sizes(root, [rel for rel, _ in files])
    done = []
    for (rel, judge), committed in zip(files, sizes, strict=True):
        file = os.path.join(root, *rel.split("/"))
        if not os.path.isfile(file):
            continue
        with open(file, "rb") as fh:
            data = fh.read()
        parses, orphan = judge(data, committed)
        result = writer.repair(file, backups, committed, parses, orphan)
        if not result.startswith("nothing to repair"):
            done.append(result if rel == EVENTS_PATH else f"{rel}: {result}")
    said = "; ".join(done) or "nothing to repair: every append-only file ends with a whole batch"
    stuck = unpaired.committed_unpaired(root)  # what record refuses to follow
    return f"{said}; {unpaired.said(stuck)}" if stuck is not None else said


def _log_tail(data: bytes, committed: int) -> tuple[bool, int]:
    """Whether the torn tail is a whole event (then only its newline is
    missing), and the length of the complete line before it that belongs to
    its batch: a domain event whose ops pair was cut short. With no torn
    tail, such an event at the end, uncommitted, is the batch's first half."""
    tail = writer.torn_tail(data)
    body = data[: len(data) - len(tail)]
    try:
        # a complete line that is the first half of a batch is removed, not
        # terminated, unless a commit holds it (then it is no crash's batch)
        kind = parse_event(tail.decode("utf-8")).kind if tail else None
        parses = kind is not None and (kind not in _PAIRED_IN_BATCH or len(body) < committed)
    except (EventError, UnicodeDecodeError):
        parses = False
    orphan = _orphan(body)
    if len(body) - orphan < committed:
        orphan = 0  # a committed event: not the first half of the crash's batch
    return parses, orphan


# Domain events git-gasp (and the runtime's helpers) write in one batch with
# their ops pair; left alone at the end of the log, the pair was torn.
_PAIRED_IN_BATCH = frozenset(
    [
        *PAIRED_KINDS,
        *"goal.status_changed task.status_changed patch.status_changed run.finished "
        "model.called tool.called project.snapshot_recorded artifact.attached".split(),
    ]
)


def _orphan(body: bytes) -> int:
    """Length of the last complete line if it is a domain event whose pair is missing."""
    if not body:
        return 0
    start = body.rfind(b"\n", 0, len(body) - 1) + 1
    line = body[start:]
    try:
        event = parse_event(line.decode("utf-8").rstrip("\n"))
    except (EventError, UnicodeDecodeError):
        return 0
    return len(line) if event.kind in _PAIRED_IN_BATCH else 0


def _facts_tail(data: bytes, committed: int) -> tuple[bool, int]:
    """A fact is one line: a torn tail that is a whole JSON object only lacks its newline."""
    tail = writer.torn_tail(data)
    try:
        return bool(tail) and isinstance(json.loads(tail), dict), 0
    except (ValueError, RecursionError):
        return False, 0


def _journal_tail(data: bytes, committed: int) -> tuple[bool, int]:
    """A journal entry is one batch of lines from its ``## Run`` heading: a
    torn one goes from that heading on (when no commit holds it)."""
    tail = writer.torn_tail(data)
    body = data[: len(data) - len(tail)]
    if tail and len(body) < committed:
        return True, 0  # a committed last line without its newline: add it
    if not tail or tail.startswith(b"## Run "):
        return False, 0
    at = body.rfind(b"\n## Run ")
    heading = at + 1 if at >= 0 else (0 if body.startswith(b"## Run ") else None)
    if heading is None or heading < committed:
        return False, 0
    return False, len(body) - heading


_FILES = ((EVENTS_PATH, _log_tail), (FACTS_PATH, _facts_tail), (JOURNAL_PATH, _journal_tail))
