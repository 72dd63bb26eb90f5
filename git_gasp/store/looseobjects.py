"""Blobs of append-only files stored ahead of ``git commit``.

Part of the git adapter: the one place git-gasp writes into the object store
itself. ``git commit`` hashes each changed file and skips writing an object
the store already has. The agent log grows by a few lines per run and reaches
megabytes, so compressing each new version is most of what a close costs in
git (zlib, from the first byte, every time). :func:`store_appended` writes the
loose object git would write, under the same name, compressing only what was
appended since the last time:

- a loose object is ``zlib("blob <size>\\0" + content)``. Raw deflate parts
  that each end in a full flush (``Z_FULL_FLUSH`` empties the window) are
  independent, so their concatenation is one valid stream: the header, the
  content compressed earlier, the appended bytes, an empty final block,
  framed by zlib's two-byte header and the Adler-32 of the whole;
- the content compressed earlier is cached per file under
  ``<git-dir>/gasp/deflate-v1/`` with the blob id it compresses, and used
  only for content that starts with exactly that blob: hashed, or compared
  byte for byte with bytes the caller hashed;
- every new part is inflated again and compared before it is used, the cache
  carries the CRC-32 of its part (a torn or damaged cache is not used), and
  an object appears under its name by ``link``, complete or not at all.

It compresses at git's level (``core.looseCompression``, else
``core.compression``, else 1) and syncs each object to disk when
``core.fsync`` or ``core.fsyncObjectFiles`` is set (git's default leaves
loose objects to the OS). It is an optimisation and never a
requirement: wherever git would lay the object out differently
(``GIT_OBJECT_DIRECTORY`` set, ``core.sharedRepository``, a compatibility
object format) or anything fails, nothing is written and ``git commit``
stores the blob itself as usual.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import zlib
from typing import NamedTuple

from git_gasp import git
from git_gasp.core.appendonly import Blob, blob_id
from git_gasp.store import writer

_LEVEL = 1  # git's default core.looseCompression (Z_BEST_SPEED)
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KiB window (the level bits are informative)
_FINAL = b"\x03\x00"  # an empty final block, after a byte-aligned full flush
_SETTINGS = (
    r"^(core\.(sharedrepository|loosecompression|compression|fsync|fsyncobjectfiles)"
    r"|extensions\.compatobjectformat)$"
)
_NOT_SHARED = ("", "false", "no", "off", "0", "umask")
_MAGIC = b"gasp-deflate-v1"
MIN_BYTES = 64 << 10  # smaller files cost git next to nothing


_ADLER_BASE = 65521


class Cached(NamedTuple):
    size: int  # bytes of content the part compresses
    oid: str  # their blob id
    adler: int  # their Adler-32
    part: bytes  # raw deflate, ending in a full flush


class LooseStore(NamedTuple):
    """Where and how git writes loose objects in one repository."""

    objects: str  # the objects directory
    cache: str  # the compressed starts: <git-dir>/gasp/deflate-v1
    object_format: str
    level: int  # zlib level
    sync: bool  # fsync each object: core.fsync or core.fsyncObjectFiles is set


def loose_store(root: str, info: git.RepoInfo) -> LooseStore | None:
    """The repository's loose-object store, or None where git would write
    objects differently from :func:`_write_object` (read from git config)."""
    if os.environ.get("GIT_OBJECT_DIRECTORY"):
        return None
    settings = dict(git.config_entries(root, _SETTINGS))
    shared = settings.get("core.sharedrepository")
    if (shared is not None and shared.lower() not in _NOT_SHARED) or (
        "extensions.compatobjectformat" in settings
    ):
        return None
    raw = settings.get("core.loosecompression", settings.get("core.compression", str(_LEVEL)))
    try:
        level = int(raw)
    except ValueError:
        return None
    if not -1 <= level <= 9:
        return None
    objects = os.path.join(info.common_dir, "objects")
    try:
        if os.stat(objects).st_mode & stat.S_ISGID:  # git init --shared
            return None
    except OSError:
        return None
    cache = os.path.join(info.git_dir, "gasp", "deflate-v1")
    sync = "core.fsync" in settings or "core.fsyncobjectfiles" in settings
    return LooseStore(objects, cache, info.object_format, level, sync)


def deflate_part(data: bytes | memoryview, level: int = _LEVEL) -> bytes | None:
    """Raw deflate of ``data`` ending in a full flush, or None if inflating
    it does not give ``data`` back."""
    comp = zlib.compressobj(level, zlib.DEFLATED, -15)
    part = comp.compress(data) + comp.flush(zlib.Z_FULL_FLUSH)
    if zlib.decompressobj(-15).decompress(part) != data:
        return None
    return part


def adler32_combine(first: int, second: int, second_len: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs
    (zlib's ``adler32_combine``, which Python's zlib does not expose)."""
    a1, b1 = first & 0xFFFF, first >> 16
    a2, b2 = second & 0xFFFF, second >> 16
    a = (a1 + a2 - 1) % _ADLER_BASE
    b = (b1 + second_len * a1 + b2 - second_len) % _ADLER_BASE
    return (b << 16) | a


def loose_object(parts: list[bytes], size: int, adler: int) -> bytes:
    """The zlib stream of a blob of ``size`` bytes whose content is the
    concatenation of the deflated ``parts``, and whose Adler-32 is ``adler``."""
    header = b"blob %d\0" % size
    head = deflate_part(header)
    if head is None:
        raise ValueError("the object header did not deflate")
    whole = adler32_combine(zlib.adler32(header), adler, size)
    return b"".join((_ZLIB_HEADER, head, *parts, _FINAL, whole.to_bytes(4, "big")))


def parse_cache(raw: bytes) -> Cached | None:
    """``gasp-deflate-v1 <size> <oid> <adler> <crc32 of part>\\n<part>``, or None."""
    line, _, part = raw.partition(b"\n")
    fields = line.split(b" ")
    if len(fields) != 5 or fields[0] != _MAGIC or not all(f.isdigit() for f in fields[1:5:2]):
        return None
    if not fields[3].isdigit() or zlib.crc32(part) != int(fields[4]):
        return None
    return Cached(int(fields[1]), fields[2].decode("ascii", "replace"), int(fields[3]), part)


def format_cache(cached: Cached) -> bytes:
    fields = (_MAGIC, b"%d" % cached.size, cached.oid.encode(), b"%d" % cached.adler)
    return b" ".join((*fields, b"%d" % zlib.crc32(cached.part))) + b"\n" + cached.part


def store_appended(
    where: LooseStore, key: str, data: bytes, start: tuple[Blob, bytes] | None = None
) -> str | None:
    """Store ``data``, the content the file ``key`` (its path from the top of
    the work tree) is about to be committed with; its object id, or None if
    git is left to. ``start``: a blob and bytes the caller hashed to it, which
    ``data`` may start with (compared, not hashed again)."""
    name = hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()
    cache = os.path.join(where.cache, name)
    try:
        if len(data) < MIN_BYTES:
            return None
        view = memoryview(data)
        if start is not None and start[0].size == len(data) and data == start[1]:
            return start[0].oid  # unchanged: git has its blob
        done = _usable(cache, data, where.object_format, start)
        rest = view[done.size :] if done else view
        new = deflate_part(rest, where.level)
        if new is None:
            return None
        adler = zlib.adler32(rest)
        if done:
            adler = adler32_combine(done.adler, adler, len(rest))
        part = done.part + new if done else new
        oid = blob_id(view, len(data), where.object_format)
        _write_object(where.objects, oid, loose_object([part], len(data), adler), where.sync)
        writer.write_atomically(
            cache, format_cache(Cached(len(data), oid, adler, part)), sync=False
        )
        return oid
    except (OSError, ValueError):
        return None


def _usable(
    cache: str, data: bytes, object_format: str, start: tuple[Blob, bytes] | None
) -> Cached | None:
    """The cached part, if ``data`` starts with exactly the blob it compresses."""
    try:
        with open(cache, "rb") as fh:
            cached = parse_cache(fh.read())
    except OSError:
        return None
    if cached is None or cached.size > len(data):
        return None
    if start is not None:
        blob, hashed = start
        if (blob.oid, blob.size) == (cached.oid, cached.size) and len(hashed) >= blob.size:
            return cached if data.startswith(memoryview(hashed)[: blob.size]) else None
    if blob_id(memoryview(data)[: cached.size], cached.size, object_format) != cached.oid:
        return None
    return cached


def _write_object(objects: str, oid: str, stream: bytes, sync: bool) -> None:
    """``objects/xx/yyyy…`` read-only, as git writes it; a temporary file
    linked into place, so the name never shows a partial object."""
    fanout = os.path.join(objects, oid[:2])
    final = os.path.join(fanout, oid[2:])
    if os.path.exists(final):
        return
    with contextlib.suppress(FileExistsError):
        os.mkdir(fanout)  # as git makes it outside a shared repository: 0777 less the umask
    fd, tmp = tempfile.mkstemp(prefix="tmp_obj_", dir=fanout)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(stream)
            fh.flush()
            if sync:  # git's default leaves loose objects to the OS (core.fsync)
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o444 & ~writer.UMASK)
        with contextlib.suppress(FileExistsError):
            os.link(tmp, final)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
