"""Check 4, "append-only in git", over a real repository, incrementally.

Which paths (REFERENCE §11.11): ``state/events.jsonl``, ``journal/JOURNAL.md``,
``JOURNAL.md`` and every tracked ``facts.jsonl`` at any depth, as the checker
lists them (a ``git rm``'d facts file is not walked). For each, the
commits reachable from HEAD that touch it are judged by the rule in
:mod:`git_gasp.core.appendonly`.

Verified results are remembered under the repository's git directory
(``gasp/check4-v1.json``), never in the work tree:

* transition keys — the blob ids before and after a commit — so a verdict is
  a fact about immutable objects and a rewritten history cannot reuse a stale
  one;
* per path, the HEAD commits whose whole ancestry passed; the next check walks
  only commits not reachable from them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, NamedTuple

from git_gasp import git
from git_gasp.check import bypasses
from git_gasp.core.appendonly import Blob, Transition, blob_id, verify, worktree_problem
from git_gasp.core.bypassrecord import BYPASS_REF
from git_gasp.core.report import CheckReport
from git_gasp.errors import GaspError
from git_gasp.store import writer
from git_gasp.store.logfile import max_log_bytes, read_capped
from git_gasp.store.worktree import inside

STATIC_PATHS = ("state/events.jsonl", "journal/JOURNAL.md", "JOURNAL.md")
FACTS_PATHSPECS = ("facts.jsonl", "*/facts.jsonl")
CACHE_NAME = "check4-v1.json"
_MAX_TIPS = 8


class VerdictCache:
    """The check 4 memo in ``<git-common-dir>/gasp/``; unreadable means empty."""

    def __init__(self, common_dir: str | None) -> None:
        self.path = os.path.join(common_dir, "gasp", CACHE_NAME) if common_dir else None
        self.transitions: set[str] = set()
        self.tips: dict[str, list[str]] = {}
        self.dirty = False
        if self.path is None:
            return
        try:
            with open(self.path, encoding="utf-8") as fh:
                data: Any = json.load(fh)
            self.transitions = {t for t in data["transitions"] if isinstance(t, str)}
            self.tips = {
                str(k): [c for c in v if isinstance(c, str)] for k, v in data["tips"].items()
            }
        except (RecursionError, OSError, ValueError, KeyError, TypeError, AttributeError):
            # A cache is only an optimisation: a missing or damaged one is
            # treated as empty, which means more work, never a wrong pass.
            self.transitions, self.tips = set(), {}

    def remember(self, path: str, head: str, transitions: frozenset[str]) -> None:
        self.transitions |= transitions
        tips = [head] + [t for t in self.tips.get(path, []) if t != head]
        self.tips[path] = tips[:_MAX_TIPS]
        self.dirty = True

    def save(self) -> None:
        if not self.dirty or self.path is None:
            return
        data = {"transitions": sorted(self.transitions), "tips": self.tips}
        try:
            blob = json.dumps(data, separators=(",", ":")).encode()
            # no fsync: a cache torn by a crash fails to parse and counts as empty
            writer.write_atomically(self.path, blob, sync=False)
        except OSError:
            pass  # a read-only repository (a server, a mounted clone) just isn't cached


class Asked(NamedTuple):
    """What check 4 and the log's pass both ask git, asked once before they
    start (a field is None when its question failed: each then asks again,
    and fails as it would alone)."""

    where: tuple[git.RepoInfo, str | None] | None  # the repository, HEAD's commit
    cap: int | None  # gasp.maxLogBytes
    files: list[str] | None = None  # the index's paths (check 4's facts, check 6's case)


def ask(repo: str) -> Asked:
    """One ``rev-parse``, one ``git config`` and one ``ls-files`` for both passes."""
    try:
        state = git.repo_state(repo)
        where = state.info, state.head
    except git.GitError:
        return Asked(None, None)
    try:
        cap: int | None = max_log_bytes(repo)
    except git.GitError:
        cap = None
    try:
        files: list[str] | None = git.tracked(repo, [])
    except git.GitError:
        files = None
    return Asked(where, cap, files)


def facts_paths(files: list[str]) -> list[str]:
    """The paths of ``files`` that ``git ls-files -- FACTS_PATHSPECS`` lists
    (``facts.jsonl`` matches a folder of that name's files too, as git's
    pathspec does; ``*/`` matches any depth of folders)."""
    return [
        f
        for f in files
        if f == "facts.jsonl" or f.startswith("facts.jsonl/") or f.endswith("/facts.jsonl")
    ]


def _facts(repo: str, asked: Asked | None) -> list[str]:
    """Tracked facts paths: from what was asked, else from git."""
    if asked is not None and asked.files is not None:
        return facts_paths(asked.files)
    return git.tracked(repo, FACTS_PATHSPECS)


def check_append_only(repo: str, use_cache: bool = True, asked: Asked | None = None) -> CheckReport:
    """Run check 4 on the repository at ``repo`` (any error fails closed)."""
    if asked is not None and asked.where is not None:
        info, tip = asked.where
    else:
        try:
            info = git.repo_info(repo)
        except git.GitError:
            return CheckReport(
                4, ("not a git repository (conformance rule 1: state lives in a git repo)",)
            )
        tip = git.head(repo)
    if tip is None:
        return CheckReport(4, (), ("no commits yet — nothing to violate",))
    failures: list[tuple[str, str]] = []  # (failure, its commit or "")
    paths = list(STATIC_PATHS)
    try:
        paths += _facts(repo, asked)
    except git.GitError as exc:
        failures.append((f"cannot enumerate facts.jsonl paths: {exc}", ""))
    cache = VerdictCache(info.common_dir if use_cache else None)
    cap = asked.cap if asked is not None and asked.cap is not None else max_log_bytes(repo)
    # (the cap once, for every work tree copy)
    walks = _walks(repo, info, tip, sorted(set(paths)), cache)
    found = _look_up(repo, walks)
    with git.BlobReader(repo) as reader:
        for path, walk in walks.items():
            try:
                if isinstance(walk, git.GitError):
                    raise walk
                failures += _check_path(repo, info, tip, path, walk, found, cache, reader, cap)
            except git.GitError as exc:
                failures.append((f"{path}: cannot walk history: {exc}", ""))
    cache.save()
    return _with_bypasses(repo, failures)


def _with_bypasses(repo: str, failures: list[tuple[str, str]]) -> CheckReport:
    """Each failure a server's audited bypass let through names it (who,
    when, why, which commits); a clone that has not fetched the record is
    told how to."""
    if not failures:
        return CheckReport(4)
    try:
        explained = bypasses.explain(repo, (c for _, c in failures if c))
    except git.GitError:
        explained = {}
    out = tuple(f"{m}; {explained[c].summary()}" if c in explained else m for m, c in failures)
    if explained:
        n = sum(1 for _, c in failures if c in explained)
        note = f"{n} of these failures were let through by an audited bypass ({BYPASS_REF})"
    elif any(c for _, c in failures) and bypasses.unfetched_remote(repo):
        note = f"was it an audited bypass? fetch the server's record: {bypasses.FETCH_HINT}"
    else:
        return CheckReport(4, out)
    return CheckReport(4, out, (note,))


Walk = list[tuple[str, tuple[str, ...]]]  # (commit, its parents), oldest first


def _walks(
    repo: str, info: git.RepoInfo, tip: str, paths: list[str], cache: VerdictCache
) -> dict[str, tuple[Walk, list[str]] | git.GitError]:
    """Per path, the commits to judge and the object specs they need (its
    tip's version first), or why they cannot be walked."""
    walks: dict[str, tuple[Walk, list[str]] | git.GitError] = {}
    for path in paths:
        try:
            walk = git.commits_touching(repo, path, tip, cache.tips.get(path, ()))
        except git.GitError as exc:
            walks[path] = exc
            continue
        full = info.prefix + path
        specs = [f"{tip}:{full}"]
        for commit, parents in walk:
            specs += [f"{c}:{full}" for c in (commit, *parents)]
        walks[path] = (walk, specs)
    return walks


def _look_up(
    repo: str, walks: dict[str, tuple[Walk, list[str]] | git.GitError]
) -> dict[str, git.ObjectInfo | None]:
    """Every path's objects in one ``batch-check`` (none when it fails, or
    for a spec with a line break: each path then looks up its own, as alone)."""
    specs = [s for w in walks.values() if not isinstance(w, git.GitError) for s in w[1]]
    specs = list(dict.fromkeys(s for s in specs if "\n" not in s))
    try:
        return dict(zip(specs, git.object_info(repo, specs), strict=True))
    except git.GitError:
        return {}


def _check_path(
    repo: str,
    info: git.RepoInfo,
    tip: str,
    path: str,
    walked: tuple[Walk, list[str]],
    found: dict[str, git.ObjectInfo | None],
    cache: VerdictCache,
    reader: git.BlobReader,
    cap: int,
) -> list[tuple[str, str]]:
    walk, specs = walked
    if all(s in found for s in specs):
        blobs = git.blobs_of(found, specs)
    else:
        blobs = git.blobs_at(repo, specs)
    at_head, pos = blobs[0], 1
    transitions = []
    for commit, parents in walk:
        child, *before = blobs[pos : pos + 1 + len(parents)]
        pos += 1 + len(parents)
        transitions.append(Transition(commit, parents, child, tuple(before)))
    on_disk = _read_worktree(repo, path, cap) if at_head is not None else None
    read = _seeded(reader.read, at_head, on_disk, info.object_format)
    outcome = verify(path, transitions, read, info.object_format, frozenset(cache.transitions))
    failures = list(zip(outcome.failures, outcome.commits, strict=True))
    if not failures:
        cache.remember(path, tip, outcome.verified)
    if at_head is not None and on_disk is not None:
        if isinstance(on_disk, str):
            failures.append((on_disk, ""))
        elif problem := worktree_problem(path, at_head, on_disk, read, info.object_format):
            failures.append((problem, ""))
    return failures


def _seeded(
    read: Callable[[str], bytes], at_head: Blob | None, on_disk: bytes | str | None, hash_name: str
) -> Callable[[str], bytes]:
    """``read``, but HEAD's version taken from the work tree copy when that
    is byte for byte the same blob (its id matches): reading a file costs
    less than inflating a blob, and check 4 then reads the newest version
    (a warm check after one more commit) from it."""
    if at_head is None or not isinstance(on_disk, bytes) or len(on_disk) != at_head.size:
        return read
    if blob_id(on_disk, at_head.size, hash_name) != at_head.oid:
        return read
    data, oid = on_disk, at_head.oid
    return lambda wanted: data if wanted == oid else read(wanted)


def _read_worktree(repo: str, path: str, cap: int) -> bytes | str:
    """The work tree copy of ``path``, or why it is refused (check 4's failure)."""
    full = os.path.join(repo, path)
    if not inside(repo, full):  # fail closed, and read nothing there (/dev/zero, say)
        return f"{path}: working tree copy is a symlink that leads outside the repository"
    try:
        return read_capped(full, path, repo, cap)  # a FIFO or an oversized file: unread
    except FileNotFoundError:
        return f"{path}: committed file missing from working tree"
    except OSError as exc:
        return f"{path}: working tree unreadable: {exc.strerror} (os error {exc.errno})"
    except GaspError as exc:
        return f"{path}: working tree copy refused: {exc.message}"
