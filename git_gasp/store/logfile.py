"""Opening an append-only log safely: a regular file, under a size cap.

A log from an untrusted repository may be a FIFO (every ``open`` would
hang), a device, or a sparse file of gigabytes (restore would allocate it all
and be killed, not refuse). :func:`open_log` opens without blocking, refuses
anything but a regular file, and refuses a file over ``gasp.maxLogBytes``
*before* a byte is read, with a one-line error.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Sequence

from git_gasp import git
from git_gasp.errors import USAGE, GaspError

#: The default cap on a log that is read whole: 512 MiB. A busy agent writes
#: a few MB a month (the benchmarks' 100k-event history is about 60 MB).
DEFAULT_MAX_LOG_BYTES = 512 * 1024 * 1024


class LogRefused(GaspError):
    """The log is not a regular file, or is over the cap."""

    exit_code = USAGE


def max_log_bytes(repo: str) -> int:
    """``git config gasp.maxLogBytes`` (unset, 0 or less: the default)."""
    raw = git.config_value(repo, "gasp.maxLogBytes", "int")
    cap = int(raw) if raw is not None else 0
    return cap if cap > 0 else DEFAULT_MAX_LOG_BYTES


def not_regular(rel: str, mode: int) -> LogRefused:
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else None
    kind = kind or ("a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")
    return LogRefused(
        f"{rel} is {kind}, not a regular file (refused before reading it)",
        f"an agent's files are regular files: replace it (git checkout -- {rel})",
    )


def too_large(rel: str, size: int, cap: int) -> LogRefused:
    return LogRefused(
        f"{rel} is {size} bytes, over the {cap}-byte cap (gasp.maxLogBytes; refused "
        "before reading it)",
        "an untrusted repository's log is never read past the cap; for a log you "
        f"trust, raise it: git config gasp.maxLogBytes {size}",
    )


def open_regular(path: str, rel: str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """``os.open`` that never blocks on a FIFO and refuses a non-regular file."""
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(rel, info.st_mode)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    return fd


def check_size(fd: int, rel: str, cap: int) -> int:
    """The size of the open file ``fd``; :class:`LogRefused` over ``cap``."""
    size = os.fstat(fd).st_size
    if size > cap:
        raise too_large(rel, size, cap)
    return size


def read_capped(path: str, rel: str, repo: str, cap: int | None = None) -> bytes:
    """The whole regular file at ``path``, refused over ``repo``'s cap (or
    ``cap``, read already) before anything is allocated (``FileNotFoundError``
    and other ``OSError`` pass)."""
    cap = max_log_bytes(repo) if cap is None else cap
    fd = open_regular(path, rel)
    try:
        want = check_size(fd, rel, cap) + 1  # one byte more, to see the end
        chunks, total = [], 0
        while chunk := os.read(fd, want):
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:  # it grew while being read
                raise too_large(rel, total, cap)
            want = 1 << 16
        return b"".join(chunks)
    finally:
        os.close(fd)


def refuse_committed_over_cap(repo: str, rels: Sequence[str]) -> None:
    """Refuse a clone whose HEAD holds one of ``rels`` over the cap, from the
    blob's size in the tree, before the checkout writes (and a reader reads)
    it: a 2 GB sparse log is refused in the time of a ``git ls-tree``."""
    cap = max_log_bytes(repo)
    out = git.run(repo, ["ls-tree", "-l", "-z", "HEAD", "--", *rels])
    for record in out.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        fields = meta.split()
        if len(fields) == 4 and fields[1] == b"blob" and fields[3].isdigit():
            if int(fields[3]) > cap:
                raise too_large(name.decode("utf-8", "replace"), int(fields[3]), cap)
