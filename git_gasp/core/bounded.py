"""Lists in text reports, bounded: the first few, then how many more there
are and the command that lists them all (``--json`` keeps everything)."""

from __future__ import annotations

from collections.abc import Iterable

#: How many items a text report shows of one list.
SHOWN = 10


def more(hidden: int, how: str) -> str:
    return f"… and {hidden} more (see `{how}`)"


def bounded(items: Iterable[str], how: str, shown: int = SHOWN, sep: str = ", ") -> str:
    """The first ``shown`` of ``items`` joined by ``sep``, then "… and N more
    (see `how`)" when there are more."""
    listed = list(items)
    if len(listed) <= shown:
        return sep.join(listed)
    return sep.join(listed[:shown]) + " " + more(len(listed) - shown, how)
