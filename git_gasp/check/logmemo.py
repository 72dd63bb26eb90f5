"""The log pass's memo for ``git gasp check``, in ``<git-common-dir>/gasp/``.

The log only grows. After a pass, where it stood at the end of the log
(:class:`~git_gasp.check.logpass.PassState`: the line counts, check 1's
errors and findings, the fold, and what checks 3, 5 and 7 keep as the events
pass) is kept with the size and SHA-256 of the bytes it read. The next check
reads that many bytes of the log again; only if they hash the same does its
pass go on from the next line, so a re-check after one more run parses only
the new lines (and those of the runs since the memo was last written: see
:data:`REWRITE`).

Anything else means a full pass: another log, an edited or cut log, another
version of git-gasp or of the modules that shape the state, other packs
(check 3's vocabulary), snapshots that check 2 compares with a prefix of the
log, a damaged memo. The memo saves time; it never decides a verdict.

It is a pickle that may name no class but git-gasp's own named tuples and
:class:`~git_gasp.core.ops.OpsError` (:class:`_Unpickler`), so a memo
someone else wrote can build no other object and call nothing else.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Iterator
from typing import IO, Any

from git_gasp import __version__
from git_gasp.check.logpass import PassState
from git_gasp.core.log import gc_paused
from git_gasp.store import writer

CACHE_NAME = "checklog-v2.pickle"
#: the modules whose code decides what a pass's state holds
_CODE = (
    "git_gasp.check.logpass",
    "git_gasp.core.checks",
    "git_gasp.core.event",
    "git_gasp.core.fold",
    "git_gasp.core.graph",
    "git_gasp.core.jsonvalue",
    "git_gasp.core.log",
    "git_gasp.core.ops",
    "git_gasp.core.pack",
    "git_gasp.core.repochecks",
    "git_gasp.core.resume",
    "git_gasp.core.runlifecycle",
)
#: the one class a memo may hold that is not a named tuple: a malformed ops
#: payload's error, which check 7 names (``ValueError``'s ``__init__`` only)
_ERRORS = {("git_gasp.core.ops", "OpsError")}
_CHUNK = 1 << 20
#: the memo is written again once the lines read past it exceed 1/REWRITE of
#: its size: writing it costs about as much as parsing a tenth of the log, so
#: a re-check after each of many runs reads a few runs' lines and writes nothing
REWRITE = 16


def _code_key() -> str:
    digest = hashlib.sha256(__version__.encode())
    for name in _CODE:
        path = getattr(sys.modules.get(name), "__file__", None)
        try:
            with open(path or "", "rb") as fh:
                digest.update(fh.read())
        except OSError:
            return ""
    return digest.hexdigest()


class _Unpickler(pickle.Unpickler):
    """Builds dicts, lists, sets, tuples, bytes, strings and numbers,
    git-gasp's named tuples (whose ``__new__`` only stores its fields) and
    :data:`_ERRORS`; any other class or callable a pickle names is refused."""

    def find_class(self, module: str, name: str) -> Any:
        found = (
            getattr(sys.modules.get(module), name, None) if module.startswith("git_gasp.") else None
        )
        if isinstance(found, type) and issubclass(found, tuple) and hasattr(found, "_fields"):
            return found
        if (module, name) in _ERRORS and isinstance(found, type):
            return found
        raise pickle.UnpicklingError(f"{module}.{name} is not kept in a log memo")


class HashedLines:
    """The lines of ``fh`` from where it stands, hashed into ``digest`` as read."""

    def __init__(self, fh: IO[bytes], digest: Any, size: int) -> None:
        self.fh, self.digest, self.size = fh, digest, size

    def __iter__(self) -> Iterator[bytes]:
        update = self.digest.update
        for line in self.fh:
            update(line)
            self.size += len(line)
            yield line


class LogMemo:
    """The memo of one repository (``common_dir`` None: none, as ``--no-cache``)."""

    def __init__(self, common_dir: str | None, log_path: str) -> None:
        self.path = os.path.join(common_dir, "gasp", CACHE_NAME) if common_dir else None
        self.log = os.path.realpath(log_path)
        self.key = _code_key() if self.path else ""
        self.loaded_size = -1

    def resume(self, fh: IO[bytes]) -> tuple[PassState | None, HashedLines]:
        """The kept state if the log still begins with the bytes it read, and
        the lines of ``fh`` after those (all of them when there is none)."""
        digest = hashlib.sha256()
        state = self._load(fh, digest)
        if state is None:
            fh.seek(0)
            digest = hashlib.sha256()
            self.loaded_size = -1
        return state, HashedLines(fh, digest, max(self.loaded_size, 0))

    def restart(self, lines: HashedLines) -> HashedLines:
        """All the lines again, when the caller cannot use the state."""
        lines.fh.seek(0)
        self.loaded_size = -1
        return HashedLines(lines.fh, hashlib.sha256(), 0)

    def _load(self, fh: IO[bytes], digest: Any) -> PassState | None:
        if self.path is None or not self.key:
            return None
        try:
            with open(self.path, "rb") as memo, gc_paused():  # faster: the state is acyclic
                data = _Unpickler(memo).load()
            if (data["key"], data["log"]) != (self.key, self.log):
                return None
            size, state = data["size"], data["state"]
            if not isinstance(state, PassState) or size > os.fstat(fh.fileno()).st_size:
                return None
            left = size
            while left > 0:
                chunk = fh.read(min(left, _CHUNK))
                if not chunk:
                    return None
                digest.update(chunk)
                left -= len(chunk)
            if digest.hexdigest() != data["digest"]:
                return None
        except Exception:  # a damaged memo is no memo: a full pass
            return None
        self.loaded_size = size
        return state

    def save(self, state: PassState | None, lines: HashedLines) -> None:
        """Keep ``state``, the pass's end over every line ``lines`` gave."""
        if self.path is None or not self.key or state is None:
            return
        if self.loaded_size >= 0 and lines.size - self.loaded_size <= self.loaded_size // REWRITE:
            return  # writing the memo again costs more than the pass reads past it
        data = {
            "key": self.key,
            "log": self.log,
            "size": lines.size,
            "digest": lines.digest.hexdigest(),
            "state": state,
        }
        try:
            blob = pickle.dumps(data, pickle.HIGHEST_PROTOCOL)
            writer.write_atomically(self.path, blob, sync=False)
        except (OSError, RecursionError, pickle.PicklingError):
            pass  # a read-only repository (a server, a mounted clone) just isn't cached
