"""Blobs stored ahead of ``git commit``: the stream format on plain data, then
real repositories (SHA-1 and SHA-256) read back by git itself."""

from __future__ import annotations

import os
import stat
import subprocess
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_gasp import gitrepo
from git_gasp.agent import Agent
from git_gasp.core.appendonly import Blob
from git_gasp.init import init_repo
from git_gasp.looseobjects import (
    MIN_BYTES,
    Cached,
    adler32_combine,
    deflate_part,
    format_cache,
    loose_object,
    parse_cache,
    store_appended,
)
from git_gasp.runs import close_run

from .conftest import git

LOG = "state/events.jsonl"


# -- the format, on plain data ----------------------------------------------------------


@given(st.binary(max_size=300), st.binary(max_size=300))
def test_adler32_combine_is_zlibs(first: bytes, second: bytes) -> None:
    combined = adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert combined == zlib.adler32(first + second)


@given(st.lists(st.binary(max_size=5000), max_size=4))
def test_parts_deflated_apart_make_one_stream(chunks: list[bytes]) -> None:
    parts = [deflate_part(c) for c in chunks]
    assert all(p is not None for p in parts)
    content = b"".join(chunks)
    stream = loose_object([p for p in parts if p is not None], len(content), zlib.adler32(content))
    back = zlib.decompressobj()
    assert back.decompress(stream) == b"blob %d\0" % len(content) + content
    assert back.eof and not back.unused_data  # the final block and the checksum are right


def test_a_cache_round_trips_and_a_damaged_one_is_refused() -> None:
    part = deflate_part(b"line\n" * 100)
    assert part is not None
    cached = Cached(500, "ab" * 20, zlib.adler32(b"line\n" * 100), part)
    raw = format_cache(cached)
    assert parse_cache(raw) == cached
    assert parse_cache(raw[:-1]) is None  # truncated part: its CRC no longer matches
    assert parse_cache(raw.replace(b"gasp-deflate-v1", b"gasp-deflate-v9")) is None
    assert parse_cache(b"") is None
    assert parse_cache(b"gasp-deflate-v1 x y z w\n") is None


# -- real repositories -------------------------------------------------------------------


def _repo(tmp_path: Path, object_format: str = "sha1", *extra: str) -> Path:
    root = tmp_path / object_format
    subprocess.run(
        ["git", "init", "-q", f"--object-format={object_format}", *extra, str(root)], check=True
    )
    (root / "state").mkdir()
    return root


def _line(i: int) -> bytes:
    return b'{"id":"event_%06d","kind":"observation.recorded","text":"%s"}\n' % (i, b"x" * 80)


def _committed(root: Path, content: bytes) -> Blob:
    (root / LOG).write_bytes(content)
    git(root, "add", LOG)
    git(root, "commit", "-q", "-m", "log")
    oid = git(root, "rev-parse", f"HEAD:{LOG}").strip()
    return Blob(oid, len(content))


def _object_path(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_stored_blobs_are_what_git_reads_and_commits(tmp_path: Path, object_format: str) -> None:
    root = _repo(tmp_path, object_format)
    content = b"".join(_line(i) for i in range(1000))
    assert len(content) > MIN_BYTES
    start = _committed(root, content)
    common = gitrepo.repo_info(str(root)).common_dir
    for round_ in range(3):  # cold (no cache), then from the cache each time
        content += b"".join(_line(10_000 * (round_ + 1) + i) for i in range(5 + round_))
        oid = store_appended(content, LOG, common, object_format, start)
        assert oid is not None
        path = _object_path(root, oid)
        assert stat.S_IMODE(path.stat().st_mode) & 0o222 == 0  # read-only, as git writes it
        inode = path.stat().st_ino
        assert git(root, "cat-file", "-t", oid).strip() == "blob"
        (root / LOG).write_bytes(content)
        assert git(root, "hash-object", LOG).strip() == oid
        git(root, "commit", "-q", "-m", f"round {round_}", "--", LOG)
        assert git(root, "rev-parse", f"HEAD:{LOG}").strip() == oid
        assert path.stat().st_ino == inode  # git found it and wrote nothing
        assert (
            subprocess.run(["git", "cat-file", "blob", oid], cwd=root, capture_output=True).stdout
            == content
        )
        start = Blob(oid, len(content))
    fsck = subprocess.run(
        ["git", "fsck", "--full", "--strict"], cwd=root, capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert len(os.listdir(Path(common) / "gasp" / "deflate-v1")) == 1


def test_a_cache_for_other_bytes_is_not_used(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    content = b"".join(_line(i) for i in range(1000))
    start = _committed(root, content)
    common = gitrepo.repo_info(str(root)).common_dir
    assert store_appended(content + _line(1), LOG, common, "sha1", start) is not None
    rewritten = content.replace(b"event_000001", b"event_00000X") + _line(2)
    oid = store_appended(rewritten, LOG, common, "sha1", None)  # no longer starts with it
    assert oid is not None
    out = subprocess.run(["git", "cat-file", "blob", oid], cwd=root, capture_output=True)
    assert out.stdout == rewritten
    # a caller's claim about the start is checked against the cache, not trusted blindly
    again = rewritten + _line(3)
    oid = store_appended(again, LOG, common, "sha1", Blob("0" * 40, 10))
    out = subprocess.run(["git", "cat-file", "blob", oid or ""], cwd=root, capture_output=True)
    assert out.stdout == again


def test_git_is_left_to_store_where_it_would_lay_objects_out_differently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = b"".join(_line(i) for i in range(1000))
    shared = _repo(tmp_path, "sha1", "--shared=group")
    common = gitrepo.repo_info(str(shared)).common_dir
    assert store_appended(content, LOG, common, "sha1") is None
    plain = tmp_path / "plain"
    subprocess.run(["git", "init", "-q", str(plain)], check=True)
    common = gitrepo.repo_info(str(plain)).common_dir
    assert store_appended(content[:1000], LOG, common, "sha1") is None  # small: not worth it
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path / "elsewhere"))
    assert store_appended(content, LOG, common, "sha1") is None
    monkeypatch.delenv("GIT_OBJECT_DIRECTORY")
    assert store_appended(content, LOG, common, "sha1") is not None


# -- the boundary commit -----------------------------------------------------------------


def _long_agent(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    with Agent.open(str(root), worker="w") as agent:
        agent.start_run("warm up")
        for i in range(400):
            agent.record_observation(None, f"observation {i}", "x" * 100)
        close_run(agent, "first")
    return root


def test_a_close_commits_the_log_blob_stored_ahead(tmp_path: Path) -> None:
    root = _long_agent(tmp_path)
    with Agent.open(str(root), worker="w") as agent:
        agent.start_run("second")
        agent.record_observation(None, "more", "y")
        closed = close_run(agent, "second")
    assert closed.commit is not None
    oid = git(root, "rev-parse", f"HEAD:{LOG}").strip()
    cache = root / ".git" / "gasp" / "deflate-v1"
    assert any(oid.encode() in p.read_bytes()[:200] for p in cache.iterdir())
    fsck = subprocess.run(["git", "fsck", "--full"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


def test_a_refused_close_leaves_the_index_as_it_was(tmp_path: Path) -> None:
    root = _long_agent(tmp_path)
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'not today' >&2\nexit 1\n")
    hook.chmod(0o755)
    with Agent.open(str(root), worker="w") as agent:
        agent.start_run("refused")
        with pytest.raises(Exception, match="not today"):
            close_run(agent, "refused")
    assert git(root, "diff", "--cached", "--name-only") == ""  # nothing left staged
    (root / "other.txt").write_text("staged by the user\n")
    git(root, "add", "other.txt")
    with Agent.open(str(root), worker="w") as agent:
        with pytest.raises(Exception, match="not today"):
            close_run(agent, "refused again")
    assert git(root, "diff", "--cached", "--name-only").split() == ["other.txt"]
    hook.unlink()
    with Agent.open(str(root), worker="w") as agent:
        close_run(agent, "accepted")
    assert "other.txt" not in git(root, "show", "--name-only", "--format=", "HEAD")
    assert git(root, "diff", "--cached", "--name-only").split() == ["other.txt"]
