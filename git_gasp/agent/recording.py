"""``git gasp record KIND``: the kinds, and the one helper call each makes.

:data:`KINDS` lists every kind (:mod:`git_gasp.agent.entitykinds`,
:mod:`git_gasp.agent.activitykinds`), in the order ``--help`` shows them;
:func:`git_gasp.agent.recordarguments.arguments` turns flags into a helper's
arguments, and :func:`record` makes the one helper call and reports the ids it
appended. The click layer (:mod:`git_gasp.cli.record`) only builds commands
from :data:`KINDS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from git_gasp.agent.activitykinds import ACTIVITY_KINDS, GRAPH_EDIT_KINDS
from git_gasp.agent.api import Agent
from git_gasp.agent.entitykinds import ENTITY_KINDS
from git_gasp.agent.recordfields import Kind
from git_gasp.core.event import Event
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import USAGE, GaspError

KINDS: tuple[Kind, ...] = ENTITY_KINDS + ACTIVITY_KINDS + GRAPH_EDIT_KINDS

BY_NAME = {kind.name: kind for kind in KINDS}


class Made(NamedTuple):
    id: str
    event_ids: list[str]


# -- the one call ----------------------------------------------------------------------------


class _Capturing(Agent):
    """An :class:`Agent` that remembers the ids of the events it appends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.appended: list[str] = []
        super().__init__(*args, **kwargs)

    def append(self, events: Sequence[Event]) -> None:
        super().append(events)
        self.appended.extend(e.id for e in events)


def record(
    root: str, worker: str | None, kind: Kind, kwargs: dict[str, Any], allow_missing: bool = False
) -> Made:
    """Open ``root``, call ``kind``'s helper once, and report what it appended;
    an id that names no node is refused unless ``allow_missing``."""
    agent = _Capturing.open(root, worker=worker)
    assert isinstance(agent, _Capturing)
    with agent:
        if not allow_missing:
            _refuse_unknown_references(agent, kind, kwargs)
        try:
            result = getattr(agent, kind.method)(**kwargs)
        except GaspError as exc:
            exc.hint = exc.hint or f"see: git gasp record {kind.name} --help"
            raise
    return Made(str(kwargs[kind.id_from] if kind.id_from else result), agent.appended)


#: The arguments that name an existing node (they become relations).
REFERENCES = frozenset(
    {"goal", "explains", "patch", "target", "parent", "observed_in", "evidence", "source"}
)


def _refuse_unknown_references(agent: Agent, kind: Kind, kwargs: dict[str, Any]) -> None:
    """A relation to an id no node has is legal in the log (the reference
    folds it), but from a flag it is almost always a typo that could never
    be taken back: refused, with the nearest ids."""
    for field in kind.fields:
        value = kwargs.get(field.name) if field.name in REFERENCES else None
        for ident in value if isinstance(value, list | tuple) else [value]:
            if isinstance(ident, str) and not agent.names_node(ident):
                raise GaspError(
                    f"{field.flag} {ident}: no node has that id",
                    did_you_mean(ident, agent.graph.nodes)
                    or "record the node first (or pass --allow-missing to link to it anyway)",
                    USAGE,
                )
