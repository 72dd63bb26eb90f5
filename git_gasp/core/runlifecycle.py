"""One run at a time: the lifecycle findings ``git gasp check`` adds to check 5.

The reference runtime keeps at most one run open and finishes it once
(REFERENCE §4.4); a log that starts a run while another is open, or finishes
one run twice, was written by two processes deciding at once (or by a tool
that does not keep the rule). Pure: events in, findings out.
"""

from __future__ import annotations

from collections.abc import Sequence

from git_gasp.core.event import Event
from git_gasp.core.resume import RUN_FINISHED, run_id_of

RUN_STARTED = "run.started"


def lifecycle_findings(events: Sequence[Event]) -> tuple[str, ...]:
    """``line N: ...`` for each start while a run is open and each second finish."""
    lifecycle = Lifecycle()
    for n, event in enumerate(events, 1):
        lifecycle.add(n, event)
    return tuple(lifecycle.findings)


class Lifecycle:
    """The lifecycle findings event by event (``findings``, so far)."""

    def __init__(self) -> None:
        self.findings: list[str] = []
        self._open: tuple[str, int] | None = None  # (run id, line of its start)
        self._finished: dict[str, int] = {}  # run id -> line of its finish, since its latest start

    def add(self, n: int, event: Event) -> None:
        """Line ``n``."""
        run = run_id_of(event)
        if run is None:
            return
        if event.kind == RUN_STARTED:
            if self._open is not None:
                self.findings.append(
                    f"line {n}: run {run} started while run {self._open[0]} "
                    f"(line {self._open[1]}) is open: two runs open at once"
                )
            self._open = (run, n)
            self._finished.pop(run, None)
        elif event.kind == RUN_FINISHED:
            if run in self._finished:
                self.findings.append(
                    f"line {n}: run {run} finished twice (first at line {self._finished[run]})"
                )
            self._finished[run] = n
            if self._open is not None and self._open[0] == run:
                self._open = None
