"""Seeding a fold from a snapshot, so opening a long log reads only its tail.

A snapshot is never authoritative (REFERENCE §3.3). A seed is used only when
its integrity record matches the log's bytes *and* its graph was once found
equal to the fold of that prefix, by this clone; that verdict is remembered
under the git directory, keyed by the snapshot file's SHA-256, so an edited
snapshot is never trusted. The first open after a new snapshot folds the
whole log and verifies the snapshot on the way.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import NamedTuple

from git_gasp import store
from git_gasp.core.graph import Graph, GraphError, parse_graph, trusted_graph
from git_gasp.core.jsonvalue import JsonError, fast_loads, loads
from git_gasp.core.log import events_in, physical_line_count, physical_prefix

CACHE_NAME = "seeds-v1.json"


class Seed(NamedTuple):
    name: str
    digest: str  # sha256 of graph.json
    offset: int  # bytes of the log the snapshot covers
    events: int  # non-blank lines (events) in that prefix
    event_id: str
    path: str
    verified: bool  # this clone has checked the graph against a fold of the prefix


def _integrity(raw: bytes) -> dict[str, object] | None:
    """The integrity record, read from the end of a graph.json git-gasp wrote
    (sorted keys put it last); None for any other layout."""
    at = raw.rfind(b',"integrity":{')
    if at < 0:
        return None
    end = raw.find(b"}", at)
    try:
        value = json.loads(raw[at + len(b',"integrity":') : end + 1])
    except ValueError:
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
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def remember(common_dir: str | None, seed: Seed) -> None:
    if common_dir is None:
        return
    known = verified_digests(common_dir)
    known[seed.digest] = seed.events
    try:
        store.write_atomically(_cache_path(common_dir), json.dumps(known, sort_keys=True).encode())
    except OSError:
        pass  # read-only repository: just not remembered


def _tail(path: str, size: int = 512) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - size))
        return fh.read()


def choose(root: str, log: bytes, verified: dict[str, int]) -> Seed | None:
    """The latest snapshot whose integrity record matches ``log``.

    Only the end of each graph.json is read to find the candidates; the log
    prefix and the file itself are hashed for the chosen one alone.
    """
    base = os.path.join(root, "snapshots")
    if not os.path.isdir(base):
        return None
    lines = physical_line_count(log)
    candidates = []
    for name in os.listdir(base):
        path = os.path.join(base, name, "graph.json")
        try:
            record = _integrity(_tail(path))
        except OSError:
            continue
        if record is None:
            continue
        count, sha, event_id = (
            record.get("line_count"),
            record.get("sha256"),
            record.get("event_id"),
        )
        if type(count) is int and 0 < count <= lines and isinstance(event_id, str):
            candidates.append((count, name, path, sha, event_id))
    for count, name, path, sha, event_id in sorted(candidates, reverse=True):
        prefix = physical_prefix(log, count)
        if hashlib.sha256(prefix).hexdigest() != sha:
            continue
        try:
            with open(path, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            continue
        events = verified.get(digest)
        if events is None:
            events = events_in(prefix)
        return Seed(name, digest, len(prefix), events, event_id, path, digest in verified)
    return None


def load_graph(seed: Seed) -> Graph | None:
    """The snapshot's graph, or None if it no longer parses. A snapshot this
    clone verified is read with the fast parser (its content was checked)."""
    try:
        with open(seed.path, "rb") as fh:
            raw = fh.read()
        if seed.verified and hashlib.sha256(raw).hexdigest() == seed.digest:
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
