"""Reading an agent repository's files from disk into plain values.

Errors are rendered the way the reference (Rust ``std::io``) words them, so
check messages read the same: ``<description> (os error <n>)``.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from typing import IO

from git_gasp.core.locations import parse_locations
from git_gasp.core.manifest import MAX_MANIFEST_BYTES, identity_hash
from git_gasp.core.pack import Pack, PackError, parse_pack
from git_gasp.core.repochecks import Identity, SnapshotFile
from git_gasp.errors import USAGE, GaspError
from git_gasp.store.logfile import not_regular

EVENTS_PATH = "state/events.jsonl"
#: A snapshot file over this size is never read (restore, check, seeding).
MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024


def os_error(exc: OSError) -> str:
    if exc.errno is None:
        return str(exc)
    return f"{exc.strerror} (os error {exc.errno})"


@contextlib.contextmanager
def open_log(repo: str, cap: int | None = None) -> Iterator[IO[bytes]]:
    """The log opened for a pass over it: a regular file within
    ``gasp.maxLogBytes`` (``cap`` when the caller read it already; refused
    before reading: check 1 then fails)."""
    from git_gasp.store.logfile import check_size, max_log_bytes, open_regular

    fd = open_regular(os.path.join(repo, EVENTS_PATH), EVENTS_PATH)
    with os.fdopen(fd, "rb") as fh:
        check_size(fd, EVENTS_PATH, max_log_bytes(repo) if cap is None else cap)
        yield fh


def read_snapshots(repo: str) -> tuple[list[SnapshotFile] | None, str | None]:
    """Entries of ``snapshots/`` (None if absent) or why it cannot be listed."""
    base = os.path.join(repo, "snapshots")
    if not os.path.isdir(base):
        return None, None
    try:
        names = os.listdir(base)
    except OSError as exc:
        return None, os_error(exc)
    out = []
    for name in names:
        graph = os.path.join(base, name, "graph.json")
        if not os.path.isfile(graph):
            out.append(SnapshotFile(name, None))
            continue
        try:
            if not inside(repo, graph):
                raise OSError("a symlink that leads outside the repository")
            if os.path.getsize(graph) > MAX_SNAPSHOT_BYTES:  # never held in memory
                raise OSError(f"over the {MAX_SNAPSHOT_BYTES >> 20} MiB cap")
            with open(graph, "rb") as fh:
                out.append(SnapshotFile(name, fh.read()))
        except OSError as exc:
            out.append(SnapshotFile(name, None, os_error(exc)))
    return out, None


def read_packs(repo: str) -> tuple[list[Pack], list[str]]:
    """Packs under ``.agent/packs/*.json`` and a problem per bad file (never skipped)."""
    base = os.path.join(repo, ".agent", "packs")
    if not os.path.exists(base):
        return [], []
    try:
        names = sorted(os.listdir(base))
    except OSError as exc:
        return [], [f"cannot read .agent/packs/: {os_error(exc)}"]
    packs, problems = [], []
    for name in names:
        if not name.endswith(".json") or name == ".json":  # Rust: ".json" has no extension
            continue
        try:
            with open(os.path.join(base, name), "rb") as fh:
                text = fh.read().decode("utf-8")
        except OSError as exc:
            problems.append(f"pack {name} unreadable: {os_error(exc)}")
            continue
        except UnicodeDecodeError:
            problems.append(f"pack {name} unreadable: stream did not contain valid UTF-8")
            continue
        try:
            packs.append(parse_pack(text))
        except PackError as exc:
            problems.append(f"pack {name} does not parse as a Pack: {exc}")
    return packs, problems


#: What git-gasp reads or writes in an agent repository besides its
#: Locations; each must stay inside the repository (:func:`escapes`).
AGENT_PATHS = (
    "AGENT.md",
    ".gitignore",
    ".gitattributes",
    "IDENTITY.md",
    ".agent",
    ".agent/packs",
    "state",
    EVENTS_PATH,
    "memory",
    "memory/facts.jsonl",
    "memory/active_memory.md",
    "journal",
    "journal/JOURNAL.md",
    "identity",
    "skills",
    "snapshots",
)
#: Directories whose entries (and each entry's graph.json) are checked too.
_LISTED = (".agent", ".agent/packs", "snapshots", "state", "memory", "journal")


def escapes(repo: str, declared: Iterable[str] = ()) -> list[str]:
    """The repo-relative paths among :data:`AGENT_PATHS`, the entries of the
    directories git-gasp lists and ``declared`` (a manifest's Locations)
    that lead outside the repository through a symlink, so that no command
    reads or writes another file through them (a hostile clone can commit
    ``memory/facts.jsonl -> /etc/passwd``). A path that does not exist is
    judged by where its parent leads."""

    def leaves(rel: str) -> bool:
        return not inside(repo, os.path.join(repo, *rel.split("/")))

    found = [rel for rel in dict.fromkeys([*AGENT_PATHS, *declared]) if leaves(rel)]
    for listed in _LISTED:
        if listed in found or not os.path.isdir(os.path.join(repo, *listed.split("/"))):
            continue
        try:
            names = sorted(os.listdir(os.path.join(repo, *listed.split("/"))))
        except OSError:
            continue
        for name in names:
            rel = f"{listed}/{name}"
            graph = f"{rel}/graph.json"
            if leaves(rel):
                found.append(rel)
            elif listed == "snapshots" and leaves(graph):
                found.append(graph)
    return found


def refuse_escapes(repo: str) -> None:
    """Raise :class:`GaspError` (exit 2) naming the first of :func:`escapes`,
    the manifest's Locations included."""
    found = escapes(repo)
    if not found:
        _refuse_special(repo, AGENT_PATHS)  # a FIFO would hang the first read of it
    if not found:  # AGENT.md stays inside: its Locations can be read
        found = [rel for rel in _declared(repo) if not inside(repo, os.path.join(repo, rel))]
    if found:
        raise GaspError(
            f"{found[0]} is a symlink that leads outside the repository (refused)",
            "git-gasp reads and writes only inside the repository; replace the symlink "
            "with the file or directory it names",
            USAGE,
        )


def _refuse_special(repo: str, paths: Iterable[str]) -> None:
    """Refuse an agent path that is neither a regular file nor a directory (a
    FIFO, a socket, a device), judged by ``stat`` before anything opens it."""
    for rel in paths:
        try:
            mode = os.stat(os.path.join(repo, *rel.split("/"))).st_mode
        except OSError:
            continue  # absent (or unreadable): each reader says so in its own words
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise not_regular(rel, mode)


def _declared(repo: str) -> list[str]:
    """Every path the manifest's Locations table names (none if unreadable)."""
    try:
        with open(os.path.join(repo, "AGENT.md"), "rb") as fh:
            text = fh.read(MAX_MANIFEST_BYTES).decode("utf-8", "replace")
    except OSError:
        return []
    locations, _ = parse_locations(text)
    return [path for paths in locations.values() for path in paths]


def inside(root: str, path: str) -> bool:
    """Whether ``path``, symlinks resolved, stays inside ``root``."""
    base = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def _contained(repo: str, path: str) -> None:
    if not inside(repo, path):
        rel = os.path.relpath(path, repo).replace(os.sep, "/")
        raise OSError(f"{rel} is a symlink that leads outside the repository")


def identity_files(repo: str, sizes_only: bool = False) -> list[tuple[str, bytes]]:
    """Every regular file under ``identity/`` (symlinks followed while they
    stay in the repository; one leading out, or a loop, is refused), or the
    root ``IDENTITY.md``; raises OSError when they cannot be read. With
    ``sizes_only``, each file's size (as ASCII digits) instead of its bytes,
    nothing read."""
    base = os.path.join(repo, "identity")
    if not os.path.isdir(base):
        path = os.path.join(repo, "IDENTITY.md")
        _contained(repo, path)
        if sizes_only:
            return [("IDENTITY.md", str(os.stat(path).st_size).encode())]
        with open(path, "rb") as fh:
            return [("IDENTITY.md", fh.read())]
    _contained(repo, base)
    out = []
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(base, followlinks=True, onerror=_raise):
        real = os.path.realpath(dirpath)
        if real in seen:
            raise OSError(f"symlink loop at {os.path.relpath(dirpath, repo)}")
        seen.add(real)
        for name in [*dirnames, *filenames]:
            _contained(repo, os.path.join(dirpath, name))
        for name in filenames:
            full = os.path.join(dirpath, name)
            if sizes_only:
                st = os.stat(full)
                data: bytes | None = str(st.st_size).encode() if stat.S_ISREG(st.st_mode) else None
            else:
                data = regular_file(full)
            if data is not None:  # a FIFO, socket or device is no regular file: not hashed
                out.append((os.path.relpath(full, repo).replace(os.sep, "/"), data))
        dirnames.sort()
    return out


def regular_file(path: str) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (links followed), else
    None; opened without blocking, so a FIFO cannot hang the reader."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def _raise(exc: OSError) -> None:
    raise exc


def read_identity(repo: str) -> Identity:
    """What check 6 needs: manifest bytes, identity presence, recomputed digest."""
    manifest_path = os.path.join(repo, "AGENT.md")
    manifest = None
    if os.path.isfile(manifest_path):
        try:
            with open(manifest_path, "rb") as fh:
                manifest = fh.read()
        except OSError:
            manifest = b""  # present but unreadable: verification will fail closed
    present = os.path.isdir(os.path.join(repo, "identity")) or os.path.isfile(
        os.path.join(repo, "IDENTITY.md")
    )
    if not present:
        return Identity(False, manifest, None)
    try:
        return Identity(True, manifest, identity_hash(identity_files(repo)))
    except OSError as exc:
        return Identity(True, manifest, None, os_error(exc) if exc.errno else str(exc))
