"""Which blobs a received pack shows to be prefixes of another, from its deltas.

Inside a pre-receive hook the pushed objects wait in a quarantine pack
(``$GIT_OBJECT_DIRECTORY/pack/``) whose index ``git index-pack`` wrote after
resolving and hashing every object in it: the id an index names for an entry
is the id of the bytes that entry's delta makes. A delta whose instructions
copy its base's bytes 0..n in order and nothing else makes the first n bytes
of its base; one that starts by copying all of its base in order makes bytes
that begin with the base. So where every version of an append-only file is a
delta of another, the deltas alone show which versions are prefixes of the
newest (the relation is transitive), with no version hashed or inflated: the
pack's index, each entry's header and its delta's instructions are read,
nothing else. A version no delta ties to the newest is left to the caller
(it hashes it, as it would without this).

Only pack index version 2 is read; any other file, a damaged one or an
object stored some other way proves nothing.
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

_IDX_MAGIC = b"\377tOc"
_OFS_DELTA, _REF_DELTA = 6, 7


class _Pack:
    """One pack and its index (version 2), mapped read-only."""

    def __init__(self, idx: bytes, pack: mmap.mmap, hash_len: int) -> None:
        if idx[:4] != _IDX_MAGIC or struct.unpack(">I", idx[4:8])[0] != 2:
            raise ValueError("not a version 2 pack index")
        count = struct.unpack(">I", idx[8 + 255 * 4 : 8 + 256 * 4])[0]
        ids_at = 8 + 256 * 4
        offsets_at = ids_at + count * (hash_len + 4)
        large_at = offsets_at + count * 4
        self.pack, self.hash_len = pack, hash_len
        hexes, width = idx[ids_at : ids_at + count * hash_len].hex(), 2 * hash_len
        small = struct.unpack(f">{count}I", idx[offsets_at:large_at])
        large = sum(1 for where in small if where & 0x80000000)
        if len(idx) != large_at + 8 * large + 2 * hash_len or pack[:4] != b"PACK":
            raise ValueError("not the index of this pack, or not of this hash")
        self.offset: dict[str, int] = {}
        for i, where in enumerate(small):
            if where & 0x80000000:  # past 2 GiB: in the table of 8-byte offsets
                at = large_at + (where & 0x7FFFFFFF) * 8
                (where,) = struct.unpack(">Q", idx[at : at + 8])
            self.offset[hexes[i * width : (i + 1) * width]] = where
        self.oid_at = {where: oid for oid, where in self.offset.items()}
        ends = sorted(self.oid_at)
        last = len(pack) - hash_len  # the pack's checksum follows its last entry
        self.end = dict(zip(ends, [*ends[1:], last], strict=True))

    def delta(self, oid: str) -> tuple[str, bytes] | None:
        """The base id and the delta of ``oid``'s entry, if it is a delta."""
        start = self.offset[oid]
        data, at = self.pack, start
        byte = data[at]
        kind = (byte >> 4) & 7
        while byte & 0x80:
            at += 1
            byte = data[at]
        at += 1
        if kind == _OFS_DELTA:
            byte = data[at]
            back = byte & 0x7F
            while byte & 0x80:
                at += 1
                byte = data[at]
                back = ((back + 1) << 7) | (byte & 0x7F)
            at += 1
            base = self.oid_at.get(start - back)
        elif kind == _REF_DELTA:
            base = bytes(data[at : at + self.hash_len]).hex()
            at += self.hash_len
        else:
            return None
        if base is None:
            return None
        return base, zlib.decompress(data[at : self.end[start]])


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


# long: one loop over the delta's instructions, unrolled (the hot path of a whole-history push)
def _copied_start(delta: bytes) -> tuple[int, int, int]:
    """The base's size, the target's, and how many bytes the delta's first
    instructions copy from the base's start to the target's, in order."""
    base_size, at = _varint(delta, 0)
    target_size, at = _varint(delta, at)
    done, end = 0, len(delta)
    while at < end:
        op = delta[at]
        at += 1
        if not op & 0x80:
            break  # an insertion (or the reserved 0): the copied start ends here
        offset = size = 0
        if op & 0x01:
            offset = delta[at]
            at += 1
        if op & 0x02:
            offset |= delta[at] << 8
            at += 1
        if op & 0x04:
            offset |= delta[at] << 16
            at += 1
        if op & 0x08:
            offset |= delta[at] << 24
            at += 1
        if op & 0x10:
            size = delta[at]
            at += 1
        if op & 0x20:
            size |= delta[at] << 8
            at += 1
        if op & 0x40:
            size |= delta[at] << 16
            at += 1
        if offset != done:
            break
        done += size or 0x10000
    return base_size, target_size, done


def _prefix_edges(pack: _Pack, oid: str) -> Iterator[tuple[str, str, str]]:
    """(shorter, longer, base) when ``oid``'s delta shows one of it and its
    base to be a prefix of the other."""
    found = pack.delta(oid)
    if found is None:
        return
    base, delta = found
    base_size, target_size, copied = _copied_start(delta)
    if copied == target_size <= base_size:
        yield oid, base, base  # it is its base's first bytes
    elif copied == base_size <= target_size:
        yield base, oid, base  # it starts with all of its base


def prefix_pairs(packs: Sequence[_Pack], oids: Iterable[str]) -> dict[str, set[str]]:
    """For each object the deltas of ``oids`` (and of their bases, and so
    on) show to hold shorter ones at its start, those shorter ones."""
    shorter: dict[str, set[str]] = {}
    todo = list(dict.fromkeys(oids))
    seen = set(todo)
    while todo:
        oid = todo.pop()
        pack = next((p for p in packs if oid in p.offset), None)
        if pack is None:
            continue
        try:
            edges = list(_prefix_edges(pack, oid))
        except (IndexError, ValueError, zlib.error):
            continue  # a damaged entry proves nothing
        for short, long, base in edges:
            shorter.setdefault(long, set()).add(short)
            if base not in seen:  # its base's own delta may tie it further
                seen.add(base)
                todo.append(base)
    return shorter


@contextmanager
def received_packs(hash_name: str) -> Iterator[list[_Pack]]:
    """The packs of a pre-receive's quarantine (``GIT_QUARANTINE_PATH``, where
    git keeps the pushed objects until the hook accepts them): none outside one."""
    quarantine = os.environ.get("GIT_QUARANTINE_PATH")
    folder = os.path.join(quarantine, "pack") if quarantine else ""
    names = sorted(os.listdir(folder)) if folder and os.path.isdir(folder) else []
    found: list[_Pack] = []
    files: list[mmap.mmap] = []
    try:
        for name in names:
            if name.endswith(".idx"):
                try:
                    found.append(_open(os.path.join(folder, name[:-4]), hash_name, files))
                except (OSError, ValueError, struct.error):
                    continue  # a pack being written, or not one: proves nothing
        yield found
    finally:
        for mapped in files:
            mapped.close()


def _open(base: str, hash_name: str, files: list[mmap.mmap]) -> _Pack:
    with open(base + ".idx", "rb") as fh:
        idx = fh.read()
    with open(base + ".pack", "rb") as fh:
        files.append(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
    return _Pack(idx, files[-1], 32 if hash_name == "sha256" else 20)
