"""Vocabulary packs, ``.agent/packs/*.json`` (REFERENCE §6).

A pack must carry the whole reference ``Pack`` shape; anything else is a
failure, never silently ignored. Duplicate keys are errors in the struct
objects (the pack, each object type, each relation type) and last-one-wins in
the maps, as serde parses the file straight from text.
"""

from typing import Any, NamedTuple

from git_gasp.core.jsonvalue import Json, JsonError, Parser, type_name

BASELINE_NODE_KINDS = frozenset(
    "goal task run observation failure hypothesis patch eval decision model_call tool_call "
    "frame project_snapshot policy behavior".split()
)
BASELINE_RELS = frozenset(
    "serves blocks advances observes explains addresses modifies validated_by approved_by "
    "rejected_by produced_by derived_from depends_on supersedes contained_in_frame "
    "forked_from references".split()
)


class ObjectType(NamedTuple):
    kind: str
    required_props: frozenset[str]
    description: str | None


class RelationType(NamedTuple):
    rel: str
    from_kinds: tuple[str, ...]
    to_kinds: tuple[str, ...]
    description: str | None


class Pack(NamedTuple):
    id: str
    name: str
    version: str
    object_types: dict[str, ObjectType]
    relation_types: dict[str, RelationType]
    policies: tuple[str, ...]
    prompts: tuple[str, ...]
    settings: Json


class PackError(ValueError):
    pass


_PACK_FIELDS = (
    "id",
    "name",
    "version",
    "object_types",
    "relation_types",
    "policies",
    "prompts",
    "settings",
)
_OBJECT_FIELDS = ("kind", "required_props", "description")
_RELATION_FIELDS = ("rel", "from_kinds", "to_kinds", "description")


def _struct(
    value: object, name: str, parser: Parser, fields: tuple[str, ...], required: tuple[str, ...]
) -> dict[str, Any]:
    if type(value) is not dict:
        raise PackError(f"invalid type: {type_name(value)}, expected struct {name}")
    assert isinstance(value, dict)
    dup = parser.duplicate_key(value, fields)
    if dup is not None:
        raise PackError(f"duplicate field `{dup}`")
    for key in required:
        if key not in value:
            raise PackError(f"missing field `{key}`")
    return value


def _str(value: object) -> str:
    if type(value) is not str:
        raise PackError(f"invalid type: {type_name(value)}, expected a string")
    assert isinstance(value, str)
    return value


def _opt_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return None if value is None else _str(value)


def _strs(value: object) -> tuple[str, ...]:
    if type(value) is not list:
        raise PackError(f"invalid type: {type_name(value)}, expected a sequence")
    assert isinstance(value, list)
    return tuple(_str(v) for v in value)


def _entries(value: object, parser: Parser) -> list[tuple[str, Any]]:
    """A map's entries as written: serde reads (and validates) every entry,
    then keeps the last of a repeated key."""
    if type(value) is not dict:
        raise PackError(f"invalid type: {type_name(value)}, expected a map")
    assert isinstance(value, dict)
    return parser.all_values(value)


def parse_pack(text: str) -> Pack:
    """Parse a pack file's text; raises :class:`PackError` with serde-like wording."""
    parser = Parser()
    try:
        value = parser.loads(text)
    except JsonError as exc:
        raise PackError(exc.msg) from None
    top = _struct(value, "Pack", parser, _PACK_FIELDS, _PACK_FIELDS)
    objects = {}
    for key, raw in _entries(top["object_types"], parser):
        obj = _struct(raw, "ObjectType", parser, _OBJECT_FIELDS, _OBJECT_FIELDS[:2])
        objects[key] = ObjectType(
            _str(obj["kind"]), frozenset(_strs(obj["required_props"])), _opt_str(obj, "description")
        )
    relations = {}
    for key, raw in _entries(top["relation_types"], parser):
        rel = _struct(raw, "RelationType", parser, _RELATION_FIELDS, _RELATION_FIELDS[:3])
        relations[key] = RelationType(
            _str(rel["rel"]),
            _strs(rel["from_kinds"]),
            _strs(rel["to_kinds"]),
            _opt_str(rel, "description"),
        )
    return Pack(
        _str(top["id"]),
        _str(top["name"]),
        _str(top["version"]),
        objects,
        relations,
        _strs(top["policies"]),
        _strs(top["prompts"]),
        top["settings"],
    )


def vocabulary(packs: list[Pack]) -> tuple[frozenset[str], frozenset[str]]:
    """Allowed node kinds and relation names: the baseline plus every pack's keys."""
    kinds = set(BASELINE_NODE_KINDS)
    rels = set(BASELINE_RELS)
    for pack in packs:
        kinds.update(pack.object_types)
        rels.update(pack.relation_types)
    return frozenset(kinds), frozenset(rels)
