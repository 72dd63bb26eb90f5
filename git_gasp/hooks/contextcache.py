"""The hooks' cache of log contexts, one file per log blob.

``<git-common-dir>/gasp/contexts-v2/<blob-id>.json`` holds the
:class:`~git_gasp.core.logcontext.LogContext` of that version of the log. A
context is a pure function of the blob's bytes, so a file can never go
stale; a missing or damaged one is just a miss (the version is parsed
again). A log only grows, so most files are *deltas*: the ids a version
added since a version kept whole (its ``base``), a few hundred bytes where
the whole context of a long history is hundreds of kilobytes. The next
commit then reads one whole context and one delta, and writes one delta.
A delta is written while it stays small (``DELTA_SHARE`` of the ids), then
the version is kept whole again. Saving a delta touches its base, so the
pruning, which keeps the newest few files, keeps the base too.
"""

from __future__ import annotations

import json
import os
from typing import Any

from git_gasp.core.jsonvalue import cache_bytes
from git_gasp.core.logcontext import LogContext, delta_base, with_delta

CONTEXTS_DIR = "contexts-v2"
_KEEP_CONTEXTS = 8
_WHOLE_START = b'{"format":2,"lines":'  # how a whole context's file begins


def _context_path(common_dir: str, oid: str) -> str:
    return os.path.join(common_dir, "gasp", CONTEXTS_DIR, f"{oid}.json")


def _read(common_dir: str, oid: str) -> Any:
    try:
        with open(_context_path(common_dir, oid), "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    try:
        # the standard parser: as quick as orjson on a context's few long
        # dicts of short strings, and a hook need not load orjson for it
        return json.loads(raw)
    except ValueError:  # UnicodeDecodeError included
        return None


def load_context(common_dir: str, oid: str) -> LogContext | None:
    """A cached context, or None (a missing or damaged file, or a delta whose
    base is gone or is no whole context, is just a miss)."""
    value = _read(common_dir, oid)
    base_oid = delta_base(value)
    if base_oid is None:
        context = LogContext.from_value(value)
        if context is not None:
            context.rebase(oid)
        return context
    base_value = _read(common_dir, base_oid)
    if delta_base(base_value) is not None:
        return None  # deltas never chain
    base = LogContext.from_value(base_value)
    return with_delta(base, base_oid, value) if base is not None else None


def save_context(common_dir: str, oid: str, context: LogContext) -> None:
    """Remember a context (a delta on its base when that is small and the
    base is still kept whole, else whole); keep the newest few files.
    Failure to write is ignored (a read-only server is just not cached)."""
    path = _context_path(common_dir, oid)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        base = context.base
        if base is not None and base.oid == oid and os.path.exists(path):
            os.utime(path)  # loaded from this very file: nothing new to say
            return
        delta = context.delta_value() if base is not None and base.oid != oid else None
        base_path = _context_path(common_dir, base.oid) if base is not None else ""
        if delta is not None and not _whole_file(base_path):
            delta = None
        # a cache needs no fsync: a torn file fails to parse and is a miss
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(cache_bytes(delta if delta is not None else context.to_value()))
        os.replace(tmp, path)
        if delta is not None:
            os.utime(base_path)  # the pruning below keeps the newest: keep the base too
        else:
            context.rebase(oid)
        _prune(os.path.dirname(path))
    except OSError:
        pass


def _whole_file(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_WHOLE_START)) == _WHOLE_START
    except OSError:
        return False


def _prune(folder: str) -> None:
    entries = sorted((os.path.getmtime(os.path.join(folder, n)), n) for n in os.listdir(folder))
    for _, name in entries[:-_KEEP_CONTEXTS]:
        os.unlink(os.path.join(folder, name))
