"""Appended events and facts judged against the log before them: the
per-event parts of checks 1, 3, 5 and 7 and a strict fold
(:func:`check_events`), and the §9.5 fact envelope (:func:`check_facts`).
"""

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from git_gasp.core.checks import (
    PAIRED_KINDS,
    ParsedOps,
    claims_by_cause,
    entity_of,
    is_allowed_root,
    pairing_findings,
)
from git_gasp.core.event import OPS_APPLIED, Event
from git_gasp.core.finding import Finding
from git_gasp.core.log import log_lines, parse_log
from git_gasp.core.logcontext import LogContext
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

_NUMBERED = re.compile(r"line (\d+): ")


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
    claimants = claims_by_cause(events, ops)
    for i, event in enumerate(events):
        if event.kind not in PAIRED_KINDS:
            continue
        n = at(lines[i])
        pairs = claimants.get(event.id, [])
        for message in pairing_findings(n, event.kind, entity_of(event.payload), pairs):
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
