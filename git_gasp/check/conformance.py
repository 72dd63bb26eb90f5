"""``git gasp check``: the seven conformance checks over one repository.

A missing or unparseable log is a conformance failure, never a tool error:
dependent checks are marked failed (fail closed) and check 4, which needs
only git, always runs (REFERENCE §10.1).
"""

from __future__ import annotations

from git_gasp.check.history import check_append_only
from git_gasp.check.logpass import read_pass
from git_gasp.core.checks import check_causation, check_envelope, check_pairing, check_vocabulary
from git_gasp.core.event import Event
from git_gasp.core.repochecks import check_replay, check_restore
from git_gasp.core.report import CheckReport, failed
from git_gasp.core.runlifecycle import lifecycle_findings
from git_gasp.store import worktree


def _with_lifecycle(report: CheckReport, events: tuple[Event, ...]) -> CheckReport:
    """Check 5 with the run lifecycle's findings: a run finished twice, or
    two runs open at once (:mod:`git_gasp.core.runlifecycle`)."""
    found = lifecycle_findings(events)
    return report._replace(failures=report.failures + found) if found else report


def run_all(repo: str, fixture: bool = False, use_cache: bool = True) -> list[CheckReport]:
    """The seven reports, in order 1..7."""
    data, error = worktree.read_log(repo)
    if data is None:
        return [
            failed(1, f"{worktree.EVENTS_PATH}: {error}"),
            *(failed(n, "log unavailable (see check 1)") for n in (2, 3)),
            check_append_only(repo, use_cache),
            *(failed(n, "log unavailable (see check 1)") for n in (5, 6, 7)),
        ]
    snapshots, snapshots_error = worktree.read_snapshots(repo)
    # read_log has validated it as UTF-8; one pass, each event kept slim
    read = read_pass(data, snapshots if snapshots_error is None else None)
    log = read.log
    if not log.ok:
        return [
            check_envelope(log),
            *(failed(n, "log does not fully parse; see check 1") for n in (2, 3)),
            check_append_only(repo, use_cache),
            *(failed(n, "log does not fully parse; see check 1") for n in (5, 6, 7)),
        ]
    events, ops, outcome = log.events, read.ops, read.outcome
    packs, problems = worktree.read_packs(repo)
    return [
        check_envelope(log),
        check_replay(events, data, outcome, snapshots, snapshots_error, read.prefix_equal),
        check_vocabulary(events, ops, packs, problems),
        check_append_only(repo, use_cache),
        _with_lifecycle(check_causation(events), events),
        check_restore(worktree.read_identity(repo), outcome, fixture),
        check_pairing(events, ops),
    ]
