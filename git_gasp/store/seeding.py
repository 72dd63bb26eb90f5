"""Seeding a fold from a snapshot, so opening a long log reads only its tail.

A snapshot is never authoritative (REFERENCE §3.3). A seed is used only when
its integrity record matches the log's bytes *and* its graph was once found
equal to the fold of that prefix, by this clone; that verdict is remembered
under the git directory, keyed by the snapshot file's SHA-256, so an edited
snapshot is never trusted. The first open after a new snapshot folds the
whole log and verifies the snapshot on the way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from typing import NamedTuple, TypeVar

from git_gasp import git
from git_gasp.core.graph import Graph, GraphError, parse_graph, trusted_graph
from git_gasp.core.jsonvalue import JsonError, fast_loads, loads
from git_gasp.core.log import gc_paused, prefix_span
from git_gasp.store import writer
from git_gasp.store.worktree import MAX_SNAPSHOT_BYTES

CACHE_NAME = "seeds-v1.json"
G = TypeVar("G")


class Seed(NamedTuple):
    name: str
    digest: str  # sha256 of graph.json ("" when no verdict was looked up)
    offset: int  # bytes of the log the snapshot covers
    events: int  # non-blank lines (events) in that prefix
    event_id: str
    path: str
    verified: bool  # this clone has checked the graph against a fold of the prefix
    raw: bytes = b""  # graph.json as read: hashed and parsed from these bytes


def common_dir(root: str) -> str | None:
    """The git common directory of the repository whose top is ``root`` (where
    verdicts are kept), None outside a repository.

    A plain ``root/.git`` directory owned by this user is what git itself would
    find there, so it is taken without running git; anything else (``GIT_DIR``
    set, a ``.git`` file, a linked worktree, a subdirectory) is asked of git.
    """
    if "GIT_DIR" not in os.environ and "GIT_COMMON_DIR" not in os.environ:
        dot = os.path.join(root, ".git")
        try:
            owner = {os.stat(root).st_uid, os.stat(dot).st_uid}
            plain = (
                os.path.isdir(dot)
                and os.path.isfile(os.path.join(dot, "HEAD"))
                and not os.path.lexists(os.path.join(dot, "commondir"))
            )
        except OSError:
            plain = False
        if plain and owner == {os.geteuid()}:
            return os.path.normpath(dot)
    try:
        return git.repo_info(root).common_dir
    except git.GitError:
        return None


def _integrity(raw: bytes) -> dict[str, object] | None:
    """The integrity record, read from the end of a graph.json git-gasp wrote
    (sorted keys put it last); None for any other layout."""
    at = raw.rfind(b',"integrity":{')
    if at < 0:
        return None
    end = raw.find(b"}", at)
    try:
        value = json.loads(raw[at + len(b',"integrity":') : end + 1])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _cache_path(common_dir: str) -> str:
    return os.path.join(common_dir, "gasp", CACHE_NAME)


def verified_digests(common_dir: str | None) -> dict[str, int]:
    """Verified snapshot digests, each with the number of events it covers."""
    if common_dir is None:
        return {}
    try:
        with open(_cache_path(common_dir), encoding="utf-8") as fh:
            data = json.load(fh)
        return {d: n for d, n in data.items() if isinstance(d, str) and type(n) is int}
    except (RecursionError, OSError, ValueError, TypeError, AttributeError):
        return {}


def remember(common_dir: str | None, seed: Seed) -> None:
    if common_dir is None:
        return
    known = verified_digests(common_dir)
    known[seed.digest or hashlib.sha256(seed.raw).hexdigest()] = seed.events
    try:
        writer.write_atomically(_cache_path(common_dir), json.dumps(known, sort_keys=True).encode())
    except OSError:
        pass  # read-only repository: just not remembered


#: the event ids of the latest snapshot's prefix this clone wrote (one file,
#: named by the snapshot's digest): a seeded open asks whether an id is in the
#: log without reading the prefix's 25,000 lines for their ids
IDS_DIR = "seed-ids-v1"


def remember_ids(common_dir: str | None, seed: Seed, ids: set[str]) -> None:
    """Keep ``ids``, every event id of ``seed``'s prefix, for :func:`seed_ids`
    (the only such file: it replaces the one an older snapshot had)."""
    if common_dir is None or any("\n" in i for i in ids):
        return
    digest = seed.digest or hashlib.sha256(seed.raw).hexdigest()
    where = os.path.join(common_dir, "gasp", IDS_DIR)
    head = f"gasp-seed-ids/1 {seed.events} {len(ids)}\n"
    try:
        writer.write_atomically(os.path.join(where, digest), (head + "\n".join(ids)).encode())
        for name in os.listdir(where):
            if name != digest and not name.startswith("."):
                os.unlink(os.path.join(where, name))
    except OSError:
        pass  # read-only repository: just not remembered


def seed_ids(common_dir: str | None, seed: Seed) -> set[str] | None:
    """The event ids of ``seed``'s prefix as :func:`remember_ids` kept them, or
    None. Named by the snapshot's digest, whose integrity record the prefix
    was checked against when it seeded, so they are that prefix's ids."""
    if common_dir is None or not seed.digest:
        return None
    try:
        with open(os.path.join(common_dir, "gasp", IDS_DIR, seed.digest), "rb") as fh:
            head, _, body = fh.read().partition(b"\n")
        ids = set(body.decode("utf-8", "surrogatepass").split("\n")) if body else set()
    except (OSError, UnicodeDecodeError):
        return None
    if head != f"gasp-seed-ids/1 {seed.events} {len(ids)}".encode():
        return None
    return ids


def integrity_at_end(path: str) -> dict[str, object] | None:
    """The integrity record of the graph.json at ``path``, read from its last
    bytes alone (as git-gasp writes it); None for any other layout."""
    return _integrity(_tail(path))


def _tail(path: str, size: int = 512) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - size))
        return fh.read()


def _candidates(root: str) -> list[tuple[int, str, str, object, str]]:
    """``(line_count, name, path, sha256, event_id)`` of every snapshot, latest
    first, from the end of each graph.json alone."""
    base = os.path.join(root, "snapshots")
    try:
        names = os.listdir(base)
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(base, name, "graph.json")
        if not os.path.isfile(path):
            continue
        try:
            record = integrity_at_end(path)
        except OSError:
            continue
        if record is None:
            continue
        count, sha, event_id = (
            record.get("line_count"),
            record.get("sha256"),
            record.get("event_id"),
        )
        if type(count) is int and count > 0 and isinstance(event_id, str):
            found.append((count, name, path, sha, event_id))
    return sorted(found, reverse=True)


def _spans(log: bytes, count: int, event_id: str, known: int | None) -> Iterator[tuple[int, int]]:
    """Where a snapshot's prefix may end, with the events it holds: first, for
    a verified snapshot, just after the line naming its last event (its hash
    then proves the bytes are those verified, ``known`` events); then the
    first ``count`` physical lines, counted (also when the verdict's count
    is not the record's: blank lines, or a verdict not to be trusted)."""
    if known is not None and known == count:
        name = event_id.encode("utf-8", "surrogateescape")
        # the event's own line, searched from the end (a snapshot is usually
        # recent); in any other layout, the first mention of its id
        at = log.rfind(b'\n{"id":"' + name + b'"')
        at = at + 1 if at >= 0 else log.find(b'"' + name + b'"')
        end = log.find(b"\n", at) if at >= 0 else -1
        if end >= 0:
            yield end + 1, known
    span = prefix_span(log, count)
    if span is not None:
        yield span


_THREAD_BYTES = 1 << 20


def _sha256_soon(data: memoryview) -> Callable[[], str]:
    """The SHA-256 of ``data``; a large one is hashed in a thread (hashlib
    releases the GIL), so the caller decodes the snapshot meanwhile."""
    if len(data) < _THREAD_BYTES:
        digest = hashlib.sha256(data).hexdigest()
        return lambda: digest
    out: list[str] = []
    thread = threading.Thread(target=lambda: out.append(hashlib.sha256(data).hexdigest()))
    thread.start()

    def result() -> str:
        thread.join()
        return out[0]

    return result


def choose(
    root: str,
    log: bytes,
    verified: dict[str, int],
    decode: Callable[[Seed], G],
    passed_over: list[str] | None = None,
) -> tuple[Seed, G] | None:
    """The latest snapshot whose integrity record matches ``log``, and what
    ``decode`` makes of it (e.g. :func:`load_graph`).

    Only the end of each graph.json is read to find the candidates. For the
    chosen one the file is read once (and hashed, when there are verdicts to
    look it up in), and the log prefix is located and hashed; the first time,
    while ``decode`` runs (the latest snapshot usually matches), after a
    mismatch before it. ``passed_over``, when given, gets the snapshots
    that may be newer than the one chosen and were not used (see
    :func:`_passed_over`).
    """
    speculate = True
    candidates = _candidates(root)
    tried: list[str] = []  # candidates, newest first, that did not verify
    for count, name, path, sha, event_id in candidates:
        tried.append(name)
        try:
            if os.path.getsize(path) > MAX_SNAPSHOT_BYTES:
                continue  # not read at all (the careful path names it)
            with open(path, "rb") as fh:
                raw = fh.read(MAX_SNAPSHOT_BYTES + 1)
        except OSError:
            continue
        digest = hashlib.sha256(raw).hexdigest() if verified else ""
        known = verified.get(digest) if digest else None
        for offset, events in _spans(log, count, event_id, known):
            prefix = memoryview(log)[:offset]
            seed = Seed(name, digest, offset, events, event_id, path, known == events, raw)
            if not speculate:
                if hashlib.sha256(prefix).hexdigest() == sha:
                    _passed_over(root, passed_over, tried[:-1], candidates, count)
                    return seed, decode(seed)
                continue
            prefix_hash = _sha256_soon(prefix)
            decoded = decode(seed)
            if prefix_hash() == sha:
                _passed_over(root, passed_over, tried[:-1], candidates, count)
                return seed, decoded
            speculate = False
    _passed_over(root, passed_over, tried, candidates, 0)
    return None


def _passed_over(
    root: str,
    out: list[str] | None,
    tried: list[str],
    candidates: list[tuple[int, str, str, object, str]],
    chosen_count: int,
) -> None:
    """Fill ``out`` (when given) with the snapshots that may be newer than
    the one chosen and were not used: candidates tried before it, and
    entries with a graph.json whose integrity record cannot be read as a
    candidate's, unless it says it covers no more lines. Entries without a
    graph.json are none (the careful path only notes them)."""
    if out is None:
        return
    out += tried
    named = {c[1] for c in candidates}
    with contextlib.suppress(OSError):
        for name in sorted(os.listdir(os.path.join(root, "snapshots"))):
            path = os.path.join(root, "snapshots", name, "graph.json")
            if name in named or not os.path.isfile(path):
                continue
            try:
                record = integrity_at_end(path)
            except OSError:
                record = None
            count = record.get("line_count") if isinstance(record, dict) else None
            if type(count) is not int or count > chosen_count:
                out.append(name)


def load_graph(seed: Seed) -> Graph | None:
    """The snapshot's graph, or None if it no longer parses. A snapshot this
    clone verified is read with the fast parser (its content was checked)."""
    try:
        raw = seed.raw
        if not raw:
            with open(seed.path, "rb") as fh:
                raw = fh.read()
        trusted = seed.verified and (
            bool(seed.raw) or hashlib.sha256(raw).hexdigest() == seed.digest
        )
        with gc_paused():  # tens of thousands of acyclic objects
            if trusted:
                value = fast_loads(raw)
                if isinstance(value, dict):
                    return trusted_graph(value.get("graph"))
                return None
            value = loads(raw.decode("utf-8"))
            if not isinstance(value, dict):
                return None
            return parse_graph(value.get("graph"))
    except (OSError, UnicodeDecodeError, JsonError, GraphError, ValueError):
        return None
