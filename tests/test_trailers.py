"""Trailers: the pure parser and writer against the real ``git interpret-trailers``."""

from __future__ import annotations

import os
import string
import subprocess

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from git_gasp.core.trailers import (
    SCISSORS,
    SESSION_KEY,
    Trailer,
    add_trailers,
    is_session_ref,
    parse_trailers,
    sessions_of,
    values,
)

BOUNDED = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def git_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """No system or user config (no ``trailer.*``), no repository around the cwd."""
    home = tmp_path_factory.mktemp("trailer-home")
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(home.parent),
        "LC_ALL": "C",
    }


def run_git(env: dict[str, str], message: str, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "core.commentChar=#", "interpret-trailers", *args],
        input=message.encode(),
        capture_output=True,
        env=env,
        cwd=env["HOME"],
        timeout=20,
        check=True,
    )
    return proc.stdout.decode()


def git_parse(env: dict[str, str], message: str, *args: str) -> tuple[Trailer, ...]:
    """``--parse`` prints one ``Key: value`` line per trailer (keys never hold ``:``)."""
    out = run_git(env, message, "--parse", *args)
    assert out == "" or out.endswith("\n")
    return tuple(Trailer(*line.partition(": ")[::2]) for line in out.split("\n")[:-1])


def git_add(env: dict[str, str], message: str, *new: Trailer) -> str:
    args = [a for t in new for a in ("--trailer", f"{t.key}: {t.value}")]
    return run_git(env, message, "--if-exists", "addIfDifferent", "--where", "end", *args)


CUT = SCISSORS  # "# ------------------------ >8 ------------------------\n"

CORPUS: dict[str, str] = {
    "empty": "",
    "subject only": "Add a thing\n",
    "subject and block": "Add a thing\n\nRun-Id: r1\nGoal: ship it\n",
    "one paragraph, all trailers": "Run-Id: r1\nGoal: g\n",
    "subject with a colon": "fix: the thing\n\nBody text.\n",
    "mention in a middle paragraph": "Subject\n\nWe set\nRun-Id: x\n\nand then stopped.\n",
    "mention, then a real block": "Subject\n\nRun-Id: fake\n\nAgent-Session: claude:abc\n",
    "two trailer paragraphs": "Subject\n\nA: 1\n\nB: 2\n",
    "comments after the block": (
        "Subject\n\nBody\n\nRun-Id: r1\n# Please enter the commit message\n# Lines are ignored\n"
    ),
    "comment inside the block": "Subject\n\nRun-Id: r1\n# a comment\nGoal: g\n",
    "comment-only title line": "# note\nSubject\n\nK: v\n",
    "scissors": f"Subject\n\nRun-Id: r1\n{CUT}diff --git a/x b/x\nFake: trailer\n",
    "scissors after a blank line": f"Subject\n\nK: v\n\n{CUT}Fake: x\n",
    "scissors first": f"{CUT}Subject\n\nK: v\n",
    "scissors without newline": "Subject\n\nK: v\n" + CUT.rstrip("\n"),
    "patch divider": "Subject\n\nK: v\n---\n file | 1 +\n\nNot: this\n",
    "divider with a space": "Subject\n\nbody\n--- \nK: v\n",
    "ruler of five dashes": "Subject\n\n-----\nbody\n\nK: v\n",
    "dashes in the block": "Subject\n\nK: v\n-----\n",
    "divider subject": "--- Subject\n\nK: v\n",
    "divider at end without newline": "Subject\n\nK: v\n---",
    "Signed-off-by in prose": (
        "Subject\n\nThis paragraph is prose\nand more prose\nSigned-off-by: A <a@example.com>\n"
    ),
    "too much prose for Signed-off-by": "Subject\n\np1\np2\np3\np4\nSigned-off-by: A <a@b>\n",
    "Signed-off-by without its space": "Subject\n\nprose\nprose\nSigned-off-by:a\n",
    "signed-off-by lower case": "Subject\n\nprose\nprose\nsigned-off-by: a\n",
    "cherry picked": (
        "Subject\n\nBody\n\nprose line\nprose\n(cherry picked from commit abc123)\nRun-Id: r\n"
    ),
    "only cherry picked": "Subject\n\n(cherry picked from commit abc123)\n",
    "CRLF": "Subject\r\n\r\nRun-Id: r1\r\nGoal: g\r\n",
    "CRLF continuation": "Subject\r\n\r\nGoal: a long\r\n  goal text\r\nRun-Id: r\r\n\r\n",
    "CRLF without a block": "Subject\r\n\r\nBody\r\n",
    "continuation lines": "Subject\n\nGoal: a very\n long goal\n\tthat wraps\nRun-Id: r1\n",
    "continuation with trailing spaces": "Subject\n\nGoal: a  \n   b\n",
    "continuation after prose": "Subject\n\nSigned-off-by: A\nprose\n  indented\n",
    "indented first block line": "Subject\n\n  K: v\nJ: w\n",
    "keys in different cases": "Subject\n\nrun-id: a\nRUN-ID: b\nAgent-session: claude:x\n",
    "spaces before the colon": "Subject\n\nRun-Id : r1\nGoal\t: g\nKey:nospace\n",
    "non-trailer line in the block": "Subject\n\nRun-Id: r1\nthis is not a trailer\nGoal: g\n",
    "non-trailer with Signed-off-by": (
        "Subject\n\nRun-Id: r1\nthis is not a trailer\nSigned-off-by: X <x@y>\n"
    ),
    "trailing blank lines": "Subject\n\nK: v\n\n\n\n",
    "trailing whitespace lines": "Subject\n\nK: v\n   \n\t\n",
    "blank line then whitespace": "Subject\n\nK: v\n\n  \n",
    "no final newline": "Subject\n\nK: v",
    "a URL line is a trailer": "Subject\n\nhttps://example.com/x\nK: v\n",
    "two-word key": "Subject\n\nCo authored: x\nK: v\n",
    "empty values": "Subject\n\nK:\nJ: \n",
    "values with spaces": "Subject\n\nK:    spaced   out   \n",
    "blank first lines": "\n\nK: v\n",
    "old Conflicts block": "Subject\n\nK: v\n\nConflicts:\n\tfile.c\n\tother.c\n",
    "Conflicts right after": "Subject\n\nK: v\nConflicts:\n\tfile.c\n",
    "non-ASCII value": "Subject\n\nCo-authored-by: Zoë Ünal <z@example.com>\n",
    "non-ASCII key": "Subject\n\nClé: v\n",
    "hash inside a value": "Subject\n\nAgent-Session: claude:abc#r1 # trailing\n",
    "dash key": "Subject\n\n-x: y\n--: z\n",
    "leading colon": "Subject\n\n: v\nK: w\n",
    "NUL ends the message": "Subject\n\nK: v\n\0J: w\n",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_parse_matches_git(git_env: dict[str, str], name: str) -> None:
    message = CORPUS[name]
    assert parse_trailers(message) == git_parse(git_env, message)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_parse_without_divider_matches_git(git_env: dict[str, str], name: str) -> None:
    message = CORPUS[name]
    assert parse_trailers(message, divider=False) == git_parse(git_env, message, "--no-divider")


def test_the_corpus_is_tricky() -> None:
    assert len(CORPUS) >= 24
    assert parse_trailers(CORPUS["CRLF continuation"]) == (
        Trailer("Goal", "a long\r goal text"),  # git keeps the \r before the fold
        Trailer("Run-Id", "r"),
    )
    assert parse_trailers(CORPUS["mention in a middle paragraph"]) == ()
    assert parse_trailers(CORPUS["one paragraph, all trailers"]) == ()
    assert parse_trailers(CORPUS["a URL line is a trailer"])[0] == Trailer(
        "https", "//example.com/x"
    )
    assert parse_trailers(CORPUS["patch divider"]) == (Trailer("K", "v"),)
    assert parse_trailers(CORPUS["dashes in the block"]) == ()


def test_scissors_after_the_divider() -> None:
    # git 2.39 never returns on this input (wt_status_locate_end looks past the divider);
    # later gits ignore a scissors line beyond the end, which is what we do
    message = f"Subject\n\nK: v\n---\nfoo\n{CUT}bar: x\n"
    assert parse_trailers(message) == (Trailer("K", "v"),)
    assert parse_trailers(message, divider=False) == ()  # "---" and "foo" join the paragraph


def test_values_are_case_insensitive() -> None:
    trailers = parse_trailers(CORPUS["keys in different cases"])
    assert values(trailers, "Run-Id") == ["a", "b"]
    assert values(trailers, "agent-session") == ["claude:x"]
    assert values(trailers, "Goal") == []


# ---------------------------------------------------------------------------
# add_trailers

SESSION = Trailer("Agent-Session", "claude:ses_01")
ADDS: list[tuple[str, tuple[Trailer, ...]]] = [
    ("", (SESSION,)),
    ("Add a thing\n", (SESSION,)),
    ("Add a thing\n\nBody text.\n", (SESSION, Trailer("Run-Id", "r1"))),
    ("Subject\n\nRun-Id: r1\n", (SESSION,)),
    ("Subject\n\nAgent-Session: claude:ses_01\n", (SESSION,)),
    ("Subject\n\nagent-session: claude:ses_01\n", (SESSION,)),
    ("Subject\n\nAgent-Session: codex:x\n", (SESSION, SESSION)),
    ("Subject\n\nBody\n\n# Please enter the message\n# more\n", (SESSION,)),
    (f"Subject\n\nK: v\n{CUT}diff\n", (SESSION,)),
    ("Subject\n\nK: v\n---\n a | 1 +\n", (SESSION,)),
    ("Subject\n\nK: v\n\n\n", (SESSION,)),
    ("Subject\n\nprose\nSigned-off-by: A <a@b>\n", (SESSION,)),
    ("Subject\n\nWe set\nRun-Id: x\n\nand then stopped.\n", (Trailer("Run-Id", "x"),)),
    ("Subject\n\nK: v\n\nConflicts:\n\tfile.c\n", (SESSION,)),
    ("Conflicts:\n\n\tcontinued\n", (Trailer("0", ""),)),  # placed where git then reads none
    ("# only a comment\n", (SESSION,)),
    ("Subject\n  \n", (SESSION,)),
    ("Subject\n\nK: v", (SESSION,)),
]


@pytest.mark.parametrize("i", range(len(ADDS)))
def test_add_matches_git(git_env: dict[str, str], i: int) -> None:
    message, new = ADDS[i]
    assert add_trailers(message, new) == git_add(git_env, message, *new)


DIVERGENT = [
    "Subject\n\nRun-Id : r1\nGoal:g\n",  # git respells the existing lines
    "Subject\r\n\r\nRun-Id: r1\r\n",  # git writes the block with LF
    "Subject\r\n\r\nBody\r\n",
    "Subject\n\nRun-Id: r1\n# kept\nGoal: g\n",  # git drops comments inside the block
    "Subject\n\nK: v\n  \n",  # and whitespace-only lines at its end
]


@pytest.mark.parametrize("message", DIVERGENT)
def test_add_keeps_the_message_byte_for_byte(git_env: dict[str, str], message: str) -> None:
    ours = add_trailers(message, [SESSION])
    theirs = git_add(git_env, message, SESSION)
    assert ours != theirs
    assert parse_trailers(ours) == git_parse(git_env, theirs)
    assert parse_trailers(ours) == (*parse_trailers(message), SESSION)
    added = len(ours) - len(message)
    assert any(ours[:i] + ours[i + added :] == message for i in range(len(message) + 1))


def test_add_fixes_an_unterminated_subject(git_env: dict[str, str]) -> None:
    # git appends "K: v" straight after "Subject", so its own parser then finds nothing
    assert git_parse(git_env, git_add(git_env, "Subject", SESSION)) == ()
    assert add_trailers("Subject", [SESSION]) == "Subject\n\nAgent-Session: claude:ses_01\n"
    assert add_trailers("Subject\r\n", [SESSION]) == (
        "Subject\r\n\r\nAgent-Session: claude:ses_01\r\n"
    )


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Subject\n\nbody\n---", "Subject\n\nbody\n\nK: v\n---\n"),
        ("Subject\n\nSigned-off-by: A\n---", "Subject\n\nSigned-off-by: A\nK: v\n---\n"),
        (CUT.rstrip("\n"), f"\nK: v\n{CUT}"),
    ],
)
def test_add_reads_the_completed_message(message: str, expected: str) -> None:
    # completing the last line turns "---" into a divider and "# --- >8 ---" into scissors
    assert add_trailers(message, [Trailer("K", "v")]) == expected
    assert Trailer("K", "v") in parse_trailers(expected)


def test_add_compares_keys_whole_and_values_exactly(git_env: dict[str, str]) -> None:
    message = "Subject\n\nRun-Id: x\nAgent-Session: claude:ABC\n"
    new = [Trailer("Run", "x"), Trailer("Agent-Session", "claude:abc")]
    assert parse_trailers(add_trailers(message, new))[-2:] == tuple(new)
    assert git_add(git_env, message, *new) == message  # git's prefix and case quirks


def test_add_compares_unfolded_values(git_env: dict[str, str]) -> None:
    message = "Subject\n\nGoal: a long\n  goal\n"
    assert parse_trailers(message) == (Trailer("Goal", "a long goal"),)
    assert add_trailers(message, [Trailer("Goal", "a long goal")]) == message
    # git compares the folded text, so it adds the same trailer again
    assert git_add(git_env, message, Trailer("Goal", "a long goal")) != message


def test_add_rejects_what_would_forge_lines() -> None:
    with pytest.raises(ValueError, match="one line"):
        add_trailers("S\n", [Trailer("Goal", "a\nRun-Id: forged")])
    with pytest.raises(ValueError, match="key"):
        add_trailers("S\n", [Trailer("Two words", "v")])
    with pytest.raises(ValueError, match="NUL"):
        add_trailers("S\0\n", [SESSION])
    assert add_trailers("S\n", [Trailer("K", "  v  ")]) == "S\n\nK: v\n"
    assert add_trailers("S\n", []) == "S\n"


LINE_PARTS = [
    "Subject",
    "",
    "prose words here",
    "Key: v",
    "K : v",
    "Signed-off-by: A <a@b>",
    "(cherry picked from commit abc)",
    "# comment",
    "  continued",
    "\tcontinued",
    "   ",
    "---",
    "--- x",
    "-----",
    "Conflicts:",
    "https://example.com/a",
    CUT.rstrip("\n"),
    "\r",
    "Run-Id: r\r",
]
lines_strategy = st.lists(
    st.sampled_from(LINE_PARTS)
    | st.text(alphabet="ab :#-\t\r", max_size=8)
    | st.text(st.characters(codec="utf-8", exclude_characters="\n\0"), max_size=6),
    max_size=10,
)
messages = st.builds(
    lambda lines, end: "\n".join(lines) + end, lines_strategy, st.sampled_from(["", "\n", "\n\n"])
)
# [A-Za-z0-9][A-Za-z0-9-]{0,12}, drawn with st.text (st.from_regex draws each character)
ALNUM = string.ascii_letters + string.digits
keys = st.builds(str.__add__, st.sampled_from(ALNUM), st.text(ALNUM + "-", max_size=12))
trailer_values = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\0"), max_size=20)


def _git_would_hang(message: str) -> bool:
    """git 2.39 loops forever when a scissors line follows the ``---`` divider."""
    lines = message.split("\n")
    divider = next(
        (
            i
            for i, line in enumerate(lines)
            if line.startswith("---")
            and (line[3:4] in (" ", "\t", "\r") or (line == "---" and i < len(lines) - 1))
        ),
        None,
    )
    return divider is not None and "\n" + CUT in "\n" + "\n".join(lines[divider:])


@BOUNDED
@given(message=messages)
def test_random_messages_parse_like_git(git_env: dict[str, str], message: str) -> None:
    assume(not _git_would_hang(message))
    assert parse_trailers(message) == git_parse(git_env, message)


@BOUNDED
@given(message=messages, key=keys, value=trailer_values)
def test_added_trailers_parse_back(message: str, key: str, value: str) -> None:
    # git ignores a trailing old-style "Conflicts:" block when it places a
    # trailer, then does not parse one placed before that block's tab lines:
    # `git interpret-trailers --trailer 0= <<< $'Conflicts:\n\n\tx'` does not
    # parse back either (add_trailers places it as git does: test_add_matches_git)
    assume("Conflicts:" not in message)
    out = add_trailers(message, [Trailer(key, value)])
    assert Trailer(key, value.strip(" \t")) in parse_trailers(out)
    assert add_trailers(out, [Trailer(key, value)]) == out


# ---------------------------------------------------------------------------
# session references


@pytest.mark.parametrize(
    "ref",
    ["claude:ses_01H9X", "codex:ns:abc-123", "claude:ses_1#r1", "a.b_c-d:x", "copilot:6f0c-1"],
)
def test_session_refs(ref: str) -> None:
    assert is_session_ref(ref)


@pytest.mark.parametrize(
    "ref",
    [
        "",
        "claude",
        "claude:",
        "https://claude.ai/code/session_1",
        "claude:a b",
        "claude:ses/1",
        "claude:a:b:c",
        ":x",
        "-a:x",
        "claude:x#",
        "claude:x\x00",
        "claude:x#r\x7f",
        "claude:x\n",
    ],
)
def test_not_session_refs(ref: str) -> None:
    assert not is_session_ref(ref)


def test_sessions_of_normalises_the_aliases() -> None:
    message = (
        "Subject\n\n"
        "Agent-Session: claude:ses_1\n"
        "Copilot-Session: 6f0c5d3e-1111-2222-3333-444455556666\n"
        "Claude-Session: https://claude.ai/code/session_01ABC\n"
        "claude-session: ses_1\n"
        "Agent-Logs-Url: https://github.com/o/r/sessions/9a8b7c6d-0000-1111-2222-333344445555\n"
        "Agent-Logs-Url: https://example.com/logs/1\n"
        "Agent-Session: https://evil.example/x\n"
        "AGENT-SESSION: claude:ses_1\n"
        "Agent-Session: codex:ns:s2#rec\n"
    )
    assert sessions_of(parse_trailers(message)) == (
        "claude:ses_1",
        "copilot:6f0c5d3e-1111-2222-3333-444455556666",
        "claude:session_01ABC",
        "copilot:9a8b7c6d-0000-1111-2222-333344445555",
        "codex:ns:s2#rec",
    )
    assert SESSION_KEY == "Agent-Session"


def test_sessions_of_skips_what_does_not_normalise() -> None:
    trailers = [Trailer("Copilot-Session", ""), Trailer("Claude-Session", "a b")]
    trailers += [Trailer("Agent-Logs-Url", "not a url"), Trailer("Run-Id", "claude:x")]
    assert sessions_of(trailers) == ()


def test_the_grammar_agrees_with_the_run_commit_check() -> None:
    from git_gasp.agent.runs import check_session
    from git_gasp.errors import GaspError

    refs = ["claude:ses_01H9X", "codex:ns:abc", "claude:x#r1", "claude:a b", "x:y/z", "a:b:c:d"]
    for ref in refs:
        try:
            accepted = check_session(ref) == ref
        except GaspError:
            accepted = False
        assert is_session_ref(ref) == accepted, ref
