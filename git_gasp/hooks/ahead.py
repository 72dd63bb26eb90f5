"""What a walk of many commits (a long push) reads ahead in second
processes while the hook's own thread looks objects up and judges: the
newest version of each file that may be append-only (a default location, or
any ``.jsonl`` a manifest may declare; :class:`git_gasp.git.ReadAhead`), then
the lines of those versions that hold a trigger of the secret screen (one
``git grep --no-index`` over copies of them, :func:`git_gasp.git.lines_holding`;
:mod:`git_gasp.core.secretscreen`). Both only change when bytes arrive, never
a verdict: what they do not have, the caller reads or screens itself."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from git_gasp import git
from git_gasp.core.appendonly import Anchors, Blob
from git_gasp.core.finding import Step
from git_gasp.core.secrets import SCREEN_TRIGGERS
from git_gasp.core.secretscreen import Screened, screenable

Info = Mapping[str, Blob | None]  # what the walk looked up, by spec


class Ahead:
    """The reads ahead of one walk."""

    def __init__(self, repo: str, newest: dict[str, str]) -> None:
        """``newest``: per path, the commit of its newest version, in the
        order to read them."""
        self.newest = newest
        specs = [f"{rev}:{path}" for path, rev in newest.items()]
        self.reads = git.ReadAhead(repo, specs, SCREEN_TRIGGERS)
        self._screens: dict[str, Screened | None] = {}  # by the newest version's blob id

    def read(self, info: Info, oid: str) -> bytes | None:
        """Blob ``oid`` if it was read ahead (handed over once), else None."""
        for name in self.reads.specs:
            blob = info.get(name)
            if blob is not None and blob.oid == oid:
                return self.reads.take(name, oid)
        return None

    def scan(
        self, info: Info, anchors: Anchors | None, path: str, child: Blob, chunk: bytes
    ) -> set[int] | None:
        """The lines of ``chunk``, appended in ``child``, to screen for
        credentials, when ``child`` is a known prefix of the newest version of
        ``path`` the grep read and ``chunk`` is its end, from a line's start;
        else None (the caller screens it as text)."""
        anchor = anchors.known(child.oid) if anchors is not None else None
        if anchors is None or anchor is None:
            return None
        data = anchors.data[anchor]
        if anchor not in self._screens:
            self._screens[anchor] = self._screen(info, path, anchor, data)
        screen, start, end = self._screens[anchor], child.size - len(chunk), child.size
        if screen is None or start < 0 or end > len(data) or not data.startswith(chunk, start):
            return None
        return screen.lines(start, end)

    def _screen(self, info: Info, path: str, anchor: str, data: bytes) -> Screened | None:
        name = f"{self.newest.get(path)}:{path}"
        blob = info.get(name)
        if path not in self.newest or blob is None or blob.oid != anchor or not screenable(data):
            return None
        flagged = self.reads.lines(name, anchor)
        return Screened.of(data, flagged) if flagged is not None else None

    def close(self) -> None:
        """Wait for the thread and its processes to end."""
        self.reads.close()


def ahead_of(
    repo: str, steps: Sequence[Step], append_only: Callable[[str], bool], logs: Collection[str]
) -> Ahead | None:
    """For eight commits or more (never the index), the reads ahead of the
    newest version of each file of ``steps`` that may be append-only (by
    ``append_only``, or any ``.jsonl`` a manifest may declare), ``logs``
    first; None when there is nothing worth starting a process for."""
    if len(steps) < 8 or any(not s.name for s in steps):
        return None
    last = {p: s.name for s in steps for p in s.paths if append_only(p) or p.endswith(".jsonl")}
    order = sorted(last, key=lambda p: (p not in logs, p))
    return Ahead(repo, {p: last[p] for p in order}) if last else None
