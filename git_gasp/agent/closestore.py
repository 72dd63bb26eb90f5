"""What a close checks of the committed append-only files before it commits
(:func:`committed_lines`), and the blobs it stores while the projections are
written (:func:`store_soon`), so ``git commit`` finds them stored."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import NamedTuple

import git_gasp.agent.projecting as projecting
from git_gasp import git
from git_gasp.agent.api import Agent
from git_gasp.core.appendonly import Blob, check_worktree
from git_gasp.errors import FINDINGS, GaspError
from git_gasp.store.looseobjects import LooseStore, store_appended
from git_gasp.store.worktree import EVENTS_PATH


class Committed(NamedTuple):
    info: git.RepoInfo
    # files that begin with exactly their committed blob, and the bytes hashed to it
    starts: dict[str, tuple[Blob, bytes]]


def committed_lines(root: str, info: git.RepoInfo | None = None) -> Committed | None:
    """Refuse to commit an append-only file whose committed lines were edited,
    as the files are on disk now. What was checked, or None before the first
    commit. ``info``: the repository's locations, if already known."""
    tip = git.head(root)
    if tip is None:
        return None
    info = info or git.repo_info(root)
    files = (EVENTS_PATH, projecting.FACTS_PATH, projecting.JOURNAL_PATH)
    blobs = git.blobs_at(root, [f"{tip}:{info.prefix}{f}" for f in files])
    starts = {}
    with git.BlobReader(root) as reader:
        for rel, blob in zip(files, blobs, strict=True):
            if blob is None:
                continue
            on_disk = _read(os.path.join(root, rel))
            fmt = info.object_format
            checked = check_worktree(rel, blob, on_disk, reader.read, fmt, appended_only=True)
            if checked.problem is not None:
                raise GaspError(
                    f"{checked.problem}: refusing to commit it",
                    f"restore the committed lines (git diff {rel}) and keep only appended ones",
                    FINDINGS,
                )
            if checked.exact:
                starts[rel] = (blob, on_disk)
    return Committed(info, starts)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return b""


def store_soon(
    agent: Agent,
    committed: Committed | None,
    where: LooseStore | None,
    files: Sequence[str],
) -> Callable[[], dict[str, str]]:
    """Store ``files``' blobs (see :mod:`git_gasp.store.looseobjects`) in a thread
    (hashing and zlib release the GIL); call the result to wait for them.

    git commit then finds them stored, compressed by their appends. The
    agent's view of the log is the file unless another writer changed it; a
    blob whose bytes are not the file's is named by its own bytes all the
    same, and git stores the file's blob itself."""
    starts = committed.starts if committed is not None else {}
    todo = [rel for rel in files if rel in starts]
    if committed is None or where is None or not todo:
        return dict
    jobs = [
        (rel, agent.log_bytes() if rel == EVENTS_PATH else _read(os.path.join(agent.root, rel)))
        for rel in todo
    ]
    oids: dict[str, str] = {}  # the blob id of each file stored

    def work() -> None:
        for rel, data in jobs:
            try:
                oid = store_appended(where, committed.info.prefix + rel, data, starts[rel])
            except Exception:  # an optimisation: git stores the blob itself
                continue
            if oid is not None:
                oids[rel] = oid

    thread = threading.Thread(target=work, daemon=True)
    thread.start()

    def wait() -> dict[str, str]:
        thread.join()
        return oids

    return wait
