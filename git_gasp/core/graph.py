"""The folded graph (REFERENCE §2.2, §3.1): values, JSON layout, equality."""

from __future__ import annotations

from operator import itemgetter
from typing import Any, NamedTuple

from git_gasp.core.jsonvalue import Json, equal, type_name
from git_gasp.core.ops import Artifact, OpsError, artifact_to_value, parse_artifact


class Node(NamedTuple):
    id: str
    kind: str
    props: Json
    stale: bool = False
    tombstoned: bool = False
    artifacts: tuple[Artifact, ...] = ()


class Relation(NamedTuple):
    from_: str
    rel: str
    to: str
    props: Json


class Graph(NamedTuple):
    nodes: dict[str, Node]
    relations: tuple[Relation, ...]
    version: int

    def outgoing(self, node_id: str, rel: str | None = None) -> list[Relation]:
        return [r for r in self.relations if r.from_ == node_id and rel in (None, r.rel)]

    def incoming(self, node_id: str, rel: str | None = None) -> list[Relation]:
        return [r for r in self.relations if r.to == node_id and rel in (None, r.rel)]


EMPTY_GRAPH = Graph({}, (), 0)


class GraphError(ValueError):
    """A graph JSON value that does not parse as the reference ``Graph``."""


def node_to_value(node: Node) -> dict[str, Any]:
    """One node in the reference (serde) layout."""
    return {
        "id": node.id,
        "kind": node.kind,
        "props": node.props,
        "stale": node.stale,
        "tombstoned": node.tombstoned,
        "artifacts": [artifact_to_value(a) for a in node.artifacts],
    }


def graph_to_value(graph: Graph) -> dict[str, Any]:
    """The reference (serde) layout: a nodes map, ordered relations, version."""
    return {
        "nodes": {node_id: node_to_value(node) for node_id, node in graph.nodes.items()},
        "relations": [
            {"from": r.from_, "rel": r.rel, "to": r.to, "props": r.props} for r in graph.relations
        ],
        "version": graph.version,
    }


def _get(obj: dict[str, Any], key: str, kind: type, what: str) -> Any:
    if key not in obj:
        raise GraphError(f"missing field `{key}`")
    value = obj[key]
    if type(value) is not kind:
        raise GraphError(f"invalid type: {type_name(value)}, expected {what}")
    return value


def _node(value: object) -> Node:
    if type(value) is not dict:
        raise GraphError(f"invalid type: {type_name(value)}, expected struct Node")
    assert isinstance(value, dict)
    if "props" not in value:
        raise GraphError("missing field `props`")
    try:
        artifacts = tuple(parse_artifact(a) for a in _get(value, "artifacts", list, "a sequence"))
    except OpsError as exc:
        raise GraphError(str(exc)) from None
    return Node(
        _get(value, "id", str, "a string"),
        _get(value, "kind", str, "a string"),
        value["props"],
        _get(value, "stale", bool, "a boolean"),
        _get(value, "tombstoned", bool, "a boolean"),
        artifacts,
    )


def _relation(value: object) -> Relation:
    if type(value) is not dict:
        raise GraphError(f"invalid type: {type_name(value)}, expected struct Relation")
    assert isinstance(value, dict)
    if "props" not in value:
        raise GraphError("missing field `props`")
    return Relation(
        _get(value, "from", str, "a string"),
        _get(value, "rel", str, "a string"),
        _get(value, "to", str, "a string"),
        value["props"],
    )


def parse_graph(value: object) -> Graph:
    """Parse the reference Graph JSON; every field is required, extras ignored."""
    if type(value) is not dict:
        raise GraphError(f"invalid type: {type_name(value)}, expected struct Graph")
    assert isinstance(value, dict)
    nodes = _get(value, "nodes", dict, "a map")
    relations = _get(value, "relations", list, "a sequence")
    version = _get(value, "version", int, "u64")
    if not 0 <= version < 2**64:
        raise GraphError(f"invalid value: integer `{version}`, expected u64")
    return Graph(
        {key: _node(node) for key, node in nodes.items()},
        tuple(_relation(r) for r in relations),
        version,
    )


_new = tuple.__new__
_node_fields = itemgetter("id", "kind", "props", "stale", "tombstoned", "artifacts")
_relation_fields = itemgetter("from", "rel", "to", "props")
_artifact_fields = itemgetter("kind", "uri", "hash", "summary", "metadata")


def trusted_graph(value: Any) -> Graph:
    """:func:`parse_graph` for a seed's graph, built fast: every node and
    relation is taken by its fields at once, and only the types the fold and
    the reports rely on are checked (ids, kinds, flags, the version); a
    graph of another shape is a :class:`GraphError`, never a wrong value."""
    try:
        nodes = {}
        for key, n in value["nodes"].items():
            node_id, kind, props, stale, tombstoned, artifacts = _node_fields(n)
            if not (type(node_id) is str and type(kind) is str and type(key) is str):
                raise TypeError(f"node {key!r}: id and kind must be strings")
            if type(stale) is not bool or type(tombstoned) is not bool:
                raise TypeError(f"node {key}: stale and tombstoned must be booleans")
            artifacts = _trusted_artifacts(artifacts) if artifacts else ()
            nodes[key] = _new(Node, (node_id, kind, props, stale, tombstoned, artifacts))
        relations = tuple([_new(Relation, _relation_fields(r)) for r in value["relations"]])
        for r in relations:
            if not (type(r[0]) is str and type(r[1]) is str and type(r[2]) is str):
                raise TypeError("a relation's from, rel and to must be strings")
        version = value["version"]
        if type(version) is not int or not 0 <= version < 2**64:
            raise TypeError("version must be a u64")
        return Graph(nodes, relations, version)
    except (KeyError, TypeError, AttributeError, OpsError) as exc:
        raise GraphError(f"snapshot graph changed shape: {exc}") from None


def _trusted_artifacts(values: Any) -> tuple[Artifact, ...]:
    """Artifacts as :func:`artifact_to_value` writes them (maps with every
    field); any other layout through :func:`parse_artifact`."""
    try:
        return tuple([_new(Artifact, _artifact_fields(a)) for a in values])
    except (KeyError, TypeError):
        return tuple(parse_artifact(a) for a in values)


def _artifacts_equal(a: tuple[Artifact, ...], b: tuple[Artifact, ...]) -> bool:
    return len(a) == len(b) and all(
        x[:4] == y[:4] and equal(x.metadata, y.metadata) for x, y in zip(a, b, strict=False)
    )


def nodes_equal(a: Node, b: Node) -> bool:
    return (
        a.id == b.id
        and a.kind == b.kind
        and a.stale is b.stale
        and a.tombstoned is b.tombstoned
        and equal(a.props, b.props)
        and _artifacts_equal(a.artifacts, b.artifacts)
    )


def graphs_equal(a: Graph, b: Graph) -> bool:
    """Typed equality as the checker compares a snapshot with a fold (§3.3)."""
    if a.version != b.version or len(a.nodes) != len(b.nodes):
        return False
    if len(a.relations) != len(b.relations):
        return False
    for key, node in a.nodes.items():
        other = b.nodes.get(key)
        if other is None or not nodes_equal(node, other):
            return False
    return all(
        x[:3] == y[:3] and equal(x.props, y.props)
        for x, y in zip(a.relations, b.relations, strict=False)
    )
