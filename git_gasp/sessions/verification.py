"""Verifying session notes (``git gasp notes verify``): each record's digest
against what it names (the stored transcript, the commit's event log, the
run's first and last event), read from the commit or the work tree.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal, NamedTuple

from git_gasp import git
from git_gasp.core.notes import NoteRecord, parse_note
from git_gasp.sessions.notes import (
    LOG_PATH,
    TRANSCRIPTS,
    digest_bytes,
    digest_file,
    noted,
    run_range,
    work_tree,
)
from git_gasp.sessions.transcripts import cold_storage
from git_gasp.store.worktree import inside

Status = Literal["match", "mismatch", "missing", "n/a"]


class Check(NamedTuple):
    what: str  # "digest", "log", "events"
    status: Status
    detail: str


class Verified(NamedTuple):
    commit: str
    record: NoteRecord
    checks: tuple[Check, ...]

    @property
    def status(self) -> Status:
        found = {c.status for c in self.checks}
        order: tuple[Status, ...] = ("mismatch", "missing", "match")
        return next((status for status in order if status in found), "n/a")


class NoteReport(NamedTuple):
    commit: str
    records: tuple[Verified, ...]
    problems: tuple[str, ...]  # format problems of the note itself


def _transcript_paths(rec: NoteRecord) -> list[str]:
    if rec.path:
        return [rec.path]
    if rec.run:
        return [f"{TRANSCRIPTS}/{rec.run}.jsonl.gz", f"{TRANSCRIPTS}/{rec.run}.jsonl"]
    return []


class _Sources:
    """What verify recomputes digests from: the work tree and commits' blobs."""

    def __init__(self, repo: str, commits: Sequence[str]) -> None:
        self.repo = repo
        self.top = work_tree(repo)
        specs = [f"{c}:{LOG_PATH}" for c in commits]
        self.logs = dict(zip(commits, git.object_info(repo, specs), strict=True))
        self._logs: dict[str, bytes] = {}

    def log(self, commit: str, reader: git.BlobReader) -> bytes | None:
        info = self.logs.get(commit)
        if info is None or info.type != "blob":
            return None
        if info.oid not in self._logs:
            self._logs = {info.oid: reader.read(info.oid)}  # keep one: logs can be large
        return self._logs[info.oid]

    def _readable(self, path: str, local: str) -> bool:
        """A file inside the work tree, or under a ``transcripts/`` that is a
        local link to cold storage (not one the repository committed)."""
        assert self.top is not None
        if inside(self.top, local):
            return True
        cold = cold_storage(self.top) if path.startswith("transcripts/") else None
        return (
            cold is not None and inside(cold, local) and not git.tracked(self.top, ["transcripts"])
        )

    def transcript(self, commit: str, rec: NoteRecord) -> tuple[str, str, int] | None:
        """``(where, digest, size)`` of the transcript a record names, if present."""
        for path in _transcript_paths(rec):
            if self.top is not None:
                local = os.path.join(self.top, *path.split("/"))
                if os.path.isfile(local) and self._readable(path, local):
                    return (path, *digest_file(local))
            info = git.object_info(self.repo, [f"{commit}:{path}"])[0]
            if info is not None and info.type == "blob":
                data = git.run(self.repo, ["cat-file", "blob", info.oid])
                return (f"{commit[:12]}:{path}", digest_bytes(data), len(data))
        return None


def _check_transcript(src: _Sources, commit: str, rec: NoteRecord) -> list[Check]:
    found = src.transcript(commit, rec)
    if found is None:
        paths = _transcript_paths(rec)
        where = f"{paths[0]} is not here" if paths else "the record names no path"
        return [Check("digest", "missing", where)]
    where, digest, size = found
    if digest != rec.digest or (rec.bytes is not None and size != rec.bytes):
        return [Check("digest", "mismatch", f"{where} is {digest[:19]}… ({size} bytes)")]
    return [Check("digest", "match", where)]


def _check_run(log: bytes | None, rec: NoteRecord) -> list[Check]:
    checks: list[Check] = []
    if rec.log is not None:
        if log is None:
            checks.append(Check("log", "missing", f"the commit has no {LOG_PATH}"))
        else:
            digest = digest_bytes(log)
            status: Status = "match" if digest == rec.log else "mismatch"
            checks.append(Check("log", status, f"{LOG_PATH} is {digest[:19]}…"))
    if rec.events is not None and rec.run is not None:
        if log is None:
            checks.append(Check("events", "missing", f"the commit has no {LOG_PATH}"))
        else:
            span = run_range(log, rec.run)
            text = f"{span[0]}..{span[1]}" if span else "not in the log"
            checks.append(Check("events", "match" if text == rec.events else "mismatch", text))
    return checks


def verify(repo: str, rev_range: str = "HEAD") -> list[NoteReport]:
    """Recompute every digest the notes in ``rev_range`` record, newest commit first."""
    found = noted(repo, rev_range)
    parsed = {commit: parse_note(data) for commit, data in found}
    src = _Sources(repo, [c for c, _ in found])
    reports: list[NoteReport] = []
    with git.BlobReader(repo) as reader:
        for commit, _ in found:
            records, problems = parsed[commit]
            done = []
            for rec in records:
                if rec.kind == "transcript":
                    checks = _check_transcript(src, commit, rec)
                elif rec.kind == "run":
                    need = rec.log is not None or rec.events is not None
                    checks = _check_run(src.log(commit, reader) if need else None, rec)
                else:
                    checks = []
                done.append(Verified(commit, rec, tuple(checks)))
            reports.append(NoteReport(commit, tuple(done), tuple(str(p) for p in problems)))
    return reports
