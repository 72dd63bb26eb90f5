"""The live state under the agent repository's git directory (never committed).

``<gitdir>/gasp/live/`` holds:

- ``spool/<harness>/<session or _unknown>/<time_ns>-<pid>-<random>.json``: a
  hook's stdin payload, byte for byte, written under a temporary name in the
  same directory and renamed, so concurrent handlers never interleave and a
  kill loses at most the payload being written;
- ``errors.log``: one JSON object per line (``ts``, ``harness``, ``event``,
  ``error``), appended with ``O_APPEND``, rotated to ``errors.log.1`` above 1 MiB;
- ``seen-<harness>.json``: the harness version the last projection saw;
- ``active/<harness>-<session>.json``: a live session not yet closed.

Standard library only, and no ``json`` unless a value has to be written: the
hook handler imports this module on every tool call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

ROTATE_BYTES = 1 << 20
UNKNOWN_SESSION = "_unknown"
HARNESSES = ("claude-code", "codex")


def git_dir(repo: str) -> str:
    """``<repo>/.git`` resolved as git would (a directory, or a ``gitdir:`` file),
    without running git; ``repo`` itself when it is a bare repository."""
    dot = os.path.join(repo, ".git")
    if os.path.isdir(dot):
        return dot
    if os.path.isfile(dot):
        with open(dot, encoding="utf-8") as fh:
            line = fh.readline().strip()
        if line.startswith("gitdir:"):
            target = line[len("gitdir:") :].strip()
            return os.path.normpath(os.path.join(repo, target))
    if os.path.isfile(os.path.join(repo, "HEAD")) and os.path.isdir(os.path.join(repo, "objects")):
        return repo
    raise OSError(f"{repo}: not a git repository (no .git)")


def live_dir(repo: str) -> str:
    return os.path.join(git_dir(repo), "gasp", "live")


def safe_name(text: str) -> str:
    """A session id as one path component (anything odd becomes ``_``)."""
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:128]
    return cleaned.strip(".") or UNKNOWN_SESSION


def session_dir(live: str, harness: str, session: str | None) -> str:
    return os.path.join(live, "spool", harness, safe_name(session or UNKNOWN_SESSION))


def write_payload(live: str, harness: str, session: str | None, data: bytes) -> str:
    """Spool ``data`` as one file; its name sorts by arrival time."""
    folder = session_dir(live, harness, session)
    name = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(4).hex()}.json"
    temporary = os.path.join(folder, f".tmp-{name}")
    for attempt in (1, 2):  # a flush may remove the emptied folder meanwhile
        os.makedirs(folder, exist_ok=True)
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileNotFoundError:
            if attempt == 2:
                raise
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
            _fault_slow_write()
    finally:
        os.close(fd)
    final = os.path.join(folder, name)
    os.rename(temporary, final)
    return final


def _fault_slow_write() -> None:
    """``GASP_LIVE_FAULT=slow-write``: pause mid-write (the kill tests' window)."""
    if os.environ.get("GASP_LIVE_FAULT") == "slow-write":
        time.sleep(5)


STALE_TEMPORARY_S = 3600


def drop_torn(live: str, harness: str, session: str) -> None:
    """Remove temporaries a killed handler left (older than an hour: a
    handler still writing one is never that slow)."""
    folder = session_dir(live, harness, session)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if (
                name.startswith(".tmp-")
                and time.time() - os.stat(path).st_mtime > STALE_TEMPORARY_S
            ):
                os.remove(path)
        except OSError:
            pass


def drop_empty(live: str, harness: str, session: str) -> None:
    """Remove the session's spool folder once it holds nothing."""
    try:
        os.rmdir(session_dir(live, harness, session))
    except OSError:
        pass


def spooled(live: str, harness: str, session: str) -> list[str]:
    """The session's complete spool files, oldest first (temporaries left out)."""
    folder = session_dir(live, harness, session)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    return [os.path.join(folder, n) for n in sorted(names) if n.endswith(".json") and n[0] != "."]


def spooled_sessions(live: str) -> Iterator[tuple[str, str]]:
    """``(harness, session folder name)`` of every session with a spool folder."""
    for harness in HARNESSES:
        try:
            names = sorted(os.listdir(os.path.join(live, "spool", harness)))
        except FileNotFoundError:
            continue
        for name in names:
            yield harness, name


def log_error(live: str, harness: str, event: str | None, error: str) -> None:
    """Append one line to ``errors.log`` (rotated above 1 MiB); never raises."""
    import json
    from datetime import UTC, datetime

    try:
        os.makedirs(live, exist_ok=True)
        path = os.path.join(live, "errors.log")
        try:
            if os.path.getsize(path) > ROTATE_BYTES:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        one_line = " ".join(error.split())[:2000]
        record = {"ts": stamp, "harness": harness, "event": event, "error": one_line}
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "replace")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except Exception:  # the log is the last resort: nothing is left to tell
        pass


def in_background(work: Callable[[], None]) -> None:
    """Run ``work`` in a grandchild in a new session, its streams on
    ``/dev/null``, and return at once: a double fork, so nobody waits for it
    (the harness waits for the hook's output to close, never for this)."""
    pid = os.fork()
    if pid == 0:  # the child: start the grandchild, then go
        try:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                work()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
