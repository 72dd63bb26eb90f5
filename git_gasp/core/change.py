"""The change validator: one change (a commit, or the staged index) judged
against the state before it, on plain values. Every hook uses it.

Its cost follows what changed, never history: an append-only file is judged
by the bytes it appends (and the context of the version before, see
:mod:`git_gasp.core.logcontext`); the other rules look only at changed paths.

Rules (the ``rule`` of a :class:`Finding`), documented in git-gasp-hooks(1):

=================  ==============================================================
append-only        the log, facts files and journals only grow at their end; a
                   merge keeps every line each parent added (the check 4 rule)
envelope           an appended event has the exact envelope (check 1)
vocabulary         node kinds and relations are baseline or declared (check 3)
causation          ids unique, causes point backwards, roots have root kinds (5)
pairing            a domain event's pair lands in the same change; no ops event
                   chains to an ops event; an entity is created once (check 7)
fold               a strict fold of the appended lines skips nothing (check 2)
identity           identity/ changes with its hash in AGENT.md and a
                   decision.created pair; the hash never changes alone
skill              changed SKILL.md frontmatter is valid; one skill per commit
facts              appended facts follow the §9.5 envelope and name known ids
snapshot           an added or changed snapshot verifies against the log
control-plane      .agent/lease, .agent/HEAD, .agent/RUN, .agent/worker are
                   local and never committed
transcript         transcripts/ is not committed unless gasp.commitTranscripts
trailer            a boundary commit names its run in Run-Id/Goal/Outcome;
                   Agent-Session values follow the grammar
path               no changed path name holds a line break
secret             appended lines carry no credentials (git_gasp.core.secrets)
line-size          no appended line is larger than the cap (default 1 MiB)
utf-8              append-only files stay valid UTF-8
torn               an appended JSONL line ends with a newline
=================  ==============================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from git_gasp.core.checks import PAIRED_KINDS, ParsedOps, is_allowed_root, pairing_findings
from git_gasp.core.event import OPS_APPLIED, Event
from git_gasp.core.jsonvalue import JsonError, loads
from git_gasp.core.log import log_lines, parse_log
from git_gasp.core.logcontext import LogContext
from git_gasp.core.manifest import declared_identity_hash
from git_gasp.core.ops import (
    AttachArtifact,
    CreateNode,
    CreateRelation,
    MarkStale,
    OpsError,
    TombstoneNode,
    UpdateNode,
    parse_ops,
)
from git_gasp.core.pack import Pack, vocabulary
from git_gasp.core.secrets import SecretFinding, find_secrets

DEFAULT_MAX_LINE_BYTES = 1 << 20
SQUASHED = "Squashed commit of the following:"  # how git merge --squash starts its message
_NUMBERED = re.compile(r"line (\d+): ")
CONTROL_PLANE = (".agent/lease", ".agent/HEAD", ".agent/RUN", ".agent/worker")
IDENTITY_HINT = (
    "make identity changes with: git gasp identity commit --approved-by NAME --reason TEXT"
)
LOCATIONS_HINT = (
    "record the approval in the same commit: git gasp record decision --status Approved "
    "--decided-by user:NAME --reason TEXT, then commit it with AGENT.md"
)
APPEND_HINT = "append-only: add new lines at the end instead (a correction is a new event)"
MERGE_HINT = "merge agent logs with merge=union (git gasp init sets it in .gitattributes)"


class Finding(NamedTuple):
    path: str
    line: int | None  # 1-based physical line in the new version, when one is to blame
    rule: str
    message: str
    hint: str

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path


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
    """The hooks' merge rule, on bytes (stricter than check 4's): the merged
    version starts with the first parent's version that has the file, and
    every line each other parent added after what they all share follows it,
    in order. That is what git's union merge and the gasp-append driver
    write; a line slipped in front of or between a parent's lines fails."""
    present = [(i, p) for i, p in enumerate(parents) if p is not None]
    if not present:
        return None
    first_i, first = present[0]
    if not merged.startswith(first):
        what = f"the merge does not keep parent {names[first_i][:7]}'s version as its start"
        return Finding(path, None, "append-only", what, MERGE_HINT)
    texts = [p for _, p in present]
    lo, hi = min(texts), max(texts)
    n = 0
    while n < len(lo) and lo[n] == hi[n]:
        n += 1
    base = lo[: lo.rfind(b"\n", 0, n) + 1]
    tail = split_lines(merged[len(first) :])
    kept = set(split_lines(first))  # lines an earlier merge already brought in
    for i, data in present[1:]:
        pos = 0
        added = [line for line in split_lines(data[len(base) :]) if line not in kept]
        for line in added:
            while pos < len(tail) and tail[pos] != line:
                pos += 1
            if pos == len(tail):
                what = f"the merge drops lines that parent {names[i][:7]} added"
                return Finding(path, None, "append-only", what, MERGE_HINT)
            pos += 1
    return None


def deletion_finding(path: str) -> Finding:
    return Finding(
        path,
        None,
        "append-only",
        "the file was deleted",
        "an agent's append-only files are never deleted; restore it from the parent commit",
    )


# -- appended lines: size, encoding, credentials ----------------------------------


def check_lines(
    path: str, chunk: bytes, first_line: int, max_line_bytes: int, jsonl: bool
) -> list[Finding]:
    """Size, UTF-8, credentials and (for JSONL) the final newline of the
    appended ``chunk``, whose first line is line ``first_line`` of the file."""
    out: list[Finding] = []
    lines = chunk.split(b"\n")
    last = len(lines) - 1
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
        for where_, secret in line_secrets(text):
            out.append(
                Finding(
                    path,
                    n,
                    "secret",
                    f"{where_}: looks like {secret.label} ({secret.preview}) [{secret.rule}]",
                    SECRET_HINT,
                )
            )
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


def _whole_object(text: str) -> bool:
    try:
        return isinstance(loads(text), dict)
    except JsonError:
        return False


SECRET_HINT = (
    "an append-only log can never forget a secret: remove it from the staged lines, "
    "rotate the credential, and reference secrets by name"
)


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


# -- appended events --------------------------------------------------------------


class LogJudgement(NamedTuple):
    findings: tuple[Finding, ...]
    events: tuple[Event, ...]  # the appended events that parsed


def check_events(
    path: str, context: LogContext, chunk: bytes, packs: Sequence[Pack]
) -> LogJudgement:
    """The per-event parts of checks 1, 3, 5 and 7 and a strict fold, for the
    lines ``chunk`` appends to a log whose context is ``context``."""
    parsed = parse_log(chunk)
    first = context.lines + 1
    physical = _physical_numbers(chunk)  # non-blank number -> physical line in the chunk
    out: list[Finding] = []

    def at(number: int) -> int:
        return first - 1 + physical[number - 1]

    for failure in parsed.envelope_failures:
        found = _NUMBERED.match(failure)
        line = at(int(found.group(1))) if found else None
        message = failure[found.end() :] if found else failure
        out.append(Finding(path, line, "envelope", message, "events are written by a runtime"))
    bad = {error.line.number for error in parsed.errors}
    lines = [n for n in range(1, parsed.line_count + 1) if n not in bad]
    events = parsed.events
    ops: list[ParsedOps] = []
    for event in events:
        if event.kind != OPS_APPLIED:
            ops.append(None)
            continue
        try:
            ops.append(parse_ops(event.payload))
        except OpsError as exc:
            ops.append(exc)
    out += _causation(path, context, events, [at(n) for n in lines])
    out += _ops(path, context, events, ops, [at(n) for n in lines], packs)
    claimants: dict[str, list[int]] = {}
    for i, event in enumerate(events):
        if event.kind == OPS_APPLIED and event.causation_id is not None:
            claimants.setdefault(event.causation_id, []).append(i)
    for i, event in enumerate(events):
        expected = PAIRED_KINDS.get(event.kind)
        if expected is None:
            continue
        n = at(lines[i])
        for message in pairing_findings(n, event, expected, claimants, events, ops):
            message = message.removeprefix(f"line {n}: ")
            out.append(
                Finding(
                    path,
                    n,
                    "pairing",
                    message,
                    "append a domain event and its state.ops_applied pair together",
                )
            )
    out.sort(key=lambda f: f.line or 0)
    return LogJudgement(tuple(out), events)


def _physical_numbers(chunk: bytes) -> list[int]:
    """The physical line number of each non-blank line, as parse_log counts them."""
    return [line.physical for line in log_lines(chunk.decode("utf-8", "replace"))]


def _causation(
    path: str, context: LogContext, events: tuple[Event, ...], lines: list[int]
) -> list[Finding]:
    out: list[Finding] = []
    known = context.kinds
    seen: dict[str, str] = {}
    hint = "ids are fresh and causes name earlier events (check 5)"
    for event, n in zip(events, lines, strict=True):
        cause = event.causation_id
        if cause is not None:
            if cause not in seen and cause not in known:
                message = f"causation_id {cause} does not reference an earlier event"
                out.append(Finding(path, n, "causation", message, hint))
        elif not is_allowed_root(event.kind):
            message = (
                f"root event (null causation) has kind `{event.kind}`, "
                "expected *.created / *.started / state.ops_applied"
            )
            out.append(Finding(path, n, "causation", message, "start a run first"))
        if event.id in seen or event.id in known:
            message = f"duplicate event id {event.id}"
            out.append(Finding(path, n, "causation", message, hint))
        seen.setdefault(event.id, event.kind)
    return out


def _ops(
    path: str,
    context: LogContext,
    events: tuple[Event, ...],
    ops: list[ParsedOps],
    lines: list[int],
    packs: Sequence[Pack],
) -> list[Finding]:
    kinds, rels = vocabulary(list(packs))
    known_kinds = {e.id: e.kind for e in events}
    created: set[str] = set()
    out: list[Finding] = []
    declare = "declare it in a pack under .agent/packs/"
    for event, parsed, n in zip(events, ops, lines, strict=True):
        if parsed is None:
            continue
        if isinstance(parsed, OpsError):
            out.append(Finding(path, n, "fold", f"ops do not parse: {parsed}", "fix the writer"))
            continue
        cause = event.causation_id
        if cause is not None:
            if known_kinds.get(cause, context.kinds.get(cause)) == OPS_APPLIED:
                message = f"ops event {event.id} chained to another ops event, not a domain event"
                out.append(Finding(path, n, "pairing", message, "cause ops by a domain event"))
            entity = context.entities.get(cause)
            if entity is not None and any(
                isinstance(op, CreateNode) and op.id == entity for op in parsed
            ):
                message = (
                    f"`{entity}` is created again for event {cause} of an earlier change "
                    "(pairing must be exactly one)"
                )
                out.append(Finding(path, n, "pairing", message, "update the node instead"))
        for op in parsed:
            if isinstance(op, CreateNode):
                created.add(op.id)
                if op.kind not in kinds:
                    message = f"CreateNode {op.id} uses undeclared kind `{op.kind}`"
                    out.append(Finding(path, n, "vocabulary", message, declare))
            elif isinstance(op, CreateRelation):
                if op.rel not in rels:
                    message = f"CreateRelation from {op.from_} uses undeclared rel `{op.rel}`"
                    out.append(Finding(path, n, "vocabulary", message, declare))
            elif isinstance(op, UpdateNode | TombstoneNode | MarkStale | AttachArtifact):
                if op.id not in created and op.id not in context.nodes:
                    message = (
                        f"{type(op).__name__} names node `{op.id}`, which does not exist "
                        "(a fold would skip it)"
                    )
                    out.append(Finding(path, n, "fold", message, "create the node first"))
    return out


# -- facts ------------------------------------------------------------------------


def check_facts(
    path: str,
    chunk: bytes,
    first_line: int,
    fact_ids: set[str],
    known: Callable[[str], bool],
) -> list[Finding]:
    """Appended ``facts.jsonl`` lines follow the §9.5 envelope and name ids
    that exist (events, nodes, or facts before them)."""
    from git_gasp.core.projections import parse_facts

    out: list[Finding] = []
    ids = set(fact_ids)
    envelope = "a fact line is {id, ts_ms, text, derived_from, supersedes} (git gasp fact add)"
    for i, raw in enumerate(chunk.split(b"\n")):
        text = raw.decode("utf-8", "replace")
        if not text.strip():
            continue
        n = first_line + i
        facts = parse_facts(text).facts
        if not facts:
            out.append(Finding(path, n, "facts", "not a fact in the GASP envelope", envelope))
            continue
        fact = facts[0]
        if fact.id in ids:
            out.append(Finding(path, n, "facts", f"duplicate fact id {fact.id}", envelope))
        for ref in fact.derived_from:
            if ref not in ids and not known(ref):
                message = f"derived_from names {ref}, which is no event, node or fact"
                out.append(Finding(path, n, "facts", message, "name ids that exist"))
        if fact.supersedes is not None and fact.supersedes not in ids:
            message = f"supersedes {fact.supersedes}, which is no earlier fact"
            out.append(Finding(path, n, "facts", message, "supersede an existing fact"))
        ids.add(fact.id)
    return out


# -- identity, skills, control plane -----------------------------------------------


def check_identity(
    identity_changed: bool,
    manifest_before: bytes | None,
    manifest_after: bytes | None,
    digest_after: str | None,
    appended: Iterable[Event],
    log_path: str,
) -> list[Finding]:
    """§9.7: identity/ changes only with its new hash in AGENT.md and an
    appended decision.created; the hash never changes on its own. The commit
    that creates ``AGENT.md`` (``manifest_before`` None) only needs the hash."""

    def declared(data: bytes | None) -> str | None:
        if data is None:
            return None
        return declared_identity_hash(data.decode("utf-8", "replace")).value

    before, after = declared(manifest_before), declared(manifest_after)
    if not identity_changed:
        if before != after and manifest_before is not None:
            return [
                Finding(
                    "AGENT.md",
                    _hash_line(manifest_after),
                    "identity",
                    "identity_hash changed but identity/ did not",
                    IDENTITY_HINT,
                )
            ]
        return []
    out: list[Finding] = []
    if digest_after is None or after != digest_after:
        message = "identity/ changed but AGENT.md's identity_hash is not its new digest" + (
            f" ({digest_after})" if digest_after else ""
        )
        out.append(
            Finding("AGENT.md", _hash_line(manifest_after), "identity", message, IDENTITY_HINT)
        )
    if manifest_before is not None and not any(approves(e) for e in appended):
        # (a new agent's first commit creates its identity; no decision to record)
        message = "identity/ changed without an Approved decision.created in the same commit"
        out.append(Finding(log_path, None, "identity", message, IDENTITY_HINT))
    return out


def approves(event: Event) -> bool:
    """A ``decision.created`` whose status is ``Approved``: what lets the
    agent's identity change (a Rejected or Pending decision does not)."""
    payload = event.payload
    return (
        event.kind == "decision.created"
        and isinstance(payload, dict)
        and payload.get("status") == "Approved"
    )


def check_locations(
    manifest_before: bytes | None,
    manifest_after: bytes | None,
    appended: Iterable[Event],
    log_path: str,
) -> list[Finding]:
    """Where the log, identity, skills, facts and journal live is part of who
    the agent is: a change to AGENT.md's Locations table needs a
    decision.created in the same commit, as an identity change does."""
    if manifest_before is None or manifest_after is None:
        return []
    from git_gasp.core.locations import parse_locations

    before, _ = parse_locations(manifest_before.decode("utf-8", "replace"))
    after, _ = parse_locations(manifest_after.decode("utf-8", "replace"))
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    if not changed or any(approves(e) for e in appended):
        return []
    message = (
        f"AGENT.md's Locations table changes {', '.join(changed)} "
        "without an Approved decision.created"
    )
    return [Finding(log_path, None, "identity", message, LOCATIONS_HINT)]


def _hash_line(manifest: bytes | None) -> int | None:
    if manifest is None:
        return None
    for n, line in enumerate(manifest.split(b"\n"), 1):
        if line.strip().startswith(b"identity_hash:"):
            return n
    return None


def check_skills(
    changed: Sequence[str], skill_files: dict[str, bytes], renamed: bool = False
) -> list[Finding]:
    """At most one skill per commit (``renamed``: the two changed are one skill
    renamed, see :func:`git_gasp.core.skill.is_rename`); each changed
    ``SKILL.md`` (path -> bytes, as committed) has valid frontmatter."""
    from git_gasp.core.skill import check_skill, skill_of, skills_changed_together

    out: list[Finding] = []
    together = skills_changed_together(changed)
    if together and not (renamed and len(together) == 2):
        out.append(
            Finding(
                "skills/",
                None,
                "skill",
                f"{len(together)} skills change in one commit ({', '.join(together)})",
                "commit each skill change on its own (a rename that changes only the name is one)",
            )
        )
    for path, data in sorted(skill_files.items()):
        name = skill_of(path)
        if name is None:
            continue
        skill = check_skill(name, data)
        for problem in skill.problems:
            out.append(Finding(path, None, "skill", problem, "fix the SKILL.md frontmatter"))
    return out


def check_skill_manifests(without: Iterable[str]) -> list[Finding]:
    """Every skill directory a change leaves files in holds a ``SKILL.md``
    (``without``: the skills that do not)."""
    return [
        Finding(
            f"skills/{name}/SKILL.md",
            None,
            "skill",
            f"skill {name} has files but no SKILL.md",
            "give it a SKILL.md with name and description frontmatter (git gasp skill check)",
        )
        for name in sorted(without)
    ]


def check_transcripts(paths: Iterable[str]) -> list[Finding]:
    """Transcripts stay cold and local: ``transcripts/`` is never committed
    unless the repository opts in (``gasp.commitTranscripts``)."""
    return [
        Finding(
            path,
            None,
            "transcript",
            "transcripts stay local; notes and events carry their digests",
            f"git rm --cached {path} (or opt in: git config gasp.commitTranscripts true)",
        )
        for path in sorted(paths)
        if path.startswith("transcripts/")
    ]


def check_control_plane(paths: Iterable[str]) -> list[Finding]:
    """The local control plane is never committed."""
    return [
        Finding(
            path,
            None,
            "control-plane",
            "local run state is never committed",
            f"git rm --cached {path} (git gasp init lists it in .gitignore)",
        )
        for path in sorted(paths)
        if path in CONTROL_PLANE
    ]


# -- attributes ----------------------------------------------------------------------

#: the attributes that decide how git checks a file out
CHECKOUT_ATTRIBUTES = ("text", "crlf", "eol", "ident", "filter", "working-tree-encoding")
#: one file's attributes in one view (``set``, ``unset`` or a value; absent: unspecified)
Attributes = Mapping[str, str]


def _text_off(attributes: Attributes) -> bool:
    """Line endings are never converted: ``-text`` (or the legacy ``-crlf``)."""
    text = attributes.get("text")
    return text == "unset" if text is not None else attributes.get("crlf") == "unset"


def _rewrites(attributes: Attributes) -> set[str]:
    """The settings that make a checkout differ from the blob (no-ops left out:
    a filter without a driver name, UTF-8 as the encoding, eol on -text)."""
    out = set()
    if attributes.get("ident") == "set":
        out.add("ident")
    driver = attributes.get("filter")
    if driver not in (None, "set", "unset"):
        out.add(f"filter={driver}")
    encoding = attributes.get("working-tree-encoding")
    if encoding not in (None, "set", "unset") and encoding.upper().replace("-", "") != "UTF8":
        out.add(f"working-tree-encoding={encoding}")
    if attributes.get("eol") == "crlf" and not _text_off(attributes):
        out.add("eol=crlf")
    return out


def check_attributes(
    source: str,
    before: Sequence[Mapping[str, Attributes]],
    after: Sequence[Mapping[str, Attributes]],
) -> list[Finding]:
    """An append-only file checks out byte for byte: a change to ``source``
    (a ``.gitattributes``, or the manifest that says which files are
    append-only) may not give one a setting that rewrites it on checkout
    (``eol=crlf``, ``ident``, a filter, a working-tree encoding), nor turn
    line-ending conversion back on for one that had it off (``-text``: with
    ``core.autocrlf`` every such clone would see CRLF lines).

    ``before``/``after``: the files' attributes in each view of the change's
    parent and of the change (case-sensitive and case-insensitive matching,
    as clones on either kind of file system see them); a file that was not
    append-only before has no ``before`` entry."""
    out = []
    files = sorted({path for view in after for path in view})
    for path in files:
        old = [view[path] for view in before if path in view]
        new = [view.get(path, {}) for view in after]
        was = set().union(*(_rewrites(a) for a in old))
        for setting in sorted(set().union(*(_rewrites(a) for a in new)) - was):
            hint = "mark it -text" if setting == "eol=crlf" else f"drop {setting} for it"
            out.append(_attribute_finding(source, path, setting, hint))
        if old and all(_text_off(a) for a in old) and not all(_text_off(a) for a in new):
            out.append(_attribute_finding(source, path, "text", "keep it -text"))
    return out


def check_attribute_names(paths: Iterable[str]) -> list[Finding]:
    """A ``.gitattributes`` spelled with other capitals is one git reads on a
    case-insensitive file system (macOS, Windows) but not on the server, so
    its settings could not be judged: it is refused."""
    return [
        Finding(
            path,
            None,
            "attributes",
            "an attributes file in other capitals applies only on case-insensitive file systems",
            "name it .gitattributes",
        )
        for path in sorted(paths)
        if path.rsplit("/", 1)[-1] != ".gitattributes"
    ]


def _attribute_finding(source: str, path: str, setting: str, hint: str) -> Finding:
    what = "turns line-ending conversion back on for" if setting == "text" else f"{setting} makes"
    rest = "" if setting == "text" else " check out differently from its committed bytes"
    return Finding(
        source,
        None,
        "attributes",
        f"{what} {path}{rest}",
        f"append-only files check out byte for byte: {hint}",
    )


# -- commit messages ------------------------------------------------------------------


def trailer_findings(message: str, events: Iterable[Event], where: str) -> list[Finding]:
    """A commit that appends one ``run.finished`` (a boundary commit) carries
    exactly one ``Run-Id``, ``Goal`` and ``Outcome`` trailer naming that run
    and its outcome (in the final trailer block, as git parses it); every
    ``Agent-Session`` value follows the grammar. A commit that appends several
    runs' ends, or carries git's squash message, is a squash of boundary
    commits and is not held to the one-run rule. ``where`` names the message."""
    from git_gasp.core.trailers import (
        SESSION_TRAILER_KEYS,
        is_session_ref,
        parse_trailers,
        values,
    )

    trailers = parse_trailers(message)
    out: list[Finding] = []
    for trailer in trailers:
        if trailer.key.lower() not in SESSION_TRAILER_KEYS:
            continue
        secrets = find_secrets(trailer.value)
        if secrets:
            out.append(
                Finding(
                    where,
                    None,
                    "trailer",
                    f"{trailer.key} looks like it holds {secrets[0].label} ({secrets[0].preview})",
                    "a session trailer names the session only; reword the commit "
                    "(git commit --amend) and revoke the credential",
                )
            )
    for value in values(trailers, "Agent-Session"):
        if not is_session_ref(value):
            out.append(
                Finding(
                    where,
                    None,
                    "trailer",
                    f"Agent-Session {value!r} is not "
                    "<agent>:[<namespace>:]<sessionId>[#<recordRef>]",
                    "name the session, not a URL (Agent-Session-Url may carry a link)",
                )
            )
    finished = [e for e in events if e.kind == "run.finished"]
    if len(finished) != 1 or SQUASHED in message:
        # none: not a boundary commit; several, or git's squash message: a squash
        # of boundary commits, whose runs the post-commit hook links by notes
        return out
    hint = "close runs with: git gasp run close --outcome TEXT (it writes these trailers)"
    event = finished[0]
    expected = {
        "Run-Id": _payload_str(event, "run_id"),
        "Goal": None,
        "Outcome": _payload_str(event, "outcome"),
    }
    for key, want in expected.items():
        got = values(trailers, key)
        if len(got) != 1:
            message_ = (
                f"the commit closes run {expected['Run-Id']} and needs exactly one {key} "
                f"trailer (found {len(got)})"
            )
            out.append(Finding(where, None, "trailer", message_, hint))
        elif want is not None and _norm(got[0]) != _norm(want):
            message_ = f"{key} trailer is {got[0]!r} but the run.finished event says {want!r}"
            out.append(Finding(where, None, "trailer", message_, hint))
    return out


def _payload_str(event: Event, key: str) -> str | None:
    value = event.payload.get(key) if isinstance(event.payload, dict) else None
    return value if isinstance(value, str) else None


def _norm(text: str) -> str:
    return " ".join(text.split())
