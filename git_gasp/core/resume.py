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
    snapshot stands for, not parsed yet) followed by ``tail``, parsing only
    the lines of that prefix that can matter.

    A start in the tail decides it alone. Otherwise the prefix's last start
    is found from the end, then a finish of it after it. A line can only be a
    start if it holds the text ``"run.started"`` or a ``\\u`` escape (the one
    other way to spell that string in JSON), and likewise for a finish; only
    such lines are parsed.
    """
    if any(e.kind == RUN_STARTED and _started(e) is not None for e in tail):
        return resumed_run(tail)
    escapes = data.find(_ESCAPE, 0, offset) >= 0  # once: most logs have none
    found = _last_start(data, offset, escapes)
    if found is None:
        return resumed_run(tail)
    run, after = found
    if _finished_between(data, run, after, offset, escapes):
        return resumed_run(tail)
    return resumed_run(tail, run)


_STARTED_TEXT = b'"run.started"'
_FINISHED_TEXT = b'"run.finished"'
_ESCAPE = b"\\u"


def _line_at(data: bytes, at: int, limit: int) -> tuple[int, int]:
    begin = data.rfind(b"\n", 0, at) + 1
    stop = data.find(b"\n", at, limit)
    return begin, limit if stop < 0 else stop + 1


def _event_in(data: bytes, begin: int, stop: int) -> Event | None:
    events = parse_log(data[begin:stop]).events
    return events[0] if len(events) == 1 else None


def _last_start(data: bytes, offset: int, escapes: bool) -> tuple[ResumedRun, int] | None:
    """The last start in ``data[:offset]``, and where its line ends
    (``escapes``: whether a ``\\u`` escape is there at all)."""
    end = offset
    while end > 0:
        plain = data.rfind(_STARTED_TEXT, 0, end)
        escaped = data.rfind(_ESCAPE, plain + 1 if plain >= 0 else 0, end) if escapes else -1
        at = escaped if escaped >= 0 else plain
        if at < 0:
            return None
        begin, stop = _line_at(data, at, offset)
        event = _event_in(data, begin, stop)
        started = _started(event) if event is not None else None
        if started is not None:
            return started, stop
        end = begin
    return None


def _finished_between(data: bytes, run: ResumedRun, start: int, offset: int, escapes: bool) -> bool:
    """Whether ``data[start:offset]`` (from a line's start) holds a finish of
    ``run``: its lines that can be a finish, looked at from the end (a run's
    own finish is most often the log's last one)."""
    texts = (_FINISHED_TEXT, _ESCAPE) if escapes else (_FINISHED_TEXT,)
    end = offset
    while end > start:
        at = max(data.rfind(text, start, end) for text in texts)
        if at < 0:
            return False
        begin, stop = _line_at(data, at, offset)
        event = _event_in(data, begin, stop)
        if event is not None and event.kind == RUN_FINISHED and run_id_of(event) == run.run_id:
            return True
        end = begin
    return False


def logged_finishes(data: bytes, run_ids: Iterable[str]) -> dict[str, Json]:
    """The runs of ``run_ids`` that a ``run.finished`` of ``data`` (log
    bytes) finishes, each with that event's ``payload.outcome`` (None when it
    has none): a run whose finish was written without its ops pair, as a
    seeded genesis run is, finished all the same. Only lines holding that
    text or a ``\\u`` escape are parsed."""
    wanted = set(run_ids)
    lines = [line for line in data.split(b"\n") if _FINISHED_TEXT in line or _ESCAPE in line]
    found: dict[str, Json] = {}
    for event in parse_log(b"\n".join(lines)).events if wanted and lines else ():
        run_id = run_id_of(event) if event.kind == RUN_FINISHED else None
        if run_id in wanted and run_id not in found:
            payload = event.payload
            found[run_id] = payload.get("outcome") if isinstance(payload, dict) else None
    return found


def last_finished(data: bytes, count: int) -> list[tuple[str, str | None, int]]:
    """The last ``count`` runs a ``run.finished`` of ``data`` (log bytes)
    finishes, newest first: (run id, outcome, ``ts_ms``). For a history whose
    runs no boundary commit names (a log seeded in one commit). Only lines
    holding that text or a ``\\u`` escape are parsed."""
    lines = [line for line in data.split(b"\n") if _FINISHED_TEXT in line or _ESCAPE in line]
    found: list[tuple[str, str | None, int]] = []
    seen: set[str] = set()
    for event in reversed(parse_log(b"\n".join(lines)).events) if count > 0 and lines else ():
        run_id = run_id_of(event) if event.kind == RUN_FINISHED else None
        if run_id is None or run_id in seen:
            continue
        seen.add(run_id)
        outcome = event.payload.get("outcome") if isinstance(event.payload, dict) else None
        found.append((run_id, outcome if isinstance(outcome, str) else None, event.ts_ms))
        if len(found) == count:
            break
    return found
