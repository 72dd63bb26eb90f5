"""What the log says of runs where no boundary commit does: a stale run's
``run.finished`` written without its ops pair (a seeded genesis run), and the
last runs of a history seeded in one commit (no ``Run-Id`` trailer)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from git_gasp.core.resume import last_finished, logged_finishes
from git_gasp.core.runlog import RunCommit


def mark_logged_finishes(report: dict[str, Any], historical: bool, log_path: str) -> None:
    """Each stale run of ``report`` gets ``finished``: whether the log holds
    its ``run.finished`` (written without its ops pair: a seeded genesis
    run), and that event's ``outcome``; such a run finished, and is not to be
    marked abandoned. Not in a fold through ``--at`` (a view of the past)."""
    stale = report["stale_runs"]
    if not stale or historical:
        return
    with open(log_path, "rb") as log:  # the fold just read it: there and within the cap
        finished = logged_finishes(log.read(), (r["id"] for r in stale))
    for run in stale:
        run["finished"] = run["id"] in finished
        run["outcome"] = finished.get(run["id"])


def logged_runs(log_path: str, count: int) -> list[RunCommit]:
    """The last runs the log finished, for a history no boundary commit
    names (a seeded one): each without a commit, dated by its run.finished."""
    with open(log_path, "rb") as log:  # the fold just read it: there and within the cap
        data = log.read()
    return [
        RunCommit("", run_id, None, outcome, (), "", _when(ts_ms))
        for run_id, outcome, ts_ms in last_finished(data, count)
    ]


def _when(ts_ms: int) -> str:
    """``ts_ms`` as a commit's date is shown (strict ISO 8601, UTC)."""
    try:
        return dt.datetime.fromtimestamp(ts_ms / 1000, dt.UTC).isoformat(timespec="seconds")
    except (OverflowError, ValueError, OSError):  # advisory, and maybe out of any calendar
        return f"ts_ms {ts_ms}"
