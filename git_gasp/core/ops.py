"""The seven StateOps (REFERENCE §2.1): typed values parsed from a payload.

Ops are externally tagged one-key objects. Parsing follows serde's derive
rules as the reference applies them to the payload *value*
(``serde_json::from_value``): every listed field is required (``hash``/
``summary`` of an artifact may be absent) and unknown fields are ignored. A
variant's body must be an object: serde_json's value deserializer takes a
struct variant from an object only ("invalid type: sequence, expected struct
variant"), while a plain struct (the artifact inside ``AttachArtifact``) may
also be given as an array of its fields in declaration order.
"""

from typing import Any, NamedTuple

from git_gasp.core.jsonvalue import Json, type_name


class OpsError(ValueError):
    """A ``state.ops_applied`` payload that is not a list of ops."""


class Artifact(NamedTuple):
    kind: str
    uri: str
    hash: str | None
    summary: str | None
    metadata: Json


class CreateNode(NamedTuple):
    id: str
    kind: str
    props: Json


class UpdateNode(NamedTuple):
    id: str
    props: Json


class TombstoneNode(NamedTuple):
    id: str
    reason: str


class CreateRelation(NamedTuple):
    from_: str
    rel: str
    to: str
    props: Json


class DeleteRelation(NamedTuple):
    from_: str
    rel: str
    to: str


class MarkStale(NamedTuple):
    id: str
    reason: str


class AttachArtifact(NamedTuple):
    id: str
    artifact: Artifact


Op = (
    CreateNode
    | UpdateNode
    | TombstoneNode
    | CreateRelation
    | DeleteRelation
    | MarkStale
    | AttachArtifact
)

# variant name -> (json field names in declaration order, constructor)
_STR, _ANY, _OPT, _ART = "str", "any", "opt", "artifact"
_VARIANTS: dict[str, tuple[tuple[tuple[str, str], ...], Any]] = {
    "CreateNode": ((("id", _STR), ("kind", _STR), ("props", _ANY)), CreateNode),
    "UpdateNode": ((("id", _STR), ("props", _ANY)), UpdateNode),
    "TombstoneNode": ((("id", _STR), ("reason", _STR)), TombstoneNode),
    "CreateRelation": (
        (("from", _STR), ("rel", _STR), ("to", _STR), ("props", _ANY)),
        CreateRelation,
    ),
    "DeleteRelation": ((("from", _STR), ("rel", _STR), ("to", _STR)), DeleteRelation),
    "MarkStale": ((("id", _STR), ("reason", _STR)), MarkStale),
    "AttachArtifact": ((("id", _STR), ("artifact", _ART)), AttachArtifact),
}
_ARTIFACT_FIELDS = (
    ("kind", _STR),
    ("uri", _STR),
    ("hash", _OPT),
    ("summary", _OPT),
    ("metadata", _ANY),
)
VARIANT_NAMES = tuple(_VARIANTS)


def _field(value: object, shape: str) -> Any:
    if shape == _ANY:
        return value
    if shape == _ART:
        return parse_artifact(value)
    if shape == _OPT and value is None:
        return None
    if type(value) is not str:
        expected = "a string or null" if shape == _OPT else "a string"
        raise OpsError(f"invalid type: {type_name(value)}, expected {expected}")
    return value


def _struct(body: object, fields: tuple[tuple[str, str], ...], name: str) -> list[Any]:
    if type(body) is list:
        assert isinstance(body, list)
        if len(body) != len(fields):
            raise OpsError(
                f"invalid length {len(body)}, expected {name} with {len(fields)} elements"
            )
        return [_field(v, shape) for v, (_, shape) in zip(body, fields, strict=False)]
    if type(body) is not dict:
        raise OpsError(f"invalid type: {type_name(body)}, expected {name}")
    assert isinstance(body, dict)
    out = []
    for key, shape in fields:
        if key in body:
            out.append(_field(body[key], shape))
        elif shape == _OPT:
            out.append(None)
        else:
            raise OpsError(f"missing field `{key}`")
    return out


def parse_artifact(value: object) -> Artifact:
    return Artifact(*_struct(value, _ARTIFACT_FIELDS, "struct ArtifactRef"))


_new = tuple.__new__  # a NamedTuple without its Python-level __new__ frame


def _fast_op(name: str, b: dict[str, Any]) -> Op | None:
    """The common case: a map body with well-typed fields."""
    get = b.get
    if name == "CreateNode":
        i, k = get("id"), get("kind")
        if type(i) is str and type(k) is str and "props" in b:
            return _new(CreateNode, (i, k, b["props"]))
    elif name == "CreateRelation":
        f, r, t = get("from"), get("rel"), get("to")
        if type(f) is str and type(r) is str and type(t) is str and "props" in b:
            return _new(CreateRelation, (f, r, t, b["props"]))
    elif name == "UpdateNode":
        i = get("id")
        if type(i) is str and "props" in b:
            return _new(UpdateNode, (i, b["props"]))
    return None


def parse_op(value: object) -> Op:
    if type(value) is dict and len(value) == 1:
        for name, body in value.items():
            if type(body) is dict:
                fast = _fast_op(name, body)
                if fast is not None:
                    return fast
    if not isinstance(value, dict) or type(value) is not dict or len(value) != 1:
        raise OpsError(f"invalid type: {type_name(value)}, expected map with a single key")
    assert isinstance(value, dict)
    ((name, body),) = value.items()
    spec = _VARIANTS.get(name)
    if spec is None:
        raise OpsError(
            f"unknown variant `{name}`, expected one of " + ", ".join(f"`{n}`" for n in _VARIANTS)
        )
    if type(body) is not dict:
        raise OpsError(f"invalid type: {type_name(body)}, expected struct variant")
    fields, make = spec
    op: Op = make(*_struct(body, fields, f"struct variant StateOp::{name}"))
    return op


def parse_ops(payload: Json) -> tuple[Op, ...]:
    """Parse a ``state.ops_applied`` payload; any defect fails the whole event."""
    if type(payload) is not list:
        raise OpsError(f"invalid type: {type_name(payload)}, expected a sequence")
    assert isinstance(payload, list)
    return tuple(parse_op(item) for item in payload)


def artifact_to_value(artifact: Artifact) -> dict[str, Json]:
    return {
        "kind": artifact.kind,
        "uri": artifact.uri,
        "hash": artifact.hash,
        "summary": artifact.summary,
        "metadata": artifact.metadata,
    }


def op_to_value(op: Op) -> dict[str, Json]:
    """The externally tagged JSON form of an op."""
    body: dict[str, Json]
    if isinstance(op, CreateRelation | DeleteRelation):
        body = {"from": op.from_, "rel": op.rel, "to": op.to}
        if isinstance(op, CreateRelation):
            body["props"] = op.props
    elif isinstance(op, AttachArtifact):
        body = {"id": op.id, "artifact": artifact_to_value(op.artifact)}
    else:
        body = dict(op._asdict())
    return {type(op).__name__: body}
