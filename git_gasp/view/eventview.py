"""What an id ``show`` cannot find among the nodes may be: an event of the
log (found by a second pass over it) or a memory fact."""

from __future__ import annotations

import os

from git_gasp.core.eventshowing import EventFinder, FoundEvent

FACTS = "memory/facts.jsonl"


def find_event(root: str, event_id: str) -> FoundEvent | None:
    """The event ``event_id`` of ``root``'s work-tree log, with its pair, or None
    (the log's errors are :func:`~git_gasp.restore.folding.fold_repo`'s)."""
    from git_gasp.restore.folding import fold_repo

    finder = EventFinder(event_id)
    fold_repo(root, on_event=finder.add)
    return finder.found()


def is_fact(root: str, fact_id: str) -> bool:
    """Whether ``fact_id`` is the id of a line of ``memory/facts.jsonl``
    (a plain search for its quoted id: enough to name what it is)."""
    from git_gasp.errors import GaspError
    from git_gasp.store.logfile import open_regular

    needle = f'"id":"{fact_id}"'.encode()
    try:  # a regular file only: a FIFO or a device there is no list of facts
        fd = open_regular(os.path.join(root, FACTS), FACTS)
        with os.fdopen(fd, "rb") as fh:
            return any(needle in line for line in fh)
    except (OSError, GaspError):
        return False
