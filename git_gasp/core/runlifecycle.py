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
    findings: list[str] = []
    open_run: tuple[str, int] | None = None  # (run id, line of its start)
    finished: dict[str, int] = {}  # run id -> line of its finish, since its latest start
    for n, event in enumerate(events, 1):
        run = run_id_of(event)
        if run is None:
            continue
        if event.kind == RUN_STARTED:
            if open_run is not None:
                findings.append(
                    f"line {n}: run {run} started while run {open_run[0]} (line {open_run[1]}) "
                    "is open: two runs open at once"
                )
            open_run = (run, n)
            finished.pop(run, None)
        elif event.kind == RUN_FINISHED:
            if run in finished:
                findings.append(
                    f"line {n}: run {run} finished twice (first at line {finished[run]})"
                )
            finished[run] = n
            if open_run is not None and open_run[0] == run:
                open_run = None
    return tuple(findings)
