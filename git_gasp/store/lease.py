"""The single-writer lease, ``.agent/lease``, exactly as the reference (REFERENCE §7).

File: compact JSON ``{"worker_id":…,"pid":…,"expires_at_ms":…}``, no newline.
A worker takes it by exclusive create, renews it by write-to-temp + rename,
steals an *expired* lease by renaming it aside (and puts it back if it turns
out to be live), and never steals a corrupt one. The clock is injected.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import NamedTuple

from git_gasp.core.jsonvalue import JsonError, Parser
from git_gasp.errors import FINDINGS, GaspError

DEFAULT_TTL_MS = 600_000
LEASE_PATH = ".agent/lease"
_ATTEMPTS = 3


class LeaseError(GaspError):
    """The lease cannot be taken (held by another worker, corrupt, contended)."""

    exit_code = FINDINGS


class Holder(NamedTuple):
    worker_id: str
    pid: int
    expires_at_ms: int


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def expiry_stamp(ms: int) -> str | None:
    """``expires_at_ms`` as an ISO 8601 UTC time (``2026-12-02T18:04:22Z``),
    or None when it is no time (a corrupt lease's out-of-range number)."""
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return None


def _span(ms: int) -> str:
    """A length of time as a person says it: ``42 s``, ``9 min``, ``5 h``, ``3 days``."""
    seconds = ms // 1000
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    if seconds < 36 * 3600:
        return f"{round(seconds / 3600)} h"
    return f"{round(seconds / 86400)} days"


def describe_expiry(ms: int, now: int) -> str:
    """The lease's expiry as a person reads it: ``2026-12-02 18:04:22 UTC (in
    9 min)`` or ``(expired 3 min ago)``; a lease expiring exactly ``now`` is
    expired, as :meth:`Lease.holder` has it."""
    stamp = expiry_stamp(ms)
    if stamp is None:
        return str(ms)
    when = stamp.replace("T", " ").replace("Z", " UTC")
    return (
        f"{when} (in {_span(ms - now)})" if ms > now else f"{when} (expired {_span(now - ms)} ago)"
    )


def lease_value(held: Holder, now: int) -> dict[str, object]:
    """The lease for ``run status --json``: the record's fields, its expiry as
    an ISO 8601 UTC time (None when it is none) and whether it has expired."""
    return {
        **held._asdict(),
        "expires_at": expiry_stamp(held.expires_at_ms),
        "expired": held.expires_at_ms <= now,
    }


class Lease:
    """The lease of one worker over one agent repository."""

    def __init__(
        self,
        root: str,
        worker_id: str,
        ttl_ms: int = DEFAULT_TTL_MS,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        if not worker_id.strip():
            raise GaspError("worker id must not be blank", "pass --worker ID or set GASP_WORKER_ID")
        self.path = os.path.join(root, LEASE_PATH)
        self.worker_id = worker_id
        self.ttl_ms = ttl_ms
        self.clock = clock

    def _record(self) -> bytes:
        holder = {
            "worker_id": self.worker_id,
            "pid": os.getpid(),
            "expires_at_ms": self.clock() + self.ttl_ms,
        }
        return json.dumps(holder, separators=(",", ":")).encode()

    def _read(self, path: str) -> Holder | None:
        """The holder recorded in ``path``; None if the file vanished."""
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise LeaseError(f"lease file {path} is unreadable: {exc.strerror}") from None
        try:
            parser = Parser()
            data = parser.loads(raw.decode("utf-8"))
            if not isinstance(data, dict):
                raise TypeError("a lease is a JSON object")
            fields = ("worker_id", "pid", "expires_at_ms")
            if parser.duplicate_key(data, fields) is not None:
                # serde refuses a repeated struct field: the reference never takes this lease
                raise ValueError("a lease field is repeated")
            worker, pid, expires = data["worker_id"], data["pid"], data["expires_at_ms"]
            if type(worker) is not str or type(pid) is not int or type(expires) is not int:
                raise TypeError("lease fields have the wrong types")
            if not 0 <= pid < 2**32 or not -(2**63) <= expires < 2**63:
                raise ValueError("lease fields out of range")
            return Holder(worker, pid, expires)
        except (ValueError, KeyError, TypeError, RecursionError, JsonError):
            raise LeaseError(
                f"lease file {path} is corrupt ({raw[:80]!r})",
                "inspect or remove it manually; a corrupt lease is never stolen",
            ) from None

    def holder(self) -> Holder | None:
        """Who holds the lease now (live or expired), or None."""
        return self._read(self.path)

    def acquire(self) -> None:
        """Take or renew the lease; raise :class:`LeaseError` if another worker holds it."""
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        for _ in range(_ATTEMPTS):
            # look first: the common case (our own lease) needs no create attempt
            held = self._read(self.path)
            if held is None:
                if self._create():
                    return
                continue
            if held.worker_id == self.worker_id:
                self._renew()
                return
            if held.expires_at_ms > self.clock():
                raise self._held(held)
            if self._steal():
                continue
        raise LeaseError("could not acquire lease after repeated contention; retry")

    def _create(self) -> bool:
        """Exclusive create that is never seen half-written: the record is
        written and synced to a private file, then hard-linked into place
        (``link`` fails on an existing lease exactly as ``O_EXCL`` does)."""
        tmp = f"{self.path}.new-{os.getpid()}"
        _write_synced(tmp, self._record())
        try:
            os.link(tmp, self.path)
        except FileExistsError:
            return False
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        return True

    def _held(self, held: Holder) -> LeaseError:
        return LeaseError(
            f"lease held by worker `{held.worker_id}` (pid {held.pid}) "
            f"until {describe_expiry(held.expires_at_ms, self.clock())}",
            "wait for it to finish or expire, or use that worker's id",
        )

    def _renew(self) -> None:
        tmp = f"{self.path}.tmp-{os.getpid()}"
        _write_synced(tmp, self._record())
        try:
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _steal(self) -> bool:
        """Move an expired lease aside; put it back (and fail) if it was renewed."""
        aside = f"{self.path}.steal-{os.getpid()}"
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return True
        held = self._read(aside)
        if (
            held is not None
            and held.expires_at_ms > self.clock()
            and held.worker_id != self.worker_id
        ):
            with contextlib.suppress(OSError):
                os.rename(aside, self.path)
            raise self._held(held)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(aside)
        return True

    def take_over(self, held: Holder) -> None:
        """Remove ``held``'s lease (its process is gone), unless it changed
        meanwhile: only the very record read is removed."""
        aside = f"{self.path}.steal-{os.getpid()}"
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return
        if self._read(aside) != held:
            with contextlib.suppress(OSError):
                os.rename(aside, self.path)  # someone else's now: acquire judges it
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(aside)

    def release(self) -> None:
        """Delete the lease if it is ours; a foreign or absent lease is left alone."""
        held = self._read(self.path)
        if held is not None and held.worker_id == self.worker_id:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)


def _write_synced(path: str, data: bytes) -> None:
    """Write and sync a private file, removed again if that fails (a full
    disk leaves no stray lease files behind)."""
    try:
        with open(path, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
