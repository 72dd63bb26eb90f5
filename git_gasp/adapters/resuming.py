"""Where a projection of a Claude Code session can continue: the resume state (pure).

A transcript only grows while its agent runs, so a re-import need not read
it from the start. After each projection the projector hands back a state
(a JSON value, kept with the cursor in ``<git-dir>/gasp/imports/``):

- for each file, how far it was read (``offset``, in characters of its
  text, at the end of its last complete line; ``lines``, the physical lines
  before it), the SHA-256 of those characters as UTF-8, and ``leaf``, the
  ``uuid`` of the last record before it;
- what the walk needs to go on as if it had read those lines: the record
  uuids and message ids seen (copies and streamed usage), the blocks
  projected (a message id that comes back projects only its new ones), the
  tool calls still waiting for their results, the subagents walked, the last prompt,
  the outcome so far, the touched paths, the timestamps and the count of
  records recognised.

Given that state, the next projection reads only each file's tail, if and
only if every file it names is still there with the same leading
characters, no new file joined the session, and the tail continues the
active branch (no new record hangs under an earlier record than the
file's leaf: a rewind or a parallel branch into read lines means the
active path must be decided again). Otherwise it projects everything again,
as without a state. Either way the deterministic event ids and the log's
known-id check keep every event from being appended twice; the state only
spares the reading.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from git_gasp.adapters.lines import Diagnostics, Record, Source, records

VERSION = 2  # 2: the blocks projected (a state of 1 is read from the start)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def file_end(
    source: Source, recs: Sequence[Record], before: Mapping[str, Any] | None
) -> dict[str, Any]:
    """How far ``source`` is read once ``recs`` (its records from where
    ``before`` left off, or all of them) are projected."""
    text = source.text
    offset = text.rfind("\n") + 1
    start = int(before["offset"]) if before else 0
    lines = (int(before["lines"]) if before else 0) + source.physical(start, offset)
    leaf = before.get("leaf") if before else None
    for rec in recs:
        uid = rec.value.get("uuid")
        if rec.line <= lines and isinstance(uid, str):
            leaf = uid
    return {"offset": offset, "lines": lines, "sha256": _digest(text[:offset]), "leaf": leaf}


def tails(
    sources: Sequence[Source], state: Mapping[str, Any] | None, diag: Diagnostics
) -> dict[str, list[Record]] | None:
    """The records after each file's resume point, or None when the state
    cannot be continued (see the module doc)."""
    if not isinstance(state, Mapping) or state.get("version") != VERSION:
        return None
    files = state.get("files")
    if not isinstance(files, Mapping) or set(files) != {s.name for s in sources}:
        return None
    seen = set(state.get("uuids") or ())
    out: dict[str, list[Record]] = {}
    for source in sources:
        end = files[source.name]
        offset = end.get("offset") if isinstance(end, Mapping) else None
        if type(offset) is not int or offset > len(source.text):
            return None
        if _digest(source.text[:offset]) != end.get("sha256"):
            return None
        tail = source.tail(offset)
        recs = records(tail, diag, first_line=int(end.get("lines") or 0) + 1)
        for rec in recs:
            parent, uid = rec.value.get("parentUuid"), rec.value.get("uuid")
            if not (isinstance(parent, str) and isinstance(uid, str)):
                continue
            if parent in seen and parent != end.get("leaf") and uid not in seen:
                return None  # a branch off read lines: decide the active path again
        out[source.name] = recs
    return out


def walk_state(walk: Any) -> dict[str, Any]:
    """The state of a Claude Code walk (``claudecode._Walk``) after its files."""
    return {
        "version": VERSION,
        "files": walk.ends,
        "uuids": sorted(walk.uuids),
        "messages": walk.messages,
        "blocks": sorted(walk.blocks),
        "pending": {k: list(v) for k, v in walk.pending.items()},
        "walked": sorted(walk.walked),
        "prompt": walk.prompt,
        "first_prompt": walk.first_prompt,
        "outcome": walk.outcome,
        "paths": list(walk.lift.paths),
        "first_ts": walk.em.first_ts,
        "last_ts": walk.em.last_ts,
        "recognised": walk.diag.recognised,
    }


def load_walk(walk: Any, state: Mapping[str, Any]) -> None:
    """Put ``state`` (from :func:`walk_state`) back into a fresh walk."""
    walk.ends = {k: dict(v) for k, v in state["files"].items()}
    walk.uuids = set(state.get("uuids") or ())
    walk.messages = dict(state.get("messages") or {})
    walk.blocks = {str(k) for k in state.get("blocks") or ()}
    walk.pending = {k: tuple(v) for k, v in (state.get("pending") or {}).items()}
    walk.walked = set(state.get("walked") or ())
    walk.prompt = str(state.get("prompt") or "")
    walk.first_prompt = str(state.get("first_prompt") or "")
    walk.outcome = str(state.get("outcome") or "in-progress")
    walk.lift.paths = [str(p) for p in state.get("paths") or ()]
    first, last = state.get("first_ts"), state.get("last_ts")
    walk.em.first_ts = first if type(first) is int else None
    walk.em.last_ts = last if type(last) is int else 0
    walk.diag.recognised = int(state.get("recognised") or 0)
