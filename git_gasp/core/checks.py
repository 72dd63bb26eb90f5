"""Checks 1, 3, 5 and 7: the ones that need only the parsed log (and packs).

Semantics and message texts are the reference checker's (REFERENCE §10.2).
Line numbers count non-blank lines.

REFERENCE §11 ambiguities, decided as a conformant reference runtime accepts:
§11.1 any unique string is an event id (only uniqueness is checked);
§11.4/§11.5 correlation ids and the shape/causation of ``run.started`` are not
judged; §11.7 raw-layer kinds (``tool.called``…) may stay unpaired; §11.8 a
null-causation event must be ``*.created``/``*.started``/``state.ops_applied``,
as the checker says, even though runtime helpers can emit others outside a
run; §11.9 maintenance ops restating an entity are not detected; §11.10 the
pairing is "exactly one CreateNode of the entity across all claimants", status
compared only when both sides carry one; §11.19 event kinds are never checked
against a vocabulary; §11.31 a ``failure.observed`` payload needs ``id``.
"""

from __future__ import annotations

from git_gasp.core.event import OPS_APPLIED, Event
from git_gasp.core.jsonvalue import dumps, equal
from git_gasp.core.log import ParsedLog
from git_gasp.core.ops import CreateNode, CreateRelation, Op, OpsError, parse_ops
from git_gasp.core.pack import Pack, vocabulary
from git_gasp.core.report import CheckReport

# entity-creating domain event kind -> the node kind its pair must create
PAIRED_KINDS = {
    "goal.created": "goal",
    "task.created": "task",
    "observation.created": "observation",
    "failure.observed": "failure",
    "hypothesis.created": "hypothesis",
    "patch.proposed": "patch",
    "eval.finished": "eval",
    "decision.created": "decision",
    "frame.created": "frame",
}
ROOT_SUFFIXES = (".created", ".started")

ParsedOps = tuple[Op, ...] | OpsError | None  # None: not an ops event


def parse_all_ops(events: tuple[Event, ...]) -> list[ParsedOps]:
    """Each event's ops (or the parse error), computed once for every check."""
    out: list[ParsedOps] = []
    for event in events:
        if event.kind != OPS_APPLIED:
            out.append(None)
            continue
        try:
            out.append(parse_ops(event.payload))
        except OpsError as exc:
            out.append(exc)
    return out


def check_envelope(log: ParsedLog) -> CheckReport:
    """Check 1: exact key set, typed parse, structural round-trip."""
    return CheckReport(1, log.envelope_failures)


def is_allowed_root(kind: str) -> bool:
    return kind.endswith(ROOT_SUFFIXES) or kind == OPS_APPLIED


def check_vocabulary(
    events: tuple[Event, ...], ops: list[ParsedOps], packs: list[Pack], problems: list[str]
) -> CheckReport:
    """Check 3: node kinds and relation names are baseline or declared by a pack."""
    failures = list(problems)
    kinds, rels = vocabulary(packs)
    for n, parsed in enumerate(ops, 1):
        if parsed is None:
            continue
        if isinstance(parsed, OpsError):
            failures.append(f"line {n}: state.ops_applied payload does not parse as ops: {parsed}")
            continue
        for op in parsed:
            if isinstance(op, CreateNode) and op.kind not in kinds:
                failures.append(f"line {n}: CreateNode {op.id} uses undeclared kind `{op.kind}`")
            elif isinstance(op, CreateRelation) and op.rel not in rels:
                failures.append(
                    f"line {n}: CreateRelation from {op.from_} uses undeclared rel `{op.rel}`"
                )
    return CheckReport(3, tuple(failures))


def check_causation(events: tuple[Event, ...]) -> CheckReport:
    """Check 5: unique ids, causes point backwards, roots have root kinds."""
    failures: list[str] = []
    seen: set[str] = set()
    for n, event in enumerate(events, 1):
        cause = event.causation_id
        if cause is not None:
            if cause not in seen:
                failures.append(
                    f"line {n}: causation_id {cause} does not reference an earlier event"
                )
        elif not is_allowed_root(event.kind):
            failures.append(
                f"line {n}: root event (null causation) has kind `{event.kind}`, "
                "expected *.created / *.started / state.ops_applied"
            )
        if event.id in seen:
            failures.append(
                f"line {n}: duplicate event id {event.id} "
                "(ids must be unique for the causal order to be well-defined)"
            )
        seen.add(event.id)
    return CheckReport(5, tuple(failures))


def check_pairing(events: tuple[Event, ...], ops: list[ParsedOps]) -> CheckReport:
    """Check 7: each entity-creating event is materialized by exactly one CreateNode."""
    claimants: dict[str, list[int]] = {}
    for i, event in enumerate(events):
        if event.kind == OPS_APPLIED and event.causation_id is not None:
            claimants.setdefault(event.causation_id, []).append(i)
    failures: list[str] = []
    for n, event in enumerate(events, 1):
        expected = PAIRED_KINDS.get(event.kind)
        if expected is not None:
            failures.extend(pairing_findings(n, event, expected, claimants, events, ops))
    kinds = {event.id: event.kind for event in events}
    for event in events:
        if event.kind == OPS_APPLIED and event.causation_id is not None:
            if kinds.get(event.causation_id) == OPS_APPLIED:
                failures.append(
                    f"ops event {event.id} chained to another ops event, not a domain event"
                )
    return CheckReport(7, tuple(failures))


def pairing_findings(
    n: int,
    event: Event,
    expected: str,
    claimants: dict[str, list[int]],
    events: tuple[Event, ...],
    ops: list[ParsedOps],
) -> list[str]:
    payload = event.payload
    entity = payload.get("id") if isinstance(payload, dict) else None
    if type(entity) is not str:
        return [f"line {n}: {event.kind} payload has no `id`"]
    pairs = claimants.get(event.id, [])
    if not pairs:
        return [f"line {n}: {event.kind} `{entity}` has no paired state.ops_applied"]
    out: list[str] = []
    creators = 0
    status = payload.get("status") if isinstance(payload, dict) else None
    has_status = isinstance(payload, dict) and "status" in payload
    for i in pairs:
        parsed = ops[i]
        if isinstance(parsed, OpsError):
            out.append(f"line {n}: paired ops event {events[i].id} has malformed payload: {parsed}")
            continue
        for op in parsed or ():
            if not isinstance(op, CreateNode) or op.id != entity:
                continue
            creators += 1
            if op.kind != expected:
                out.append(
                    f"line {n}: `{entity}` created as kind `{op.kind}`, "
                    f"domain event implies `{expected}`"
                )
            props = op.props
            if has_status and isinstance(props, dict) and "status" in props:
                if not equal(status, props["status"]):
                    out.append(
                        f"line {n}: `{entity}` status contradicts domain event "
                        f"({dumps(status)} vs {dumps(props['status'])})"
                    )
    if creators == 0:
        out.append(f"line {n}: paired ops for {event.kind} do not create node `{entity}`")
    elif creators > 1:
        out.append(
            f"line {n}: `{entity}` created by {creators} ops events (pairing must be exactly one)"
        )
    return out
