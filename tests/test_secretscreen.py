"""The secret screen taken byte by byte by ``git grep`` over a push's newest
versions (:mod:`git_gasp.core.secretscreen`, :mod:`git_gasp.hooks.ahead`):
the lines it names for a slice hold every line ``lines_to_scan`` names, so
the hook finds the same credentials with it as without it."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from git_gasp import git
from git_gasp.core.secrets import SCREEN_TRIGGERS, lines_to_scan
from git_gasp.core.secretscreen import UNSAFE, Screened, screenable
from git_gasp.hooks import ahead, objects
from git_gasp.hooks.protocol import Rejected
from git_gasp.hooks.serverhooks import pre_receive

from .conftest import git as run_git

ZERO = "0" * 40
LOG = "state/events.jsonl"
JOURNAL = "journal/JOURNAL.md"
KEY = "sk-ant-" + "a1B2c3D4" * 5  # a credential rule's match


def test_only_two_characters_lower_to_ascii() -> None:
    # the screen's premise for this interpreter's Unicode tables: every other
    # character's lowercase is free of ASCII, so ASCII runs match on both sides
    odd = {c for c in range(0x80, sys.maxunicode + 1) if any(ord(x) < 0x80 for x in chr(c).lower())}
    assert {chr(c).encode() for c in odd} == set(UNSAFE) - {b"\0"}


PIECES = [
    *SCREEN_TRIGGERS,
    *(t.upper() for t in SCREEN_TRIGGERS),
    "Sk-", "PassW", "aPi", "tok", "en", "s", "k", "-", "_", ":", "/", "\\", " ", "é", "Σ",
    "\u212a", "\u0130", "\0", "\n", "\n", "\n", "\xff",
]  # fmt: skip


@settings(max_examples=150, deadline=None)
@example(parts=["\n", "://"], cut=1, bad=False)  # an empty slice ends in a line with one
@example(parts=["a\n", "SK-", "\n"], cut=0, bad=False)
@given(
    parts=st.lists(st.sampled_from(PIECES) | st.text(max_size=4), max_size=60),
    cut=st.integers(min_value=0),
    bad=st.booleans(),
)
def test_the_lines_git_grep_names_hold_every_line_the_text_screen_does(
    parts: list[str], cut: int, bad: bool
) -> None:
    data = "".join(parts).encode("utf-8", "surrogatepass")
    if bad:
        data = data.replace(b"\xc3\xa9", b"\xc3")  # invalid UTF-8 around ASCII
    flagged, other = git.lines_holding([data, b"one\nSK-\n"], SCREEN_TRIGGERS)
    assert other == {1}
    text = data.decode("utf-8", "replace")
    if not screenable(data):
        return  # the hook screens such a file's chunks as text
    assert flagged == lines_to_scan(text)
    screen = Screened.of(data, flagged)
    starts = [0, *(i + 1 for i, b in enumerate(data) if b == 0x0A)]
    start = starts[cut % len(starts)]
    for end in {start, len(data), (start + len(data)) // 2}:
        want = lines_to_scan(data[start:end].decode("utf-8", "replace"))
        got = screen.lines(start, end)
        # at most the slice's last line more, when the file's line goes on
        assert got is not None and want <= got <= want | {data[start:end].count(b"\n")}
        if end == len(data):
            assert got == want
    if 0 < start < len(data) and data[start - 1] != 0x0A:
        assert screen.lines(start, len(data)) is None


def test_a_slice_not_starting_a_line_is_not_screened_from_the_file() -> None:
    data = b"one sk-\ntwo\nthree secret\n"
    screen = Screened.of(data, [0, 2])
    assert screen.lines(0, len(data)) == {0, 2}
    assert screen.lines(8, len(data)) == {1}
    assert screen.lines(12, 20) == {0}  # a cut last line: at most one line more
    assert screen.lines(9, len(data)) is None


def _long_push(work: Path, lines: list[bytes]) -> str:
    """Ten parked commits, each appending one line to the journal (the last
    ones ``lines``), and the tip."""
    base = run_git(work, "rev-parse", "HEAD").strip()
    tip = base
    journal = work / JOURNAL
    for n in range(10):
        extra = lines[n - 10 + len(lines)] if n >= 10 - len(lines) else f"- entry {n}\n".encode()
        journal.write_bytes(journal.read_bytes() + extra)
        run_git(work, "add", JOURNAL)
        tree = run_git(work, "write-tree").strip()
        tip = run_git(work, "commit-tree", tree, "-p", tip, "-m", f"entry {n}").strip()
    run_git(work, "reset", "-q", "--hard", base)
    return tip


def _said(work: Path, tip: str) -> str:
    out = io.StringIO()
    try:
        pre_receive(str(work), [f"{ZERO} {tip} refs/heads/pushed"], {}, out)
    except Rejected:
        out.write("(rejected)\n")
    return out.getvalue()


@pytest.mark.parametrize(
    "line",
    [
        f"- the key {KEY} slipped in\n".encode(),
        f"- under \u212aelvin's sign the key {KEY}\n".encode(),  # not screenable: as text
        f"- a NUL\0 then the key {KEY}\n".encode(),
        b"- nothing to see here\n",
    ],
)
def test_a_long_push_finds_the_same_credentials_with_the_grep_as_without(
    work: Path, monkeypatch: pytest.MonkeyPatch, line: bytes
) -> None:
    tip = _long_push(work, [line, b"- and one more entry\n"])
    scans: list[set[int] | None] = []
    real = ahead.Ahead.scan

    def spied(self: ahead.Ahead, *args: object) -> set[int] | None:
        scans.append(real(self, *args))  # type: ignore[arg-type]
        return scans[-1]

    monkeypatch.setattr(ahead.Ahead, "scan", spied)
    with_grep = _said(work, tip)
    assert ("(rejected)" in with_grep) == (KEY.encode() in line), with_grep
    if KEY.encode() in line:
        assert "[anthropic-api-key]" in with_grep
    if screenable(line):
        assert any(s is not None for s in scans)  # the grep's lines were used
    else:
        assert scans and all(s is None for s in scans)  # screened as text
    monkeypatch.setattr(objects, "ahead_of", lambda *args: None)
    assert _said(work, tip) == with_grep


@settings(max_examples=300, deadline=None)
@example(parts=["é\n", "SK-"], bad=False)
@example(parts=["\u212a", "api_", "\u212a", "ey"], bad=False)
@given(
    parts=st.lists(st.sampled_from(PIECES) | st.text(max_size=4), max_size=60), bad=st.booleans()
)
def test_the_byte_screen_names_the_lines_the_text_screen_does(parts: list[str], bad: bool) -> None:
    """scan_lines (the append writer's and check_lines' screen) names exactly
    the lines lines_to_scan names in the decoded text: searched in the bytes
    when some character is not ASCII, in the text when one would lower to
    ASCII, when the data is ASCII, or holds a NUL."""
    from git_gasp.core.secretscreen import scan_lines

    data = "".join(parts).encode("utf-8", "surrogatepass")
    if bad:
        data = data.replace(b"\xc3\xa9", b"\xc3")  # invalid UTF-8 around ASCII
    assert scan_lines(data) == lines_to_scan(data.decode("utf-8", "replace"))
