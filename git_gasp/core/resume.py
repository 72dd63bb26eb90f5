"""Which run a runtime resumes when it opens the log (REFERENCE §5,
``resume_open_run``): each ``run.started`` with a string ``payload.run_id``
remembers that run (a later start replaces it); a ``run.finished`` naming the
remembered run forgets it. What is remembered at the end is the open run,
whether or not the run has a node (a start whose ops pair was never written
has none).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from git_gasp.core.event import Event
from git_gasp.core.jsonvalue import Json
from git_gasp.core.log import parse_log

RUN_STARTED = "run.started"
RUN_FINISHED = "run.finished"
_STARTED_TEXT = b'"run.started"'  # in every line that spells the kind plainly


class ResumedRun(NamedTuple):
    run_id: str
    started_event: str  # the run.started event's id
    task: Json  # its payload's task, as written


def run_id_of(event: Event) -> str | None:
    """``payload.run_id`` when it is a string."""
    payload = event.payload
    run_id = payload.get("run_id") if isinstance(payload, dict) else None
    return run_id if isinstance(run_id, str) else None


def _started(event: Event) -> ResumedRun | None:
    run_id = run_id_of(event) if event.kind == RUN_STARTED else None
    if run_id is None:
        return None
    task = event.payload.get("task") if isinstance(event.payload, dict) else None
    return ResumedRun(run_id, event.id, task)


def resumed_run(events: Iterable[Event], start: ResumedRun | None = None) -> ResumedRun | None:
    """The open run after ``events``, the open run before them being ``start``."""
    current = start
    for event in events:
        kind = event.kind
        if kind == RUN_STARTED:
            current = _started(event) or current
        elif kind == RUN_FINISHED and current is not None:
            if run_id_of(event) == current.run_id:
                current = None
    return current


def resumed_run_seeded(data: bytes, offset: int, tail: Sequence[Event]) -> ResumedRun | None:
    """:func:`resumed_run` over the events of ``data[:offset]`` (log bytes a
    snapshot stands for, not parsed yet) followed by ``tail``, parsing as
    little of that prefix as the answer needs.

    A start in the tail decides it alone. Otherwise the prefix is searched
    from the end for the last line that is a start, by the text
    ``"run.started"``; only the lines after it are parsed (so a start spelled
    with escapes after it still counts). Without one, the whole prefix is.
    """
    if any(e.kind == RUN_STARTED and _started(e) is not None for e in tail):
        return resumed_run(tail)
    end = offset
    while True:
        at = data.rfind(_STARTED_TEXT, 0, end)
        if at < 0:
            return resumed_run([*parse_log(data[:offset]).events, *tail])
        begin = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at, offset)
        stop = offset if stop < 0 else stop + 1
        events = parse_log(data[begin:stop]).events
        started = _started(events[0]) if len(events) == 1 else None
        if started is not None:
            after = parse_log(data[stop:offset]).events
            return resumed_run([*after, *tail], started)
        end = begin
