"""The agent-sessions note format, and its merge against the real ``git notes merge``."""

from __future__ import annotations

import json
import os
import string
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from git_gasp.core.notes import (
    MAX_LINES,
    MAX_NOTE_BYTES,
    Kind,
    NoteProblem,
    NoteRecord,
    check_note,
    format_note,
    format_record,
    merge_notes,
    parse_note,
)
from git_gasp.core.secrets import find_secrets

KINDS: tuple[Kind, ...] = ("session", "transcript", "run")
BOUNDED = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
DIGEST = "sha256:" + "ab" * 32
LOG = "sha256:" + "0f" * 32
SESSION = NoteRecord("claude:ses_01H9X", "session")
TRANSCRIPT = NoteRecord(
    "claude:ses_01H9X", "transcript", DIGEST, 48213, "r1", path="transcripts/r1.jsonl.gz"
)
RUN = NoteRecord("codex:ns:s2#rec", "run", run="r1", events="e1..e9", log=LOG)


def line(**fields: object) -> bytes:
    return (
        json.dumps(fields, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"
    ).encode()


def test_format_record_is_canonical() -> None:
    assert format_record(SESSION) == '{"kind":"session","session":"claude:ses_01H9X","v":1}\n'
    assert format_record(TRANSCRIPT) == (
        f'{{"bytes":48213,"digest":"{DIGEST}","kind":"transcript",'
        '"path":"transcripts/r1.jsonl.gz","run":"r1","session":"claude:ses_01H9X","v":1}\n'
    )


def test_round_trip() -> None:
    note = format_note([RUN, TRANSCRIPT, SESSION, SESSION])
    assert note.count(b"\n") == 3 and note.endswith(b"\n")
    assert note.split(b"\n")[:-1] == sorted(note.split(b"\n")[:-1])
    records, problems = parse_note(note)
    assert problems == ()
    assert set(records) == {RUN, TRANSCRIPT, SESSION}
    assert format_note(records) == note
    assert parse_note(b"") == ((), ())


def test_non_ascii_is_written_as_utf8() -> None:
    rec = NoteRecord("claude:séance", "session", path="transcripts/e.jsonl")
    assert "séance".encode() in format_note([rec])
    assert parse_note(format_note([rec])) == ((rec,), ())


@pytest.mark.parametrize(
    ("rec", "reason"),
    [
        (NoteRecord("https://claude.ai/code/x", "session"), "URL"),
        (NoteRecord("claude", "session"), "Agent-Session reference"),
        (NoteRecord("claude:x", "chat"), "`kind` must be one of"),  # type: ignore[arg-type]
        (NoteRecord("claude:x", "transcript"), "needs a `digest`"),
        (NoteRecord("claude:x", "run"), "needs a `run` id"),
        (NoteRecord("claude:x", "session", bytes=3), "`bytes` needs a `digest`"),
        (NoteRecord("claude:x", "session", run="a\nb"), "control character"),
        (NoteRecord("claude:x", "session", v=2), "format version 2"),
    ],
)
def test_format_record_refuses_invalid_records(rec: NoteRecord, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        format_record(rec)


def test_format_note_refuses_to_exceed_the_limits() -> None:
    many = [NoteRecord("claude:x", "run", run=f"r{i:03}") for i in range(MAX_LINES + 1)]
    with pytest.raises(ValueError, match="at most 64 lines"):
        format_note(many)
    assert check_note(format_note(many[:MAX_LINES])) == ()


OK = {"v": 1, "session": "claude:x", "kind": "session"}

PROBLEMS: list[tuple[bytes, str]] = [
    (b"\xff\xfe\n", "line 1: is not UTF-8"),
    (b"[1]\n", "line 1: is not a JSON object"),
    (b"not json\n", "line 1: is not a JSON object"),
    (b'"claude:x"\n', "line 1: is not a JSON object"),
    (b"[" * 5000 + b"\n", "line 1: is not a JSON object"),
    (
        line(**OK, transcript="hello"),
        "line 1: key `transcript` is not allowed: notes carry references and digests only",
    ),
    (
        line(**OK, url="https://x.example"),
        "line 1: key `url` is not allowed: notes never carry URLs",
    ),
    (line(v="1", session="claude:x", kind="session"), "line 1: `v` must be the integer 1"),
    (line(v=True, session="claude:x", kind="session"), "line 1: `v` must be the integer 1"),
    (line(v=2, session="claude:x", kind="session"), "line 1: format version 2 is not supported"),
    (line(v=1, session=5, kind="session"), "line 1: `session` must be a string"),
    (line(**OK, run=None), "line 1: `run` must be a string"),
    (line(**OK, digest=DIGEST, bytes="12"), "line 1: `bytes` must be a non-negative integer"),
    (line(**OK, digest=DIGEST, bytes=-1), "line 1: `bytes` must be a non-negative integer"),
    (line(**OK, digest=DIGEST, bytes=1.5), "line 1: `bytes` must be a non-negative integer"),
    (line(**OK, digest=DIGEST, bytes=2**63), "line 1: `bytes` must be a non-negative integer"),
    (line(**OK, run="x" * 257), "line 1: `run` is 257 characters, over 256"),
    (line(**OK, run="a\nb"), "line 1: `run` contains a control character"),
    (line(**OK, run="a\u2028b"), "line 1: `run` contains a line break"),
    (line(**OK, run="a\x7f"), "line 1: `run` contains a control character"),
    (
        b'{"kind":"session","run":"\\ud800","session":"claude:x","v":1}\n',
        "line 1: `run` contains an unpaired",
    ),
    (line(**OK, run=""), "line 1: `run` is empty"),
    (line(**OK, run="https://example.com/run"), "line 1: `run` looks like a URL"),
    (line(v=1, kind="session"), "line 1: required key `session` is missing"),
    (line(v=1, session="claude:x"), "line 1: required key `kind` is missing"),
    (line(session="claude:x", kind="session"), "line 1: required key `v` is missing"),
    (line(v=1, session="claude x", kind="session"), "line 1: `session` is not an Agent-Session"),
    (line(v=1, session="claude:x", kind="blob"), "line 1: `kind` must be one of"),
    (line(**OK, digest="sha256:" + "AB" * 32), "line 1: `digest` must be sha256:<64"),
    (line(**OK, digest="md5:" + "ab" * 16), "line 1: `digest` must be sha256:<64"),
    (line(**OK, log="sha256:abc"), "line 1: `log` must be sha256:<64"),
    (line(v=1, session="claude:x", kind="transcript"), "line 1: a `transcript` record needs"),
    (line(v=1, session="claude:x", kind="run"), "line 1: a `run` record needs a `run` id"),
    (line(**OK, bytes=1), "line 1: `bytes` needs a `digest`"),
    (line(**OK, events="e1.e9"), "line 1: `events` must be <first-event-id>..<last-event-id>"),
    (line(**OK, events="..e9"), "line 1: `events` must be"),
    (line(**OK, events="e1..e2..e3"), "line 1: `events` must be"),
    (line(**OK, path="/etc/passwd"), "line 1: `path` must be relative"),
    (line(**OK, path="../x"), "line 1: `path` must be relative"),
    (line(**OK, path="a//b"), "line 1: `path` must be relative"),
    (line(**OK, path="a/./b"), "line 1: `path` must be relative"),
    (line(**OK, path="C:/x"), "line 1: `path` must be relative"),
    (line(**OK, path="a\\b"), "line 1: `path` must be relative"),
    (line(**OK, path="file://x/y"), "line 1: `path` looks like a URL"),
    (
        b'{"kind":"session","session":"claude:x","session":"claude:y","v":1}\n',
        "line 1: key `session` appears twice",
    ),
    (b'{"kind": "session", "session": "claude:x", "v": 1}\n', "line 1: is not in canonical"),
    (b'{"v":1,"kind":"session","session":"claude:x"}\n', "line 1: is not in canonical"),
    (b'{"kind":"session","session":"claude:\\u00e9","v":1}\n', "line 1: is not in canonical"),
    (b'{"kind":"session","session":"claude:x","v":1}\r\n', "line 1: is not in canonical"),
    (b'{"kind":"session","session":"claude:x","v":1}', "line 1: does not end with a newline"),
    (b'{"kind":"session","session":"claude:\x00","v":1}\n', "line 1: is not a JSON object"),
    (format_record(SESSION).encode() * 2, "line 2: repeats the line before"),
    (format_record(RUN).encode() + format_record(TRANSCRIPT).encode(), "line 2: is out of order"),
    (format_record(SESSION).encode() + b"\n", "line 2: is empty"),
    (b"x" * (MAX_NOTE_BYTES + 1), "note: the note is 16385 bytes, over the 16384-byte limit"),
]


@pytest.mark.parametrize(("data", "expected"), PROBLEMS)
def test_each_problem(data: bytes, expected: str) -> None:
    problems = check_note(data)
    assert problems, data
    assert any(str(p).startswith(expected) for p in problems), [str(p) for p in problems]
    assert all("\n" not in p.message for p in problems)


def test_too_many_lines() -> None:
    lines = sorted(format_record(NoteRecord("claude:x", "run", run=f"r{i:03}")) for i in range(70))
    problems = check_note("".join(lines).encode())
    assert problems == (NoteProblem(0, "the note has 70 lines, over 64"),)


def test_a_non_canonical_line_still_yields_its_record() -> None:
    records, problems = parse_note(b'{"v":1,"kind":"session","session":"claude:x"}\n')
    assert records == (NoteRecord("claude:x", "session"),)
    assert [p.line for p in problems] == [1]
    assert str(problems[0]).startswith("line 1: is not in canonical form")


def test_problems_name_their_lines() -> None:
    data = format_record(SESSION).encode() + line(**OK, url="u") + b"~oops\n"
    records, problems = parse_note(data)
    assert records == (SESSION,)
    assert [str(p) for p in problems] == [
        "line 2: key `url` is not allowed: notes never carry URLs",
        "line 3: is not a JSON object",
    ]


# ---------------------------------------------------------------------------
# merging, against git


def git_merge(root: Path, base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """Both sides change one commit's note; ``git notes merge -s cat_sort_uniq``."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(root),
        "LC_ALL": "C",
    }
    repo = root / "repo"
    ident = ["-c", "user.name=Notes Test", "-c", "user.email=notes@example.invalid"]

    def git(*args: str, data: bytes | None = None) -> bytes:
        proc = subprocess.run(
            ["git", "-C", str(repo), *ident, "-c", "commit.gpgsign=false", *args],
            input=data,
            capture_output=True,
            env=env,
            timeout=30,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        return proc.stdout

    repo.mkdir()
    git("init", "-q")
    git("commit", "-q", "--allow-empty", "-m", "a commit")

    def put(ref: str, note: bytes) -> None:
        blob = git("hash-object", "-w", "--stdin", data=note).decode().strip()
        git("notes", f"--ref={ref}", "add", "-f", "-C", blob, "HEAD")

    put("agent-sessions", base)
    git("update-ref", "refs/notes/theirs", "refs/notes/agent-sessions")
    put("agent-sessions", ours)
    put("theirs", theirs)
    git("notes", "--ref=agent-sessions", "merge", "-q", "-s", "cat_sort_uniq", "refs/notes/theirs")
    return git("notes", "--ref=agent-sessions", "show", "HEAD")


MERGES = [
    (format_note([SESSION]), format_note([SESSION, RUN]), format_note([SESSION, TRANSCRIPT])),
    (format_note([RUN]), format_note([SESSION]), format_note([TRANSCRIPT, SESSION])),
    (b"z\n", b"b\na\n\n", b"c\na\nb"),  # unsorted, empty lines, no final newline
    (b"base\n", b"dup\ndup\nx\n", b"x\r\ndup\n"),
    (b"base\n", b"a\n\0hidden\n", b"b\n"),  # git reads notes as C strings
]


@pytest.mark.parametrize("i", range(len(MERGES)))
def test_merge_matches_git(tmp_path: Path, i: int) -> None:
    base, ours, theirs = MERGES[i]
    assert merge_notes(ours, theirs) == git_merge(tmp_path, base, ours, theirs)


@settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    ours=st.lists(st.binary(min_size=1, max_size=6).filter(lambda b: b"\0" not in b), max_size=5),
    theirs=st.lists(st.binary(max_size=6).filter(lambda b: b"\0" not in b), max_size=5),
)
def test_random_merges_match_git(
    tmp_path_factory: pytest.TempPathFactory, ours: list[bytes], theirs: list[bytes]
) -> None:
    a, b = b"\n".join(ours) + b"\n", b"\n".join(theirs) + b"\nend\n"
    assume(a not in (b, b"base\n"))  # otherwise git takes one side as it is
    root = tmp_path_factory.mktemp("merge")
    assert merge_notes(a, b) == git_merge(root, b"base\n", a, b)


# ---------------------------------------------------------------------------
# properties

# Strings of a character class are drawn with st.text (one choice per string), not
# st.from_regex (one per character, twice the cost here): the same values as the
# regex in each comment.
ALNUM = string.ascii_letters + string.digits


def led(first: str, rest: str, most: int) -> st.SearchStrategy[str]:
    """One character of ``first``, then up to ``most`` of ``rest``."""
    return st.builds(str.__add__, st.sampled_from(first), st.text(rest, max_size=most))


names = led(ALNUM, ALNUM + "._-", 8)  # [A-Za-z0-9][A-Za-z0-9._-]{0,8}
ids = st.text(
    st.characters(
        codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp", "Zs"), exclude_characters=":#/"
    ),
    min_size=1,
    max_size=12,
)
# sha256:[0-9a-f]{64}, drawn as 32 bytes (from_regex costs ~100x as much)
digests = st.binary(min_size=32, max_size=32).map(lambda b: "sha256:" + b.hex())
# [A-Za-z0-9_.-]{1,16}, not dots only
words = st.text(ALNUM + "_.-", min_size=1, max_size=16).filter(lambda w: w.strip("."))
event_ids = led(ALNUM, ALNUM + "_-", 15)  # [A-Za-z0-9][A-Za-z0-9_-]{0,15}
run_ids = led(ALNUM, ALNUM + "_.:@+-", 15)  # [A-Za-z0-9][A-Za-z0-9_.:@+-]{0,15}


# the optional parts, built once: a strategy made inside records() would be
# built and validated again at every draw (most of these tests' CPU)
maybe_names = st.none() | names
maybe_words = st.none() | words
maybe_digests = st.none() | digests
maybe_sizes = st.none() | st.integers(0, 2**63 - 1)
maybe_run_ids = st.none() | run_ids
maybe_spans = st.none() | st.builds("{}..{}".format, event_ids, event_ids)
maybe_paths = st.none() | st.lists(words, min_size=1, max_size=3).map("/".join)
kinds = st.sampled_from(KINDS)


@st.composite
def records(draw: st.DrawFn) -> NoteRecord:
    agent, sid = draw(names), draw(ids)
    namespace = draw(maybe_names)
    ref = draw(maybe_words)
    session = f"{agent}:{namespace + ':' if namespace else ''}{sid}{'#' + ref if ref else ''}"
    kind = draw(kinds)
    digest = draw(digests) if kind == "transcript" else draw(maybe_digests)
    rec = NoteRecord(
        session=session,
        kind=kind,
        digest=digest,
        bytes=draw(maybe_sizes) if digest else None,
        run=draw(run_ids) if kind == "run" else draw(maybe_run_ids),
        events=draw(maybe_spans),
        log=draw(maybe_digests),
        path=draw(maybe_paths),
    )
    # a reference shaped like a credential (a:aSECRET:000001 is a secret
    # assignment to the screen) is not a valid record: format_record refuses it
    assume(not any(find_secrets(v) for v in rec if isinstance(v, str)))
    return rec


notes = st.lists(records(), max_size=6).map(format_note)
raw_notes = st.binary(max_size=80) | notes


@BOUNDED
@given(recs=st.lists(records(), max_size=8))
def test_format_note_always_passes_check_note(recs: list[NoteRecord]) -> None:
    note = format_note(recs)
    assert check_note(note) == ()
    assert set(parse_note(note)[0]) == set(recs)


@BOUNDED
@given(a=raw_notes, b=raw_notes, c=raw_notes)
def test_merge_is_commutative_and_associative(a: bytes, b: bytes, c: bytes) -> None:
    assert merge_notes(a, b) == merge_notes(b, a)
    assert merge_notes(merge_notes(a, b), c) == merge_notes(a, merge_notes(b, c))
    merged = merge_notes(a, b)
    assert merge_notes(merged, merged) == merged


@BOUNDED
@given(a=notes, b=notes)
def test_valid_notes_merge_into_a_valid_note(a: bytes, b: bytes) -> None:
    assert merge_notes(a, a) == a  # idempotent on canonical notes
    assert merge_notes(a, b"") == a
    merged = merge_notes(a, b)
    assert check_note(merged) == ()
    records = set(parse_note(a)[0]) | set(parse_note(b)[0])
    assert set(parse_note(merged)[0]) == records


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("run", "USER said: reset the db"),
        ("run", "password=hunter2x9"),
        ("events", "e1..the whole transcript"),
        ("path", "transcripts/AKIA" + "ABCDEFGHIJKLMNOP.gz"),
        ("path", "notes/with space.txt"),
    ],
)
def test_fields_hold_references_not_prose(field: str, value: str) -> None:
    record = {"kind": "run", "run": "r1", "session": "claude:x", "v": 1, field: value}
    data = (json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode()
    assert check_note(data), value
