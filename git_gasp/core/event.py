"""The GASP event envelope (REFERENCE §1): parse, serialize, round-trip.

REFERENCE §11: any u32 ``schema_version`` (§11.2) and any ``actor.kind``
(§11.3) parse, as in the reference; ``ts_ms`` must be a JSON integer within
i64 even though it is advisory (§11.29) — a float makes the line unparseable.
"""

import json
from collections.abc import Callable
from json.encoder import encode_basestring as _encode_string
from typing import Any, NamedTuple

from git_gasp.core.jsonvalue import Json, JsonError, Parser, bom_said, dumps, type_name

ENVELOPE_KEYS = (
    "id",
    "schema_version",
    "ts_ms",
    "actor",
    "kind",
    "payload",
    "causation_id",
    "correlation_id",
)
_REQUIRED = ("id", "schema_version", "ts_ms", "actor", "kind", "payload")
_U32_MAX = 2**32 - 1
_I64 = (-(2**63), 2**63 - 1)
OPS_APPLIED = "state.ops_applied"


class Actor(NamedTuple):
    kind: str
    id: str


class Event(NamedTuple):
    """One line of ``state/events.jsonl``. ``payload`` is never mutated."""

    id: str
    schema_version: int
    ts_ms: int
    actor: Actor
    kind: str
    payload: Json
    causation_id: str | None
    correlation_id: str | None


class EventError(ValueError):
    """A line that the reference's typed ``Event`` parser refuses."""

    def __init__(self, msg: str, torn: bool = False) -> None:
        super().__init__(msg)
        self.msg = msg
        self.torn = torn


def _int_in(value: object, lo: int, hi: int, expected: str) -> int:
    if type(value) is not int:
        raise EventError(f"invalid type: {type_name(value)}, expected {expected}")
    if not lo <= value <= hi:
        raise EventError(f"invalid value: integer `{value}`, expected {expected}")
    return value


def _string(value: object, expected: str = "a string") -> str:
    if type(value) is not str:
        raise EventError(f"invalid type: {type_name(value)}, expected {expected}")
    return value


def _opt_string(value: object) -> str | None:
    return None if value is None else _string(value, "a string or null")


def _actor(value: object, parser: Parser) -> Actor:
    if type(value) is not dict:
        raise EventError(f"invalid type: {type_name(value)}, expected struct ActorRef")
    dup = parser.duplicate_key(value, ("kind", "id"))
    if dup is not None:
        raise EventError(f"duplicate field `{dup}`")
    for key in ("kind", "id"):
        if key not in value:
            raise EventError(f"missing field `{key}`")
    return Actor(_string(value["kind"]), _string(value["id"]))


def event_from_value(value: Json, parser: Parser) -> Event:
    """Typed parse of an already-parsed line (``parser`` did the parsing)."""
    if type(value) is dict and not parser.had_duplicates:
        fast = plain_event(value)
        if fast is not None:
            return fast
    return _checked_event(value, parser)


_ACTORS: dict[tuple[str, str], Actor] = {}
_new = tuple.__new__  # a NamedTuple without its Python-level __new__ frame


def plain_event(v: dict[str, Any]) -> Event | None:
    """The common case, a well-typed envelope, built without per-field calls."""
    get = v.get
    eid, sv, ts, actor, kind = (
        get("id"),
        get("schema_version"),
        get("ts_ms"),
        get("actor"),
        get("kind"),
    )
    cause, corr = get("causation_id"), get("correlation_id")
    if not (
        type(eid) is str
        and type(sv) is int
        and 0 <= sv <= _U32_MAX
        and type(ts) is int
        and _I64[0] <= ts <= _I64[1]
        and type(kind) is str
        and type(actor) is dict
        and "payload" in v
        and (cause is None or type(cause) is str)
        and (corr is None or type(corr) is str)
    ):
        return None
    akind, aid = actor.get("kind"), actor.get("id")
    if type(akind) is not str or type(aid) is not str:
        return None
    key = (akind, aid)
    ref = _ACTORS.get(key)
    if ref is None:
        ref = Actor(akind, aid)
        if len(_ACTORS) < 4096:  # a bounded memo: agents have few actors
            _ACTORS[key] = ref
    return _new(Event, (eid, sv, ts, ref, kind, v["payload"], cause, corr))


def _checked_event(value: Json, parser: Parser) -> Event:
    """Field-by-field parse with the reference's error for the first problem."""
    if type(value) is not dict:
        raise EventError(f"invalid type: {type_name(value)}, expected struct Event")
    assert isinstance(value, dict)
    dup = parser.duplicate_key(value, ENVELOPE_KEYS)
    if dup is not None:
        raise EventError(f"duplicate field `{dup}`")
    for key in _REQUIRED:
        if key not in value:
            raise EventError(f"missing field `{key}`")
    return Event(
        _string(value["id"]),
        _int_in(value["schema_version"], 0, _U32_MAX, "u32"),
        _int_in(value["ts_ms"], _I64[0], _I64[1], "i64"),
        _actor(value["actor"], parser),
        _string(value["kind"]),
        value["payload"],
        _opt_string(value.get("causation_id")),
        _opt_string(value.get("correlation_id")),
    )


def parse_event(line: str, parser: Parser | None = None) -> Event:
    """Parse one log line exactly as the reference ``Event`` deserializer does."""
    parser = parser or Parser()
    try:
        value = parser.loads(line)
    except JsonError as exc:
        raise EventError(bom_said(line, exc.msg), torn=exc.at_end) from None
    return event_from_value(value, parser)


def event_to_value(event: Event) -> dict[str, Any]:
    """The typed event re-serialized to a generic value (all eight keys)."""
    return {
        "id": event.id,
        "schema_version": event.schema_version,
        "ts_ms": event.ts_ms,
        "actor": {"kind": event.actor.kind, "id": event.actor.id},
        "kind": event.kind,
        "payload": event.payload,
        "causation_id": event.causation_id,
        "correlation_id": event.correlation_id,
    }


def encode_event(event: Event) -> str:
    """One compact log line (without ``\\n``) in the runtime's key order.

    The envelope is written in declaration order and the payload with sorted
    keys, as yoagent-state does; the reference parser reads it back equal.
    The bytes are :func:`~git_gasp.core.jsonvalue.dumps`'s; strings and the
    payload go to the standard library's C encoder directly (an import
    encodes tens of thousands of events: a call through ``JSONEncoder``
    makes a new encoder each time).
    """
    return (
        f'{{"id":{_text(event.id)},"schema_version":{event.schema_version},'
        f'"ts_ms":{event.ts_ms},"actor":{{"kind":{_text(event.actor.kind)},'
        f'"id":{_text(event.actor.id)}}},"kind":{_text(event.kind)},'
        f'"payload":{_payload(event.payload)},'
        f'"causation_id":{_text(event.causation_id)},'
        f'"correlation_id":{_text(event.correlation_id)}}}'
    )


def _text(value: object) -> str:
    """``dumps(value)`` for the envelope's strings (and their None)."""
    if type(value) is str:
        return _encode_string(value)
    return "null" if value is None else dumps(value)  # type: ignore[arg-type]


def _payload(value: Json) -> str:
    return encode_sorted(value)


def encode_sorted(value: Json, *, allow_nan: bool = False) -> str:
    """``dumps(value, sort_keys=True)`` (``allow_nan``: ``json.dumps`` with
    the same separators, keys sorted, non-ASCII raw), through a C encoder made
    once. It keeps no record of the containers it is in (a shared record
    would outlive a failed call); a value that holds itself, which then
    recurses without end, is encoded again the standard way, for the
    standard error."""
    encoder = _SORTED_C[allow_nan]
    try:
        if encoder is not None:
            return "".join(encoder(value, 0))
    except RecursionError:
        pass
    if allow_nan:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    return dumps(value, sort_keys=True)


def _c_encoder(allow_nan: bool) -> Callable[[Any, int], Any] | None:
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython has the C encoder
        return None
    default = json.JSONEncoder().default  # the standard TypeError for what is not JSON
    made: Callable[[Any, int], Any] = make(
        None, default, _encode_string, None, ":", ",", True, False, allow_nan
    )
    return made


_SORTED_C = (_c_encoder(False), _c_encoder(True))
