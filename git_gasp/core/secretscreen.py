"""The secret screen of :func:`git_gasp.core.secrets.lines_to_scan`, taken
byte by byte over a whole file (the hooks ask ``git grep`` for the lines of a
long push's newest versions, in a second process) and carried to the
appended chunks that are slices of that file.

A line's text (decoded with replacement, lowercased) holds one of
:data:`~git_gasp.core.secrets.SCREEN_TRIGGERS` exactly when its bytes hold
one with ASCII letters in either case: every trigger is ASCII, and no byte
of a multi-byte UTF-8 sequence, valid or not, is. Two characters break that,
those whose lowercase is ASCII (U+0130 becomes ``i`` and a combining dot,
U+212A KELVIN SIGN becomes ``k``); and a NUL may end a line for a regular
expression library. A file holding one of :data:`UNSAFE` is not screened so
(:func:`screenable`): its chunks are screened as text.
"""

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from typing import NamedTuple

from git_gasp.core.secrets import SCREEN_GROUPS, lines_holding, lines_to_scan

UNSAFE = (b"\0", "\u0130".encode(), "\u212a".encode())
# the screen's groups in bytes: a key, its triggers, whether the key is a trigger
_GROUPS = tuple(
    (key.encode(), tuple(t.encode() for t, _ in members), members[0][0] == key)
    for key, members in SCREEN_GROUPS
)
_NEWLINE = re.compile(b"\n")


def screenable(data: bytes) -> bool:
    """Whether a byte-wise screen of ``data`` gives the screen of its text."""
    return not any(u in data for u in UNSAFE)


def scan_lines(data: bytes) -> set[int]:
    """:func:`~git_gasp.core.secrets.lines_to_scan` of ``data`` decoded (with
    replacement), found in its bytes when it is not ASCII but
    :func:`screenable`: a text with one character that is not ASCII (a log's
    arrows and accents) takes two or four bytes a character, and lowering and
    searching it costs more than the bytes (an ASCII text costs the same).
    Lines split on ``\\n``, as there."""
    if data.isascii() or not screenable(data):
        return lines_to_scan(data.decode("utf-8", "replace"))
    return lines_holding(data.lower(), _GROUPS, _NEWLINE)  # ASCII letters: all a trigger holds


class Screened(NamedTuple):
    """A file's screen: where its lines end, and which hold a trigger."""

    ends: list[int]  # the offsets of its b"\n", in order
    flagged: list[int]  # the indexes (from 0) of its lines holding a trigger, in order

    @classmethod
    def of(cls, data: bytes, flagged: Iterable[int]) -> "Screened":
        return cls([m.start() for m in re.finditer(b"\n", data)], sorted(flagged))

    def lines(self, start: int, end: int) -> set[int] | None:
        """For the slice ``data[start:end]``, which must start a line (None
        when it does not), the indexes of its lines (split on ``\\n``) whose
        line in the file holds a trigger: what ``lines_to_scan`` finds in the
        slice, and at most a cut last line more."""
        first = bisect_left(self.ends, start)
        if start and (first == 0 or self.ends[first - 1] != start - 1):
            return None
        last = bisect_left(self.ends, end)  # the line of the file the slice ends in
        low, high = bisect_left(self.flagged, first), bisect_right(self.flagged, last)
        return {n - first for n in self.flagged[low:high]}
