"""A received pack's deltas as proof that versions are prefixes of the newest
(``git/packs``): sound on real packs, and the pre-receive hook's verdicts
are the same with and without them, with fewer versions hashed."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from git_gasp.core.appendonly import Anchors, shown_below
from git_gasp.git import BlobReader, ReadAhead
from git_gasp.git.packs import prefix_pairs, received_packs
from git_gasp.hooks.objects import Objects
from git_gasp.hooks.protocol import Rejected
from git_gasp.hooks.serverhooks import pre_receive

from .conftest import git

ZERO = "0" * 40
JOURNAL = "journal/JOURNAL.md"


def _history(repo: Path, commits: int, edit_at: int | None = None) -> list[str]:
    """``commits`` commits on HEAD that no ref names (as a push's are in its
    quarantine), each appending an entry to the journal; with ``edit_at``,
    that commit also rewrites the journal's first line. Their journal blobs."""
    base = git(repo, "rev-parse", "HEAD").strip()
    tip, blobs = base, []
    journal = repo / JOURNAL
    for n in range(commits):
        data = journal.read_bytes() + f"- entry {n}: {'words of the entry ' * 12}\n".encode()
        if n == edit_at:
            data = b"# edited\n" + data.split(b"\n", 1)[1]
        journal.write_bytes(data)
        git(repo, "add", JOURNAL)
        tree = git(repo, "write-tree").strip()
        tip = git(repo, "commit-tree", tree, "-p", tip, "-m", f"entry {n}").strip()
        blobs.append(git(repo, "rev-parse", f"{tip}:{JOURNAL}").strip())
    git(repo, "reset", "-q", "--hard", base)
    git(repo, "update-ref", "refs/gasp-test/tip", tip)  # read back by _quarantine
    return blobs


def _quarantine(repo: Path, where: Path) -> str:
    """The parked commits packed as a push sends them, in ``where/pack``."""
    tip = git(repo, "rev-parse", "refs/gasp-test/tip").strip()
    git(repo, "update-ref", "-d", "refs/gasp-test/tip")
    (where / "pack").mkdir(parents=True)
    revs = f"{tip}\n^HEAD\n".encode()
    cmd = ["git", "-C", str(repo), "pack-objects", "-q", "--revs", str(where / "pack" / "pack")]
    subprocess.run(cmd, input=revs, check=True, capture_output=True)
    return tip


def _judged(
    repo: Path, tip: str, quarantine: Path | None, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, int]:
    """What the hook says of the push of ``tip``, and how many versions it hashed."""
    hashed = []
    real = Anchors._test

    def counted(self: Anchors, blob: object, anchor: str) -> bool:
        hashed.append(blob)
        return real(self, blob, anchor)  # type: ignore[arg-type]

    out = io.StringIO()
    with monkeypatch.context() as patched:
        patched.setattr(Anchors, "_test", counted)
        if quarantine is None:
            patched.delenv("GIT_QUARANTINE_PATH", raising=False)
        else:
            patched.setenv("GIT_QUARANTINE_PATH", str(quarantine))
        try:
            pre_receive(str(repo), [f"{ZERO} {tip} refs/heads/pushed"], {}, out)
        except Rejected:
            out.write("(rejected)\n")
    return out.getvalue(), len(hashed)


def _content(repo: Path, oid: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), "cat-file", "blob", oid], capture_output=True, check=True
    ).stdout


@pytest.mark.parametrize("edit_at", [None, 12])
def test_what_the_deltas_show_is_a_prefix(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit_at: int | None
) -> None:
    blobs = _history(work, 30, edit_at)
    _quarantine(work, tmp_path / "q")
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(tmp_path / "q"))
    with received_packs("sha1") as packs:
        assert len(packs) == 1
        pairs = prefix_pairs(packs, blobs)
        assert pairs  # git made deltas of the versions
        for longer, shorter in pairs.items():
            for short in shorter:
                assert _content(work, longer).startswith(_content(work, short))
        shown = shown_below(pairs, blobs[-1]) & set(blobs)
    newest = _content(work, blobs[-1])
    assert all(newest.startswith(_content(work, b)) for b in shown)
    if edit_at is not None:
        assert not shown & set(blobs[:edit_at])  # they are not prefixes of it


def test_outside_a_quarantine_no_pack_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_QUARANTINE_PATH", raising=False)
    with received_packs("sha1") as packs:
        assert packs == []


@pytest.mark.parametrize("edit_at", [None, 12])
def test_the_hook_says_the_same_with_the_deltas_and_hashes_less(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit_at: int | None
) -> None:
    _history(work, 30, edit_at)
    tip = _quarantine(work, tmp_path / "q")
    with_deltas, fewer = _judged(work, tip, tmp_path / "q", monkeypatch)
    hashing, every = _judged(work, tip, None, monkeypatch)
    assert with_deltas == hashing
    assert ("(rejected)" in hashing) == (edit_at is not None)
    if edit_at is not None:
        assert "was edited" in hashing or "edits" in hashing, hashing
    else:
        assert every >= 30 and fewer < every // 4, (fewer, every)


def _size(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _copy(offset: int, size: int) -> bytes:
    """A copy instruction (size 0x10000 is written as no size bytes)."""
    op, args = 0x80, bytearray()
    for bit in range(4):
        if offset >> (8 * bit) & 0xFF:
            op |= 1 << bit
            args.append(offset >> (8 * bit) & 0xFF)
    for bit in range(3):
        if size != 0x10000 and size >> (8 * bit) & 0xFF:
            op |= 0x10 << bit
            args.append(size >> (8 * bit) & 0xFF)
    return bytes([op]) + bytes(args)


@pytest.mark.parametrize(
    ("base", "target", "body", "copied"),
    [
        (0x20000, 0x18000, _copy(0, 0x10000) + _copy(0x10000, 0x8000), 0x18000),  # a prefix
        (100, 130, _copy(0, 100) + bytes([30]) + b"x" * 30, 100),  # the base, then more
        (100, 100, _copy(0, 50) + _copy(60, 50), 50),  # a gap: only the first copy
        (100, 101, bytes([1]) + b"x" + _copy(0, 100), 0),  # an insertion first
        (0x10000, 0x10000, _copy(0, 0x10000), 0x10000),  # size 0 means 0x10000
    ],
)
def test_the_copied_start_of_a_delta(base: int, target: int, body: bytes, copied: int) -> None:
    from git_gasp.git.packs import _copied_start

    assert _copied_start(_size(base) + _size(target) + body) == (base, target, copied)


def test_a_damaged_or_foreign_index_proves_nothing(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _history(work, 10)
    _quarantine(work, tmp_path / "q")
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(tmp_path / "q"))
    (idx,) = (tmp_path / "q" / "pack").glob("*.idx")
    with received_packs("sha256") as packs:
        assert packs == []  # read with another hash's length, it does not add up
    whole = idx.read_bytes()
    idx.chmod(0o644)
    idx.write_bytes(whole[:-7])
    with received_packs("sha1") as packs:
        assert packs == []


def test_a_read_ahead_hands_over_each_blob_once_and_nothing_else(work: Path) -> None:
    head = git(work, "rev-parse", "HEAD").strip()
    journal = git(work, "rev-parse", f"HEAD:{JOURNAL}").strip()
    specs = [f"{head}:{JOURNAL}", f"{head}:no/such/file", f"{head}:journal", "bad\nspec"]
    ahead = ReadAhead(str(work), specs)
    assert ahead.specs == tuple(specs[:3])  # a line break would shift git's answers
    assert ahead.take(f"{head}:{JOURNAL}", "0" * 40) is None  # not the blob asked for
    ahead = ReadAhead(str(work), specs)
    assert ahead.take(f"{head}:{JOURNAL}", journal) == _content(work, journal)
    assert ahead.take(f"{head}:{JOURNAL}", journal) is None  # handed over once
    assert ahead.take(f"{head}:no/such/file", journal) is None
    assert ahead.take(f"{head}:journal", journal) is None  # a tree, not a blob
    assert ahead.take("HEAD:AGENT.md", journal) is None  # never asked for
    ahead.close()


@pytest.mark.parametrize("edit_at", [None, 12])
def test_the_newest_version_is_read_ahead_and_the_hook_says_the_same(
    work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit_at: int | None
) -> None:
    blobs = _history(work, 30, edit_at)
    tip = _quarantine(work, tmp_path / "q")
    read: list[str] = []
    real = BlobReader.read

    def spied(self: BlobReader, oid: str) -> bytes:
        read.append(oid)
        return real(self, oid)

    monkeypatch.setattr(BlobReader, "read", spied)
    ahead, _ = _judged(work, tip, tmp_path / "q", monkeypatch)
    assert blobs[-1] not in read  # the second cat-file brought it
    read.clear()
    monkeypatch.setattr(Objects, "read_ahead", lambda self, steps: None)
    alone, _ = _judged(work, tip, tmp_path / "q", monkeypatch)
    assert blobs[-1] in read
    assert ahead == alone
    assert ("(rejected)" in alone) == (edit_at is not None)
