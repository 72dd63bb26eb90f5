"""An import's cursor: per session, the files it read (their lines and
digests), and where the projection may resume (its state, the run it wrote,
the last event appended), kept in ``<git-dir>/gasp/imports/<agent>/<session>.json``.
A cache: one that cannot be read is ignored, and the import projects the
session from its first line (appending only what the log lacks)."""

from __future__ import annotations

import json
import os
from typing import Any

from git_gasp.adapters.emitting import Resume
from git_gasp.adapters.lines import Projection
from git_gasp.core.jsonvalue import fast_dumps_sorted, fast_loads
from git_gasp.store.writer import write_atomically


def path(git_dir: str, agent_name: str, session: str) -> str:
    """Where the cursor of ``session`` lives (under ``<git-dir>/gasp/imports/``)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session)
    return os.path.join(git_dir, "gasp", "imports", agent_name, f"{safe}.json")


def saved(path: str) -> dict[str, Any]:
    """The cursor as the last import saved it (an older import's bare list of
    files too), or {}."""
    try:
        with open(path, "rb") as fh:
            value = fast_loads(fh.read())  # its resume state runs to megabytes
    except (OSError, ValueError, RecursionError):
        return {}
    if isinstance(value, list):
        return {"files": value}
    return value if isinstance(value, dict) else {}


def save(path: str, projection: Projection, latest: Resume | None, last: Any) -> None:
    """Keep what ``projection`` read, and its resume state while the run it
    continues (``latest``, or the one it started) and the last event are known."""
    value: dict[str, Any] = {"files": list(projection.cursor)}
    started = next((e.id for e in projection.events if e.kind == "run.started"), None)
    if started is None and latest is not None:
        started = latest.started_id  # nothing new started: the run it went on with
    if projection.state is not None and isinstance(last, str) and started is not None:
        value["state"] = projection.state
        value["run"] = [projection.run_id, started]
        value["last_event"] = last
    os.makedirs(os.path.dirname(path), exist_ok=True)
    raw = fast_dumps_sorted(value) or json.dumps(value, separators=(",", ":")).encode()
    write_atomically(path, raw + b"\n")
