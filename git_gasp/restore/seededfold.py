"""Restore's fold of the log, seeded by a verified snapshot (REFERENCE §3.3).

The newest snapshot at or before ``--at`` whose integrity record matches the
log's bytes seeds the fold, and only the log after it is parsed and folded;
with ``--verify-snapshot`` its graph must also equal the fold of its prefix
(or a verdict this clone remembers). A snapshot that does not verify is
passed over with a note, never used.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import IO

from git_gasp.core.fold import Folder, FoldError
from git_gasp.core.graph import Graph, GraphError, trusted_graph
from git_gasp.core.jsonvalue import JsonError, fast_loads
from git_gasp.core.log import gc_paused, parse_log
from git_gasp.core.restorereport import FoldInfo
from git_gasp.core.resume import resumed_run_seeded
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.restore.streamfold import fold_streaming
from git_gasp.store import seeding
from git_gasp.store.logfile import check_size, max_log_bytes, open_regular, read_capped
from git_gasp.store.worktree import MAX_SNAPSHOT_BYTES, inside, os_error


def _trusted(root: str, seed: seeding.Seed) -> Graph | None:
    """The graph of a snapshot inside the repository, trusted as its integrity
    record is (its JSON tree is dropped on return; the graph keeps the props)."""
    if not inside(root, seed.path) or len(seed.raw) > MAX_SNAPSHOT_BYTES:
        return None
    try:
        value = fast_loads(seed.raw)
        return trusted_graph(value.get("graph") if isinstance(value, dict) else None)
    except (GraphError, JsonError, ValueError):
        return None


def _fold_from_snapshot(root: str, log: bytes, log_rel: str) -> tuple[FoldInfo, Folder] | None:
    """The common restore: the newest snapshot whose integrity record matches
    seeds the fold, and only the log after it is parsed and folded."""
    if not inside(root, os.path.join(root, "snapshots")):
        return None  # the careful path below notes nothing and folds it all
    verified = seeding.verified_digests(seeding.common_dir(root))
    passed_over: list[str] = []
    with gc_paused():  # tens of thousands of acyclic objects: no collector passes
        found = seeding.choose(root, log, verified, lambda seed: _trusted(root, seed), passed_over)
        if found is None or passed_over:
            return None  # the careful path below reports why (and which were not used)
        seed, graph = found
        if graph is None:
            return None
        tail = parse_log(log[seed.offset :])
        if tail.errors:
            return None
        folder = Folder.from_graph(graph)
        folder.apply_all(tail.events)
    total = seed.events + len(tail.events)
    folder.events = total
    how = "cache" if seed.verified else "integrity record"
    resumed = resumed_run_seeded(log, seed.offset, tail.events)
    return FoldInfo(total, None, seed.name, seed.events, how, (), resumed), folder


def fold_log(
    root: str,
    log_rel: str,
    at: str | None,
    verify_snapshot: bool = False,
    progress: Callable[[str], None] | None = None,
) -> tuple[FoldInfo, Folder]:
    """Fold the log through ``at``, seeded by the newest snapshot at or before it
    whose integrity record verifies (REFERENCE §3.3, the restore contract).

    The snapshot's graph is trusted once its integrity record matches the log's
    bytes, as the contract says; ``git gasp check`` (check 2) verifies graphs.
    With ``verify_snapshot`` the graph is also compared with a fold of its
    prefix (or a verdict this clone remembers), for sources you do not trust.
    ``progress`` is told how many events there are to fold, before the fold.

    With a snapshot to seed from, the log is read whole and only its tail
    parsed; otherwise (and with ``at`` or ``verify_snapshot``) it is folded
    streaming, line by line (:mod:`git_gasp.restore.streamfold`): memory
    holds the graph, never the log nor its events.
    """
    path = _log_path(root, log_rel)
    with _open_log(root, path, log_rel) as fh:
        if progress is not None:
            count = _line_count(fh)
            progress(f"folding {count:,} event{'s' * (count != 1)}")
        try:
            if at is None and not verify_snapshot and _has_snapshots(root):
                quick = _fold_from_snapshot(root, _read_log(root, log_rel), log_rel)
                if quick is not None:
                    return quick
            return fold_streaming(root, fh, log_rel, at, verify_snapshot)
        except FoldError as exc:  # an ops payload the fold cannot read: no graph to restore
            raise GaspError(
                f"{log_rel}: event {exc.event_id}: {exc.msg}",
                "see every finding with: git gasp check",
                FINDINGS,
            ) from None


def _log_path(root: str, log_rel: str) -> str:
    path = os.path.join(root, *log_rel.split("/"))
    if not inside(root, path):
        raise GaspError(f"{log_rel} leads outside the repository (refused)", None, USAGE)
    return path


def _has_snapshots(root: str) -> bool:
    try:
        return bool(os.listdir(os.path.join(root, "snapshots")))
    except OSError:
        return False


def _line_count(fh: IO[bytes]) -> int:
    """The physical lines of the open log (read in chunks), then back to its start."""
    count, last = 0, b"\n"
    while chunk := fh.read(1 << 20):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    fh.seek(0)
    return count + (last != b"\n")


@contextlib.contextmanager
def _open_log(root: str, path: str, log_rel: str) -> Iterator[IO[bytes]]:
    """The log opened for reading: a regular file within ``gasp.maxLogBytes``
    (refused before reading); an agent without its log is a finding."""
    try:
        fd = open_regular(path, log_rel)
    except FileNotFoundError:
        raise _no_log(log_rel) from None
    except OSError as exc:
        raise GaspError(f"{log_rel}: cannot read: {os_error(exc)}", None, USAGE) from None
    with os.fdopen(fd, "rb") as fh:
        check_size(fd, log_rel, max_log_bytes(root))
        yield fh


def _no_log(log_rel: str) -> GaspError:
    # fail closed: an agent without its log is no agent restored empty
    return GaspError(
        f"{log_rel}: no event log (the log is the agent's state)",
        "an agent repository keeps it (git gasp init creates it); "
        "check the URL, or the log's path in AGENT.md's Locations table",
        FINDINGS,
    )


def _read_log(root: str, log_rel: str) -> bytes:
    """The log's bytes (for the seeded path)."""
    path = _log_path(root, log_rel)
    try:
        return read_capped(path, log_rel, root)  # refused over gasp.maxLogBytes, unread
    except FileNotFoundError:
        raise _no_log(log_rel) from None
    except OSError as exc:
        raise GaspError(f"{log_rel}: cannot read: {os_error(exc)}", None, USAGE) from None
