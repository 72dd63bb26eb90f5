"""The one writer of append-only files: lock, check the tail, append, fsync.

Every append to ``state/events.jsonl`` and ``memory/facts.jsonl`` goes through
:func:`locked`: an exclusive ``flock`` on the file (so processes of one worker
never interleave), then the caller reads what other processes appended,
validates, and writes one batch with :meth:`Appender.write`, which refuses to
glue onto a torn (unterminated) final line, writes, flushes and fsyncs the
file (and its directory when the file is new). A crash loses at most the batch
in flight, as a torn final line that :func:`repair` removes.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from typing import BinaryIO

from git_gasp.errors import FINDINGS, GaspError
from git_gasp.store.logfile import open_regular
from git_gasp.store.worktree import inside


class TornTailError(GaspError):
    """The file ends in an unterminated line: a crash mid-append."""

    exit_code = FINDINGS


def torn_error(path: str) -> TornTailError:
    """The one wording for a log that ends in an unterminated line."""
    return TornTailError(
        f"{path}: the last line is unterminated (torn by a crash mid-append)",
        "run `git gasp repair`: it ends a complete line with its newline and removes a "
        "torn one (never one a commit holds: amend that commit instead)",
    )


class Appender:
    """An open, exclusively locked append-only file."""

    def __init__(self, path: str, fd: int, created: bool) -> None:
        self.path = path
        self.fd = fd
        self.created = created

    def size(self) -> int:
        return os.fstat(self.fd).st_size

    def read_from(self, offset: int) -> bytes:
        """The bytes from ``offset`` to the end (what others appended since)."""
        size = self.size()
        chunks = []
        while offset < size:
            chunk = os.pread(self.fd, min(size - offset, 1 << 24), offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def truncate(self, size: int) -> None:
        """Cut the file back to ``size`` bytes (uncommitted bytes a crash left)."""
        os.ftruncate(self.fd, size)
        os.fsync(self.fd)

    def ends_cleanly(self) -> bool:
        size = self.size()
        return size == 0 or os.pread(self.fd, 1, size - 1) == b"\n"

    def write(self, data: bytes) -> None:
        """Append ``data`` (whole lines) durably, or nothing: a write that
        fails (a full disk, a file-size limit, an interrupt) is cut back off
        before the error is raised, so no half batch is left behind."""
        if not self.ends_cleanly():
            raise torn_error(self.path)
        start = self.size()
        try:
            view = memoryview(data)
            while view:
                written = os.write(self.fd, view)
                view = view[written:]
            os.fsync(self.fd)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, start)
                os.fsync(self.fd)
            if isinstance(exc, OSError):
                raise GaspError(
                    f"{self.path}: cannot append: {exc.strerror or exc}; nothing was written",
                    "free some space (or raise the file-size limit) and retry",
                ) from None
            raise
        if self.created:
            _fsync_dir(os.path.dirname(self.path))
            self.created = False


def _fsync_dir(path: str) -> None:
    fd = os.open(path or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(path: str, root: str | None = None) -> Iterator[Appender]:
    """Open ``path`` for appending (creating it) under an exclusive lock; with
    ``root``, only while it stays inside that repository (checked at this
    moment too: a pull may have turned it into a symlink since the open)."""
    if root is not None and not _stays_inside(root, path):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        raise GaspError(
            f"{rel} is a symlink that leads outside the repository (refused)",
            "git-gasp writes only inside the repository; replace the symlink with the file",
        )
    os.makedirs(os.path.dirname(path), exist_ok=True)
    created = not os.path.exists(path)
    fd = open_regular(path, _rel(path, root), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield Appender(path, fd, created)
    finally:
        os.close(fd)  # closing drops the lock


def _rel(path: str, root: str | None) -> str:
    """``path`` as the user knows it: from ``root``, else its last two parts."""
    if root is not None:
        return os.path.relpath(path, root).replace(os.sep, "/")
    return "/".join(path.replace(os.sep, "/").split("/")[-2:])


def _stays_inside(root: str, path: str) -> bool:
    """Whether ``path`` (under ``root``) stays inside it: at once when no
    component below ``root`` is a symlink (two lstat calls for the log), else
    by resolving both."""
    prefix = root.rstrip(os.sep) + os.sep
    parts = path[len(prefix) :].split(os.sep) if path.startswith(prefix) else [".."]
    if ".." not in parts:
        here = root
        for part in parts:
            here = os.path.join(here, part)
            try:
                if stat.S_ISLNK(os.lstat(here).st_mode):
                    break
            except FileNotFoundError:
                return True  # the rest does not exist yet: created under ``here``
            except OSError:
                break  # (not a directory, say): judged by resolving
        else:
            return True
    return inside(root, path)


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _current_umask()


def write_atomically(path: str, data: bytes, sync: bool = True) -> None:
    """Replace ``path`` with ``data`` via a temporary file and a rename: a
    reader sees the old bytes or the new, never a mix (projections, markers).
    The file is synced first unless ``sync`` is false (caches)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path) or ".")
    try:
        os.fchmod(fd, 0o666 & ~UMASK)  # mkstemp makes 0600; files get the usual mode
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # name the file it was for
            raise OSError(exc.errno, exc.strerror, path) from None
        raise


def write_exclusively(path: str, data: bytes) -> bool:
    """Create ``path`` holding ``data``, never seen half-written, unless it
    exists: the bytes are synced to a private file, then hard-linked into
    place (``link`` fails on an existing file as ``O_EXCL`` does). False when
    another process created it first."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path) or ".")
    try:
        os.fchmod(fd, 0o666 & ~UMASK)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return True


def read_consistent(path: str) -> bytes:
    """The whole file under a shared lock: never a batch another process is
    still writing (``b""`` if the file does not exist)."""
    try:
        fd = open_regular(path, _rel(path, None))  # a FIFO would hang the open
    except FileNotFoundError:
        return b""
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        # os.read allocates what it is asked for: ask for the size fstat
        # reports (plus one byte, to see the end), not a fixed large chunk
        want = os.fstat(fd).st_size + 1
        chunks = []
        while chunk := os.read(fd, want):
            chunks.append(chunk)
            want = 1 << 16
        return b"".join(chunks)
    finally:
        os.close(fd)


def torn_tail(data: bytes) -> bytes:
    """The unterminated bytes after the last newline (b"" if none)."""
    cut = data.rfind(b"\n") + 1
    return data[cut:]


def repair(path: str, backup_dir: str, committed_size: int, parses: bool, orphan: int = 0) -> str:
    """Remove an unterminated, unparseable final line, keeping a backup.

    ``committed_size`` is the size of the committed version (HEAD's blob);
    bytes inside it are never touched. ``parses`` says whether the tail is a
    complete event (then it is only terminated with a newline). ``orphan`` is
    the length of a complete line before the tail that belongs to the same
    torn batch (a domain event whose ops pair was the torn line); it goes too.
    Returns what was done, for the user.
    """
    with locked(path) as log:
        data = log.read_from(0)
        tail = torn_tail(data)
        if not tail and not orphan:
            return "nothing to repair: the log ends with a complete line"
        if parses and tail:
            # an append, never an edit: also when a commit holds the line (a log
            # written without a final newline, as REFERENCE §10.4 allows)
            os.write(log.fd, b"\n")
            os.fsync(log.fd)
            return "the last line was complete but unterminated: added its newline"
        cut = len(data) - len(tail)
        if not parses:
            cut -= orphan
            tail = data[cut:]
        if cut < committed_size:
            raise GaspError(
                f"{path}: the unterminated last line is part of the committed log",
                "not a crash tail: a commit holds it, and the log is append-only; "
                "if that commit is not pushed, amend it without the partial line",
            )
        backup, fh = _new_backup(backup_dir)
        with fh:
            fh.write(tail)
            fh.flush()
            os.fsync(fh.fileno())
        os.ftruncate(log.fd, cut)
        os.fsync(log.fd)
        if not torn_tail(data):
            what = "a last event whose ops pair a crash cut off"
        elif orphan:
            what = "a torn last line and the rest of its batch"
        else:
            what = "a torn last line"
        return f"removed {what} of {len(tail)} bytes (saved to {backup})"


def _new_backup(backup_dir: str) -> tuple[str, BinaryIO]:
    """Create a backup file no earlier repair wrote: two repairs in one second by
    one process (or a reused pid) would otherwise overwrite a saved tail."""
    os.makedirs(backup_dir, exist_ok=True)
    stem = os.path.join(backup_dir, f"torn-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    for n in itertools.count():
        name = stem if n == 0 else f"{stem}.{n}"
        try:
            return name, open(name, "xb")
        except FileExistsError:
            continue
    raise AssertionError("unreachable")  # pragma: no cover
