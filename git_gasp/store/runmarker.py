"""The local control plane of runs: the open-run marker and the worker id.

The reference keeps the open run in memory only; git-gasp also writes it to
``.agent/RUN`` (gitignored, machine-local) so that ``git gasp run start`` and
``git gasp run close`` in separate processes continue the same run, and a
crash mid-run leaves the run visible to ``git gasp run status``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

from git_gasp.core.event import Event
from git_gasp.core.resume import RUN_FINISHED, ResumedRun, run_id_of
from git_gasp.errors import FINDINGS, GaspError
from git_gasp.store.writer import write_atomically, write_exclusively

MARKER_PATH = ".agent/RUN"
WORKER_PATH = ".agent/worker"
#: Ignored by git (init writes them to .gitignore), with the private files a
#: crash mid-write can leave: the lease's and atomic writes' temporary files.
LOCAL_PATHS = (".agent/lease", ".agent/HEAD", MARKER_PATH, WORKER_PATH, ".agent/lease.*", ".tmp-*")


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
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        raise GaspError(
            f"{MARKER_PATH} is corrupt",
            f"remove it (rm {MARKER_PATH}): the log still says which run is open, and "
            "`git gasp run status` then shows it",
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


@contextlib.contextmanager
def run_lock(root: str) -> Iterator[None]:
    """Serialize the run lifecycle (start, close, abandon) among the processes
    of this clone: an exclusive ``flock`` on the ``.agent`` directory, held
    for the whole decision *and* the boundary commit. The lease keeps other
    workers out; this keeps one worker's own processes (two shells, a retried
    close, two hook handlers) from each deciding "no run is open" or "the run
    is not finished yet" at once. Not the log's own lock: the commit's hooks
    read the log under a shared lock of their own while this one is held."""
    path = os.path.join(root, ".agent")
    os.makedirs(path, exist_ok=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def run_lock_held(root: str) -> bool:
    """Whether another process holds :func:`run_lock` now (a start, close or
    abandon is deciding, or a close is making its commit)."""
    try:
        fd = os.open(os.path.join(root, ".agent"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def find_open_run(
    marker: OpenRun | None,
    ids: Mapping[str, str],
    run_events: Iterable[Event],
    resumed: ResumedRun | None,
) -> OpenRun | None:
    """The open run: the marker's when the log holds its start (or already
    its finish, which ``run close`` then commits), else the run the log
    resumes (``resumed``, see :mod:`git_gasp.core.resume`)."""
    if marker is not None:
        finished = {run_id_of(e) for e in run_events if e.kind == RUN_FINISHED}
        if marker.started_event in ids or marker.run_id in finished:
            return marker  # open, or finished but not committed: `run close` completes it
    if resumed is not None:
        return OpenRun(resumed.run_id, resumed.started_event, None, None)
    return None


def local_worker_id(root: str) -> str:
    """This clone's stable worker id (``.agent/worker``), created on first use."""
    path = os.path.join(root, WORKER_PATH)
    value = _read_worker(path)
    if value:
        return value
    value = f"worker-{uuid.uuid4().hex[:12]}"
    try:
        if write_exclusively(path, value.encode() + b"\n"):
            return value
        theirs = _read_worker(path)  # another process created it first: theirs
        if theirs:
            return theirs
        write_atomically(path, value.encode() + b"\n")  # an empty file: replaced
        return _read_worker(path) or value
    except OSError:
        # a read-only checkout: a reading command still answers; one that
        # writes fails at its own write, with the file it could not write
        pass
    return value


def _read_worker(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise GaspError(f"{WORKER_PATH}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise GaspError(
            f"{WORKER_PATH} is not UTF-8",
            f"remove it (rm {WORKER_PATH}) for a new worker id, or pass --worker ID",
        ) from None
