"""Turning ``git gasp record KIND`` flags into a helper's arguments:
:func:`arguments` merges ``--payload-json`` with the flags (flags win), and
checks and coerces every value against its :class:`~git_gasp.agent.recordfields.Field`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from git_gasp.agent.recordfields import JSON_TYPES, Field, Kind
from git_gasp.core import payloads as P
from git_gasp.core import runpayloads
from git_gasp.core.event import Actor
from git_gasp.core.ops import OpsError, parse_ops
from git_gasp.errors import USAGE, GaspError

PAYLOAD_HINT = "pass a JSON object whose keys are the argument names; see --help"
OBJECT_HINT = 'give a JSON object, e.g. {"key": "value"}'
ARRAY_HINT = 'give a JSON array, e.g. ["a", "b"]'
NUMBER_HINT = "give a finite number, e.g. 0.5"
OPS_HINT = 'give a JSON array of ops, e.g. [{"MarkStale": {"id": "n", "reason": "r"}}]'
_LIST_TYPES = {"strs", "objects", "ops", "artifacts"}
OP_NAMES = "CreateNode, UpdateNode, TombstoneNode, CreateRelation, DeleteRelation, MarkStale, "
OP_NAMES += "AttachArtifact"


def _bad(where: str, what: str, hint: str | None = None) -> GaspError:
    return GaspError(f"{where}: {what}", hint or PAYLOAD_HINT, USAGE)


def parse_json(text: str, where: str) -> Any:
    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        return json.loads(text, parse_constant=constant)
    except (ValueError, RecursionError) as exc:
        raise _bad(where, f"not valid JSON ({exc})", "quote the value for the shell") from None


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _bad(
            where,
            f"must be a string, not {type(value).__name__}",
            'give a JSON string, e.g. "text"',
        )
    return value


def _object(value: Any, where: str, hint: str = OBJECT_HINT) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(where, f"must be a JSON object, not {type(value).__name__}", hint)
    return value


def _list(value: Any, where: str, hint: str = ARRAY_HINT) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(where, f"must be a JSON array, not {type(value).__name__}", hint)
    return value


def _keys(
    value: dict[str, Any], allowed: Sequence[str], required: Sequence[str], where: str
) -> None:
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise _bad(where, f"unknown key {unknown[0]!r}", f"known keys: {', '.join(allowed)}")
    for key in required:
        if value.get(key) is None:
            raise _bad(where, f"needs {key!r}")


def artifact(value: Any, where: str) -> dict[str, Any]:
    """An ArtifactRef with absent ``hash``/``summary``/``metadata`` filled in."""
    obj = _object(value, where)
    _keys(obj, ("kind", "uri", "hash", "summary", "metadata"), ("kind", "uri"), where)
    text = {k: _opt_str(obj, k, where) for k in ("kind", "uri", "hash", "summary")}
    return P.artifact(
        str(text["kind"]), str(text["uri"]), text["hash"], text["summary"], obj.get("metadata")
    )


def project(value: Any, where: str) -> dict[str, Any]:
    obj = _object(value, where)
    _keys(obj, ("repo", "branch", "commit", "worktree"), ("repo",), where)
    text = {k: _opt_str(obj, k, where) for k in ("repo", "branch", "commit", "worktree")}
    return runpayloads.project_ref(
        str(text["repo"]), text["branch"], text["commit"], text["worktree"]
    )


def _opt_str(obj: dict[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    return None if value is None else _str(value, f"{where} {key}")


def actor(value: Any, where: str) -> Actor:
    if isinstance(value, dict):
        _keys(value, ("kind", "id"), ("kind", "id"), where)
        return Actor(_str(value["kind"], where), _str(value["id"], where))
    kind, sep, ident = _str(value, where).partition(":")
    if not (sep and kind and ident):
        raise _bad(where, f"{value!r} is not KIND:ID", "e.g. agent:evolve or user:alice")
    return Actor(kind, ident)


def _float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(where, f"must be a number, not {type(value).__name__}", NUMBER_HINT)
    if not math.isfinite(value):
        raise _bad(where, "must be a finite number", NUMBER_HINT)
    return float(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(
            where, f"must be true or false, not {type(value).__name__}", "give true or false"
        )
    return value


_ONE: dict[str, Callable[[Any, str], Any]] = {
    "str": _str,
    "float": _float,
    "bool": _bool,
    "json": lambda value, where: value,
    "object": _object,
    "actor": actor,
    "project": project,
    "strs": _str,
    "objects": _object,
    "ops": lambda value, where: _object(value, where, OPS_HINT),
    "artifacts": artifact,
}


_COMPOSITES: dict[str, Callable[[Any, str], Any]] = {"project": project, "artifact": artifact}


def coerce(field: Field, value: Any, where: str) -> Any:
    """Check ``value`` (from JSON or a flag) against ``field``'s type."""
    one = _ONE[field.type]
    if field.type in _LIST_TYPES:
        hint = OPS_HINT if field.type == "ops" else ARRAY_HINT
        items = [one(item, f"{where}[{i}]") for i, item in enumerate(_list(value, where, hint))]
        if field.type == "ops":
            try:
                parse_ops(items)
            except OpsError as exc:
                raise _bad(
                    where, f"not state ops: {exc}", f"each op is one of {OP_NAMES}"
                ) from None
        return items
    value = one(value, where)
    if field.choices and value not in field.choices:
        raise GaspError(
            f"{where}: {value!r} is not a valid status",
            f"use one of: {', '.join(field.choices)}",
            USAGE,
        )
    return value


def _flag_value(field: Field, raw: Any) -> Any:
    """A flag's value as the JSON it stands for (JSON flags are parsed here)."""
    if field.type not in JSON_TYPES:
        return list(raw) if field.multiple else raw
    if field.multiple:
        return [parse_json(text, field.flag) for text in raw]
    return parse_json(raw, field.flag)


def arguments(kind: Kind, payload_json: str | None, flags: Mapping[str, Any]) -> dict[str, Any]:
    """The helper's keyword arguments: ``--payload-json`` merged with the flags."""
    given: dict[str, Any] = {}
    if payload_json is not None:
        given = _object(parse_json(payload_json, "--payload-json"), "--payload-json")
    _keys(
        given, list(dict.fromkeys(f.name.split(".")[0] for f in kind.fields)), (), "--payload-json"
    )
    given = {k: v for k, v in given.items() if v is not None}  # null: the default
    for top in {f.name.split(".")[0] for f in kind.fields if "." in f.name}:
        given[top] = dict(_object(given.get(top, {}), f"--payload-json key {top!r}"))
    for field in kind.fields:
        raw = flags.get(field.dest)
        if raw is not None and not (field.multiple and not raw):
            _put(given, field.name, coerce(field, _flag_value(field, raw), field.flag))
        elif _get(given, field.name) is None and field.required:
            raise _missing(kind, field)
        elif "." not in field.name and field.name in given:
            given[field.name] = coerce(field, given[field.name], _where(field))
    for top, normalize in _COMPOSITES.items():
        if top in given and any(f.name.startswith(top + ".") for f in kind.fields):
            given[top] = normalize(given[top], f"--payload-json key {top!r}")
    for field in kind.fields:
        if field.flag == "--id" and not field.required:
            given.setdefault(field.name, None)  # the helper generates one
    return given


def _get(given: dict[str, Any], name: str) -> Any:
    top, _, key = name.partition(".")
    return given.get(top) if not key else given[top].get(key)


def _put(given: dict[str, Any], name: str, value: Any) -> None:
    top, _, key = name.partition(".")
    if key:
        given[top][key] = value
    else:
        given[top] = value


def _where(field: Field) -> str:
    return f"--payload-json key {field.name!r}"


def _missing(kind: Kind, field: Field) -> GaspError:
    top, _, key = field.name.partition(".")
    key_text = f'"{top}": {{"{key}": …}}' if key else f'"{top}"'
    how = f"give {field.flag}" if not field.positional else f"give {field.flag} as an argument"
    return GaspError(
        f"record {kind.name} needs {field.flag}", f"{how}, or {key_text} in --payload-json", USAGE
    )
