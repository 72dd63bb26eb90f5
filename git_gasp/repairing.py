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
        tail = store.torn_tail(fh.read())
    try:
        parse_event(tail.decode("utf-8"))
        parses = bool(tail)
    except (EventError, UnicodeDecodeError):
        parses = False
    backups = os.path.join(info.common_dir, "gasp", "repair")
    return store.repair(path, backups, committed, parses)
