"""jsonvalue.dumps writes plain values with orjson: its text must be json's, byte for byte."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.core import jsonvalue
from git_gasp.core.jsonvalue import dumps

jsonvalue._accelerate()  # as a parse does before an import encodes its events
_COMPACT = {"separators": (",", ":"), "ensure_ascii": False, "allow_nan": False}

_SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["\ud800", "a\udfff", "\u2028", "\x7f", "\x00\x1f", "é𐀀"])
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4) | st.sampled_from(["\uffff", "\U00010000"]), inner)
    ),
    max_leaves=20,
)


def _json(value: Any, sort_keys: bool) -> str | type[BaseException]:
    try:
        return json.dumps(value, sort_keys=sort_keys, **_COMPACT)  # type: ignore[arg-type]
    except (ValueError, TypeError, RecursionError) as exc:
        return type(exc)


def _ours(value: Any, sort_keys: bool) -> str | type[BaseException]:
    try:
        return dumps(value, sort_keys=sort_keys)
    except (ValueError, TypeError, RecursionError) as exc:
        return type(exc)


@settings(max_examples=1500, deadline=None)
@given(_VALUE, st.booleans())
def test_dumps_writes_what_json_writes(value: Any, sort_keys: bool) -> None:
    assert _ours(value, sort_keys) == _json(value, sort_keys)


def test_every_code_point_is_escaped_as_json_escapes_it() -> None:
    text = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    for start in range(0, len(text), 4096):
        chunk = text[start : start + 4096]
        value = {chunk: [chunk, chunk[::-1]], chunk[:7]: 1}
        for sort_keys in (False, True):
            assert dumps(value, sort_keys=sort_keys) == _json(value, sort_keys)


@pytest.mark.parametrize(
    "value",
    [
        {1: "int key"},
        {"nan": float("nan")},
        [float("inf")],
        2**64,
        -(2**63) - 1,
        "\ud800",
        [[[[[[[[[[1]]]]]]]]]] * 3,
        [1.0, 1e16, 1e-7, -0.0],
        {"deep": [[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]]},
    ],
)
def test_what_orjson_would_write_differently_goes_to_json(value: Any) -> None:
    for sort_keys in (False, True):
        assert _ours(value, sort_keys) == _json(value, sort_keys)


def test_a_value_that_holds_itself_is_refused_as_json_refuses_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert not jsonvalue._plain(loop)
    with pytest.raises(ValueError, match="Circular"):
        dumps(loop)


def test_deep_nesting_is_json_s() -> None:
    deep: Any = 0
    for _ in range(300):
        deep = [deep]
    assert dumps(deep) == _json(deep, False)
