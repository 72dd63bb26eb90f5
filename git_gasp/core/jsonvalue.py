"""JSON as the reference reads it: serde_json's rules, in Python.

The reference runtime and checker parse JSON with ``serde_json``. Python's
``json`` module agrees on almost everything; this module closes the gaps that
change a verdict (Appendix A of REFERENCE.md):

* ``NaN``/``Infinity`` literals and float overflow are errors;
* integers beyond i64/u64 become floats (serde_json has no big integers);
* unpaired UTF-16 surrogate escapes are errors;
* nesting deeper than serde_json's recursion limit is an error;
* equality is type-strict: ``1``, ``1.0`` and ``true`` are three values.

Values are plain ``dict``/``list``/``str``/``int``/``float``/``bool``/``None``
and are treated as immutable everywhere in git-gasp: nothing mutates a parsed
value in place, so values can be shared without copying.
"""

from __future__ import annotations

import functools
import json
import json.scanner
import re
from collections.abc import Callable, Collection
from typing import Any

_orjson_loads: Callable[[bytes], Any] | None = None
_orjson_dumps: Callable[[Any], bytes] | None = None
_orjson_dumps_sorted: Callable[[Any], bytes] | None = None
_ORJSON_ERRORS: tuple[type[Exception], ...] = ()
_orjson_tried = False


def _accelerate() -> bool:
    """Load orjson, an accelerator only (every verdict is defined by the exact
    parser below), on the first parse that wants it: importing it costs more
    than a hook that parses nothing should pay. False when it is missing."""
    global _orjson_loads, _orjson_dumps, _orjson_dumps_sorted, _ORJSON_ERRORS, _orjson_tried
    if not _orjson_tried:
        _orjson_tried = True
        try:
            import orjson
        except ImportError:  # pragma: no cover - orjson is a declared dependency
            return False
        _orjson_loads, _orjson_dumps = orjson.loads, orjson.dumps
        _orjson_dumps_sorted = functools.partial(orjson.dumps, option=orjson.OPT_SORT_KEYS)
        _ORJSON_ERRORS = (orjson.JSONDecodeError, orjson.JSONEncodeError)
    return _orjson_loads is not None


def accelerated() -> bool:
    """Whether orjson is loaded already (never loads it)."""
    return _orjson_loads is not None


Json = None | bool | int | float | str | list[Any] | dict[str, Any]

_U64_MAX = 2**64 - 1
_I64_MIN = -(2**63)
# serde_json's remaining_depth starts at 128 and fails when it reaches 0.
MAX_DEPTH = 127

_NUMBER_TAIL = re.compile(r"[.eE][+-]?")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonError(ValueError):
    """Text that serde_json would refuse; ``pos`` is a 0-based offset or -1."""

    def __init__(self, msg: str, pos: int = -1, at_end: bool = False) -> None:
        super().__init__(msg)
        self.msg = msg
        self.pos = pos
        self.at_end = at_end


def _reject_constant(name: str) -> Any:
    raise JsonError(f"{name} is not valid JSON")


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise JsonError("number out of range")
    return value


def _serde_int(text: str) -> int | float:
    if text == "-0":  # serde_json reads a negative zero as the float -0.0
        return -0.0
    if len(text) < 19:
        return int(text)
    if len(text) > 21:  # beyond i64/u64 whatever the digits: serde makes it a float
        return _float(text)
    value = int(text)
    if _I64_MIN <= value <= _U64_MAX:
        return value
    return _float(text)


class DuplicateKey(ValueError):
    """A key twice in one JSON object (its ``args[0]`` is the key)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for strict files (session notes, a harness's
    settings) that refuses a key twice in one object: rewriting such a file
    would silently drop one of the values."""
    out: dict[str, Any] = {}
    for key, item in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = item
    return out


class Parser:
    """One decoder that also remembers which objects had duplicate keys.

    serde_json keeps the last value of a duplicated key in a generic value but
    refuses a duplicated *struct field*; callers ask :meth:`duplicate_key` about
    the objects that are structs to them (the envelope, ``actor``, a pack),
    naming the fields they declare (a repeated *unknown* field is ignored).
    """

    def __init__(self) -> None:
        self._dups: list[tuple[dict[str, Any], list[tuple[str, Any]]]] = []
        self._decoder = json.JSONDecoder(
            parse_float=_float,
            parse_int=_serde_int,
            parse_constant=_reject_constant,
            object_pairs_hook=self._pairs,
        )
        self._scan = json.scanner.make_scanner(self._decoder)  # type: ignore[arg-type]

    def _pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            self._dups.append((obj, pairs))
        return obj

    def loads(self, text: str) -> Json:
        """Parse one JSON document the way serde_json would."""
        self._dups = []
        try:
            value: Json
            if text[:1] in ("{", "["):  # skip json's Python-level wrapper
                try:
                    value, end = self._scan(text, 0)
                except StopIteration as err:
                    raise json.JSONDecodeError("Expecting value", text, err.value) from None
                if end != len(text) and text[end:].strip(" \t\n\r"):
                    raise json.JSONDecodeError("Extra data", text, end)
            else:
                value = self._decoder.decode(text)
        except json.JSONDecodeError as exc:
            at_end = _cut_short(text, exc)
            raise JsonError(
                f"{exc.msg}: line {exc.lineno} column {exc.colno}", exc.pos, at_end
            ) from None
        except RecursionError:
            raise JsonError("recursion limit exceeded") from None
        if len(text) > 2 * MAX_DEPTH and text.count("[") + text.count("{") > MAX_DEPTH:
            if depth(value) > MAX_DEPTH:
                raise JsonError("recursion limit exceeded")
        if "\\u" in text and _SURROGATE_ESCAPE.search(text) and not _valid_strings(value):
            raise JsonError("lone surrogate in hex escape")
        return value

    @property
    def had_duplicates(self) -> bool:
        """Whether the last parse saw a duplicated key in any object."""
        return bool(self._dups)

    def _raw_pairs(self, obj: object) -> list[tuple[str, Any]] | None:
        for candidate, pairs in self._dups:
            if candidate is obj:
                return pairs
        return None

    def duplicate_key(self, obj: object, fields: Collection[str]) -> str | None:
        """The first of ``fields`` that ``obj`` repeated in the last parse, if any
        (in text order, as serde reports the first one it meets)."""
        pairs = self._raw_pairs(obj)
        if pairs is None:
            return None
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen and key in fields:
                return key
            seen.add(key)
        return None

    def all_values(self, obj: dict[str, Any]) -> list[tuple[str, Any]]:
        """Every ``(key, value)`` of ``obj`` as written, repeated keys included."""
        pairs = self._raw_pairs(obj)
        return list(obj.items()) if pairs is None else pairs


def fast_loads(raw: bytes) -> Json:
    """Parse trusted JSON (already verified by the exact parser) quickly."""
    if not _orjson_tried:
        _accelerate()
    if _orjson_loads is not None:
        try:
            value: Json = _orjson_loads(raw)
            return value
        except _ORJSON_ERRORS:
            pass
    return loads(raw.decode("utf-8"))


def fast_dumps_sorted(value: Json) -> bytes | None:
    """``value`` as compact JSON, keys sorted, non-ASCII raw, written by orjson
    (several times faster than the standard encoder on a large graph); None
    when orjson is missing or refuses the value (an integer beyond 64 bits,
    nesting past its limit, a key that is not a string, a lone surrogate).

    The bytes are ``json.dumps``'s (``sort_keys``, compact, ``ensure_ascii``
    off) but for floats in exponent form, written as other spellings of the
    same number (``1e-07`` as ``1e-7``, as serde_json writes it), and NaN or
    infinity, which orjson writes as null: pass only values a log can hold
    (its parsers refuse NaN and infinity, and so does the event encoder)."""
    if not _orjson_tried:
        _accelerate()
    if _orjson_dumps_sorted is None:
        return None
    try:
        raw = _orjson_dumps_sorted(value)
    except _ORJSON_ERRORS:
        return None
    return raw


def loads_canonical(raw: bytes) -> Json | None:
    """Fast path: the value of ``raw`` if it is *canonical* JSON, else None.

    Canonical means compact and byte-identical to its own re-serialization, as
    the reference runtime and git-gasp write every line. Such a text has no
    duplicate keys, no NaN, no unusual number or escape forms, so any parser
    reads it as serde_json does; everything else (None) goes to
    :meth:`Parser.loads`, which defines the semantics.
    """
    if not _orjson_tried:
        _accelerate()
    if _orjson_loads is None or _orjson_dumps is None:
        return None
    try:
        value = _orjson_loads(raw)
        if _orjson_dumps(value) != raw:
            return None
    except _ORJSON_ERRORS:
        return None
    if len(raw) > 2 * MAX_DEPTH and raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        if depth(value) > MAX_DEPTH:
            return None
    result: Json = value
    return result


def _cut_short(text: str, exc: json.JSONDecodeError) -> bool:
    """Did the document end before the JSON did (a prefix of valid JSON)?"""
    rest = text[exc.pos :].rstrip(" \t\n\r")
    if exc.pos >= len(text.rstrip(" \t\n\r")) or exc.msg.startswith("Unterminated string"):
        return True
    if exc.msg == "Expecting value":
        return any(word.startswith(rest) for word in ("true", "false", "null")) or rest == "-"
    if _NUMBER_TAIL.fullmatch(rest) and exc.pos > 0 and text[exc.pos - 1].isdigit():
        return True  # cut inside a number: "1.", "1e", "1e-"
    return exc.msg.startswith("Invalid \\uXXXX") and len(rest) < 6


def depth(value: Json) -> int:
    """Nesting depth of arrays/objects (a scalar is 0)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        stack.extend((child, level) for child in children)
    return deepest


def _valid_strings(value: Json) -> bool:
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def loads(text: str) -> Json:
    """Parse ``text`` with serde_json's rules (duplicate keys: last one wins)."""
    return Parser().loads(text)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_SORTED = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, allow_nan=False, sort_keys=True
)


def dumps(value: Json, *, sort_keys: bool = False) -> str:
    """Compact JSON, non-ASCII written raw, as serde_json writes it (the
    encoders are made once: ``json.dumps`` with these options makes one a call)."""
    return (_SORTED if sort_keys else _COMPACT).encode(value)


def cache_bytes(value: Json) -> bytes:
    """Compact JSON of a value only git-gasp reads back (a cache): orjson's
    when a parse has loaded it already, else the standard library's, ASCII
    with escapes. Either reads back as the same value; nothing is imported."""
    if _orjson_dumps is not None:
        try:
            return _orjson_dumps(value)
        except _ORJSON_ERRORS:  # a lone surrogate, say: the standard library escapes it
            pass
    return json.dumps(value, separators=(",", ":")).encode("ascii")


def equal(a: Json, b: Json) -> bool:
    """serde_json ``Value`` equality: type-strict for numbers and booleans."""
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is dict:
        assert isinstance(a, dict) and isinstance(b, dict)
        if len(a) != len(b):
            return False
        for key, val in a.items():
            if key not in b or not equal(val, b[key]):
                return False
        return True
    if ta is list:
        assert isinstance(a, list) and isinstance(b, list)
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=False))
    return bool(a == b)


def type_name(value: object) -> str:
    """How serde_json names a value's type in its error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    if isinstance(value, str):
        return f"string {dumps(value)}"
    if isinstance(value, list):
        return "sequence"
    return "map"


def bom_said(text: str, message: str) -> str:
    """A JSON parser's ``message`` on ``text``, naming the byte order mark
    when the text starts with one (a file saved "UTF-8 with BOM" by a Windows
    editor): JSON allows none, and "Expecting value: line 1 column 1" alone
    points at nothing a person can see."""
    if not text.startswith("\ufeff"):
        return message
    return f"a byte order mark (U+FEFF, bytes EF BB BF) starts it; JSON allows none ({message})"
