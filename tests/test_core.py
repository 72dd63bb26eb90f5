"""Unit tests of the pure core on literal data (no git): REFERENCE §1-§3, §6, §8, §9.2, App. A.

Every expectation is the Rust reference's behaviour (serde_json 1.0.150 and
yoagent-state 0.5.2+ fold semantics) as REFERENCE.md states it.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.agent.fixture import fixture_files
from git_gasp.core.event import (
    ENVELOPE_KEYS,
    Event,
    EventError,
    encode_event,
    encode_sorted,
    event_to_value,
    parse_event,
)
from git_gasp.core.fold import Folder, FoldError, SkippedOp, fold, merge
from git_gasp.core.graph import (
    Graph,
    GraphError,
    Node,
    Relation,
    graph_to_value,
    graphs_equal,
    parse_graph,
)
from git_gasp.core.jsonvalue import JsonError, Parser, dumps, equal, loads
from git_gasp.core.log import (
    describe_error,
    events_in_prefix,
    log_lines,
    parse_log,
    physical_line_count,
    physical_prefix,
)
from git_gasp.core.manifest import declared_identity_hash, identity_hash
from git_gasp.core.ops import (
    Artifact,
    AttachArtifact,
    CreateNode,
    CreateRelation,
    DeleteRelation,
    MarkStale,
    OpsError,
    TombstoneNode,
    UpdateNode,
    op_to_value,
    parse_ops,
)
from git_gasp.core.pack import BASELINE_NODE_KINDS, BASELINE_RELS, PackError, parse_pack, vocabulary
from git_gasp.core.projections import snapshot_bytes

FIXTURE_BYTES = fixture_files()["state/events.jsonl"]
FIXTURE_LINES = [line for line in FIXTURE_BYTES.decode("utf-8").split("\n") if line.strip()]

# The eight envelope fields as raw JSON text, in the runtime's order.
FIELDS = {
    "id": '"event_a"',
    "schema_version": "1",
    "ts_ms": "1739000000000",
    "actor": '{"kind":"agent","id":"evolve"}',
    "kind": '"goal.created"',
    "payload": '{"id":"goal_x"}',
    "causation_id": "null",
    "correlation_id": "null",
}


def envelope(drop: tuple[str, ...] = (), extra: str = "", **raw: str) -> str:
    """One log line from raw JSON field texts (``extra`` is appended verbatim)."""
    parts = {**FIELDS, **raw}
    body = ",".join(f'"{key}":{value}' for key, value in parts.items() if key not in drop)
    return "{" + body + extra + "}"


def ops_event(event_id: str, ops: Any, kind: str = "state.ops_applied") -> str:
    return envelope(id=json.dumps(event_id), kind=json.dumps(kind), payload=json.dumps(ops))


def fold_ops(*batches: list[Any], strict: bool = False) -> Any:
    """Fold one ops event per batch (ids e1, e2, …)."""
    events = [parse_event(ops_event(f"e{i}", ops)) for i, ops in enumerate(batches, 1)]
    return fold(events, strict=strict)


# ====================================================================== serde / envelope


def test_plain_envelope_parses_to_the_typed_event() -> None:
    event = parse_event(envelope())
    assert tuple(event) == (
        "event_a",
        1,
        1739000000000,
        ("agent", "evolve"),
        "goal.created",
        {"id": "goal_x"},
        None,
        None,
    )
    value = event_to_value(event)
    assert list(value) == list(ENVELOPE_KEYS)
    assert value["actor"] == {"kind": "agent", "id": "evolve"}
    assert value["causation_id"] is None and value["correlation_id"] is None


@pytest.mark.parametrize(
    "extra",
    [',"id":"event_b"', ',"kind":"x"', ',"payload":{}', ',"ts_ms":2', ',"causation_id":null'],
)
def test_duplicate_envelope_key_is_a_parse_error(extra: str) -> None:
    line = envelope(extra=extra)
    key = extra.split('"')[1]
    with pytest.raises(EventError, match=f"duplicate field `{key}`"):
        parse_event(line)
    # The same text as a generic JSON value: last one wins.
    assert loads(line)[key] == json.loads(line)[key]  # type: ignore[index]
    log = parse_log(line)
    assert not log.ok and log.events == ()
    assert any("line 1: not a valid envelope: duplicate field" in f for f in log.envelope_failures)


@pytest.mark.parametrize(
    "actor", ['{"kind":"agent","id":"a","id":"b"}', '{"kind":"agent","kind":"user","id":"a"}']
)
def test_duplicate_actor_key_is_a_parse_error(actor: str) -> None:
    with pytest.raises(EventError, match="duplicate field"):
        parse_event(envelope(actor=actor))
    assert not parse_log(envelope(actor=actor)).ok


def test_duplicate_payload_keys_are_last_wins() -> None:
    line = envelope(payload='{"id":"g","n":1,"n":2,"deep":{"b":1,"b":[2]}}')
    event = parse_event(line)
    assert event.payload == {"id": "g", "n": 2, "deep": {"b": [2]}}
    log = parse_log(line)
    assert log.ok and log.envelope_failures == ()
    # Op objects are re-parsed from the payload value: their duplicates collapsed too.
    ops = parse_event(
        ops_event("e", []).replace(
            '"payload":[]',
            '"payload":[{"CreateNode":{"id":"x","id":"y","kind":"goal","props":{},"props":1}}]',
        )
    ).payload
    assert parse_ops(ops) == (CreateNode("y", "goal", 1),)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_numbers_are_rejected(literal: str) -> None:
    with pytest.raises(JsonError):
        loads(f'{{"n":{literal}}}')
    with pytest.raises(EventError):
        parse_event(envelope(payload=f'{{"n":{literal}}}'))
    assert not parse_log(envelope(payload=f"[{literal}]")).ok


@pytest.mark.parametrize(
    "ts", ["1739000000000.0", "1.739e12", "1e3", '"1739000000000"', "true", "null"]
)
def test_ts_ms_must_be_an_integer(ts: str) -> None:
    with pytest.raises(EventError):
        parse_event(envelope(ts_ms=ts))


@pytest.mark.parametrize(
    ("ts", "ok"),
    [
        ("9223372036854775807", True),
        ("-9223372036854775808", True),
        ("0", True),
        ("9223372036854775808", False),
        ("-9223372036854775809", False),
        ("18446744073709551616", False),
    ],
)
def test_ts_ms_is_an_i64(ts: str, ok: bool) -> None:
    if ok:
        assert parse_event(envelope(ts_ms=ts)).ts_ms == int(ts)
    else:
        with pytest.raises(EventError):
            parse_event(envelope(ts_ms=ts))


@pytest.mark.parametrize(
    ("version", "ok"),
    [("0", True), ("4294967295", True), ("-1", False), ("4294967296", False), ("1.0", False)],
)
def test_schema_version_is_a_u32(version: str, ok: bool) -> None:
    if ok:
        assert parse_event(envelope(schema_version=version)).schema_version == int(version)
    else:
        with pytest.raises(EventError):
            parse_event(envelope(schema_version=version))


@pytest.mark.parametrize("field", ["ts_ms", "schema_version"])
def test_negative_zero_is_a_float_not_an_integer(field: str) -> None:
    # serde_json (>= 1.0.68, so 1.0.150) parses `-0` as the float -0.0 ("Convert
    # into a float if we underflow, or on `-0`"), so an i64/u32 field refuses it.
    value = loads("-0")
    assert type(value) is float and str(value) == "-0.0"
    assert not equal(loads("-0"), loads("0"))
    with pytest.raises(EventError):
        parse_event(envelope(**{field: "-0"}))


@pytest.mark.parametrize(
    ("literal", "kind"),
    [
        ("18446744073709551615", int),  # u64::MAX
        ("18446744073709551616", float),  # > u64: serde_json falls back to f64
        ("99999999999999999999999", float),
        ("-9223372036854775808", int),  # i64::MIN
        ("-9223372036854775809", float),  # < i64: f64 as well
        ("-10000000000000000000", float),
    ],
)
def test_integers_beyond_u64_or_i64_become_floats(literal: str, kind: type) -> None:
    payload = parse_event(envelope(payload=f'{{"n":{literal}}}')).payload
    assert isinstance(payload, dict)
    assert type(payload["n"]) is kind
    assert payload["n"] == (int(literal) if kind is int else float(literal))
    # Still an opaque payload: the line round-trips.
    assert parse_log(envelope(payload=f'{{"n":{literal}}}')).envelope_failures == ()


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, 1.0),
        (1, True),
        (0, False),
        (1.0, True),
        (None, False),
        (None, 0),
        ("1", 1),
        ([1], [1.0]),
        ({"a": 1}, {"a": 1.0}),
        ({"a": 1}, {"a": True}),
        ({"a": 1}, {"a": 1, "b": None}),
        ([1, 2], [2, 1]),
        ({}, []),
    ],
)
def test_equal_is_type_strict(a: Any, b: Any) -> None:
    assert not equal(a, b)
    assert not equal(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"a": 1, "b": [1, {"c": None}]}, {"b": [1, {"c": None}], "a": 1}),
        (1.5, 1.5),
        (-3, -3),
        (2**64 - 1, 2**64 - 1),
        ([], []),
        ("é", "é"),
    ],
)
def test_equal_values(a: Any, b: Any) -> None:
    assert equal(a, b)


def test_equal_on_parsed_numbers() -> None:
    assert not equal(loads("1"), loads("1.0"))
    assert not equal(loads("100"), loads("1e2"))
    assert equal(loads("1.0"), loads("1.00"))
    assert equal(loads("1e2"), loads("100.0"))  # floats compare by value
    assert not equal(loads("true"), loads("1"))


@pytest.mark.parametrize(
    "text",
    [r'"\ud800"', r'"\uDBFF"', r'"\udc00"', r'"\ud800\u0041"', r'"x\ud800y"', r'{"\ud800":1}'],
)
def test_lone_surrogate_escapes_are_rejected(text: str) -> None:
    with pytest.raises(JsonError):
        loads(text)
    with pytest.raises(EventError):
        parse_event(envelope(payload=text))


def test_valid_surrogate_pairs_and_escaped_backslashes_parse() -> None:
    assert loads(r'"\ud83d\ude00"') == "\U0001f600"
    assert loads(r'"\\ud800"') == "\\ud800"  # a literal backslash, not an escape


def test_nesting_depth_127_parses_and_128_does_not() -> None:
    assert loads("[" * 127 + "]" * 127) is not None
    with pytest.raises(JsonError):
        loads("[" * 128 + "]" * 128)
    assert loads('{"a":' * 127 + "1" + "}" * 127) is not None
    with pytest.raises(JsonError):
        loads('{"a":' * 128 + "1" + "}" * 128)
    with pytest.raises(JsonError):  # no RecursionError escapes
        loads("[" * 100_000 + "]" * 100_000)
    # Inside an event the envelope object is the first level.
    assert parse_event(envelope(payload="[" * 126 + "]" * 126)).kind == "goal.created"
    with pytest.raises(EventError):
        parse_event(envelope(payload="[" * 127 + "]" * 127))


def test_missing_causation_id_parses_as_none_but_fails_round_trip() -> None:
    for key in ("causation_id", "correlation_id"):
        line = envelope(drop=(key,))
        event = parse_event(line)
        assert getattr(event, key) is None
        log = parse_log(line)
        assert log.ok  # the typed parse succeeded…
        assert log.envelope_failures == (  # …but check 1 fails the line
            f"line 1: missing envelope field `{key}`",
            "line 1: does not round-trip structurally",
        )


@pytest.mark.parametrize("key", ["id", "schema_version", "ts_ms", "actor", "kind", "payload"])
def test_missing_required_field_is_a_parse_error(key: str) -> None:
    with pytest.raises(EventError, match=f"missing field `{key}`"):
        parse_event(envelope(drop=(key,)))


@pytest.mark.parametrize(
    "raw",
    [
        {"causation_id": "5"},
        {"correlation_id": "{}"},
        {"id": "1"},
        {"kind": "null"},
        {"actor": '{"kind":"agent","id":7}'},
        {"actor": '{"kind":"agent"}'},
        {"actor": '"agent"'},
    ],
)
def test_wrong_field_types_are_parse_errors(raw: dict[str, str]) -> None:
    with pytest.raises(EventError):
        parse_event(envelope(**raw))


def test_extra_actor_key_fails_round_trip() -> None:
    line = envelope(actor='{"kind":"agent","id":"evolve","team":"x"}')
    assert parse_event(line).actor == ("agent", "evolve")  # silently dropped…
    log = parse_log(line)
    assert log.ok
    assert log.envelope_failures == ("line 1: does not round-trip structurally",)


def test_extra_top_level_key_is_reported_by_check_1() -> None:
    log = parse_log(envelope(extra=',"extra":1'))
    assert log.ok
    assert "line 1: unknown top-level field `extra`" in log.envelope_failures


def test_reordered_keys_and_novel_nested_payload_fields_pass() -> None:
    line = (
        '{"payload":{"id":"g","novel":{"deep":[1,2.5,{"x":null}]}},"correlation_id":null,'
        '"kind":"goal.created","actor":{"id":"a","kind":"agent"},"causation_id":null,'
        '"ts_ms":1,"schema_version":1,"id":"event_x"}'
    )
    log = parse_log(line)
    assert log.ok and log.envelope_failures == ()
    assert log.events[0].payload == {"id": "g", "novel": {"deep": [1, 2.5, {"x": None}]}}


SECTION_1_1_LINE = (
    '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0001","schema_version":1,"ts_ms":1739000000007,'
    '"actor":{"kind":"agent","id":"evolve"},"kind":"goal.created","payload":{"id":"goal_retry",'
    '"metadata":{},"owner":{"id":"evolve","kind":"agent"},"status":"Open","summary":"retries '
    'drop state after timeout","title":"Make retry reliable"},"causation_id":null,'
    '"correlation_id":null}'
)


def test_encode_event_writes_the_runtime_bytes() -> None:
    # §1.1: envelope in declaration order, payload keys sorted, compact.
    assert encode_event(parse_event(SECTION_1_1_LINE)) == SECTION_1_1_LINE
    # The fixture's payloads are unsorted: re-encoding changes bytes, not structure.
    for line in FIXTURE_LINES:
        encoded = encode_event(parse_event(line))
        assert equal(loads(encoded), loads(line))
        assert parse_event(encoded) == parse_event(line)
    assert encode_event(parse_event(FIXTURE_LINES[0])) != FIXTURE_LINES[0]
    unicode = parse_event(envelope(payload='{"t":"é\u2028"}'))
    assert '"t":"é\u2028"' in encode_event(unicode)  # non-ASCII written raw


def _encoded_by_dumps(event: Event) -> str:
    """encode_event as dumps defines it: each envelope value and the sorted payload."""
    return (
        f'{{"id":{dumps(event.id)},"schema_version":{event.schema_version},'
        f'"ts_ms":{event.ts_ms},"actor":{{"kind":{dumps(event.actor.kind)},'
        f'"id":{dumps(event.actor.id)}}},"kind":{dumps(event.kind)},'
        f'"payload":{dumps(event.payload, sort_keys=True)},'
        f'"causation_id":{dumps(event.causation_id)},'
        f'"correlation_id":{dumps(event.correlation_id)}}}'
    )


def test_encode_event_is_dumps_byte_for_byte_and_error_for_error() -> None:
    """The C encoder made once writes what dumps writes, and refuses what it
    refuses with the same error (a payload holding itself included)."""
    circular: dict[str, Any] = {}
    circular["self"] = circular
    payloads: list[Any] = [
        {"b": 1, "a": [1.5, 1e16, -0.0, 2**70, True, None, (1, 2)], "é\u2028\x7f": "\ud800"},
        {1: 2, 3: 4},
        {1: 2, "a": 3},
        float("nan"),
        object(),
        circular,
        [circular],
        "text",
        None,
    ]
    base = parse_event(SECTION_1_1_LINE)
    for payload in payloads:
        for cause in (None, "event_1", 7):
            event = base._replace(payload=payload, causation_id=cause)
            results = []
            for encode in (_encoded_by_dumps, encode_event):
                try:
                    results.append(("ok", encode(event)))
                except (TypeError, ValueError) as exc:
                    results.append((type(exc).__name__, str(exc)))
            assert results[0] == results[1], payload
        snapshot = []  # a snapshot's text: json.dumps with NaN allowed, keys sorted
        for encode_value in (
            lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True),
            lambda v: encode_sorted(v, allow_nan=True),
        ):
            try:
                snapshot.append(("ok", encode_value(payload)))
            except (TypeError, ValueError) as exc:
                snapshot.append((type(exc).__name__, str(exc)))
        assert snapshot[0] == snapshot[1], payload


_SNAPSHOT_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _holds_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return any(_holds_float(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_float(v) for v in value.values())
    return False


@settings(max_examples=300, deadline=None)
@given(graph=_SNAPSHOT_VALUES)
def test_a_snapshot_is_written_as_the_standard_encoder_writes_it(graph: Any) -> None:
    """orjson writes the snapshot: the same value as json.dumps writes (keys
    sorted, compact), and the same bytes unless it holds floats; values
    orjson refuses (an integer beyond 64 bits, a lone surrogate) go to the
    standard encoder."""
    record = {"graph": graph, "integrity": {"event_id": "e", "line_count": 1, "sha256": "0"}}
    try:
        standard = encode_sorted(record, allow_nan=True).encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return  # a lone surrogate: neither writes it (nor can a log hold one)
    written = snapshot_bytes(record)
    assert json.loads(written) == json.loads(standard)
    if not _holds_float(graph):
        assert written == standard


def test_dumps_is_compact_and_refuses_nan() -> None:
    assert dumps({"b": [1, 1.0], "a": "é"}, sort_keys=True) == '{"a":"é","b":[1,1.0]}'
    with pytest.raises(ValueError):
        dumps(float("nan"))


def test_parser_reports_duplicates_only_for_the_object_that_had_them() -> None:
    parser = Parser()
    value = parser.loads('{"a":{"k":1,"k":2},"b":{"k":1}}')
    assert isinstance(value, dict)
    assert parser.duplicate_key(value["a"], ("k",)) == "k"
    assert parser.duplicate_key(value["a"], ("other",)) is None  # unknown fields may repeat
    assert parser.duplicate_key(value["b"], ("k",)) is None
    assert parser.duplicate_key(value, ("a", "b", "k")) is None


# ====================================================================== lines


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85"])
def test_lines_split_on_newline_only(char: str) -> None:
    first = envelope(id='"e1"', payload=f'{{"id":"g","t":"a{char}b"}}')
    second = envelope(id='"e2"')
    text = first + "\n" + second + "\n"
    assert [tuple(line) for line in log_lines(text)] == [(1, 1, first), (2, 2, second)]
    log = parse_log(text)
    assert log.ok and [e.id for e in log.events] == ["e1", "e2"]
    assert log.events[0].payload == {"id": "g", "t": f"a{char}b"}


def test_crlf_line_endings_are_handled() -> None:
    first, second = envelope(id='"e1"'), envelope(id='"e2"')
    log = parse_log(first + "\r\n" + second + "\r\n")
    assert log.ok and [e.id for e in log.events] == ["e1", "e2"]
    assert log.envelope_failures == ()
    assert [line.text for line in log_lines("a\r\nb\r\r\n")] == ["a", "b\r"]  # one \r only


def test_blank_lines_are_skipped_with_both_numberings() -> None:
    first, second = envelope(id='"e1"'), envelope(id='"e2"')
    text = "\n" + first + "\n   \n\t\u3000\xa0\r\n" + second + "\n\n"
    assert [tuple(line) for line in log_lines(text)] == [(1, 2, first), (2, 5, second)]
    # \x1c-\x1f are not whitespace in Rust, so such a line is not blank.
    assert [tuple(line) for line in log_lines("\x1c\n \n")] == [(1, 1, "\x1c")]


def test_error_messages_use_both_numberings() -> None:
    good = envelope(id='"e1"')
    text = "\n" + good + "\n\n" + "{not json}" + "\n" + good.replace("e1", "e3") + "\n"
    log = parse_log(text)
    assert len(log.errors) == 1
    error = log.errors[0]
    assert tuple(error.line)[:2] == (2, 4)  # 2nd non-blank line, physical line 4
    assert log.envelope_failures[0].startswith("line 2: not JSON: ")
    message = describe_error("state/events.jsonl", error)
    assert message.startswith("state/events.jsonl:4: corrupt event: ")
    assert message == f"state/events.jsonl:4: corrupt event: {error.message}"
    assert not error.torn and "torn" not in message


TORN_TAILS = [
    '{"id":"event_1',  # inside a string
    '{"id":"event_11","schema_version":1,"ts_',
    '{"id":"e","title":"',
    '{"a":',
    '{"ts_ms":17390',
    '{"c":nu',
    '{"a":"x\\',
    '{"a":"\\u00',
    "{",
    '{"a":1,',
    '{"a":-',
    '{"a":1.',
    '{"a":1e',
    '{"a":1e-',
    "[1,2",
]
NOT_TORN_TAILS = ['{"id":"x"]', "xyz", '{"a":trux}', '{"id":1}', '{"a":"\\u12G4"}', "[1,]"]
HINT = " (torn final line — likely a crash mid-append; truncate the last line to recover)"


@pytest.mark.parametrize("tail", TORN_TAILS)
def test_torn_final_line_is_detected(tail: str) -> None:
    head = envelope(id='"e1"') + "\n"
    for text in (head + tail, head + "\n" + tail + "\n\n  \n"):
        log = parse_log(text)
        assert len(log.errors) == 1
        error = log.errors[0]
        assert error.torn, (tail, error.message)
        message = describe_error("state/events.jsonl", error)
        assert message.endswith(HINT)
        physical = text.split("\n").index(tail) + 1
        assert message.startswith(f"state/events.jsonl:{physical}: corrupt event: ")
    assert parse_log(head + tail).unterminated


@pytest.mark.parametrize("tail", TORN_TAILS[:3])
def test_a_cut_line_that_is_not_last_is_not_torn(tail: str) -> None:
    log = parse_log(tail + "\n" + envelope() + "\n")
    assert len(log.errors) == 1 and not log.errors[0].torn
    assert "torn" not in describe_error("state/events.jsonl", log.errors[0])


@pytest.mark.parametrize("tail", NOT_TORN_TAILS)
def test_a_complete_bad_final_line_is_not_torn(tail: str) -> None:
    log = parse_log(envelope() + "\n" + tail)
    assert len(log.errors) == 1 and not log.errors[0].torn
    assert not describe_error("state/events.jsonl", log.errors[0]).endswith(HINT)


@pytest.mark.parametrize(
    ("data", "count"),
    [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"\n\n", 2), (b"a\n\nb\n", 3)],
)
def test_physical_line_count(data: bytes, count: int) -> None:
    assert physical_line_count(data) == count


# ====================================================================== ops


SECTION_2_1_OPS = [
    {
        "CreateNode": {
            "id": "goal_retry",
            "kind": "goal",
            "props": {"title": "Make retry reliable", "status": "Open"},
        }
    },
    {"UpdateNode": {"id": "patch_9", "props": {"status": "Promoted"}}},
    {"TombstoneNode": {"id": "task_7", "reason": "duplicate"}},
    {"CreateRelation": {"from": "patch_9", "rel": "advances", "to": "goal_retry", "props": {}}},
    {"DeleteRelation": {"from": "patch_9", "rel": "advances", "to": "goal_retry"}},
    {"MarkStale": {"id": "hypothesis_2", "reason": "superseded"}},
    {
        "AttachArtifact": {
            "id": "patch_9",
            "artifact": {
                "kind": "git.diff",
                "uri": "file://.yoyo/artifacts/patch_9.diff",
                "hash": None,
                "summary": None,
                "metadata": {},
            },
        }
    },
]


def test_every_op_variant_parses() -> None:
    ops = parse_ops(SECTION_2_1_OPS)
    assert ops == (
        CreateNode("goal_retry", "goal", {"title": "Make retry reliable", "status": "Open"}),
        UpdateNode("patch_9", {"status": "Promoted"}),
        TombstoneNode("task_7", "duplicate"),
        CreateRelation("patch_9", "advances", "goal_retry", {}),
        DeleteRelation("patch_9", "advances", "goal_retry"),
        MarkStale("hypothesis_2", "superseded"),
        AttachArtifact(
            "patch_9", Artifact("git.diff", "file://.yoyo/artifacts/patch_9.diff", None, None, {})
        ),
    )
    assert [op_to_value(op) for op in ops] == SECTION_2_1_OPS


def test_op_fields_unknown_ignored_and_optional_artifact_fields() -> None:
    ops = parse_ops(
        [
            {"CreateNode": {"id": "x", "kind": "goal", "props": None, "extra": 1}},
            {"AttachArtifact": {"id": "x", "artifact": {"kind": "k", "uri": "u", "metadata": {}}}},
            {"DeleteRelation": {"from": "a", "rel": "r", "to": "b", "props": {"ignored": True}}},
        ]
    )
    assert ops[0] == CreateNode("x", "goal", None)
    assert ops[1] == AttachArtifact("x", Artifact("k", "u", None, None, {}))
    assert ops[2] == DeleteRelation("a", "r", "b")


def test_a_variant_body_is_an_object_but_an_artifact_may_be_an_array() -> None:
    """The reference parses ops from the payload value: serde_json's value
    deserializer takes a struct variant from an object only, a struct from
    an object or an array."""
    for body in (["x", "goal", {}], "x", None, 5):
        with pytest.raises(OpsError) as caught:
            parse_ops([{"CreateNode": body}])
        assert str(caught.value).endswith(", expected struct variant")
    with pytest.raises(OpsError, match="invalid type: sequence, expected struct variant"):
        parse_ops([{"UpdateNode": ["patch_x6", {"a": 1}]}])
    ops = parse_ops([{"AttachArtifact": {"id": "x", "artifact": ["k", "u", None, None, {}]}}])
    assert ops[0] == AttachArtifact("x", Artifact("k", "u", None, None, {}))


MALFORMED_PAYLOADS = {
    "object": {"not": "ops"},
    "null": None,
    "string": "CreateNode",
    "zero_key_op": [{}],
    "two_key_op": [
        {
            "CreateNode": {"id": "x", "kind": "goal", "props": {}},
            "UpdateNode": {"id": "x", "props": {}},
        }
    ],
    "unknown_variant": [{"DeleteNode": {"id": "x"}}],
    "missing_props": [{"CreateNode": {"id": "x", "kind": "goal"}}],
    "missing_update_props": [{"UpdateNode": {"id": "x"}}],
    "missing_relation_props": [{"CreateRelation": {"from": "a", "rel": "r", "to": "b"}}],
    "missing_reason": [{"TombstoneNode": {"id": "x"}}],
    "wrong_id_type": [{"MarkStale": {"id": 1, "reason": "r"}}],
    "artifact_without_metadata": [
        {"AttachArtifact": {"id": "x", "artifact": {"kind": "k", "uri": "u"}}}
    ],
    "bare_string_op": ["MarkStale"],
    "good_then_bad": [{"CreateNode": {"id": "x", "kind": "goal", "props": {}}}, 5],
}


@pytest.mark.parametrize("case", sorted(MALFORMED_PAYLOADS))
@pytest.mark.parametrize("strict", [False, True])
def test_malformed_ops_payload_fails_the_fold_in_both_modes(case: str, strict: bool) -> None:
    payload = MALFORMED_PAYLOADS[case]
    with pytest.raises(OpsError):
        parse_ops(payload)
    events = [parse_event(ops_event("e1", [])), parse_event(ops_event("e_bad", payload))]
    with pytest.raises(FoldError) as info:
        fold(events, strict=strict)
    assert info.value.msg.startswith("invalid event payload for state.ops_applied: ")
    assert info.value.event_id == "e_bad"


# ====================================================================== merge / fold


def test_merge_rules() -> None:
    assert merge({"a": 1, "b": 2}, {"a": None}) == {"a": None, "b": 2}  # null sets
    assert merge({"a": 1}, {"c": None}) == {"a": 1, "c": None}
    assert merge({"a": [1, 2]}, {"a": [3]}) == {"a": [3]}  # arrays replace
    assert merge({"a": {"b": 1, "c": 2}}, {"a": {"c": 3, "d": 4}}) == {
        "a": {"b": 1, "c": 3, "d": 4}
    }
    assert merge({"a": 1}, {"a": {"b": 1}}) == {"a": {"b": 1}}  # object over scalar
    assert merge({"a": {"b": 1}}, {"a": 5}) == {"a": 5}  # scalar over object
    assert merge({"a": {"b": 1}}, {"a": {}}) == {"a": {"b": 1}}
    assert merge({"a": 1}, None) is None  # non-object patch replaces wholesale
    assert merge({"a": 1}, [1]) == [1]
    assert merge("text", {"a": 1}) == {"a": 1}  # object patch over a non-object
    assert merge(None, {"a": {"b": None}}) == {"a": {"b": None}}


def test_merge_does_not_mutate_its_inputs() -> None:
    target = {"a": {"b": 1}, "l": [1]}
    patch = {"a": {"c": 2}, "l": [2]}
    before = copy.deepcopy((target, patch))
    merge(target, patch)
    assert (target, patch) == before


def test_fold_only_applies_ops_events_and_counts_ops() -> None:
    domain = parse_event(
        ops_event("d1", [{"CreateNode": {"id": "x", "kind": "goal", "props": {}}}], "goal.created")
    )
    empty = parse_event(ops_event("e0", []))
    two = parse_event(
        ops_event(
            "e1",
            [
                {"CreateNode": {"id": "a", "kind": "goal", "props": {}}},
                {"CreateNode": {"id": "b", "kind": "goal", "props": {}}},
            ],
        )
    )
    result = fold([domain, empty, two])
    assert set(result.graph.nodes) == {"a", "b"}
    assert result.graph.version == 2  # ops, not events; the empty batch adds nothing
    assert fold([domain, empty]).graph == Graph({}, (), 0)


def test_update_node_deep_merges_props() -> None:
    graph = fold_ops(
        [{"CreateNode": {"id": "n", "kind": "goal", "props": {"a": 1, "o": {"x": 1}, "l": [1]}}}],
        [{"UpdateNode": {"id": "n", "props": {"a": None, "o": {"y": 2}, "l": [2], "new": "v"}}}],
    ).graph
    assert graph.nodes["n"].props == {"a": None, "o": {"x": 1, "y": 2}, "l": [2], "new": "v"}
    assert graph.version == 2


@pytest.mark.parametrize("patch", [None, [1, 2], "text", 7])
def test_non_object_update_replaces_props_and_object_replaces_non_object(patch: Any) -> None:
    result = fold_ops(
        [{"CreateNode": {"id": "n", "kind": "goal", "props": {"a": 1}}}],
        [{"UpdateNode": {"id": "n", "props": patch}}],
    )
    assert equal(result.graph.nodes["n"].props, patch)
    result = fold_ops(
        [{"CreateNode": {"id": "n", "kind": "goal", "props": patch}}],
        [{"UpdateNode": {"id": "n", "props": {"a": 1}}}],
    )
    assert result.graph.nodes["n"].props == {"a": 1}


@pytest.mark.parametrize("props", [None, [1], "s", 3, {"keep": True}])
def test_tombstone_and_stale_set_flags_and_merge_reasons(props: Any) -> None:
    base = props if isinstance(props, dict) else {}
    graph = fold_ops(
        [
            {"CreateNode": {"id": "t", "kind": "task", "props": props}},
            {"CreateNode": {"id": "s", "kind": "task", "props": props}},
            {"CreateRelation": {"from": "t", "rel": "serves", "to": "s", "props": {}}},
        ],
        [
            {"TombstoneNode": {"id": "t", "reason": "duplicate"}},
            {"MarkStale": {"id": "s", "reason": "superseded"}},
        ],
    ).graph
    tomb, stale = graph.nodes["t"], graph.nodes["s"]
    assert tomb.tombstoned and not tomb.stale
    assert tomb.props == {**base, "tombstone_reason": "duplicate"}
    assert stale.stale and not stale.tombstoned
    assert stale.props == {**base, "stale_reason": "superseded"}
    assert len(graph.relations) == 1  # a tombstoned node keeps its relations
    assert graph.version == 5


def test_delete_relation_removes_every_matching_triple() -> None:
    graph = fold_ops(
        [
            {"CreateRelation": {"from": "a", "rel": "r", "to": "b", "props": {"n": 1}}},
            {"CreateRelation": {"from": "a", "rel": "other", "to": "b", "props": {}}},
            {"CreateRelation": {"from": "a", "rel": "r", "to": "b", "props": {"n": 2}}},
            {"CreateRelation": {"from": "b", "rel": "r", "to": "a", "props": {}}},
            {"CreateRelation": {"from": "a", "rel": "r", "to": "b", "props": {}}},
        ],
        [
            {"DeleteRelation": {"from": "a", "rel": "r", "to": "b"}},
            {"DeleteRelation": {"from": "nobody", "rel": "r", "to": "b"}},  # deletes nothing
        ],
    ).graph
    assert graph.relations == (Relation("a", "other", "b", {}), Relation("b", "r", "a", {}))
    assert graph.version == 7  # both deletes count, even the one that removed nothing


def test_duplicate_relations_accumulate_without_endpoint_checks() -> None:
    edge = {"CreateRelation": {"from": "ghost", "rel": "blocks", "to": "nowhere", "props": {}}}
    result = fold_ops([edge, edge], [edge])
    assert result.graph.relations == (Relation("ghost", "blocks", "nowhere", {}),) * 3
    assert result.graph.nodes == {} and result.skipped == () and result.graph.version == 3


def test_create_node_replaces_an_existing_node() -> None:
    artifact = {"kind": "k", "uri": "u", "hash": "h", "summary": None, "metadata": {}}
    graph = fold_ops(
        [
            {"CreateNode": {"id": "n", "kind": "goal", "props": {"old": 1}}},
            {"CreateRelation": {"from": "n", "rel": "serves", "to": "m", "props": {}}},
            {"AttachArtifact": {"id": "n", "artifact": artifact}},
            {"MarkStale": {"id": "n", "reason": "r"}},
            {"TombstoneNode": {"id": "n", "reason": "r"}},
        ],
        [{"CreateNode": {"id": "n", "kind": "task", "props": {"new": 2}}}],
    ).graph
    assert graph.nodes["n"] == Node("n", "task", {"new": 2}, False, False, ())
    assert graph.relations == (Relation("n", "serves", "m", {}),)  # untouched
    assert graph.version == 6


def test_attach_artifact_appends_without_dedup() -> None:
    artifact = {"kind": "git.diff", "uri": "u", "metadata": {"n": 1}}
    graph = fold_ops(
        [{"CreateNode": {"id": "p", "kind": "patch", "props": {}}}],
        [{"AttachArtifact": {"id": "p", "artifact": artifact}}] * 2,
    ).graph
    assert graph.nodes["p"].artifacts == (Artifact("git.diff", "u", None, None, {"n": 1}),) * 2
    assert graph.version == 3


def test_fold_never_aliases_or_mutates_the_log() -> None:
    events = [
        parse_event(
            ops_event("e1", [{"CreateNode": {"id": "n", "kind": "goal", "props": {"o": {"a": 1}}}}])
        ),
        parse_event(ops_event("e2", [{"UpdateNode": {"id": "n", "props": {"o": {"b": 2}}}}])),
        parse_event(ops_event("e3", [{"MarkStale": {"id": "n", "reason": "r"}}])),
    ]
    before = copy.deepcopy([e.payload for e in events])
    graph = fold(events).graph
    assert graph.nodes["n"].props == {"o": {"a": 1, "b": 2}, "stale_reason": "r"}
    assert [e.payload for e in events] == before


def test_lenient_fold_skips_ops_on_missing_nodes() -> None:
    artifact = {"kind": "k", "uri": "u", "metadata": {}}
    result = fold_ops(
        [
            {"CreateNode": {"id": "a", "kind": "goal", "props": {}}},
            {"UpdateNode": {"id": "gone", "props": {"x": 1}}},
            {"TombstoneNode": {"id": "gone2", "reason": "r"}},
            {"UpdateNode": {"id": "a", "props": {"after": True}}},
        ],
        [
            {"MarkStale": {"id": "gone3", "reason": "r"}},
            {"AttachArtifact": {"id": "gone4", "artifact": artifact}},
        ],
    )
    assert result.graph.nodes["a"].props == {"after": True}  # later ops still applied
    assert set(result.graph.nodes) == {"a"}
    assert result.graph.version == 2  # skipped ops are not counted (0.5.2+)
    assert [tuple(s) for s in result.skipped] == [
        ("e1", 1, "UpdateNode", "gone", "node not found: gone"),
        ("e1", 2, "TombstoneNode", "gone2", "node not found: gone2"),
        ("e2", 0, "MarkStale", "gone3", "node not found: gone3"),  # index within its batch
        ("e2", 1, "AttachArtifact", "gone4", "node not found: gone4"),
    ]
    assert result.skipped[0] == SkippedOp("e1", 1, "UpdateNode", "gone", "node not found: gone")
    assert result.skipped[0].note() == (
        "UpdateNode at batch index 1 skipped — node not found: gone. The log is readable but "
        "malformed; a conformant runtime folds past this, and so does this check"
    )


def test_strict_fold_aborts_on_the_first_missing_node() -> None:
    batches = (
        [{"CreateNode": {"id": "a", "kind": "goal", "props": {}}}],
        [{"UpdateNode": {"id": "a", "props": {}}}, {"MarkStale": {"id": "gone", "reason": "r"}}],
    )
    with pytest.raises(FoldError) as info:
        fold_ops(*batches, strict=True)
    assert info.value.msg == "node not found: gone"
    assert info.value.event_id == "e2"
    folder = Folder(strict=True)
    folder.apply(parse_event(ops_event("e1", batches[0])))
    with pytest.raises(FoldError):
        folder.apply(parse_event(ops_event("e2", batches[1])))
    # Without strict the same log folds.
    assert fold_ops(*batches).graph.version == 2


def test_fixture_folds_to_the_reference_graph() -> None:
    result = fold(parse_log(FIXTURE_BYTES.decode("utf-8")).events)
    graph = result.graph
    assert graph.version == 8 and result.skipped == ()
    assert {k: (n.kind, n.props) for k, n in graph.nodes.items()} == {
        "goal_retry": ("goal", {"title": "Make retry reliable", "status": "Open"}),
        "patch_9": (
            "patch",
            {
                "title": "persist retry counter",
                "status": "Promoted",
                "references_commit": "abc1234",
            },
        ),
        "eval_5": ("eval", {"command": "cargo test retry", "status": "Passed", "score": 1.0}),
        "decision_3": ("decision", {"status": "Approved"}),
    }
    assert type(graph.nodes["eval_5"].props["score"]) is float  # type: ignore[index]
    assert [tuple(r)[:3] for r in graph.relations] == [
        ("patch_9", "advances", "goal_retry"),
        ("patch_9", "validated_by", "eval_5"),
        ("patch_9", "approved_by", "decision_3"),
    ]


# ====================================================================== graph JSON


def _fixture_graph() -> Graph:
    events = list(parse_log(FIXTURE_BYTES.decode("utf-8")).events)
    events.append(
        parse_event(
            ops_event(
                "e_art",
                [
                    {
                        "AttachArtifact": {
                            "id": "patch_9",
                            "artifact": {
                                "kind": "k",
                                "uri": "u",
                                "hash": "h",
                                "summary": "s",
                                "metadata": {"n": 1},
                            },
                        }
                    },
                    {"MarkStale": {"id": "eval_5", "reason": "old"}},
                    {"TombstoneNode": {"id": "decision_3", "reason": "undo"}},
                ],
            )
        )
    )
    return fold(events).graph


def test_graph_json_round_trip() -> None:
    graph = _fixture_graph()
    value = graph_to_value(graph)
    assert list(value) == ["nodes", "relations", "version"]
    assert list(value["nodes"]["patch_9"]) == [
        "id",
        "kind",
        "props",
        "stale",
        "tombstoned",
        "artifacts",
    ]
    assert value["relations"][0] == {
        "from": "patch_9",
        "rel": "advances",
        "to": "goal_retry",
        "props": {},
    }
    parsed = parse_graph(loads(dumps(value)))
    assert graphs_equal(parsed, graph) and graphs_equal(graph, parsed)
    assert equal(graph_to_value(parsed), value)
    assert parsed.nodes["patch_9"].artifacts == (Artifact("k", "u", "h", "s", {"n": 1}),)
    assert parsed.nodes["eval_5"].stale and parsed.nodes["decision_3"].tombstoned
    assert parsed.version == 11


def _without(value: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    out = copy.deepcopy(value)
    target = out
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return out


@pytest.mark.parametrize(
    "path",
    [
        ("nodes",),
        ("relations",),
        ("version",),
        *(
            ("nodes", "patch_9", key)
            for key in ("id", "kind", "props", "stale", "tombstoned", "artifacts")
        ),
        *(("relations", 0, key) for key in ("from", "rel", "to", "props")),
        *(("nodes", "patch_9", "artifacts", 0, key) for key in ("kind", "uri", "metadata")),
    ],
)
def test_parse_graph_requires_every_field(path: tuple[Any, ...]) -> None:
    value = graph_to_value(_fixture_graph())
    with pytest.raises(GraphError):
        parse_graph(_without(value, path))


def test_parse_graph_allows_absent_artifact_hash_and_summary() -> None:
    value = graph_to_value(_fixture_graph())
    value = _without(
        _without(value, ("nodes", "patch_9", "artifacts", 0, "hash")),
        ("nodes", "patch_9", "artifacts", 0, "summary"),
    )
    artifact = parse_graph(value).nodes["patch_9"].artifacts[0]
    assert (artifact.hash, artifact.summary) == (None, None)


@pytest.mark.parametrize(
    ("path", "bad"),
    [
        (("version",), -1),
        (("version",), 8.0),
        (("version",), "8"),
        (("version",), 2**64),
        (("nodes", "patch_9", "stale"), 0),
        (("nodes", "patch_9", "id"), None),
        (("relations", 0, "rel"), 1),
        (("nodes",), []),
        (("relations",), {}),
    ],
)
def test_parse_graph_rejects_wrong_types(path: tuple[Any, ...], bad: Any) -> None:
    value = graph_to_value(_fixture_graph())
    target = value
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = bad
    with pytest.raises(GraphError):
        parse_graph(value)


def test_parse_graph_ignores_extra_fields() -> None:
    graph = _fixture_graph()
    value = graph_to_value(graph)
    value["extra"] = 1
    value["nodes"]["patch_9"]["extra"] = {"x": 1}
    value["relations"][0]["weight"] = 0.5
    assert graphs_equal(parse_graph(value), graph)


def _variant(change: Any) -> Graph:
    value = graph_to_value(_fixture_graph())
    change(value)
    return parse_graph(value)


GRAPH_CHANGES = {
    "int_vs_float_prop": lambda v: v["nodes"]["eval_5"]["props"].update(score=1),
    "bool_vs_int_prop": lambda v: v["nodes"]["eval_5"]["props"].update(score=True),
    "relation_props": lambda v: v["relations"][0].update(props={"w": 1.0}),
    "version": lambda v: v.update(version=12),
    "relation_order": lambda v: v["relations"].reverse(),
    "stale_flag": lambda v: v["nodes"]["eval_5"].update(stale=False),
    "tombstone_flag": lambda v: v["nodes"]["decision_3"].update(tombstoned=False),
    "artifact_added": lambda v: v["nodes"]["patch_9"]["artifacts"].append(
        {"kind": "k", "uri": "u2", "hash": None, "summary": None, "metadata": {}}
    ),
    "artifact_metadata": lambda v: v["nodes"]["patch_9"]["artifacts"][0].update(
        metadata={"n": 1.0}
    ),
    "node_id_vs_key": lambda v: v["nodes"]["goal_retry"].update(id="goal_other"),
    "node_kind": lambda v: v["nodes"]["goal_retry"].update(kind="task"),
    "extra_node": lambda v: v["nodes"].update(
        x={
            "id": "x",
            "kind": "goal",
            "props": {},
            "stale": False,
            "tombstoned": False,
            "artifacts": [],
        }
    ),
    "relation_dropped": lambda v: v["relations"].pop(),
}


@pytest.mark.parametrize("case", sorted(GRAPH_CHANGES))
def test_graphs_equal_is_type_strict_and_ordered(case: str) -> None:
    changed = _variant(GRAPH_CHANGES[case])
    assert not graphs_equal(changed, _fixture_graph())
    assert not graphs_equal(_fixture_graph(), changed)


def test_graphs_equal_ignores_node_map_order() -> None:
    graph = _fixture_graph()
    value = graph_to_value(graph)
    value["nodes"] = dict(reversed(list(value["nodes"].items())))
    assert graphs_equal(parse_graph(value), graph)


# ====================================================================== snapshots (§3.2)


WORKED_GRAPH = {
    "nodes": {
        "goal_retry": {
            "id": "goal_retry",
            "kind": "goal",
            "props": {"title": "Make retry reliable", "status": "Open"},
            "stale": False,
            "tombstoned": False,
            "artifacts": [],
        },
        "patch_9": {
            "id": "patch_9",
            "kind": "patch",
            "props": {
                "title": "persist retry counter",
                "status": "Proposed",
                "references_commit": "abc1234",
            },
            "stale": False,
            "tombstoned": False,
            "artifacts": [],
        },
    },
    "relations": [{"from": "patch_9", "rel": "advances", "to": "goal_retry", "props": {}}],
    "version": 3,
}


def test_section_3_2_snapshot_hashes_from_the_shipped_fixture() -> None:
    data = FIXTURE_BYTES
    assert physical_line_count(data) == 10
    prefix = physical_prefix(data, 5)
    assert prefix.count(b"\n") == 5 and prefix.endswith(b"\n")
    assert hashlib.sha256(prefix).hexdigest() == (
        "45756522ad03d46627de5f0edb271390de402c83a195d555d03e7c59d169a0eb"
    )
    assert hashlib.sha256(physical_prefix(data, 10)).hexdigest() == (
        "e571e6e58147aaf4d9e7935d1c8847b3a3263408fb875c43e8e6a2391f1ddcb1"
    )
    assert physical_prefix(data, 10) == data
    assert events_in_prefix(data, 5) == 5
    events = parse_log(data.decode("utf-8")).events
    assert events[4].id == "event_05"
    prefix_graph = fold(events[:5]).graph
    assert prefix_graph.version == 3
    assert graphs_equal(parse_graph(WORKED_GRAPH), prefix_graph)
    assert fold(events).graph.version == 8


def test_physical_prefix_counts_blank_and_unterminated_lines() -> None:
    data = b"a\n\nb\nc"
    assert physical_prefix(data, 2) == b"a\n\n"
    assert physical_prefix(data, 4) == data
    assert events_in_prefix(data, 2) == 1
    assert events_in_prefix(data, 3) == 2


# ====================================================================== packs (§6)


SECTION_6_PACK = (
    '{"id":"pack_experiments","name":"experiments","version":"1.0.0",'
    '"object_types":{"experiment":{"kind":"experiment","required_props":["title"],'
    '"description":"A/B trial of a skill version"},'
    '"approval_request":{"kind":"approval_request","required_props":[],"description":null}},'
    '"relation_types":{"tests":{"rel":"tests","from_kinds":["experiment"],"to_kinds":["patch"],'
    '"description":null}},"policies":[],"prompts":[],"settings":{}}'
)


def _pack(**changes: Any) -> str:
    value = json.loads(SECTION_6_PACK)
    for key, new in changes.items():
        if new is _DROP:
            del value[key]
        else:
            value[key] = new
    return json.dumps(value)


_DROP = object()


def test_full_pack_shape_parses() -> None:
    pack = parse_pack(SECTION_6_PACK)
    assert (pack.id, pack.name, pack.version) == ("pack_experiments", "experiments", "1.0.0")
    assert set(pack.object_types) == {"experiment", "approval_request"}
    experiment = pack.object_types["experiment"]
    assert experiment.kind == "experiment"
    assert experiment.required_props == frozenset({"title"})
    assert experiment.description == "A/B trial of a skill version"
    assert pack.object_types["approval_request"].description is None
    tests = pack.relation_types["tests"]
    assert (tests.rel, tuple(tests.from_kinds), tuple(tests.to_kinds)) == (
        "tests",
        ("experiment",),
        ("patch",),
    )
    assert tuple(pack.policies) == () and tuple(pack.prompts) == ()
    assert pack.settings == {}


@pytest.mark.parametrize(
    "key",
    ["id", "name", "version", "object_types", "relation_types", "policies", "prompts", "settings"],
)
def test_pack_requires_every_top_level_field(key: str) -> None:
    with pytest.raises(PackError, match=f"missing field `{key}`"):
        parse_pack(_pack(**{key: _DROP}))


def test_pack_settings_may_be_any_json() -> None:
    assert parse_pack(_pack(settings=None)).settings is None
    assert parse_pack(_pack(settings=[1, "x"])).settings == [1, "x"]


@pytest.mark.parametrize(
    "text",
    [
        SECTION_6_PACK.replace('{"id":"pack_experiments",', '{"id":"a","id":"pack_experiments",'),
        SECTION_6_PACK.replace('"settings":{}}', '"settings":{},"settings":{}}'),
        SECTION_6_PACK.replace(
            '{"kind":"experiment","required_props"',
            '{"kind":"x","kind":"experiment","required_props"',
        ),
        SECTION_6_PACK.replace('{"rel":"tests",', '{"rel":"tests","rel":"tests",'),
    ],
)
def test_pack_duplicate_struct_key_fails(text: str) -> None:
    assert text != SECTION_6_PACK
    with pytest.raises(PackError, match="duplicate field"):
        parse_pack(text)


def test_pack_duplicate_map_key_is_last_wins() -> None:
    text = SECTION_6_PACK.replace(
        '"object_types":{',
        '"object_types":{"experiment":{"kind":"first","required_props":["a"]},',
    ).replace('"settings":{}', '"settings":{"k":1,"k":2}')
    pack = parse_pack(text)
    assert pack.object_types["experiment"].kind == "experiment"  # the later entry
    assert pack.object_types["experiment"].required_props == frozenset({"title"})
    assert pack.settings == {"k": 2}


def test_pack_unknown_keys_ignored_and_required_props_is_a_set() -> None:
    text = (
        '{"id":"pack_custom","name":"custom","version":"1","object_types":{"experiment":'
        '{"kind":"experiment","required_props":["t","t"],"prop_docs":{}}},"relation_types":{},'
        '"policies":[],"prompts":[],"settings":{},"future":true}'
    )
    pack = parse_pack(text)
    assert pack.object_types["experiment"].required_props == frozenset({"t"})
    assert pack.object_types["experiment"].description is None


@pytest.mark.parametrize(
    "text",
    [
        '{"id":',
        "[]",
        _pack(policies="x"),
        _pack(object_types={"e": {"kind": "e"}}),
        _pack(relation_types={"r": {"rel": "r", "from_kinds": []}}),
        _pack(object_types={"e": {"kind": 1, "required_props": []}}),
        _pack(id=1),
    ],
)
def test_malformed_packs_fail(text: str) -> None:
    with pytest.raises(PackError):
        parse_pack(text)


def test_vocabulary_is_the_baseline_plus_pack_keys() -> None:
    assert BASELINE_NODE_KINDS == frozenset(
        "goal task run observation failure hypothesis patch eval decision model_call "
        "tool_call frame project_snapshot policy behavior".split()
    )
    assert BASELINE_RELS == frozenset(
        "serves blocks advances observes explains addresses modifies validated_by approved_by "
        "rejected_by produced_by derived_from depends_on supersedes contained_in_frame "
        "forked_from references".split()
    )
    kinds, rels = vocabulary([parse_pack(SECTION_6_PACK)])
    assert kinds == BASELINE_NODE_KINDS | {"experiment", "approval_request"}
    assert rels == BASELINE_RELS | {"tests"}
    assert vocabulary([]) == (BASELINE_NODE_KINDS, BASELINE_RELS)


# ====================================================================== identity (§9.2)


def test_identity_hash_test_vectors() -> None:
    assert identity_hash([("identity/b.md", b"bee"), ("identity/sub/a.md", b"ay")]) == (
        "c3c98b9b7b4f93b8e62036d30c7da8540f358ab4a03ad0fd547bfd186d5c94aa"
    )
    # Input order does not matter: paths are sorted.
    assert identity_hash([("identity/sub/a.md", b"ay"), ("identity/b.md", b"bee")]) == (
        "c3c98b9b7b4f93b8e62036d30c7da8540f358ab4a03ad0fd547bfd186d5c94aa"
    )
    assert identity_hash([("identity/IDENTITY.md", b"# Identity\n\nI am it-agent.\n")]) == (
        "7dee8e9ab12b08bfb41df44daba354987318e86f5abae2a05ddb227e7b45defd"
    )
    files = fixture_files()
    identity = [(p, d) for p, d in files.items() if p.startswith("identity/")]
    assert identity_hash(identity) == (
        "ec257c2341e50902b376b0c9ac8a8c5b312348508309cb7f97ef8191429798e9"
    )
    assert identity_hash([]) == hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize(
    "paths",
    [
        ["identity/B.md", "identity/a.md"],  # uppercase sorts first in byte order
        ["identity/a-b.md", "identity/a/b.md"],  # '-' (0x2d) before '/' (0x2f)
        ["identity/Z", "identity/_", "identity/é"],  # ASCII before multi-byte UTF-8
    ],
)
def test_identity_hash_sorts_paths_by_bytes(paths: list[str]) -> None:
    expected = hashlib.sha256(b"".join(p.encode() + b"\n" + b"x" for p in paths)).hexdigest()
    assert identity_hash([(p, b"x") for p in reversed(paths)]) == expected


DIGEST = "ec257c2341e50902b376b0c9ac8a8c5b312348508309cb7f97ef8191429798e9"


def test_manifest_reads_the_fixture_digest() -> None:
    declared = declared_identity_hash(fixture_files()["AGENT.md"].decode("utf-8"))
    assert declared.value == DIGEST and declared.raw == DIGEST


@pytest.mark.parametrize(
    ("text", "raw", "value"),
    [
        (f"# A\n\n```yaml\nidentity_hash: {DIGEST}\n```\n", DIGEST, DIGEST),
        (f"```\n  identity_hash:   {DIGEST}  \n```\n", DIGEST, DIGEST),  # indented, no tag
        (f"   ```yml\nidentity_hash: {DIGEST.upper()}\n```\n", DIGEST.upper(), DIGEST),
        (f"```yaml\r\nidentity_hash: {DIGEST}\r\n```\r\n", DIGEST, DIGEST),
        (f'```yaml\nidentity_hash: "{DIGEST}"\n```\n', f'"{DIGEST}"', None),  # quoted
        (f"```yaml\nidentity_hash: {DIGEST} # sha256\n```\n", f"{DIGEST} # sha256", None),
        (f"```yaml\nidentity_hash: {DIGEST[:63]}\n```\n", DIGEST[:63], None),
        (f"```yaml\nidentity_hash: {DIGEST}0\n```\n", DIGEST + "0", None),
        ("```yaml\nidentity_hash: not-a-digest\n```\n", "not-a-digest", None),
        ("```yaml\nidentity_hash:\n```\n", "", None),
        # Only the first identity_hash line of the block counts.
        (f"```yaml\nidentity_hash: {DIGEST}\nidentity_hash: x\n```\n", DIGEST, DIGEST),
        # Only the first fenced block is read.
        (f"```yaml\nagent_id: a\n```\n\n```yaml\nidentity_hash: {DIGEST}\n```\n", None, None),
        (f"identity_hash: {DIGEST}\n\n```yaml\nagent_id: a\n```\n", None, None),  # outside
        (f"~~~yaml\nidentity_hash: {DIGEST}\n~~~\n", None, None),  # not a backtick fence
        (f"```yaml\nagent_id: a\nidentity_hash : {DIGEST}\n```\n", None, None),
        ("no blocks at all\n", None, None),
    ],
)
def test_manifest_parsing(text: str, raw: str | None, value: str | None) -> None:
    declared = declared_identity_hash(text)
    assert (declared.raw, declared.value) == (raw, value)


# ====================================================================== duplicates, more


def test_duplicate_envelope_field_after_an_unknown_duplicate_is_still_an_error() -> None:
    # serde ignores repeated *unknown* keys but refuses a repeated field, wherever it is.
    line = envelope(extra=',"x":1,"x":2,"id":"event_b"')
    with pytest.raises(EventError, match="duplicate field `id`"):
        parse_event(line)
    actor = '{"x":1,"x":2,"kind":"agent","id":"a","id":"b"}'
    with pytest.raises(EventError, match="duplicate field `id`"):
        parse_event(envelope(actor=actor))


def test_duplicate_unknown_envelope_key_only_fails_check_1_as_unknown() -> None:
    log = parse_log(envelope(extra=',"x":1,"x":2'))
    assert log.ok  # the typed parse ignores unknown keys, repeated or not
    assert log.envelope_failures == (
        "line 1: unknown top-level field `x`",
        "line 1: does not round-trip structurally",
    )


@pytest.mark.parametrize(
    "text",
    [
        SECTION_6_PACK.replace('"settings":{}}', '"settings":{},"future":1,"future":2}'),
        SECTION_6_PACK.replace(
            '"required_props":["title"],',
            '"required_props":["title"],"prop_docs":{},"prop_docs":1,',
        ),
    ],
)
def test_pack_duplicate_unknown_key_is_ignored(text: str) -> None:
    assert text != SECTION_6_PACK
    assert parse_pack(text).object_types["experiment"].required_props == frozenset({"title"})


def test_pack_earlier_duplicate_map_entry_is_still_validated() -> None:
    # serde deserializes every map entry from the text before the later one wins.
    text = SECTION_6_PACK.replace(
        '"object_types":{', '"object_types":{"experiment":{"kind":1,"required_props":"x"},'
    )
    with pytest.raises(PackError):
        parse_pack(text)


def test_fold_fast_path_refuses_an_unhashable_node_id() -> None:
    """A list as an UpdateNode id is a malformed payload (FoldError), never a TypeError."""
    from git_gasp.core.event import Actor, Event
    from git_gasp.core.fold import FoldError
    from git_gasp.core.fold import fold as fold_events

    event = Event(
        "e",
        1,
        1,
        Actor("a", "b"),
        "state.ops_applied",
        [{"UpdateNode": {"id": [1], "props": {}}}],
        None,
        None,
    )
    with pytest.raises(FoldError, match="expected a string"):
        fold_events([event])


def test_did_you_mean_completes_an_id_cut_short_and_spots_typos() -> None:
    from git_gasp.core.suggest import did_you_mean

    ids = ["goal_01867939", "goal_01aa", "patch_9", "eval_5"]
    assert did_you_mean("goal_01", ids) == "did you mean goal_01867939 or goal_01aa?"
    assert did_you_mean("patch_8", ids) == "did you mean patch_9?"
    assert did_you_mean("zzz", ids) is None
    many = [f"run_{i}" for i in range(5)]
    assert did_you_mean("run_", many) == "did you mean run_0 or run_1 or run_2? (and more)"


def test_pausing_the_collector_leaves_a_host_programs_frozen_objects_frozen() -> None:
    import gc

    from git_gasp.core.log import gc_paused

    held = [{"frozen": i} for i in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            built = [{"n": i} for i in range(1000)]
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()
    with gc_paused():
        built += [{"n": i} for i in range(1000)]
    assert gc.get_freeze_count() == 0 and gc.isenabled() and held and built
