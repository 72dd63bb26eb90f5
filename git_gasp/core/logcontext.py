"""What a change to the event log is judged against: the log before it.

A hook judges only the lines a change appends, so it needs from the older
version of the log just what those lines can refer to: the event ids and
their kinds (causation, duplicates, ops chained to ops), the entity each
paired domain event names (check 7), the node ids a strict fold has created
(an op naming a missing node would be skipped), and the physical line count
(to report appended lines by their line number in the file).

A context is a pure function of the log's bytes, so an adapter may cache it
under the blob id of those bytes. A log only grows, so a cached context can
be kept as a *delta*: what was added since a whole one (:meth:`LogContext.delta_value`,
:func:`with_delta`), a few entries where the whole is thousands.
"""

import itertools
from collections.abc import Iterable
from typing import Any, NamedTuple

from git_gasp.core.checks import PAIRED_KINDS
from git_gasp.core.event import OPS_APPLIED, Event
from git_gasp.core.log import parse_log
from git_gasp.core.ops import CreateNode, OpsError, parse_ops

FORMAT = 2  # kinds grouped: {kind: [ids]}, about half the time to read back
#: a delta is kept while it has at most this share of the whole's ids
DELTA_SHARE = 0.25


class Base(NamedTuple):
    """The whole context a context grew from: its log blob and sizes then."""

    oid: str
    kinds: int
    entities: int


class LogContext:
    """Ids, kinds, entities and nodes of a log version (see module docstring).

    Contexts grow by :meth:`extend`; :meth:`fork` copies one that another
    change will also extend. ``base`` is the whole context it grew from
    (None: none kept), ``added`` the nodes created since.
    """

    __slots__ = ("added", "base", "entities", "kinds", "lines", "nodes")

    def __init__(
        self,
        kinds: dict[str, str] | None = None,
        entities: dict[str, str] | None = None,
        nodes: set[str] | None = None,
        lines: int = 0,
    ) -> None:
        self.kinds = kinds if kinds is not None else {}
        self.entities = entities if entities is not None else {}
        self.nodes = nodes if nodes is not None else set()
        self.lines = lines
        self.base: Base | None = None
        self.added: list[str] = []

    def fork(self) -> "LogContext":
        copy = LogContext(dict(self.kinds), dict(self.entities), set(self.nodes), self.lines)
        copy.base, copy.added = self.base, list(self.added)
        return copy

    def rebase(self, oid: str) -> None:
        """This context is kept whole under ``oid``: later deltas start here."""
        self.base = Base(oid, len(self.kinds), len(self.entities))
        self.added = []

    def extend(self, events: Iterable[Event], lines: int) -> None:
        """Add ``events`` (appended as ``lines`` more physical lines)."""
        kinds, entities, nodes = self.kinds, self.entities, self.nodes
        for event in events:
            kinds.setdefault(event.id, event.kind)
            if event.kind in PAIRED_KINDS:
                payload = event.payload
                entity = payload.get("id") if isinstance(payload, dict) else None
                if isinstance(entity, str):
                    entities.setdefault(event.id, entity)
            elif event.kind == OPS_APPLIED:
                for node in _created(event):
                    if node not in nodes:
                        nodes.add(node)
                        self.added.append(node)
        self.lines += lines

    def to_value(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "lines": self.lines,
            "kinds": {kind: sorted(ids) for kind, ids in _grouped(self.kinds.items()).items()},
            "entities": self.entities,
            "nodes": sorted(self.nodes),
        }

    def delta_value(self) -> dict[str, Any] | None:
        """What was added since :attr:`base` (ids are added in order, never
        removed), or None when there is no base or the delta is no longer small."""
        base = self.base
        if base is None or len(self.kinds) - base.kinds > DELTA_SHARE * len(self.kinds):
            return None
        return {
            "format": FORMAT,
            "base": base.oid,
            "lines": self.lines,
            "kinds": _grouped(itertools.islice(self.kinds.items(), base.kinds, None)),
            "entities": dict(itertools.islice(self.entities.items(), base.entities, None)),
            "nodes": list(self.added),
        }

    @classmethod
    def from_value(cls, value: Any) -> "LogContext | None":
        """The context :meth:`to_value` wrote, or None for anything else."""
        try:
            if value["format"] != FORMAT or type(value["lines"]) is not int:
                return None
            groups, entities, nodes = value["kinds"], value["entities"], value["nodes"]
            if not (isinstance(groups, dict) and isinstance(entities, dict)):
                return None
            if not isinstance(nodes, list):
                return None
            kinds: dict[str, str] = {}
            types = set(map(type, groups.values()))
            if not types <= {list}:
                return None
            for kind, ids in groups.items():
                types.update(map(type, ids))
                kinds.update(dict.fromkeys(ids, kind))
            types.discard(list)
            types |= set(map(type, groups)) | set(map(type, entities.values()))
            types |= set(map(type, nodes))
            if not types <= {str}:
                return None
            return cls(kinds, entities, set(nodes), value["lines"])
        except (KeyError, TypeError):
            return None


def _grouped(items: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """``{kind: [ids]}``: a few kinds and thousands of ids read back faster so."""
    groups: dict[str, list[str]] = {}
    for event, kind in items:
        groups.setdefault(kind, []).append(event)
    return groups


def delta_base(value: Any) -> str | None:
    """The base a delta :meth:`LogContext.delta_value` wrote names (None: a whole one)."""
    base = value.get("base") if isinstance(value, dict) else None
    return base if isinstance(base, str) else None


def with_delta(base: LogContext, oid: str, value: Any) -> LogContext | None:
    """``base`` (loaded whole from ``oid``) grown by the delta ``value``, or
    None when ``value`` is no delta of it."""
    if delta_base(value) != oid:
        return None
    grown = LogContext.from_value(value)
    if grown is None:
        return None
    base.rebase(oid)
    base.kinds.update(grown.kinds)
    base.entities.update(grown.entities)
    base.added = [n for n in dict.fromkeys(value["nodes"]) if n not in base.nodes]
    base.nodes.update(base.added)
    base.lines = grown.lines
    return base


def _created(event: Event) -> list[str]:
    payload = event.payload
    if type(payload) is list and all(
        type(op) is dict and len(op) == 1 and type(next(iter(op.values()))) is dict
        for op in payload
    ):
        # the runtime's plain shape: [{"CreateNode": {"id": …}}, …]
        return [
            op["CreateNode"]["id"]
            for op in payload
            if "CreateNode" in op and type(op["CreateNode"].get("id")) is str
        ]
    try:
        return [op.id for op in parse_ops(payload) if isinstance(op, CreateNode)]
    except OpsError:
        return []  # a malformed batch creates nothing (the fold fails on it)


def physical_lines(data: bytes) -> int:
    """Lines in ``data`` as an editor counts them (an unterminated tail counts)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def context_of(data: bytes) -> LogContext:
    """The context of a whole log version (unparseable lines contribute nothing)."""
    context = LogContext()
    context.extend(parse_log(data).events, physical_lines(data))
    return context
