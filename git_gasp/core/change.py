"""The change validator: one change (a commit, or the staged index) judged
against the state before it, on plain values. Every hook uses it.

Its cost follows what changed, never history: an append-only file is judged
by the bytes it appends (and the context of the version before, see
:mod:`git_gasp.core.logcontext`); the other rules look only at changed paths.

This module holds the byte rules of append-only files (append-only, merges,
line size, UTF-8, credentials, torn lines). The appended events and facts
are judged in :mod:`git_gasp.core.appendedevents`; identity, skills,
transcripts and the control plane in :mod:`git_gasp.core.agentfiles`;
checkout attributes in :mod:`git_gasp.core.attributes`; a commit's trailers
in :mod:`git_gasp.core.commitmessage`. The rules and their names are listed
in :mod:`git_gasp.core.finding`.
"""

from __future__ import annotations

from collections.abc import Sequence

from git_gasp.core.appendedevents import check_events
from git_gasp.core.finding import Finding
from git_gasp.core.jsonvalue import JsonError, loads
from git_gasp.core.pack import Pack
from git_gasp.core.secrets import SCREEN_TRIGGERS, SecretFinding, find_secrets
from git_gasp.core.secretscreen import scan_lines

DEFAULT_MAX_LINE_BYTES = 1 << 20
APPEND_HINT = "append-only: add new lines at the end instead (a correction is a new event)"
# for a commit already made, a revert would be one more edit: rewrite it instead
COMMITTED_APPEND_HINT = (
    "append-only: rewrite the commits not yet pushed so the file only grows "
    "(git rebase -i @{upstream}; a revert edits it again); a correction is a new event"
)
MERGE_HINT = "merge agent logs with merge=union (git gasp init sets it in .gitattributes)"


# -- append-only ----------------------------------------------------------------


def split_lines(data: bytes) -> list[bytes]:
    """Lines split on ``\\n`` only, terminators kept."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def edit_finding(path: str, before: bytes, after: bytes) -> Finding:
    """How ``after`` fails to keep ``before`` as its start, at the first line
    that differs: truncated, deleted, inserted, reordered or edited."""
    old, new = split_lines(before), split_lines(after)
    if after and not after.endswith(b"\n") and before.startswith(after):  # cut inside a line
        n = len(new)
        gone = f"line {n} is" if n == len(old) else f"lines {n}-{len(old)} are"
        what = f"the file was truncated inside committed line {n}: {gone} cut or gone"
        return Finding(path, n, "append-only", what, APPEND_HINT)
    i = 0
    while i < len(old) and i < len(new) and old[i] == new[i]:
        i += 1
    n = i + 1
    if i >= len(new):
        gone = f"line {n} is" if n == len(old) else f"lines {n}-{len(old)} are"
        what = f"the file was truncated: committed {gone} gone"
        return Finding(path, n if new else None, "append-only", what, APPEND_HINT)
    if i >= len(old):  # an unterminated last line that was extended or changed
        what = f"committed line {len(old)} had no newline and was changed"
        return Finding(path, len(old), "append-only", what, APPEND_HINT)
    moved_down = old[i] in new[i + 1 :]
    moved_up = new[i] in old[i + 1 :]
    if moved_down and moved_up:
        what = f"committed lines were reordered at line {n}"
    elif moved_down:
        what = f"a line was inserted before committed line {n}"
    elif moved_up and i + 1 < len(old) and old[i + 1] == new[i]:
        what = f"committed line {n} was deleted"
    elif moved_up:
        what = f"committed lines were deleted at line {n}"
    else:
        what = f"committed line {n} was edited"
    return Finding(path, n, "append-only", what, APPEND_HINT)


def appended_chunk(
    path: str, before: bytes | None, after: bytes | None, jsonl: bool
) -> tuple[list[Finding], bytes | None]:
    """One parent to one child: the bytes appended (None when unchanged or
    when the append-only rule fails, with its finding)."""
    if after is None:
        return ([deletion_finding(path)] if before is not None else []), None
    if before is None:
        return [], after
    if before == after:
        return [], None
    if not after.startswith(before):
        return [edit_finding(path, before, after)], None
    chunk = after[len(before) :]
    if before and not before.endswith(b"\n") and not chunk.startswith(b"\n"):
        # finishing the last line with its newline is an append; more is an edit
        n = before.count(b"\n") + 1
        message = f"committed line {n} had no newline and was extended"
        hint = "start what you append with a newline" + (" (or: git gasp repair)" if jsonl else "")
        return [Finding(path, n, "append-only", message, hint)], None
    return [], chunk


def judge_log_change(
    path: str,
    before: bytes | None,
    after: bytes | None,
    packs: Sequence[Pack] = (),
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> list[Finding]:
    """Every log rule for one linear change of the log, on plain bytes."""
    from git_gasp.core.logcontext import context_of

    findings, chunk = appended_chunk(path, before, after, jsonl=True)
    if chunk is None:
        return findings
    context = context_of(before or b"")
    findings += check_lines(path, chunk, context.lines + 1, max_line_bytes, jsonl=True)
    findings += check_events(path, context, chunk, packs).findings
    return sorted(findings, key=lambda f: f.line or 0)


def merge_finding(
    path: str, parents: Sequence[bytes | None], merged: bytes, names: Sequence[str]
) -> Finding | None:
    """The merge rule (:mod:`git_gasp.core.mergerule`, the same as check 4's)
    on bytes: every parent's lines kept in its order, any interleaving, the
    merge's own lines at its end."""
    from git_gasp.core.mergerule import EDITS_BASE, NEW_LINE_FIRST, merge_verdict, shared_start

    present = [(i, p) for i, p in enumerate(parents) if p is not None]
    if not present:
        return None
    base = shared_start([p for _, p in present])
    first_i = present[0][0]
    if not merged.startswith(present[0][1][:base]):
        what = f"the merge does not keep parent {names[first_i][:7]}'s version as its start"
        return Finding(path, None, "append-only", what, MERGE_HINT)
    tails = [merge_lines(p[base:]) for _, p in present]
    problem = merge_verdict(tails, merge_lines(merged[base:])).problem
    if problem is None:
        return None
    if problem == NEW_LINE_FIRST:
        what = (
            f"the merge does not keep parent {names[first_i][:7]}'s lines first: "
            "a line no parent holds comes before them (a merge appends at its end)"
        )
    elif problem == EDITS_BASE:  # not returned for tails, kept for completeness
        what = "the merge edits lines its parents share"
    else:
        what = f"the merge drops lines that parent {names[present[problem][0]][:7]} added"
    return Finding(path, None, "append-only", what, MERGE_HINT)


def merge_lines(data: bytes) -> list[bytes]:
    """Lines compared by the merge rule: split on ``\\n``, without it (an
    unterminated last line matches the same line terminated by a merge)."""
    parts = data.split(b"\n")
    return parts[:-1] if parts and not parts[-1] else parts


def merged_lines_not_in(first: bytes, merged: bytes) -> bytes:
    """The lines of ``merged`` that ``first`` does not hold (as often), in
    the merged order: what a merge brings to its first parent's log."""
    from collections import Counter

    left = Counter(split_lines(first))
    out: list[bytes] = []
    for line in split_lines(merged):
        if left[line] > 0:
            left[line] -= 1
        else:
            out.append(line)
    return b"".join(out)


def deletion_finding(path: str) -> Finding:
    return Finding(
        path,
        None,
        "append-only",
        "the file was deleted",
        "an agent's append-only files are never deleted; restore it from the parent commit",
    )


# -- appended lines: size, encoding, credentials ----------------------------------

Lines = set[int] | None


def check_lines(
    path: str, chunk: bytes, first_line: int, max_line_bytes: int, jsonl: bool, scan: Lines = None
) -> list[Finding]:
    """Size, UTF-8, credentials and (for JSONL) the final newline of the
    appended ``chunk``, whose first line is line ``first_line`` of the file.
    ``scan``: lines to screen for credentials, known to hold every line
    :func:`~git_gasp.core.secrets.lines_to_scan` gives
    (:mod:`git_gasp.core.secretscreen`)."""
    out: list[Finding] = []
    lines = chunk.split(b"\n")
    last = len(lines) - 1
    # one screen of the whole chunk: a line with no trigger and no JSON
    # escape that could spell one holds no credential (line_secrets finds none)
    if scan is None:
        scan = scan_lines(chunk)
    for i, raw in enumerate(lines):
        if i == last and not raw:
            break
        n = first_line + i
        if len(raw) > max_line_bytes:
            out.append(
                Finding(
                    path,
                    n,
                    "line-size",
                    f"line is {len(raw):,} bytes, over the {max_line_bytes:,}-byte cap",
                    "store large content as an artifact file and reference it by digest "
                    "(or raise git config gasp.maxLineBytes)",
                )
            )
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.append(
                Finding(
                    path,
                    n,
                    "utf-8",
                    f"line is not valid UTF-8 (byte {exc.start + 1} of the line)",
                    "write the file as UTF-8",
                )
            )
            continue
        if i in scan or escapes_may_hide(text):
            out += _secret_findings(path, n, text)
        if i == last and jsonl and not _whole_object(text):
            # a whole last object without its newline is no interrupted write (a
            # log may end so, REFERENCE §10.4); the next append terminates it
            out.append(
                Finding(
                    path,
                    n,
                    "torn",
                    "the last line has no newline (an interrupted write?)",
                    "finish the line with a newline, or drop it with: git gasp repair",
                )
            )
    return out


def _secret_findings(path: str, n: int, text: str) -> list[Finding]:
    """The credentials in line ``n`` of ``path``, each a finding."""
    return [
        Finding(
            path,
            n,
            "secret",
            f"{where_}: looks like {secret.label} ({secret.preview}) [{secret.rule}]",
            SECRET_HINT,
        )
        for where_, secret in line_secrets(text)
    ]


def _whole_object(text: str) -> bool:
    try:
        return isinstance(loads(text), dict)
    except JsonError:
        return False


SECRET_HINT = (
    "an append-only log can never forget a secret: remove it from the staged lines, "
    "rotate the credential, and reference secrets by name"
)


# What JSON's two-character escapes decode to. Only one whose character some
# trigger holds (``\/``: "://"), or ``\u`` (any character), can put a trigger in
# a decoded string that the raw line does not show: the others decode to
# characters no trigger holds, so every trigger in a decoded string is there,
# letter for letter, in the raw line too.
_DECODED = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SPELLS = tuple("\\" + e for e, c in _DECODED.items() if any(c in t for t in SCREEN_TRIGGERS))
HIDING_ESCAPES = ("\\u", *_SPELLS)


def escapes_may_hide(line: str) -> bool:
    """Whether ``line``'s JSON escapes could spell a trigger its raw text does
    not show (``HIDING_ESCAPES``): a line with no trigger and no such escape
    holds no credential decoded either, so a line of ``\\n`` and ``\\"``
    escapes (a tool's output, a multi-line summary) is not decoded."""
    return "\\" in line and any(e in line for e in HIDING_ESCAPES)


def line_secrets(text: str) -> list[tuple[str, SecretFinding]]:
    """The credentials in one line of an append-only file, each with where it
    is: a column, or "in a JSON string" when JSON escapes spell it."""
    secrets = [(f"column {f.column}", f) for f in find_secrets(text)]
    if not secrets and "\\" in text:
        # JSON escapes (\uXXXX, \/, \t, \n, ...) can spell a secret, or hide
        # the white space in one, that the raw line does not show
        secrets = [("in a JSON string", f) for f in _escaped_secrets(text)]
    return secrets


def _escaped_secrets(text: str) -> list[SecretFinding]:
    """Secrets in the decoded strings (keys and values) of a JSON line."""
    import json

    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return []
    strings: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, dict):
            for key, child in item.items():
                strings.append(key)
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
    found: list[SecretFinding] = []
    for string in strings:
        found += find_secrets(string)
    return found
