"""Audited bypasses a clone fetched (``refs/notes/gasp-bypass``, written by
the server's post-receive: :mod:`git_gasp.core.bypassrecord`), matched with
the commits check 4 finds: check names the bypass that let a commit through
instead of failing blind. A record only explains a failure, never clears it:
anyone can write a note in their own clone.
"""

from __future__ import annotations

from collections.abc import Iterable

from git_gasp import git
from git_gasp.core.bypassrecord import BYPASS_REF, ZERO_IDS, Bypass, covering, parse

#: bytes read of one note at most (a record is a few hundred)
MAX_NOTE_BYTES = 1 << 20
FETCH_HINT = f"git fetch origin {BYPASS_REF}:{BYPASS_REF}"


def fetched(repo: str) -> bool:
    return git.resolve(repo, BYPASS_REF) is not None


def unfetched_remote(repo: str) -> bool:
    """The clone has a remote, and no record of bypasses fetched from it."""
    remotes = git.attempt(repo, ["remote"])
    return remotes.code == 0 and bool(remotes.out.strip()) and not fetched(repo)


def records(repo: str) -> list[Bypass]:
    """Every record under the notes ref (none when it was never fetched)."""
    blobs = git.notes_list(repo, BYPASS_REF)
    if not blobs:
        return []
    sizes = git.object_info(repo, sorted(set(blobs.values())))
    out: list[Bypass] = []
    with git.BlobReader(repo) as reader:
        for info in sizes:
            if info is not None and info.type == "blob" and info.size <= MAX_NOTE_BYTES:
                out += parse(reader.read(info.oid).decode("utf-8", "replace"))
    return out


def explain(repo: str, commits: Iterable[str]) -> dict[str, Bypass]:
    """Of ``commits``, those an audited bypass let through, each with its record."""
    wanted = set(commits)
    if not wanted or not fetched(repo):
        return {}
    found = records(repo)
    ends = sorted({oid for r in found for m in r.refs for oid in (m.old, m.new)} - ZERO_IDS)
    known = {oid for oid, info in zip(ends, git.object_info(repo, ends), strict=True) if info}
    reached: dict[tuple[str, str], frozenset[str]] = {}
    for record in found:
        for move in record.refs:
            old_ok = move.old in ZERO_IDS or move.old in known
            if move.new in known and old_ok and (move.old, move.new) not in reached:
                since = [] if move.old in ZERO_IDS else [f"^{move.old}"]
                walk = git.attempt(repo, ["rev-list", move.new, *since, "--"])
                lines = walk.out.decode().split() if walk.code == 0 else []
                reached[(move.old, move.new)] = frozenset(lines)
    return {c: r for c, r in covering(found, reached).items() if c in wanted}
