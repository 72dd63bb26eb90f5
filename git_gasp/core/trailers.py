"""Commit-message trailers, read exactly as ``git interpret-trailers --parse`` reads them.

The rules, as git 2.39 applies them with ``core.commentChar=#`` and no ``trailer.*``
configuration (all measured against the real git in ``tests/test_trailers.py``):

* The message ends at the first NUL, and at the first line that starts with ``---``
  followed by whitespace (the patch divider; ``git log --format=%(trailers)`` skips this
  rule, hence ``divider=False``).
* Of what remains, the end is ignored: everything from a scissors line
  (``# ------------------------ >8 ------------------------``) on, then the trailing run
  of ``#`` comment lines, empty lines and an old-style ``Conflicts:`` block (tab-indented
  paths). Whitespace-only lines (including a bare ``\\r``) do not count as empty here.
* The first paragraph (the subject; comment lines skipped) is never a trailer block.
* The block is the last paragraph, found by walking up from the end to a blank line
  (whitespace only): it counts if all its lines are trailers, or if it holds a
  git-generated line (``Signed-off-by: `` or ``(cherry picked from commit ``, case and
  the space included) and trailers make up at least 25 % of its lines. Comment lines are
  skipped; indented lines are continuations of a trailer above them (and non-trailers
  otherwise).
* A trailer line is ``<token><optional spaces or tabs>:<value>`` where the token is ASCII
  letters, digits and ``-``: ``Key : v`` and ``Key:v`` are trailers, ``Two words: v`` is
  not, and so is ``https://example.com`` (token ``https``). ``(cherry picked …)`` counts
  towards the block but has no ``:`` and so is not reported.
* Values are trimmed of `` \\t\\r\\n``; a continuation is unfolded by replacing each
  newline and the whitespace after it with one space. What precedes the newline is
  kept, so a CRLF message folds ``"a\\r\\n  b"`` into ``"a\\r b"``, as git does.
"""

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

COMMENT = "#"
SCISSORS = "# ------------------------ >8 ------------------------\n"
GIT_GENERATED = ("Signed-off-by: ", "(cherry picked from commit ")
SPACE = " \t\r\n"  # git's isspace(): no \v or \f
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_TOKEN = re.compile(r"[A-Za-z0-9-]+")
_UNFOLD = re.compile(r"\n[ \t\r\n]*")

SESSION_KEY = "Agent-Session"
# <agent>:[<namespace>:]<sessionId>[#<recordRef>]; no whitespace or control characters.
SESSION_REF = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9._-]*:(?:[A-Za-z0-9][A-Za-z0-9._-]*:)?"
    r"[^\s:#/\x00-\x1f\x7f]+(?:#[^\s\x00-\x1f\x7f]+)?"
)
_URL = re.compile(r"https?://[^/\s]+(/[^?#\s]*)?(?:[?#]\S*)?", re.IGNORECASE)
_ALIASES = {"copilot-session": "copilot", "claude-session": "claude"}
LOGS_URL_KEY = "Agent-Logs-Url"
#: the keys whose values name a session (lower case): Agent-Session and its aliases
SESSION_TRAILER_KEYS = frozenset({SESSION_KEY.lower(), *_ALIASES, LOGS_URL_KEY.lower()})


class Trailer(NamedTuple):
    key: str  # as written (``Signed-off-by``), compare case-insensitively
    value: str  # trimmed and unfolded, as ``git interpret-trailers --parse`` prints it


class _Block(NamedTuple):
    start: int  # where the trailer block starts (== end when there is none)
    end: int  # where the considered message ends (trailing comments etc. excluded)


def _lines(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(offset, line) pairs, each line keeping its ``\\n``."""
    pos = start
    while pos < len(text):
        nl = text.find("\n", pos)
        nxt = len(text) if nl == -1 else nl + 1
        yield pos, text[pos:nxt]
        pos = nxt


def _blank(line: str) -> bool:
    return not line.strip(SPACE)


def _separator(line: str) -> int:
    """Index of the ``:`` after a token and optional blanks, or -1 (git's find_separator)."""
    spaces = False
    for i, c in enumerate(line):
        if c == ":":
            return i
        if not spaces and c in _TOKEN_CHARS:
            continue
        if i and c in " \t":
            spaces = True
            continue
        break
    return -1


def _patch_start(text: str) -> int:
    for pos, line in _lines(text):
        if line.startswith("---") and len(line) > 3 and line[3] in SPACE:
            return pos
    return len(text)


def _scissors_cut(text: str, end: int) -> int:
    if text.startswith(SCISSORS):
        return 0
    found = text.find("\n" + SCISSORS)
    # git 2.39 loops forever on a scissors line after the divider; later gits ignore it.
    return found + 1 if found != -1 and found + 1 < end else end


def _message_end(text: str, end: int) -> int:
    """``end`` minus the trailing comments, empty lines and ``Conflicts:`` block."""
    cutoff = _scissors_cut(text, end)
    boc = 0  # start of the ignorable run; 0 doubles as "none", as in git
    conflicts = False
    for pos, line in _lines(text[:cutoff]):
        if line[0] in (COMMENT, "\n"):
            boc = boc or pos
        elif line == "Conflicts:\n":
            conflicts = True
            boc = boc or pos
        elif conflicts and line[0] == "\t":
            pass
        elif boc:
            boc, conflicts = 0, False
    return boc or cutoff


def _block_start(text: str, end: int) -> int:
    """Where the final trailer block starts in ``text[:end]``; ``end`` if none."""
    body = text[:end]
    title_end = end
    for pos, line in _lines(body):
        if line[0] != COMMENT and _blank(line):
            title_end = pos
            break
    only_spaces, recognised = True, False
    trailers = non_trailers = possible = 0
    for pos, line in reversed(list(_lines(body, 0))):
        if pos < title_end:
            break
        if line[0] == COMMENT:
            non_trailers, possible = non_trailers + possible, 0
        elif _blank(line):
            if only_spaces:
                continue
            non_trailers += possible
            if (recognised and trailers * 3 >= non_trailers) or (trailers and not non_trailers):
                return pos + len(line)
            return end
        else:
            only_spaces = False
            if line.startswith(GIT_GENERATED):
                trailers, possible, recognised = trailers + 1, 0, True
            elif _separator(line) >= 1:
                trailers, possible = trailers + 1, 0
            elif line[0] in SPACE:
                possible += 1
            else:
                non_trailers, possible = non_trailers + 1 + possible, 0
    return end


def _block(text: str, divider: bool) -> _Block:
    end = _message_end(text, _patch_start(text) if divider else len(text))
    return _Block(_block_start(text, end), end)


def _entries(text: str, block: _Block) -> list[str]:
    """The block's lines with continuation lines folded into the trailer above."""
    entries: list[str] = []
    folding = False
    for _, line in _lines(text[block.start : block.end]):
        if folding and line[0] in SPACE:
            entries[-1] += line
            continue
        entries.append(line)
        folding = _separator(line) >= 1
    return entries


def _trailer(entry: str) -> Trailer | None:
    if entry[0] == COMMENT:
        return None
    sep = _separator(entry)
    if sep < 1:
        return None
    value = _UNFOLD.sub(" ", entry[sep + 1 :].strip(SPACE)).strip(SPACE)
    return Trailer(entry[:sep].strip(SPACE), value)


def parse_trailers(message: str, *, divider: bool = True) -> tuple[Trailer, ...]:
    """The trailers of the final trailer block, as ``git interpret-trailers --parse``.

    ``divider=False`` does not end the message at a ``---`` line, as
    ``git interpret-trailers --no-divider`` and ``git log --format=%(trailers)`` do.
    """
    text = message.split("\0", 1)[0]
    block = _block(text, divider)
    found = (_trailer(entry) for entry in _entries(text, block))
    return tuple(t for t in found if t is not None)


def values(trailers: Iterable[Trailer], key: str) -> list[str]:
    """The values of ``key`` (matched case-insensitively), in order."""
    wanted = key.lower()
    return [t.value for t in trailers if t.key.lower() == wanted]


def _check_new(trailer: Trailer) -> Trailer:
    if not _TOKEN.fullmatch(trailer.key):
        raise ValueError(f"trailer key {trailer.key!r} must be ASCII letters, digits and '-'")
    if any(c in trailer.value for c in "\r\n\0"):
        raise ValueError(f"trailer {trailer.key} value must be one line")
    return Trailer(trailer.key, trailer.value.strip(SPACE))


def add_trailers(message: str, new: Sequence[Trailer]) -> str:
    """Append ``new`` to the final trailer block, like ``git interpret-trailers
    --if-exists addIfDifferent --where end``.

    A trailer whose key (case-insensitively) and value (exactly) are already in the
    block, or earlier in ``new``, is skipped; if nothing is left the message comes back
    unchanged. Without a block, one is started after a blank line. Everything else
    stays byte for byte: the new lines go after the block's last non-blank line (before
    trailing comments, a scissors line or a patch), with the line ending of the
    message's first line. Deliberate differences from git, which rewrites the whole
    block: existing lines keep their spelling (``Key : v``, ``Key:v``), CRLF endings and
    comments; an unterminated last line gets its newline first, and the message is then
    read as completed (git glues the trailer onto that line, and a bare ``---`` line
    becomes a divider that hides it); keys are compared whole and values exactly
    (git's ``same_token`` lets ``Run`` match ``Run-Id``, and it compares values with
    ``strcasecmp`` before unfolding them).
    """
    if "\0" in message:
        raise ValueError("a commit message cannot contain NUL")
    wanted = [_check_new(t) for t in new]
    eol = "\r\n" if message.partition("\n")[0].endswith("\r") else "\n"
    text = message if not message or message.endswith("\n") else message + eol
    seen = {(t.key.lower(), t.value) for t in parse_trailers(text)}
    lines: list[str] = []
    for t in wanted:
        if (t.key.lower(), t.value) not in seen:
            seen.add((t.key.lower(), t.value))
            lines.append(f"{t.key}: {t.value}{eol}")
    if not lines:
        return message
    block = _block(text, divider=True)
    if block.start < block.end:
        at = max(
            pos + len(ln) for pos, ln in _lines(text[: block.end], block.start) if ln.strip(SPACE)
        )
        lead = ""
    else:
        at = block.end  # a line boundary: text ends with a newline
        last = text[: at - 1].rpartition("\n")[2] if at else None
        lead = "" if last is not None and _blank(last) else eol
    return text[:at] + lead + "".join(lines) + text[at:]


def is_session_ref(value: str) -> bool:
    """``<agent>:[<namespace>:]<sessionId>[#<recordRef>]``, never a URL, no whitespace."""
    return "://" not in value and SESSION_REF.fullmatch(value) is not None


def _last_segment(value: str) -> str:
    url = _URL.fullmatch(value)
    if url is None:
        return value
    segments = [s for s in (url.group(1) or "").split("/") if s]
    return segments[-1] if segments else ""


def _logs_url_session(value: str) -> str | None:
    url = _URL.fullmatch(value)
    if url is None:
        return None
    segments = [s for s in (url.group(1) or "").split("/") if s]
    if len(segments) >= 2 and segments[-2] == "sessions":
        return f"copilot:{segments[-1]}"
    return None


def _session(trailer: Trailer) -> str | None:
    key = trailer.key.lower()
    if key == SESSION_KEY.lower():
        ref: str | None = trailer.value
    elif key in _ALIASES:
        ref = f"{_ALIASES[key]}:{_last_segment(trailer.value)}"
    elif key == LOGS_URL_KEY.lower():
        ref = _logs_url_session(trailer.value)
    else:
        return None
    return ref if ref is not None and is_session_ref(ref) else None


def sessions_of(trailers: Iterable[Trailer]) -> tuple[str, ...]:
    """The session references in ``trailers``, de-duplicated, in order.

    ``Agent-Session: <ref>`` is taken as written. The aliases other tools write are
    normalised to ``<agent>:<id>``:

    * ``Copilot-Session: X`` → ``copilot:X``; ``Claude-Session: X`` → ``claude:X``.
      When X is an ``http(s)`` URL (Claude Code writes
      ``https://claude.ai/code/session_<id>``), its last path segment is the id:
      ``claude:session_<id>``.
    * ``Agent-Logs-Url: https://<host>/<owner>/<repo>/sessions/<id>`` (the GitHub
      Copilot coding agent) → ``copilot:<id>``. Other URLs name no session and are
      skipped; the raw value stays available through :func:`values`.

    A value that does not normalise to a valid reference (a URL in ``Agent-Session``,
    whitespace, an empty id) is skipped.
    """
    found: dict[str, None] = {}
    for trailer in trailers:
        ref = _session(trailer)
        if ref is not None:
            found.setdefault(ref)
    return tuple(found)
