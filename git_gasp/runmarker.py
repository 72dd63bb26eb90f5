"""The local control plane of runs: the open-run marker and the worker id.

The reference keeps the open run in memory only; git-gasp also writes it to
``.agent/RUN`` (gitignored, machine-local) so that ``git gasp run start`` and
``git gasp run close`` in separate processes continue the same run, and a
crash mid-run leaves the run visible to ``git gasp run status``.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from git_gasp.core.event import Event
from git_gasp.errors import FINDINGS, GaspError
from git_gasp.store import write_atomically

MARKER_PATH = ".agent/RUN"
WORKER_PATH = ".agent/worker"
LOCAL_PATHS = (".agent/lease", ".agent/HEAD", MARKER_PATH, WORKER_PATH)


class OpenRun(NamedTuple):
    run_id: str
    started_event: str  # the run.started event id every run event chains to
    goal: str | None
    worker: str | None


def read_marker(root: str) -> OpenRun | None:
    path = os.path.join(root, MARKER_PATH)
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read())
        return OpenRun(
            str(data["run_id"]), str(data["started_event"]), data.get("goal"), data.get("worker")
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        raise GaspError(
            f"{MARKER_PATH} is corrupt",
            "see the open run with `git gasp run status`; remove the file to forget it",
            FINDINGS,
        ) from None


def write_marker(root: str, run: OpenRun) -> None:
    data = {"run_id": run.run_id, "started_event": run.started_event, "goal": run.goal}
    data["worker"] = run.worker
    write_atomically(os.path.join(root, MARKER_PATH), json.dumps(data).encode() + b"\n")


def remove_marker(root: str) -> None:
    try:
        os.unlink(os.path.join(root, MARKER_PATH))
    except FileNotFoundError:
        pass


def find_open_run(
    marker: OpenRun | None, ids: Mapping[str, str], run_events: Iterable[Event]
) -> OpenRun | None:
    """The open run: the marker's if its run is started and not finished,
    else the log's last started-and-unfinished run (``resume_open_run``)."""
    finished: set[str] = set()
    started: dict[str, str] = {}
    last: str | None = None
    for event in run_events:
        run_id = event.payload.get("run_id") if isinstance(event.payload, dict) else None
        if not isinstance(run_id, str):
            continue
        if event.kind == "run.started":
            started[run_id] = event.id
            last = run_id
        elif event.kind == "run.finished":
            finished.add(run_id)
    if marker is not None and marker.started_event in ids and marker.run_id not in finished:
        return marker
    if marker is not None and marker.run_id in finished:
        return marker  # finished but not yet committed: `run close` completes it
    if last is not None and last not in finished:
        return OpenRun(last, started[last], None, None)
    return None


def local_worker_id(root: str) -> str:
    """This clone's stable worker id (``.agent/worker``), created on first use."""
    path = os.path.join(root, WORKER_PATH)
    try:
        with open(path, encoding="utf-8") as fh:
            value = fh.read().strip()
        if value:
            return value
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise GaspError(f"{WORKER_PATH}: cannot read: {exc.strerror}") from None
    value = f"worker-{uuid.uuid4().hex[:12]}"
    write_atomically(path, value.encode() + b"\n")
    return value
