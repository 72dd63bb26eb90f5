"""Run transcripts: stored cold and local, referenced by digest (``git gasp transcript add``).

A run's raw transcript (the session's JSON lines, as the agent's tool wrote them)
is stored gzipped at ``transcripts/<run-id>.jsonl.gz``. The gzip stream is
deterministic: compression level 9, modification time 0, no file name, so the
same transcript gives the same file on the same zlib. The file is created with
mode 0600 (a transcript may hold anything the session saw).

``transcripts/`` is ignored by git (``/transcripts`` is appended to
``.gitignore`` when no line there already ignores it) unless the repository
opts in with ``git config gasp.commitTranscripts true``; a safe clone
(``git gasp restore``) never checks it out either way.

**The digest** is ``sha256:`` and the 64 lowercase hex digits of the SHA-256 of
*the stored file*, ``transcripts/<run-id>.jsonl.gz`` byte for byte, and the
size is that file's size: what ``path`` names, so ``sha256sum`` on the file (or
``git gasp notes verify``) checks it with no decompression. The run's event and
the commit's note carry the same digest and size. The artifact's metadata also
keeps the digest and size of the raw transcript (the bytes of FILE as given),
to check an uncompressed copy held elsewhere. Adding the same raw transcript
again keeps the stored file (and its digest) as it is, even where a different
zlib would compress it differently.

Recording it in the run's events and the commit's note is
:mod:`git_gasp.agent.transcript` (``git gasp transcript add``).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import re
import tempfile
from typing import IO, Any, NamedTuple

from git_gasp import git
from git_gasp.core.notes import NoteRecord
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store.worktree import inside

DIRECTORY = "transcripts"
ARTIFACT_KIND = "gasp.transcript/v1"
IGNORE_LINE = "/transcripts"  # the directory, or a local link to cold storage
COMMIT_CONFIG = "gasp.commitTranscripts"
#: .gitignore lines that already ignore the top-level transcripts/ directory
_IGNORING = frozenset(
    {"transcripts", "transcripts/", "/transcripts", "/transcripts/", "/transcripts/*"}
)
_RUN_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,199}")
_CHUNK = 1 << 20


class Stored(NamedTuple):
    digest: str  # sha256:<hex> of the stored .gz file
    bytes: int  # size of the stored .gz file
    raw_digest: str  # sha256:<hex> of the raw transcript
    raw_bytes: int  # size of the raw transcript


def transcript_path(run_id: str) -> str:
    """``transcripts/<run-id>.jsonl.gz``; refuses an id unfit for a file name."""
    if not _RUN_ID.fullmatch(run_id) or ".." in run_id:
        raise GaspError(
            f"run id {run_id!r} cannot name a transcript file",
            "a transcript's run id is letters, digits, '.', '_' and '-'",
            USAGE,
        )
    return f"{DIRECTORY}/{run_id}.jsonl.gz"


def artifact(path: str, stored: Stored) -> dict[str, Any]:
    """The ArtifactRef recorded on the run node."""
    metadata = {
        "bytes": stored.bytes,
        "compression": "gzip",
        "path": path,
        "raw_bytes": stored.raw_bytes,
        "raw_digest": stored.raw_digest,
    }
    return {
        "hash": stored.digest,
        "kind": ARTIFACT_KIND,
        "metadata": metadata,
        "summary": None,
        "uri": f"file://{path}",
    }


# -- the stored file ----------------------------------------------------------------


class _Hashing:
    """A write-only file that hashes and counts what goes through it."""

    def __init__(self, target: IO[bytes]) -> None:
        self.target = target
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        self.size += len(data)
        return self.target.write(data)

    def flush(self) -> None:
        self.target.flush()


def _digest(h: Any) -> str:
    return f"sha256:{h.hexdigest()}"


def compress(source: IO[bytes], target: IO[bytes]) -> Stored:
    """Gzip ``source`` into ``target`` deterministically (level 9, mtime 0, no
    file name); the digests and sizes of both."""
    raw, size = hashlib.sha256(), 0
    out = _Hashing(target)
    gz = gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=out, mtime=0)
    with gz:
        while chunk := source.read(_CHUNK):
            raw.update(chunk)
            size += len(chunk)
            gz.write(chunk)
    return Stored(_digest(out.digest), out.size, _digest(raw), size)


def read_stored(path: str) -> Stored:
    """The digests and sizes of a stored ``.gz`` file and of what it holds."""
    stored, raw, size = hashlib.sha256(), hashlib.sha256(), 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            stored.update(chunk)
    with gzip.open(path, "rb") as gz:
        while chunk := gz.read(_CHUNK):
            raw.update(chunk)
            size += len(chunk)
    return Stored(_digest(stored), os.path.getsize(path), _digest(raw), size)


def _existing(path: str) -> Stored | None:
    if not os.path.exists(path):
        return None
    try:
        return read_stored(path)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise GaspError(
            f"{path} exists but is not a readable gzip file ({exc})",
            "move it away, then add the transcript again",
            FINDINGS,
        ) from None


def store_transcript(root: str, rel: str, source_file: str) -> tuple[Stored, bool]:
    """Write ``source_file`` gzipped to ``root/rel`` (atomically); True if written.

    The same transcript already there is left as it is; a different one is
    refused (its digest may already be recorded in the log).
    """
    target = os.path.join(root, rel)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(target))
    except OSError as exc:
        where = os.path.dirname(rel)
        raise GaspError(f"{where}/: cannot write: {exc.strerror}", None, USAGE) from None
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with open(source_file, "rb") as src:
                    stored = compress(src, out)
            except OSError as exc:
                raise GaspError(
                    f"{source_file}: cannot read: {exc.strerror}", "pass a readable file", USAGE
                ) from None
            out.flush()
            os.fsync(out.fileno())
        existing = _existing(target)
        if existing is not None and existing.raw_digest == stored.raw_digest:
            return existing, False
        if existing is not None:
            raise GaspError(
                f"{rel} already holds a different transcript ({existing.digest})",
                "a run keeps the transcript first recorded for it; move the file away "
                "to store another",
                FINDINGS,
            )
        os.replace(tmp, target)
        return stored, True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def ensure_ignored(root: str) -> bool:
    """Append ``/transcripts`` to ``root/.gitignore`` unless a line there
    already ignores it; True if it wrote."""
    from git_gasp.store.writer import write_atomically

    path = os.path.join(root, ".gitignore")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        data = b""
    except OSError as exc:
        raise GaspError(f".gitignore: cannot read: {exc.strerror}") from None
    lines = {line.strip().decode("utf-8", "replace") for line in data.split(b"\n")}
    link = os.path.islink(os.path.join(root, "transcripts"))  # "dir/" patterns miss a link
    if lines & ({"transcripts", "/transcripts"} if link else _IGNORING):
        return False
    prefix = b"" if not data or data.endswith(b"\n") else b"\n"
    write_atomically(path, data + prefix + IGNORE_LINE.encode() + b"\n")
    return True


def commits_transcripts(root: str) -> bool:
    """Whether the repository opted in to committing transcripts."""
    try:
        return git.config_value(root, COMMIT_CONFIG, "bool") == "true"
    except git.GitError as exc:
        hint = f"fix it with: git config {COMMIT_CONFIG} true|false"
        raise GaspError(exc.reason(), hint) from None


# -- the run's events and the commit's note ------------------------------------------


def boundary_commit(root: str, run_id: str) -> tuple[str, tuple[str, ...]] | None:
    """The newest commit whose ``Run-Id`` trailer is ``run_id``, with its
    ``Agent-Session`` references; None if the run has none (or no repository)."""
    from git_gasp.core.trailers import is_session_ref

    try:
        runs = git.run_commits(root)
    except git.GitError:
        return None
    for found in runs:
        if found.run_id == run_id:
            return found.commit, tuple(s for s in found.sessions if is_session_ref(s))
    return None


def note_record(run_id: str, path: str, stored: Stored, session: str) -> NoteRecord:
    return NoteRecord(session, "transcript", stored.digest, stored.bytes, run=run_id, path=path)


def cold_storage(root: str) -> str | None:
    """Where ``transcripts/`` leads when it is a link out of the repository:
    None when it is not one. Such a link is this clone's cold storage when
    git does not track it; one the repository committed is a clone's trap."""
    path = os.path.join(root, "transcripts")
    if not os.path.islink(path) or inside(root, path):
        return None
    return os.path.realpath(path)


def refuse_a_committed_link_out(root: str) -> None:
    if cold_storage(root) is not None and git.tracked(root, ["transcripts"]):
        raise GaspError(
            "transcripts is a committed symlink that leads outside the repository (refused)",
            "git rm --cached transcripts, and make it a directory (or a local link)",
            USAGE,
        )
