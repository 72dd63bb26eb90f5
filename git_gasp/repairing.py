"""``git gasp repair``: recover the log's tail after a crash mid-append."""

from __future__ import annotations

import os

from git_gasp import gitrepo, store
from git_gasp.core.event import EventError, parse_event
from git_gasp.errors import GaspError
from git_gasp.worktree import EVENTS_PATH


def repair_log(root: str) -> str:
    """Remove an unterminated, unparseable last line (backed up under the git
    directory); terminate a complete one; never touch committed bytes."""
    path = os.path.join(root, EVENTS_PATH)
    if not os.path.isfile(path):
        raise GaspError(f"{EVENTS_PATH}: no log here", "run it in an agent repository")
    try:
        info = gitrepo.repo_info(root)
    except gitrepo.GitError:
        raise GaspError(f"{root}: not a git repository", "repair needs the committed log") from None
    committed = 0
    tip = gitrepo.head(root)
    if tip is not None:
        blob = gitrepo.blobs_at(root, [f"{tip}:{info.prefix}{EVENTS_PATH}"])[0]
        committed = blob.size if blob is not None else 0
    with open(path, "rb") as fh:
        data = fh.read()
    tail = store.torn_tail(data)
    try:
        # a complete line that is the first half of a batch (a domain event
        # whose pair was never written) is removed, not just terminated
        parses = bool(tail) and parse_event(tail.decode("utf-8")).kind not in _PAIRED_IN_BATCH
    except (EventError, UnicodeDecodeError):
        parses = False
    backups = os.path.join(info.common_dir, "gasp", "repair")
    orphan = _orphan(data[: len(data) - len(tail)]) if tail else 0
    return store.repair(path, backups, committed, parses, orphan)


# Domain events git-gasp (and the runtime's helpers) write in one batch with
# their ops pair; left alone at the end of the log, the pair was torn.
_PAIRED_IN_BATCH = frozenset(
    "goal.created task.created observation.created failure.observed hypothesis.created "
    "patch.proposed eval.finished decision.created frame.created goal.status_changed "
    "task.status_changed patch.status_changed run.finished model.called tool.called "
    "project.snapshot_recorded artifact.attached".split()
)


def _orphan(body: bytes) -> int:
    """Length of the last complete line if it is a domain event whose pair is missing."""
    start = body.rfind(b"\n", 0, len(body) - 1) + 1
    line = body[start:]
    try:
        event = parse_event(line.decode("utf-8").rstrip("\n"))
    except (EventError, UnicodeDecodeError):
        return 0
    return len(line) if event.kind in _PAIRED_IN_BATCH else 0
