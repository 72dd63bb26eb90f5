"""A log that ends with a domain event whose ops pair is missing: the way out
that ``record`` (refusing to append after it) and ``repair`` both name.

Not committed, the event is the first half of a batch a crash cut short:
``git gasp repair`` removes it. Committed, it stays (the log is append-only;
repair never touches committed bytes), and the way out is to append its
pair: ``git gasp record ops --causation <event> --json-ops <CreateNode>``,
the node created as the event's payload describes it (check 7 then passes).
"""

from __future__ import annotations

import os
import shlex
from typing import NamedTuple

from git_gasp import git
from git_gasp.core.checks import PAIRED_KINDS
from git_gasp.core.event import Event, EventError, parse_event
from git_gasp.core.jsonvalue import dumps
from git_gasp.store.worktree import EVENTS_PATH

_CHUNK = 1 << 16


class LastEvent(NamedTuple):
    event: Event
    end: int  # where its line ends in the log (its newline included)


def last_event(path: str) -> LastEvent | None:
    """The log's last complete line as an event (read backwards from the end,
    never the whole log), or None when it is not one."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            tail = b""
            at = size
            while at > 0 and tail.count(b"\n") < 2:
                step = min(_CHUNK, at)
                at -= step
                fh.seek(at)
                tail = fh.read(step) + tail
    except OSError:
        return None
    if not tail.endswith(b"\n"):
        tail = tail[: tail.rfind(b"\n") + 1]  # a torn tail is repair's, not this
    end = at + len(tail)
    start = tail.rfind(b"\n", 0, len(tail) - 1) + 1
    try:
        return LastEvent(parse_event(tail[start:].decode("utf-8").rstrip("\n")), end)
    except (EventError, UnicodeDecodeError):
        return None


def pair_command(event: Event) -> str:
    """The ``record ops`` command that appends ``event``'s missing pair."""
    payload = event.payload if isinstance(event.payload, dict) else {}
    ident = payload.get("id")
    props = {k: v for k, v in payload.items() if k != "id"}
    ops = [{"CreateNode": {"id": ident, "kind": PAIRED_KINDS[event.kind], "props": props}}]
    text = dumps(ops, sort_keys=True)
    return f"git gasp record ops --causation {event.id} --json-ops {shlex.quote(text)}"


def committed_unpaired(root: str) -> Event | None:
    """The log's last event, when it is a domain event without its pair that
    a commit holds."""
    last = last_event(os.path.join(root, EVENTS_PATH))
    if last is None or last.event.kind not in PAIRED_KINDS:
        return None
    return last.event if last.end <= git.committed_sizes(root, [EVENTS_PATH])[0] else None


def said(event: Event) -> str:
    """The committed unpaired last event and its way out, in one sentence."""
    return (
        f"the log's last event, {event.kind} {event.id}, is committed without its "
        "state.ops_applied: repair keeps it (a commit holds it, the log is append-only); "
        f"append its pair: {pair_command(event)}"
    )


def way_out(root: str) -> str:
    """What to do about the unpaired last event ``record`` refuses to follow."""
    event = committed_unpaired(root)
    if event is not None:
        return f"a commit holds it, so repair keeps it; append its pair: {pair_command(event)}"
    return "run `git gasp repair`: it removes it (no commit holds it)"
