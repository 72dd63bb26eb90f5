"""Session notes: which agent sessions, runs and transcripts a commit links to.

The notes live under ``refs/notes/agent-sessions``, one note per commit, in the
line format of :mod:`git_gasp.core.notes` (references and ``sha256:`` digests,
never content). This module reads them, adds records to them and computes the
records a run's boundary commit gets; :mod:`git_gasp.sessions.verification`
verifies their digests; :mod:`git_gasp.sessions.sync` syncs the ref with a remote.

Every write is one notes commit with the user's git identity and a message
(``gasp: notes for <commit>``), refused when a concurrent writer moved the ref
(``git.write_notes``), which makes it re-read and retry, never lose a record.
Nothing here force-updates a ref another clone can see.

What the digests name:

* a transcript record's ``digest`` and ``bytes``: the file as stored, byte for
  byte (for ``transcripts/<run-id>.jsonl.gz``, the gzip file, not what it
  decompresses to);
* a run record's ``log``: the ``state/events.jsonl`` blob of the commit the
  note is on: the whole event log as that commit holds it, which is the
  prefix of every later version of the append-only log;
* a run record's ``events``: the ids of the first and the last event of that
  log whose ``correlation_id`` is the run id (``run.started`` to the end of
  ``run.finished``'s pair).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from git_gasp import git
from git_gasp.core.appendonly import blob_id
from git_gasp.core.notes import NoteRecord, check_note, format_note, merge_notes
from git_gasp.errors import FINDINGS, USAGE, GaspError

NOTES_REF = "refs/notes/agent-sessions"  # == git_gasp.core.notes.NOTES_REF
LOG_PATH = "state/events.jsonl"
TRANSCRIPTS = "transcripts"
_CAS_TRIES = 5
_FORMAT_HINT = "notes carry session references and sha256 digests only, at most 64 lines"
_IDENTITY_HINT = (
    'set one: git config user.name "Your Name" && git config user.email you@example.com'
)


def digest_bytes(data: bytes) -> str:  # as core.notes names a digest
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest_file(path: str) -> tuple[str, int]:
    """``(sha256:<hex>, size)`` of a file as stored on disk."""
    h = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise GaspError(f"cannot read {path}: {exc.strerror}", None, USAGE) from None
    return "sha256:" + h.hexdigest(), size


# -- reading --------------------------------------------------------------------------


def _read_blobs(repo: str, blobs: Iterable[str]) -> dict[str, bytes]:
    wanted = sorted(set(blobs))
    if not wanted:
        return {}
    with git.BlobReader(repo) as reader:
        return {oid: reader.read(oid) for oid in wanted}


def read_note(repo: str, commit: str, fetched: bool = False) -> bytes | None:
    """The note on ``commit`` (any revision naming it), or None; with
    ``fetched``, combined with the remotes' notes not merged yet, as
    ``sessions`` and ``who`` read them (:func:`notes_by_commit`)."""
    oid = git.resolve(repo, commit)
    if fetched and _unmerged_fetched(repo):
        return notes_by_commit(repo, fetched=True).get(oid or commit)
    blob = git.note_blob(repo, NOTES_REF, oid or commit)
    return None if blob is None else git.run(repo, ["cat-file", "blob", blob])


def notes_by_commit(repo: str, fetched: bool = False) -> dict[str, bytes]:
    """Every note: full commit id -> its bytes (one ``git notes list``, one batch read).

    ``fetched``: also the notes ``git fetch`` brought from the configured
    remotes (``refs/notes/remotes/<remote>/agent-sessions``, after ``git gasp
    notes setup``) and not merged yet, each commit's records combined as
    ``cat_sort_uniq`` would; a combination the format refuses (over its
    limits) keeps the local note.
    """
    listings = [git.notes_list(repo, NOTES_REF)]
    for ref in _unmerged_fetched(repo) if fetched else []:
        try:
            listings.append(git.notes_list(repo, ref))
        except git.GitError:
            continue  # not a notes history (a remote's odd ref): not read
    data = _read_blobs(repo, {blob for listing in listings for blob in listing.values()})
    out = {commit: data[blob] for commit, blob in listings[0].items()}
    for listing in listings[1:]:
        for commit, blob in listing.items():
            mine = out.get(commit)
            both = data[blob] if mine is None else merge_notes(mine, data[blob])
            if mine is None or not check_note(both) or check_note(mine):
                out[commit] = both
    return out


def tracking_ref(remote: str) -> str:
    """Where ``git fetch`` keeps ``remote``'s notes (``git gasp notes setup``)."""
    return f"refs/notes/remotes/{remote}/agent-sessions"


def _unmerged_fetched(repo: str) -> list[str]:
    """The configured remotes' fetched notes refs whose tips are commits the
    local notes have not merged (one merged says nothing the local notes do
    not, and a record removed since must stay removed)."""
    got = git.attempt(repo, ["remote"])
    remotes = got.out.decode("utf-8", "surrogateescape").split() if got.code == 0 else []
    refs = [tracking_ref(remote) for remote in remotes]
    specs = [f"{ref}^{{commit}}" for ref in refs] + [f"{NOTES_REF}^{{commit}}"]
    *tips, local = git.object_info(repo, specs) if refs else [None]
    out, seen = [], set()
    for ref, tip in zip(refs, tips, strict=True):
        if tip is None or tip.oid in seen or (local is not None and tip.oid == local.oid):
            continue
        seen.add(tip.oid)
        merged = (
            local is not None
            and git.attempt(repo, ["merge-base", "--is-ancestor", tip.oid, local.oid]).code == 0
        )
        if not merged:
            out.append(ref)
    return out


def notes_of(repo: str, commits: Sequence[str]) -> dict[str, bytes]:
    """The notes of a few commits (those without one are left out)."""
    if len(commits) <= 2:
        listing = {c: b for c in commits if (b := git.note_blob(repo, NOTES_REF, c))}
    else:
        wanted = set(commits)
        listing = {c: b for c, b in git.notes_list(repo, NOTES_REF).items() if c in wanted}
    data = _read_blobs(repo, listing.values())
    return {commit: data[blob] for commit, blob in listing.items()}


def commit_id(repo: str, rev: str) -> str:
    oid = git.resolve(repo, f"{rev}^{{commit}}")
    if oid is None:
        git.repo_info(repo)  # not a repository: git's own error
        raise GaspError(f"{rev}: not a commit", "name a commit, e.g. HEAD or a commit id", USAGE)
    return oid


# -- writing --------------------------------------------------------------------------


def require_identity(repo: str) -> str:
    """Notes commits carry a real identity: refuse to write without one; the
    committer line git would write."""
    ident = git.committer_ident(repo)
    if ident is None:
        raise GaspError("git has no identity to write the notes commit with", _IDENTITY_HINT)
    return ident


def update_notes(
    repo: str,
    additions: Mapping[str, bytes],
    message: str,
    warn: Callable[[str], None] | None = None,
    ident: str | None = None,
) -> dict[str, bytes]:
    """Union each commit's note with the lines given (``cat_sort_uniq``) and
    write every change as one notes commit; returns the resulting notes.

    A result the format refuses raises :class:`GaspError` (exit 1), or, with
    ``warn``, is reported through it and left out. A concurrent writer makes
    it re-read and retry, so no record is lost. ``ident``: the committer line.
    """
    for _ in range(_CAS_TRIES):
        tip = git.resolve(repo, NOTES_REF)
        current = notes_of(repo, list(additions)) if tip else {}
        result, changes = {}, {}
        for commit, extra in additions.items():
            before = current.get(commit, b"")
            after = merge_notes(before, extra)
            problems = check_note(after) if after != before else ()
            if problems:
                what = f"the note for {commit[:12]} would break the format: {problems[0]}"
                if warn is None:
                    raise GaspError(f"note refused: {what}", _FORMAT_HINT, FINDINGS)
                warn(what)
                after = before
            result[commit] = after
            if after != before:
                changes[commit] = after
        if not changes:
            return result
        ident = ident or require_identity(repo)
        try:
            git.write_notes(repo, NOTES_REF, changes, message, tip, ident)
            return result
        except git.GitError:
            if git.resolve(repo, NOTES_REF) == tip:
                raise  # not a race: git's own error
    raise GaspError(
        f"{NOTES_REF} kept changing while this command wrote to it",
        "run it again",
        FINDINGS,
    )


def add_records(
    repo: str, commit: str, records: Sequence[NoteRecord], message: str | None = None
) -> bytes:
    """Add ``records`` to the note on ``commit`` (a union with what is there)
    and return the note's new bytes; refuses (exit 1) records the format
    refuses and a note over the cap. Adding records already there writes nothing."""
    try:
        lines = format_note(records)
    except ValueError as exc:
        raise GaspError(f"note refused: {exc}", _FORMAT_HINT, FINDINGS) from None
    oid = commit_id(repo, commit)
    ident = require_identity(repo)
    text = message or f"gasp: notes for {oid[:12]}"
    return update_notes(repo, {oid: lines}, text, None, ident)[oid]


# -- the records of a run -------------------------------------------------------------


def log_at(
    repo: str, commit: str, held: bytes | None = None, held_oid: str | None = None
) -> bytes | None:
    """The event log as ``commit`` holds it, or None: ``held`` when those bytes
    (blob id ``held_oid``, or hashed) are the committed blob, else the blob read."""
    info = git.object_info(repo, [f"{commit}:{LOG_PATH}"])[0]
    if info is None or info.type != "blob":
        return None
    if held is not None and len(held) == info.size:
        if held_oid is None:
            held_oid = blob_id(held, info.size, git.repo_info(repo).object_format)
        if held_oid == info.oid:
            return held
    return _read_blobs(repo, [info.oid])[info.oid]


def run_range(log: bytes, run_id: str) -> tuple[str, str] | None:
    """Ids of the first and last event of ``log`` whose ``correlation_id`` is ``run_id``.

    Only the lines holding the run id's JSON text are parsed, found from the
    front for the first and from the back for the last (the log is not split)."""
    needle = json.dumps(run_id, ensure_ascii=False).encode("utf-8", "surrogatepass")
    first = next(_run_ids(_lines_with(log, needle, False), needle, run_id), None)
    if first is None:
        return None
    last = next(_run_ids(_lines_with(log, needle, True), needle, run_id))  # from the end
    return first, last


def _lines_with(log: bytes, needle: bytes, backwards: bool) -> Iterator[bytes]:
    """The lines of ``log`` that contain ``needle``, in order or from the end."""
    at = log.rfind(needle) if backwards else log.find(needle)
    while at >= 0:
        start = log.rfind(b"\n", 0, at) + 1
        end = log.find(b"\n", at)
        end = len(log) if end < 0 else end
        yield log[start:end]
        if backwards:
            at = log.rfind(needle, 0, start - 1) if start > 0 else -1
        else:
            at = log.find(needle, end)


def _run_ids(lines: Iterable[bytes], needle: bytes, run_id: str) -> Iterator[str]:
    """The ids of the events among ``lines`` correlated with ``run_id``, in order."""
    for line in lines:
        if needle not in line:
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and obj.get("correlation_id") == run_id:
            if isinstance(obj.get("id"), str) and obj["id"]:
                yield obj["id"]


def run_records(
    repo: str,
    commit: str,
    run_id: str,
    sessions: Sequence[str],
    events: tuple[str, str] | None,
    log_digest: str | None,
    transcripts: Sequence[tuple[str, str, int]],
    held: bytes | None = None,
    held_oid: str | None = None,
) -> list[NoteRecord]:
    """The records ``git gasp run close`` writes on its boundary commit.

    One ``session`` and one ``run`` record per session (the run record with
    ``events`` ``<first>..<last>`` and the ``log`` digest), and one
    ``transcript`` record per ``(path, sha256:…, bytes)``, carrying the run and
    the first session. ``events`` or ``log_digest`` None: computed from the
    commit's ``state/events.jsonl`` when it has one. No session: no records
    (a note links a commit to a session; without one there is nothing to write).
    ``held``: the bytes the caller believes the commit's log is (a close holds
    them); used instead of reading the blob back only when their blob id is
    the committed blob's (``held_oid``), so the digest and range are the blob's.
    """
    sessions = list(dict.fromkeys(sessions))
    if not sessions:
        return []
    if events is None or log_digest is None:
        log = log_at(repo, commit, held, held_oid)
        if log is not None:
            log_digest = log_digest or digest_bytes(log)
            events = events or run_range(log, run_id)
    span = f"{events[0]}..{events[1]}" if events else None
    records: list[NoteRecord] = []
    for session in sessions:
        records.append(NoteRecord(session, "session"))
        records.append(NoteRecord(session, "run", run=run_id, events=span, log=log_digest))
    for path, digest, size in transcripts:
        records.append(
            NoteRecord(
                sessions[0], "transcript", digest=digest, bytes=size, run=run_id, path=path or None
            )
        )
    return records


def work_tree(repo: str) -> str | None:
    got = git.attempt(repo, ["rev-parse", "--show-toplevel"])
    return got.out.decode("utf-8", "surrogateescape").strip() or None if got.code == 0 else None


def repo_path(repo: str, file: str) -> str | None:
    """``file``'s path relative to the top of ``repo``'s work tree (``/``-separated),
    or None when it is outside it."""
    top = work_tree(repo)
    if top is None:
        return None
    rel = os.path.relpath(os.path.realpath(file), os.path.realpath(top))
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        return None
    return rel.replace(os.sep, "/")


def records_for(
    repo: str, commit: str, session: str, files: Sequence[str], run_id: str | None
) -> list[NoteRecord]:
    """The records ``git gasp notes add`` writes: the session, each transcript
    file's digest and size (its path when it is inside the work tree), and,
    with ``run_id``, the run's record (see :func:`run_records`)."""
    transcripts = [(repo_path(repo, f) or "", *digest_file(f)) for f in files]
    if run_id is not None:
        return run_records(repo, commit, run_id, [session], None, None, transcripts)
    records = [NoteRecord(session, "session")]
    for path, digest, size in transcripts:
        records.append(
            NoteRecord(session, "transcript", digest=digest, bytes=size, path=path or None)
        )
    return records


# -- listing ---------------------------------------------------------------------


def commits_in(repo: str, rev_range: str) -> list[str]:
    """The commits ``git rev-list REV-RANGE`` gives, newest first ([] with no commits)."""
    if rev_range == "HEAD" and git.head(repo) is None:
        git.repo_info(repo)
        return []
    out = git.run(repo, ["rev-list", "--end-of-options", rev_range, "--"])
    return [c for c in out.decode().split("\n") if c]


def noted(repo: str, rev_range: str, fetched: bool = False) -> list[tuple[str, bytes]]:
    """``(commit, note)`` for the commits in ``rev_range`` that have a note,
    newest first (``fetched``: as :func:`read_note` reads them)."""
    if fetched and _unmerged_fetched(repo):
        notes = notes_by_commit(repo, fetched=True)
        return [(c, notes[c]) for c in commits_in(repo, rev_range) if c in notes]
    listing = git.notes_list(repo, NOTES_REF)
    if not listing:
        commits_in(repo, rev_range)  # a bad range is still an error
        return []
    wanted = [c for c in commits_in(repo, rev_range) if c in listing]
    data = _read_blobs(repo, (listing[c] for c in wanted))
    return [(c, data[listing[c]]) for c in wanted]
