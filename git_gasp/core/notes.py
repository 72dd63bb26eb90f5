"""The ``refs/notes/agent-sessions`` note format: which sessions and digests a commit has.

One note per commit. A note is a set of records, one per line, written so that git's
``cat_sort_uniq`` notes merge (``git notes merge -s cat_sort_uniq``, and
``notes.rewriteMode=cat_sort_uniq`` on amend and rebase), which takes the union of the
lines of both notes, sorted bytewise, without duplicates, merges two valid notes with no
conflict, into a valid note unless the union passes the size limits below (then
``notes sync`` refuses to push it and names the command that restores the remote's note).

The note:

* is UTF-8, at most ``MAX_NOTE_BYTES`` (16384) bytes and ``MAX_LINES`` (64) lines;
* has one record per line, every line ending with ``\\n``, no empty lines;
* has its lines sorted by their bytes, each line once (the form ``cat_sort_uniq``
  leaves, so merging a note with itself changes nothing).

A record is one JSON object in canonical form: no whitespace outside strings, keys in
sorted order, non-ASCII characters written as UTF-8 rather than ``\\u`` escapes (what
``json.dumps(obj, separators=(",", ":"), sort_keys=True, ensure_ascii=False)`` writes).
Its keys:

========= ======== ================================================================
key       type     meaning
========= ======== ================================================================
``v``     integer  required; the format version, ``1``
session   string   required; an Agent-Session reference,
                   ``<agent>:[<namespace>:]<sessionId>[#<recordRef>]``
kind      string   required; ``session`` (links the commit to the session),
                   ``transcript`` (a transcript's digest) or ``run`` (the run this
                   commit closed)
digest    string   ``sha256:`` and 64 lowercase hex digits; required for ``transcript``
bytes     integer  0 to 2**63-1: the size of what ``digest`` names (needs ``digest``)
run       string   the run id; required for ``run``; an id: a letter or digit, then
                   letters, digits and ``_.:@+-``, at most 128 characters
events    string   ``<first-event-id>..<last-event-id>``: the run's event range (two
                   ids as for ``run``)
log       string   ``sha256:<hex>``: the digest of the event log prefix at the commit
path      string   a repository-relative path such as ``transcripts/<run-id>.jsonl.gz``:
                   ``/``-separated, no leading ``/``, no drive letter, no ``\\``, no
                   empty, ``.`` or ``..`` segment; names of letters, digits and ``_.+-``
========= ======== ================================================================

No other key is allowed; in particular no ``url`` and no content: notes carry
references and digests only. Every string is non-empty, at most 256 characters, and
holds no control character, line or paragraph separator, unpaired surrogate or ``://``,
and nothing :mod:`git_gasp.core.secrets` takes for a credential.

The commits of the notes ref carry no content either (:func:`check_notes_commit`):
git's own headers only, no NUL byte, no credential anywhere in the object, and a
message of at most ``MAX_MESSAGE_BYTES`` (16384) bytes besides the conflict list of
a ``git notes merge``; git's own messages and git-gasp's are short.

Example (two records; a real digest has 64 hex digits)::

    {"kind":"session","session":"claude:ses_01H9X","v":1}
    {"bytes":48213,"digest":"sha256:9f86…","kind":"transcript","path":"transcripts/r1.jsonl.gz","run":"r1","session":"claude:ses_01H9X","v":1}
"""

import json
import re
import unicodedata
from collections.abc import Iterable
from typing import Literal, NamedTuple, cast, get_args

from git_gasp.core.jsonvalue import DuplicateKey, unique_keys
from git_gasp.core.secrets import find_secrets
from git_gasp.core.trailers import is_session_ref

MAX_NOTE_BYTES = 16384
MAX_MESSAGE_BYTES = 16384
MAX_LINES = 64
MAX_STRING = 256
VERSION = 1
NOTES_REF = "refs/notes/agent-sessions"

#: a note's path in the notes tree: the annotated commit's id, maybe fanned
#: out into directories (``ab/cdef...``)
_NOTE_PATH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
#: the tree-entry modes of a file: a note is one (not a gitlink, tree or link)
NOTE_FILE_MODES = frozenset({"100644", "100755"})


def is_note_path(path: str) -> bool:
    """Whether ``path`` in the notes tree names a note (a commit id, fan-out allowed)."""
    return _NOTE_PATH.fullmatch(path.replace("/", "")) is not None


Kind = Literal["session", "transcript", "run"]
KINDS: tuple[str, ...] = get_args(Kind)
FIELDS = ("v", "session", "kind", "digest", "bytes", "run", "events", "log", "path")
_STRINGS = ("session", "kind", "digest", "run", "events", "log", "path")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_DRIVE = re.compile(r"[A-Za-z]:")
#: an id (run, first and last event) and a path component: references, not prose
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,127}")
_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,128}")
_BAD_CATEGORIES = {"Cc": "a control character", "Zl": "a line break", "Zp": "a line break"}
_NOT_CONTENT = "notes carry references, not content"
_SESSION_GRAMMAR = "<agent>:[<namespace>:]<sessionId>[#<recordRef>]"


class NoteRecord(NamedTuple):
    session: str
    kind: Kind
    digest: str | None = None
    bytes: int | None = None
    run: str | None = None
    events: str | None = None
    log: str | None = None
    path: str | None = None
    v: int = VERSION


class NoteProblem(NamedTuple):
    line: int  # 1-based; 0 for the note as a whole
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else f"note: {self.message}"


def _dump(obj: dict[str, object]) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _string_problem(key: str, value: str) -> str | None:
    if not value:
        return f"`{key}` is empty"
    if len(value) > MAX_STRING:
        return f"`{key}` is {len(value)} characters, over {MAX_STRING}: {_NOT_CONTENT}"
    for c in value:
        category = unicodedata.category(c)
        if category in _BAD_CATEGORIES:
            return f"`{key}` contains {_BAD_CATEGORIES[category]}: {_NOT_CONTENT}"
        if category == "Cs":
            return f"`{key}` contains an unpaired surrogate"
    if "://" in value:
        return f"`{key}` looks like a URL: notes never carry URLs"
    return None


def _path_ok(path: str) -> bool:
    if path.startswith("/") or "\\" in path or _DRIVE.match(path):
        return False
    parts = path.split("/")
    return all(part not in ("", ".", "..") and _NAME.fullmatch(part) for part in parts)


def _events_ok(events: str) -> bool:
    first, sep, last = events.partition("..")
    return bool(sep and ".." not in last and _ID.fullmatch(first) and _ID.fullmatch(last))


def _format_problem(key: str, value: str) -> str | None:
    if key == "session" and not is_session_ref(value):
        return f"`session` is not an Agent-Session reference {_SESSION_GRAMMAR}"
    if key == "kind" and value not in KINDS:
        return f"`kind` must be one of {', '.join(KINDS)}"
    if key in ("digest", "log") and not _DIGEST.fullmatch(value):
        return f"`{key}` must be sha256:<64 lowercase hex digits>"
    if key == "events" and not _events_ok(value):
        return "`events` must be <first-event-id>..<last-event-id> (ids of [A-Za-z0-9_.:@+-])"
    if key == "run" and not _ID.fullmatch(value):
        return "`run` must be a run id of [A-Za-z0-9_.:@+-], at most 128 characters"
    if key == "path" and not _path_ok(value):
        return (
            "`path` must be relative to the repository (no leading /, no .., . or empty parts; "
            "names of [A-Za-z0-9_.+-])"
        )
    secrets = find_secrets(value)
    if secrets:
        return f"`{key}` looks like it holds {secrets[0].label}: {_NOT_CONTENT}"
    return None


def _problems(obj: dict[str, object]) -> list[str]:
    """Why ``obj`` is not a valid record (empty when it is)."""
    found: list[str] = []
    for key in obj:
        if key == "url":
            found.append("key `url` is not allowed: notes never carry URLs")
        elif key not in FIELDS:
            found.append(f"key `{key}` is not allowed: notes carry references and digests only")
    found += [f"required key `{k}` is missing" for k in ("v", "session", "kind") if k not in obj]
    v = obj.get("v", VERSION)
    if type(v) is not int:
        found.append("`v` must be the integer 1")
    elif v != VERSION:
        found.append(f"format version {v} is not supported (this reader knows {VERSION})")
    size = obj.get("bytes", 0)
    if type(size) is not int or not 0 <= size < 2**63:
        found.append("`bytes` must be a non-negative integer")
    for key in _STRINGS:
        value = obj.get(key)
        if key not in obj:
            continue
        if not isinstance(value, str):
            found.append(f"`{key}` must be a string")
            continue
        problem = _string_problem(key, value) or _format_problem(key, value)
        if problem:
            found.append(problem)
    if obj.get("kind") == "transcript" and "digest" not in obj:
        found.append("a `transcript` record needs a `digest`")
    if obj.get("kind") == "run" and "run" not in obj:
        found.append("a `run` record needs a `run` id")
    if "bytes" in obj and "digest" not in obj:
        found.append("`bytes` needs a `digest` (it is the size of what the digest names)")
    return found


def _as_dict(rec: NoteRecord) -> dict[str, object]:
    return {k: v for k, v in rec._asdict().items() if v is not None}


def format_record(rec: NoteRecord) -> str:
    """One canonical line, ``\\n`` included; ``ValueError`` if ``rec`` is not valid."""
    obj = _as_dict(rec)
    problems = _problems(obj)
    if problems:
        raise ValueError(f"not a valid note record: {problems[0]}")
    return _dump(obj) + "\n"


def format_note(records: Iterable[NoteRecord]) -> bytes:
    """The note holding ``records``: their lines sorted bytewise, each once."""
    lines = sorted({format_record(rec).encode() for rec in records})
    data = b"".join(lines)
    if len(lines) > MAX_LINES or len(data) > MAX_NOTE_BYTES:
        raise ValueError(
            f"a note holds at most {MAX_LINES} lines and {MAX_NOTE_BYTES} bytes "
            f"(this one: {len(lines)} lines, {len(data)} bytes)"
        )
    return data


def _record(obj: dict[str, object]) -> NoteRecord:
    def text(key: str) -> str | None:
        value = obj.get(key)
        return value if isinstance(value, str) else None

    size = obj.get("bytes")
    return NoteRecord(
        session=str(obj["session"]),
        kind=cast(Kind, obj["kind"]),
        digest=text("digest"),
        bytes=size if isinstance(size, int) else None,
        run=text("run"),
        events=text("events"),
        log=text("log"),
        path=text("path"),
    )


def _parse_line(line: bytes) -> tuple[NoteRecord | None, list[str]]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, ["is not UTF-8"]
    try:
        obj = json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKey as dup:
        return None, [f"key `{dup}` appears twice"]
    except (ValueError, RecursionError):
        return None, ["is not a JSON object"]
    if not isinstance(obj, dict):
        return None, ["is not a JSON object"]
    problems = _problems(obj)
    if problems:
        return None, problems
    if _dump(obj) != text:
        canonical = "compact, keys sorted, UTF-8 rather than \\u escapes"
        return _record(obj), [f"is not in canonical form ({canonical}), so merges would differ"]
    return _record(obj), []


def parse_note(data: bytes) -> tuple[tuple[NoteRecord, ...], tuple[NoteProblem, ...]]:
    """The valid records of a note, and every way it departs from the format.

    A line that is a valid record but not in canonical form (or out of order) still
    yields its record; a line that is not a valid record yields only problems. A note
    over the size cap is not read at all.
    """
    if len(data) > MAX_NOTE_BYTES:
        size = f"the note is {len(data)} bytes, over the {MAX_NOTE_BYTES}-byte limit"
        return (), (NoteProblem(0, size),)
    problems: list[NoteProblem] = []
    lines = data.split(b"\n")
    if lines[-1]:
        problems.append(NoteProblem(len(lines), "does not end with a newline"))
    else:
        lines.pop()
    if len(lines) > MAX_LINES:
        problems.append(NoteProblem(0, f"the note has {len(lines)} lines, over {MAX_LINES}"))
    records: list[NoteRecord] = []
    previous: bytes | None = None
    for n, line in enumerate(lines, 1):
        if not line:
            problems.append(NoteProblem(n, "is empty"))
            continue
        if previous is not None and line <= previous:
            order = "repeats the line before" if line == previous else "is out of order"
            problems.append(NoteProblem(n, f"{order} (lines are sorted bytewise, each once)"))
        previous = line
        record, reasons = _parse_line(line)
        problems += [NoteProblem(n, reason) for reason in reasons]
        if record is not None:
            records.append(record)
    return tuple(records), tuple(sorted(problems, key=lambda p: p.line))


def check_note(data: bytes) -> tuple[NoteProblem, ...]:
    """Every problem with a note (for a server hook): empty when it is valid."""
    return parse_note(data)[1]


def merge_notes(a: bytes, b: bytes) -> bytes:
    """What git's ``cat_sort_uniq`` combine gives for two notes.

    Both notes are read up to a NUL (git reads them as C strings) and split at ``\\n``;
    empty lines go, the rest are sorted bytewise, each kept once, each ending in ``\\n``.
    This is the combine step of a notes merge, used when both sides changed one
    commit's note; a three-way ``git notes merge`` takes a one-sided change as it is.
    """
    lines = {line for note in (a, b) for line in note.split(b"\0", 1)[0].split(b"\n") if line}
    return b"".join(line + b"\n" for line in sorted(lines))


#: what a notes commit object may hold besides its message: git's own headers
_HEADERS = frozenset(
    {"tree", "parent", "author", "committer", "encoding", "gpgsig", "gpgsig-sha256"}
)
#: the lines ``git notes merge`` lists its conflicts with (a path per note)
_CONFLICT_LINE = re.compile(r"\t[0-9a-f/]{40,80}")


def check_notes_commit(raw: bytes, changed: frozenset[str] = frozenset()) -> list[str]:
    """Why a commit of the notes ref may not be pushed (empty when it may):
    the ref goes to every remote, history included, so its commits carry no
    content anywhere in the object: git's headers only (at most
    ``MAX_MESSAGE_BYTES`` of them, a signature included), no NUL byte, no
    credential (in the idents too), and a message of at most
    ``MAX_MESSAGE_BYTES``, not counting, in a merge, the conflict list
    ``git notes merge`` writes: lines after ``Conflicts:`` that each name a
    note the merge changed (``changed``: the notes, by commit id)."""
    if b"\0" in raw:
        return [f"its commit object holds a NUL byte: {_NOT_CONTENT}"]
    text = raw.decode("utf-8", "replace")
    head, _, message = text.partition("\n\n")
    parents = 0
    for line in head.split("\n"):
        key = line.split(" ", 1)[0]
        parents += key == "parent"
        if line.startswith(" ") or key in _HEADERS:
            continue
        return [f"its commit has a header `{key[:40]}` git does not write: {_NOT_CONTENT}"]
    if len(head) > MAX_MESSAGE_BYTES:
        return [f"its headers are {len(head)} bytes (at most {MAX_MESSAGE_BYTES}): {_NOT_CONTENT}"]
    lines = message.split("\n")
    if parents > 1 and "Conflicts:" in lines:
        at = lines.index("Conflicts:")
        listed = {
            ln
            for ln in lines[at + 1 :]
            if _CONFLICT_LINE.fullmatch(ln) and ln[1:].replace("/", "") in changed
        }
        kept = lines[: at + 1] + [ln for ln in lines[at + 1 :] if ln not in listed]
    else:
        kept = lines
    size = len("\n".join(kept).encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        return [f"its message is {size} bytes (at most {MAX_MESSAGE_BYTES}): {_NOT_CONTENT}"]
    for number, line in enumerate(text.split("\n"), 1):
        secrets = find_secrets(line)
        if secrets:
            what = f"{secrets[0].label} ({secrets[0].preview})"
            return [f"line {number} of its commit object looks like it holds {what}"]
    return []
