"""Restore's fold of the log, seeded by a verified snapshot (REFERENCE §3.3).

The newest snapshot at or before ``--at`` whose integrity record matches the
log's bytes seeds the fold, and only the log after it is parsed and folded;
with ``--verify-snapshot`` its graph must also equal the fold of its prefix
(or a verdict this clone remembers). A snapshot that does not verify is
passed over with a note, never used.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import NamedTuple

from git_gasp.core.event import Event
from git_gasp.core.fold import Folder
from git_gasp.core.graph import Graph, GraphError, graphs_equal, parse_graph, trusted_graph
from git_gasp.core.jsonvalue import JsonError, fast_loads, loads
from git_gasp.core.log import (
    describe_error,
    events_in_prefix,
    gc_paused,
    parse_log,
    physical_line_count,
    physical_prefix,
)
from git_gasp.core.restorereport import FoldInfo
from git_gasp.core.resume import resumed_run, resumed_run_seeded
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store import seeding
from git_gasp.store.worktree import MAX_SNAPSHOT_BYTES, inside, os_error


class _Candidate(NamedTuple):
    name: str
    events: int
    digest: str
    graph_value: object


def _snapshots(
    root: str, log: bytes, events: Sequence[Event], limit: int
) -> tuple[list[_Candidate], list[str]]:
    """Snapshots whose integrity record matches ``log`` and covers at most
    ``limit`` events, latest first; notes for the others."""
    base = os.path.join(root, "snapshots")
    notes: list[str] = []
    if not os.path.isdir(base) or not inside(root, base):
        return [], notes
    lines = physical_line_count(log)
    found = []
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name, "graph.json")
        if not os.path.isfile(path) or not inside(root, path):
            continue
        if os.path.getsize(path) > MAX_SNAPSHOT_BYTES:
            notes.append(f"snapshot {name}: over the size cap (not used)")
            continue
        with open(path, "rb") as fh:
            raw = fh.read()
        try:
            value = loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, JsonError):
            notes.append(f"snapshot {name}: not JSON (not used)")
            continue
        record = value.get("integrity") if isinstance(value, dict) else None
        count = record.get("line_count") if isinstance(record, dict) else None
        sha = record.get("sha256") if isinstance(record, dict) else None
        event_id = record.get("event_id") if isinstance(record, dict) else None
        if type(count) is not int or not isinstance(sha, str) or not 0 < count <= lines:
            notes.append(f"snapshot {name}: integrity record missing or out of range (not used)")
            continue
        if hashlib.sha256(physical_prefix(log, count)).hexdigest() != sha:
            notes.append(f"snapshot {name}: integrity hash mismatch (not used)")
            continue
        k = events_in_prefix(log, count)
        if isinstance(event_id, str) and (k == 0 or events[k - 1].id != event_id):
            notes.append(
                f"snapshot {name}: event_id is not the last event of its prefix (not used)"
            )
            continue
        if k > limit:
            continue  # after --at
        assert isinstance(value, dict)
        found.append(_Candidate(name, k, hashlib.sha256(raw).hexdigest(), value.get("graph")))
    found.sort(key=lambda c: (c.events, c.name), reverse=True)
    return found, notes


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
    root: str, log_rel: str, at: str | None, verify_snapshot: bool = False
) -> tuple[FoldInfo, Folder]:
    """Fold the log through ``at``, seeded by the newest snapshot at or before it
    whose integrity record verifies (REFERENCE §3.3, the restore contract).

    The snapshot's graph is trusted once its integrity record matches the log's
    bytes, as the contract says; ``git gasp check`` (check 2) verifies graphs.
    With ``verify_snapshot`` the graph is also compared with a fold of its
    prefix (or a verdict this clone remembers), for sources you do not trust.
    """
    log = _read_log(root, log_rel)
    if at is None and not verify_snapshot:
        quick = _fold_from_snapshot(root, log, log_rel)
        if quick is not None:
            return quick
    parsed = parse_log(log)
    if parsed.errors:
        raise GaspError(
            describe_error(log_rel, parsed.errors[0]),
            "check it with: git gasp check",
            FINDINGS,
        )
    events = parsed.events
    limit = _limit(events, at, log_rel)
    candidates, notes = _snapshots(root, log, events, limit)
    seeded = _fold_seeded(root, events, limit, at, candidates, notes, verify_snapshot)
    if seeded is not None:
        return seeded
    folder = Folder()
    folder.apply_all(events[:limit])
    resumed = resumed_run(events[:limit])
    return FoldInfo(limit, at, None, 0, None, tuple(notes), resumed, limit == len(events)), folder


def _read_log(root: str, log_rel: str) -> bytes:
    """The log's bytes; an agent without its log is a finding."""
    path = os.path.join(root, *log_rel.split("/"))
    if not inside(root, path):
        raise GaspError(f"{log_rel} leads outside the repository (refused)", None, USAGE)
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        # fail closed: an agent without its log is no agent restored empty
        raise GaspError(
            f"{log_rel}: no event log (the log is the agent's state)",
            "an agent repository keeps it (git gasp init creates it); "
            "check the URL, or the log's path in AGENT.md's Locations table",
            FINDINGS,
        ) from None
    except OSError as exc:
        raise GaspError(f"{log_rel}: cannot read: {os_error(exc)}", None, USAGE) from None


def _limit(events: Sequence[Event], at: str | None, log_rel: str) -> int:
    """How many events the fold takes: all, or through the event ``at``."""
    if at is None:
        return len(events)
    ends = [i for i, e in enumerate(events) if e.id == at]
    if not ends:
        raise GaspError(
            f"unknown event id: {at}",
            did_you_mean(at, [e.id for e in events])
            or f"--at takes the `id` of an event in {log_rel}",
            USAGE,
        )
    return ends[0] + 1


def _fold_seeded(
    root: str,
    events: Sequence[Event],
    limit: int,
    at: str | None,
    candidates: Sequence[_Candidate],
    notes: list[str],
    verify_snapshot: bool,
) -> tuple[FoldInfo, Folder] | None:
    """The fold seeded by the first of ``candidates`` that verifies (None:
    none does); a note in ``notes`` for each passed over."""
    common = seeding.common_dir(root)
    cached = seeding.verified_digests(common)
    for cand in candidates:
        try:
            graph = parse_graph(cand.graph_value)
        except GraphError as exc:
            notes.append(f"snapshot {cand.name}: graph does not parse: {exc} (not used)")
            continue
        if cached.get(cand.digest) == cand.events:
            how = "cache"
        elif not verify_snapshot:
            how = "integrity record"
        else:
            prefix = Folder()
            prefix.apply_all(events[: cand.events])
            if not graphs_equal(prefix.graph(), graph):
                notes.append(
                    f"snapshot {cand.name}: differs from folding its log prefix (not used)"
                )
                continue
            how = "fold of prefix"
            seed = seeding.Seed(cand.name, cand.digest, 0, cand.events, "", "", True)
            seeding.remember(common, seed)
        folder = Folder.from_graph(graph)
        folder.apply_all(events[cand.events : limit])
        folder.events = limit
        resumed = resumed_run(events[:limit])
        whole = limit == len(events)
        info = FoldInfo(limit, at, cand.name, cand.events, how, tuple(notes), resumed, whole)
        return info, folder
    return None
