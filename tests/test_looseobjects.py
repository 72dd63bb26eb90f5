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

from git_gasp import git as gitrepo
from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.agent.runs import close_run
from git_gasp.core.appendonly import Blob
from git_gasp.store.looseobjects import (
    MIN_BYTES,
    Cached,
    LooseStore,
    adler32_combine,
    deflate_part,
    format_cache,
    loose_object,
    loose_store,
    parse_cache,
    store_appended,
)

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


def _store(root: Path) -> LooseStore:
    where = loose_store(str(root), gitrepo.repo_info(str(root)))
    assert where is not None
    return where


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_stored_blobs_are_what_git_reads_and_commits(tmp_path: Path, object_format: str) -> None:
    root = _repo(tmp_path, object_format)
    content = b"".join(_line(i) for i in range(1000))
    assert len(content) > MIN_BYTES
    start = (_committed(root, content), content)
    where = _store(root)
    for round_ in range(3):  # cold (no cache), then from the cache each time
        content += b"".join(_line(10_000 * (round_ + 1) + i) for i in range(5 + round_))
        oid = store_appended(where, LOG, content, start)
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
        assert _blob(root, oid) == content
        start = (Blob(oid, len(content)), content)
    _fsck(root)
    assert len(os.listdir(where.cache)) == 1


def _blob(root: Path, oid: str) -> bytes:
    return subprocess.run(["git", "cat-file", "blob", oid], cwd=root, capture_output=True).stdout


def _fsck(root: Path) -> None:
    fsck = subprocess.run(
        ["git", "fsck", "--full", "--strict"], cwd=root, capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


def test_a_cache_is_used_only_for_content_that_starts_with_its_blob(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    content = b"".join(_line(i) for i in range(1000))
    blob = _committed(root, content)
    where = _store(root)
    assert store_appended(where, LOG, content + _line(1), (blob, content)) is not None
    rewritten = content.replace(b"event_000001", b"event_00000X") + _line(1) + _line(2)
    oid = store_appended(where, LOG, rewritten)  # no longer starts with the cached blob
    assert oid is not None and _blob(root, oid) == rewritten
    # bytes the caller hashed, but not the bytes to store: compared, so never trusted
    stale = content + _line(1)
    again = rewritten + _line(3)
    oid = store_appended(where, LOG, again, (Blob(oid, len(rewritten)), stale))
    assert oid is not None and _blob(root, oid) == again
    _fsck(root)


def test_git_is_left_to_store_where_it_would_lay_objects_out_differently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = _repo(tmp_path, "sha1", "--shared=group")
    assert loose_store(str(shared), gitrepo.repo_info(str(shared))) is None
    plain = tmp_path / "plain"
    subprocess.run(["git", "init", "-q", str(plain)], check=True)
    info = gitrepo.repo_info(str(plain))
    included = tmp_path / "shared.config"
    included.write_text("[core]\n\tsharedRepository = group\n")
    git(plain, "config", "include.path", str(included))
    assert loose_store(str(plain), info) is None  # however the setting arrives
    git(plain, "config", "--unset", "include.path")
    git(plain, "config", "core.looseCompression", "9")
    where = loose_store(str(plain), info)
    assert where is not None and where.level == 9 and not where.sync  # git's default
    git(plain, "config", "core.fsync", "loose-object")
    synced = loose_store(str(plain), info)
    assert synced is not None and synced.sync
    content = b"".join(_line(i) for i in range(1000))
    assert store_appended(where, LOG, content[:1000]) is None  # small: not worth it
    oid = store_appended(where, LOG, content)
    assert oid is not None and _blob(plain, oid) == content
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path / "elsewhere"))
    assert loose_store(str(plain), info) is None


# -- the boundary commit -----------------------------------------------------------------


def _long_agent(tmp_path: Path, root: Path | None = None) -> Path:
    """An agent repository whose log is over the size stored ahead of git."""
    root = root or tmp_path / "agent"
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
            close_run(agent, "refused")  # a retry: the outcome the log recorded
    assert git(root, "diff", "--cached", "--name-only").split() == ["other.txt"]
    hook.unlink()
    with Agent.open(str(root), worker="w") as agent:
        close_run(agent, "refused")
    assert "other.txt" not in git(root, "show", "--name-only", "--format=", "HEAD")
    assert git(root, "diff", "--cached", "--name-only").split() == ["other.txt"]


def test_a_stale_agent_never_stores_a_blob_under_another_name(tmp_path: Path) -> None:
    root = _long_agent(tmp_path)
    stale = Agent.open(str(root), worker="w")
    stale.start_run("drafts")
    for i in range(10):
        stale.record_observation(None, f"draft {i}", "d" * 300)
    git(root, "checkout", "--", LOG)  # the drafts are thrown away behind its back
    (root / ".agent" / "RUN").unlink()
    (root / ".agent" / "lease").unlink()
    with Agent.open(str(root), worker="v") as other:
        other.start_run("meanwhile")
        close_run(other, "meanwhile")
    stale.lease.acquire()
    stale.record_observation(None, "later", "l")
    close_run(stale, "later")
    _fsck(root)  # every object, loose ones included, hashes to its name
    assert _blob(root, git(root, "rev-parse", f"HEAD:{LOG}").strip()) == (root / LOG).read_bytes()


def test_include_is_used_only_where_it_commits_what_only_would(tmp_path: Path) -> None:
    root = _long_agent(tmp_path)

    def close(outcome: str, env: dict[str, str] | None = None) -> str | None:
        saved = dict(os.environ)
        os.environ.update(env or {})
        try:
            with Agent.open(str(root), worker="w") as agent:
                agent.start_run(outcome)
                agent.record_observation(None, outcome, "x")
                return close_run(agent, outcome).commit
        finally:
            os.environ.clear()
            os.environ.update(saved)

    git(root, "config", "core.ignoreStat", "true")  # entries assumed unchanged
    assert close("ignore stat 1") is not None
    assert close("ignore stat 2") is not None
    assert git(root, "status", "--porcelain", "--", LOG) == ""
    git(root, "config", "--unset", "core.ignoreStat")
    git(root, "update-index", "--no-assume-unchanged", LOG, "journal/JOURNAL.md")
    (root / "other.txt").write_text("staged by the user\n")
    git(root, "add", "other.txt")
    assert close("literal pathspecs", {"GIT_LITERAL_PATHSPECS": "1"}) is not None
    assert "other.txt" not in git(root, "show", "--name-only", "--format=", "HEAD")
    assert git(root, "diff", "--cached", "--name-only").split() == ["other.txt"]
    git(root, "commit", "-q", "-m", "other")
    git(root, "checkout", "-q", "-b", "side")
    (root / "side.txt").write_text("side\n")
    git(root, "add", "side.txt")
    git(root, "commit", "-q", "-m", "side")
    git(root, "checkout", "-q", "-")
    git(root, "merge", "-q", "--no-commit", "--no-ff", "side")
    head = git(root, "rev-parse", "HEAD")
    with pytest.raises(Exception, match="partial commit during a merge"):
        close("during a merge")
    assert git(root, "rev-parse", "HEAD") == head  # the merge is not concluded by a run


def test_a_staged_submodule_bump_stays_staged_whatever_its_ignore_setting(
    tmp_path: Path,
) -> None:
    root = _long_agent(tmp_path)
    lib = tmp_path / "lib"
    subprocess.run(["git", "init", "-q", str(lib)], check=True)
    git(lib, "commit", "-q", "--allow-empty", "-m", "one")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "sub")
    git(root, "commit", "-q", "-m", "submodule")
    git(root / "sub", "commit", "-q", "--allow-empty", "-m", "two")
    git(root, "add", "sub")
    git(root, "config", "submodule.sub.ignore", "all")
    pinned = git(root, "rev-parse", "HEAD:sub")
    with Agent.open(str(root), worker="w") as agent:
        agent.start_run("with a bump staged")
        assert close_run(agent, "ok").commit is not None
    assert git(root, "rev-parse", "HEAD:sub") == pinned
    assert "sub" in git(root, "diff", "--cached", "--name-only", "--ignore-submodules=none")


def test_an_agent_in_a_subdirectory_keeps_what_is_staged_elsewhere(tmp_path: Path) -> None:
    top = tmp_path / "monorepo"
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    (top / "README").write_text("a monorepo\n")
    git(top, "add", "README")
    git(top, "commit", "-q", "-m", "top")
    root = _long_agent(tmp_path, top / "agents" / "evolve")
    (top / "README").write_text("a monorepo, edited\n")
    git(top, "add", "README")
    with Agent.open(str(root), worker="w") as agent:
        agent.start_run("second")
        assert close_run(agent, "second").commit is not None
    shown = git(top, "show", "--name-only", "--format=", "HEAD").split()
    assert "README" not in shown and f"agents/evolve/{LOG}" in shown
    assert git(top, "diff", "--cached", "--name-only").split() == ["README"]
    cache = top / ".git" / "gasp" / "deflate-v1"
    assert cache.is_dir() and any(cache.iterdir())
    _fsck(top)
