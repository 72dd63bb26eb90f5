"""Keep session notes on commits that git's own notes rewriting misses.

``notes.rewriteRef`` (set by ``git gasp notes setup``) makes git copy notes on
amend and rebase, combining a squash's notes with ``cat_sort_uniq``. Two hooks
cover the rest:

* ``post-rewrite`` (amend, rebase): for each ``<old> <new>`` line git gives,
  the new commit's note becomes the union of its own and the old commits'
  notes. When git already copied them this changes nothing (and it repairs a
  note git concatenated with the default ``rewriteMode``).
* ``pre-push``: the session notes go to the remote just before the
  branches they annotate (a notes push of their own, ``--no-verify``, never
  forced), so they do not arrive later than their commits. Nothing happens
  unless there is a local notes ref the remote's tracking ref does not
  already name, the remote is a named one, and ``remote.<name>.gaspPushNotes``
  (else ``gasp.pushNotes``) is not false. git gives a hook no sign of
  ``--dry-run``: as Git LFS uploads its objects then, the notes are sent
  then too.
* ``post-commit``: a commit made by ``git cherry-pick -x`` (its ``(cherry
  picked from commit <id>)`` line) gets the picked commit's note; a squash
  (``git merge --squash``: ``Squashed commit of the following:`` and a
  ``commit <id>`` line per squashed commit) gets the squashed commits' notes,
  plus a ``session`` record for each ``Agent-Session`` (or alias) line in the
  squashed messages; only commits git could have squashed count (they exist
  and are not in HEAD's history already), so a message that merely quotes
  such a block links nothing. A ``Run-Id`` trailer of the final block (a
  cherry-picked or rebased boundary commit) or ``Run-Id`` line of a squashed
  message brings the notes of the commits whose notes name that run.

``post-commit`` runs on every commit, so it reads the message (one git
process) and returns when it has none of those markers; ``pre-push`` without
new notes costs one ``cat-file``. None of these hooks ever fails the user's
operation: a problem is one warning line on stderr.
"""

import json
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, TextIO

from git_gasp import git
from git_gasp.core.notes import NoteRecord, format_note, merge_notes
from git_gasp.core.trailers import Trailer, parse_trailers, sessions_of, values
from git_gasp.errors import GaspError
from git_gasp.output import visible
from git_gasp.sessions import notes as sessionnotes
from git_gasp.sessions import sync as notesync

NOTES_REF = sessionnotes.NOTES_REF
_OID = r"(?:[0-9a-f]{40}|[0-9a-f]{64})"
_PICKED = re.compile(rf"^\(cherry picked from commit ({_OID})\)[ \t]*$", re.MULTILINE)
_SQUASHED = "Squashed commit of the following:"
_SQUASHED_COMMIT = re.compile(rf"^commit ({_OID})[ \t]*$", re.MULTILINE)
_RUN_ID = re.compile(r"^[ \t]*run-id[ \t]*:[ \t]*(\S+)[ \t]*$", re.MULTILINE | re.IGNORECASE)
_TRAILER_LINE = re.compile(r"^[ \t]*([A-Za-z0-9-]+)[ \t]*:[ \t]*(\S.*?)[ \t\r]*$", re.MULTILINE)
#: what a message that links anything holds, compared as ASCII without case:
#: the installed post-commit shim starts no Python for a message without one
MARKERS = ("run-id", "cherry picked from commit", "squashed commit of the following:")


def may_link(message: str) -> bool:
    """False only when :func:`links` finds nothing in ``message`` (the test
    the post-commit shim makes with ``grep -iF``)."""
    folded = message.encode("utf-8", "surrogateescape").lower()
    return any(m.encode() in folded for m in MARKERS)


class Links(NamedTuple):
    picked: tuple[str, ...]  # (cherry picked from commit <id>)
    squashed: tuple[str, ...]  # the commit <id> lines of a squash message
    runs: tuple[str, ...]  # Run-Id trailers of the final block (as git parses it)
    sessions: tuple[str, ...]  # Agent-Session (and alias) lines of a squash message
    squashed_runs: tuple[str, ...] = ()  # Run-Id lines of a squash message

    def __bool__(self) -> bool:
        return any((self.picked, self.squashed, self.runs, self.sessions, self.squashed_runs))


def links(message: str) -> Links:
    """What in a commit message ties the commit to other commits' notes.

    A ``Run-Id`` counts in the final trailer block (a cherry-picked or
    rebased boundary commit), or among the squashed messages of a squash;
    one in the middle of a message quotes a run, it does not close it.
    """
    picked = tuple(dict.fromkeys(_PICKED.findall(message)))
    squashed: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()
    squashed_runs: tuple[str, ...] = ()
    start = message.find(_SQUASHED)
    if start != -1:
        body = message[start:]
        squashed = tuple(dict.fromkeys(_SQUASHED_COMMIT.findall(body)))
        if squashed:
            sessions = sessions_of(Trailer(k, v) for k, v in _TRAILER_LINE.findall(body))
            squashed_runs = tuple(dict.fromkeys(_RUN_ID.findall(body)))
    runs = tuple(dict.fromkeys(v for v in values(parse_trailers(message), "Run-Id") if v))
    return Links(picked, squashed, runs, sessions, squashed_runs)


def _really_squashed(repo: str, commits: Sequence[str]) -> tuple[str, ...]:
    """Of the commits a squash message lists, those git could have squashed
    into HEAD: commits that exist and are not already in HEAD's history (a
    message quoting older commits of the branch is no squash of them)."""
    listed = [
        c
        for c, info in zip(commits, git.object_info(repo, commits), strict=True)
        if info is not None and info.type == "commit"
    ]
    if not listed:
        return ()
    ((_, parents),) = git.commit_walk(repo, ["--no-walk", "HEAD"])
    if not parents:
        return tuple(listed)
    args = ["rev-list", "--stdin"]
    payload = "".join(f"{c}\n" for c in listed) + "".join(f"^{p}\n" for p in parents)
    outside = set(git.run(repo, args, stdin=payload.encode()).decode().split())
    return tuple(c for c in listed if c in outside)


def rewrite_pairs(lines: Iterable[str]) -> list[tuple[str, str]]:
    """``(old, new)`` from post-rewrite's stdin lines ``<old> <new> [<extra>]``."""
    pairs = []
    for line in lines:
        fields = line.split()
        if len(fields) >= 2 and all(re.fullmatch(_OID, f) for f in fields[:2]):
            pairs.append((fields[0], fields[1]))
    return pairs


def _warn(err: TextIO, what: str) -> None:
    err.write(visible(f"gasp: warning: {what}") + "\n")
    err.flush()


def post_rewrite(repo: str, command: str, lines: Sequence[str], err: TextIO) -> None:
    """Union each rewritten commit's note into its new commit's note."""
    try:
        _post_rewrite(repo, command, lines, err)
    except Exception as exc:  # never fail the user's amend or rebase
        _warn(err, f"post-rewrite could not carry session notes over: {exc}")


def _post_rewrite(repo: str, command: str, lines: Sequence[str], err: TextIO) -> None:
    pairs = rewrite_pairs(lines)
    if not pairs or git.resolve(repo, NOTES_REF) is None:
        return
    listing = git.notes_list(repo, NOTES_REF)
    olds: dict[str, list[str]] = {}
    for old, new in pairs:
        if old in listing and old != new:
            olds.setdefault(new, []).append(old)
    if not olds:
        return
    wanted = {listing[old] for group in olds.values() for old in group}
    wanted |= {listing[new] for new in olds if new in listing}
    with git.BlobReader(repo) as reader:
        data = {blob: reader.read(blob) for blob in sorted(wanted)}
    additions: dict[str, bytes] = {}
    for new, group in olds.items():
        union = b""
        for old in group:
            union = merge_notes(union, data[listing[old]])
        current = data[listing[new]] if new in listing else b""
        if merge_notes(current, union) != current:
            additions[new] = union
    if additions:
        n = len(additions)
        message = (
            f"gasp: notes carried over by {command or 'a rewrite'} ({n} commit{'s' * (n != 1)})"
        )
        sessionnotes.update_notes(repo, additions, message, lambda w: _warn(err, w))


def post_commit(repo: str, err: TextIO) -> None:
    """Re-attach the notes of the commits a cherry-pick or squash came from."""
    try:
        _post_commit(repo, err)
    except Exception as exc:  # never fail the user's commit
        _warn(err, f"post-commit could not re-attach session notes: {exc}")


def _runs_noted(repo: str, runs: Sequence[str]) -> list[str]:
    """Commits whose notes name one of ``runs`` (one ``git grep`` of the notes tree)."""
    needles = ['"run":' + json.dumps(run, ensure_ascii=False) for run in runs]
    return [path.replace("/", "") for path in git.grep_tree(repo, NOTES_REF, needles)]


def _post_commit(repo: str, err: TextIO) -> None:
    message = git.commit_message(repo, "HEAD")
    found = links(message) if may_link(message) else None
    if not found:
        return
    has_notes = git.resolve(repo, NOTES_REF) is not None
    if not has_notes and not found.sessions:
        return
    head = sessionnotes.commit_id(repo, "HEAD")
    squashed = _really_squashed(repo, found.squashed) if found.squashed else ()
    if not squashed:  # no squash git made: its message is only quoted text
        found = found._replace(squashed=(), sessions=(), squashed_runs=())
        if not found:
            return
    runs = tuple(dict.fromkeys([*found.runs, *found.squashed_runs]))
    sources = list(dict.fromkeys([*found.picked, *squashed]))
    if has_notes and runs:
        sources += [c for c in _runs_noted(repo, runs) if c not in sources]
    sources = [c for c in sources if c != head]
    extra = b""
    if has_notes and sources:
        for note in sessionnotes.notes_of(repo, sources).values():
            extra = merge_notes(extra, note)
    if found.sessions:
        extra = merge_notes(extra, format_note(NoteRecord(s, "session") for s in found.sessions))
    if not extra:
        return
    how = "cherry-pick" if found.picked else "squash" if found.squashed else "run"
    message = f"gasp: notes re-attached to {head[:12]} ({how})"
    sessionnotes.update_notes(repo, {head: extra}, message, lambda w: _warn(err, w))


def _say(err: TextIO, line: str) -> None:
    """One line on stderr; a closed or full stderr must not fail the push."""
    try:
        err.write(visible(line) + "\n")
        err.flush()
    except (OSError, ValueError):
        pass


def pre_push(repo: str, remote: str | None, refs: Sequence[str], err: TextIO) -> None:
    """Push the session notes to ``remote`` just before ``refs`` (the refs the
    push updates; deletions left out). Called once the push has passed
    validation; a failure is one warning line and the push goes on. A push
    that names the notes ref itself (or only notes refs) is left to git."""
    if not remote or not refs or NOTES_REF in refs:
        return
    if all(ref.startswith("refs/notes/") for ref in refs):
        return
    said_lines: list[str] = []
    try:
        line = _pre_push(repo, remote, said_lines.append)
    except Exception as exc:  # never fail the user's push over its notes
        why = exc.reason() if isinstance(exc, git.GitError) else str(exc)
        hint = f"they stay local until: git gasp notes sync {shlex.quote(remote)}"
        if isinstance(exc, GaspError) and exc.hint:
            hint = exc.hint
        line = f"gasp: warning: session notes not pushed to {remote}: {why}; {hint}"
    for said in said_lines:
        if said.startswith("remote:"):  # a server's reason for refusing them
            _say(err, said)
        elif said.startswith("notes history"):  # what sync did to the local notes
            _say(err, f"gasp: {said}")
    if line:
        _say(err, line)


def _pre_push(repo: str, remote: str, say: Callable[[str], None]) -> str | None:
    if "\n" in remote:
        return None
    specs = [NOTES_REF, sessionnotes.tracking_ref(remote)]
    local, tracking = git.object_info(repo, specs)
    if local is None or (tracking is not None and tracking.oid == local.oid):
        return None  # no notes, or the remote already has these
    if git.config_value(repo, f"remote.{remote}.url") is None:
        return None  # a push to a URL: no tracking ref to merge through
    # per remote first (a public mirror need not see which sessions made
    # which private commits), then for every remote
    for key in (f"remote.{remote}.gaspPushNotes", "gasp.pushNotes"):
        chosen = git.config_value(repo, key, "bool")
        if chosen is not None:
            if chosen == "false":
                return None
            break
    done = notesync.sync(repo, remote, retries=2, say=say, verify=False)
    if not done.pushed:
        return None
    return f"gasp: session notes pushed to {remote} ({(done.tip or '')[:12]}, merge: {done.merge})"
