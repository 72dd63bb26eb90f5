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

from collections.abc import Container

from git_gasp.core.event import OPS_APPLIED, Event
from git_gasp.core.jsonvalue import Json, dumps, equal
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
        failures.extend(vocabulary_findings(n, parsed, kinds, rels))
    return CheckReport(3, tuple(failures))


def vocabulary_findings(
    n: int, parsed: ParsedOps, kinds: frozenset[str], rels: frozenset[str]
) -> list[str]:
    """Check 3's findings for line ``n``'s ops."""
    if parsed is None:
        return []
    if isinstance(parsed, OpsError):
        return [f"line {n}: state.ops_applied payload does not parse as ops: {parsed}"]
    out: list[str] = []
    for op in parsed:
        if isinstance(op, CreateNode) and op.kind not in kinds:
            out.append(f"line {n}: CreateNode {op.id} uses undeclared kind `{op.kind}`")
        elif isinstance(op, CreateRelation) and op.rel not in rels:
            out.append(f"line {n}: CreateRelation from {op.from_} uses undeclared rel `{op.rel}`")
    return out


def check_causation(events: tuple[Event, ...]) -> CheckReport:
    """Check 5: unique ids, causes point backwards, roots have root kinds."""
    failures: list[str] = []
    seen: set[str] = set()
    for n, event in enumerate(events, 1):
        failures.extend(causation_findings(n, event, seen))
        seen.add(event.id)
    return CheckReport(5, tuple(failures))


def causation_findings(n: int, event: Event, seen: Container[str]) -> list[str]:
    """Check 5's findings for line ``n``, given the ids of the lines before it."""
    out: list[str] = []
    cause = event.causation_id
    if cause is not None:
        if cause not in seen:
            out.append(f"line {n}: causation_id {cause} does not reference an earlier event")
    elif not is_allowed_root(event.kind):
        out.append(
            f"line {n}: root event (null causation) has kind `{event.kind}`, "
            "expected *.created / *.started / state.ops_applied"
        )
    if event.id in seen:
        out.append(
            f"line {n}: duplicate event id {event.id} "
            "(ids must be unique for the causal order to be well-defined)"
        )
    return out


def check_pairing(events: tuple[Event, ...], ops: list[ParsedOps]) -> CheckReport:
    """Check 7: each entity-creating event is materialized by exactly one CreateNode."""
    pairing = Pairing()
    for n, (event, parsed) in enumerate(zip(events, ops, strict=True), 1):
        pairing.add(n, event, parsed)
    return pairing.report()


Claim = tuple[str, str, ParsedOps]  # an ops event's id, its cause and its ops
Entity = tuple[Json, bool, Json]  # a domain event's payload ``id``, has ``status``, ``status``


class Pairing:
    """Check 7 event by event: what it needs of each, kept until the end,
    since an ops event may claim a domain event before or after it."""

    def __init__(self) -> None:
        # domain event id -> its ops event, or (more than one) their list
        self._claimants: dict[str, Claim | list[Claim]] = {}
        # line, kind, id and the entity (flat: one tuple fewer each)
        self._domain: list[tuple[int, str, str, Json, bool, Json]] = []
        self._chained: list[Claim] = []  # each ops event with a cause, in line order
        self._ops_ids: set[str] = set()  # ids whose last event is an ops event

    def add(self, n: int, event: Event, parsed: ParsedOps) -> None:
        """Line ``n``: ``event``, and its ops (only CreateNode ops are read)."""
        if event.kind == OPS_APPLIED:
            self._ops_ids.add(event.id)
            cause = event.causation_id
            if cause is not None:
                claim = (event.id, cause, parsed)
                got = self._claimants.get(cause)
                if got is None:
                    self._claimants[cause] = claim  # the usual case: one list fewer
                elif isinstance(got, list):
                    got.append(claim)
                else:
                    self._claimants[cause] = [got, claim]
                self._chained.append(claim)
            return
        self._ops_ids.discard(event.id)
        if event.kind in PAIRED_KINDS:
            self._domain.append((n, event.kind, event.id, *entity_of(event.payload)))

    def report(self) -> CheckReport:
        failures: list[str] = []
        for n, kind, event_id, entity, has_status, status in self._domain:
            got = self._claimants.get(event_id)
            pairs = got if isinstance(got, list) else [got] if got is not None else []
            failures.extend(pairing_findings(n, kind, (entity, has_status, status), pairs))
        for event_id, cause, _ in self._chained:
            if cause in self._ops_ids:
                failures.append(
                    f"ops event {event_id} chained to another ops event, not a domain event"
                )
        return CheckReport(7, tuple(failures))


def entity_of(payload: Json) -> Entity:
    """What check 7 reads of a domain event's payload."""
    if isinstance(payload, dict):
        return (payload.get("id"), "status" in payload, payload.get("status"))
    return (None, False, None)


def claims_by_cause(events: tuple[Event, ...], ops: list[ParsedOps]) -> dict[str, list[Claim]]:
    """The ops events that claim each event id (their causation), in order."""
    claims: dict[str, list[Claim]] = {}
    for event, parsed in zip(events, ops, strict=True):
        if event.kind == OPS_APPLIED and event.causation_id is not None:
            claims.setdefault(event.causation_id, []).append((event.id, event.causation_id, parsed))
    return claims


def pairing_findings(n: int, kind: str, entity_of: Entity, pairs: list[Claim]) -> list[str]:
    """Check 7's findings for the domain event on line ``n``."""
    expected = PAIRED_KINDS[kind]
    entity, has_status, status = entity_of
    if type(entity) is not str:
        return [f"line {n}: {kind} payload has no `id`"]
    if not pairs:
        return [f"line {n}: {kind} `{entity}` has no paired state.ops_applied"]
    out: list[str] = []
    creators = 0
    for ops_id, _, parsed in pairs:
        if isinstance(parsed, OpsError):
            out.append(f"line {n}: paired ops event {ops_id} has malformed payload: {parsed}")
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
        out.append(f"line {n}: paired ops for {kind} do not create node `{entity}`")
    elif creators > 1:
        out.append(
            f"line {n}: `{entity}` created by {creators} ops events (pairing must be exactly one)"
        )
    return out
