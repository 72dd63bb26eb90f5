"""``git gasp check``: the seven conformance checks over one repository.

A missing or unparseable log is a conformance failure, never a tool error:
dependent checks are marked failed (fail closed) and check 4, which needs
only git, always runs (REFERENCE §10.1).

Check 4 runs in a second thread while this one parses and folds the log: it
mostly waits for git or hashes versions (both release the interpreter), so on
a machine with two cores the walk over history costs little beyond the fold.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from git_gasp import git
from git_gasp.check.history import check_append_only
from git_gasp.core import pathcase
from git_gasp.core.checks import (
    check_causation,
    check_envelope,
    check_pairing,
    check_vocabulary,
    parse_all_ops,
)
from git_gasp.core.event import Event
from git_gasp.core.fold import FoldError, fold
from git_gasp.core.locations import DEFAULT_LOCATIONS
from git_gasp.core.log import parse_log
from git_gasp.core.repochecks import FoldOutcome, check_replay, check_restore
from git_gasp.core.report import CheckReport, failed
from git_gasp.core.runlifecycle import lifecycle_findings
from git_gasp.store import worktree


def _with_lifecycle(report: CheckReport, events: tuple[Event, ...]) -> CheckReport:
    """Check 5 with the run lifecycle's findings: a run finished twice, or
    two runs open at once (:mod:`git_gasp.core.runlifecycle`)."""
    found = lifecycle_findings(events)
    return report._replace(failures=report.failures + found) if found else report


def _with_case(repo: str, report: CheckReport) -> CheckReport:
    """Check 6 with the tracked paths a case-insensitive checkout (macOS,
    Windows) would restore as another agent file (:mod:`git_gasp.core.pathcase`)."""
    try:
        files = git.tracked(repo, [])
    except git.GitError:
        return report
    declared = [p for paths in DEFAULT_LOCATIONS.values() for p in paths]
    found = pathcase.misspelled(files, pathcase.agent_spellings(declared))
    agents = [f for f in files if f.split("/")[0] in pathcase.AGENT_NAMES]
    found += pathcase.collisions(agents, agents)
    lines = tuple(f"{f.path}: {f.message} ({pathcase.WHY})" for f in found)
    return report._replace(failures=report.failures + lines) if lines else report


def run_all(repo: str, fixture: bool = False, use_cache: bool = True) -> list[CheckReport]:
    """The seven reports, in order 1..7."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        history = pool.submit(check_append_only, repo, use_cache)
        reports = _log_checks(repo, fixture)
        reports[3] = history.result()
    return reports


def _log_checks(repo: str, fixture: bool) -> list[CheckReport]:
    """Checks 1-3 and 5-7 in order, with a place held for check 4."""
    hold = failed(4, "not run")
    data, error = worktree.read_log(repo)
    if data is None:
        return [
            failed(1, f"{worktree.EVENTS_PATH}: {error}"),
            *(failed(n, "log unavailable (see check 1)") for n in (2, 3)),
            hold,
            *(failed(n, "log unavailable (see check 1)") for n in (5, 6, 7)),
        ]
    log = parse_log(data)  # read_log has validated it as UTF-8
    if not log.ok:
        return [
            check_envelope(log),
            *(failed(n, "log does not fully parse; see check 1") for n in (2, 3)),
            hold,
            *(failed(n, "log does not fully parse; see check 1") for n in (5, 6, 7)),
        ]
    events = log.events
    ops = parse_all_ops(events)
    outcome: FoldOutcome
    try:
        outcome = fold(events, ops=ops)
    except FoldError as exc:
        outcome = exc
    snapshots, snapshots_error = worktree.read_snapshots(repo)
    packs, problems = worktree.read_packs(repo)
    return [
        check_envelope(log),
        check_replay(events, data, outcome, snapshots, snapshots_error),
        check_vocabulary(events, ops, packs, problems),
        hold,
        _with_lifecycle(check_causation(events), events),
        _with_case(repo, check_restore(worktree.read_identity(repo), outcome, fixture)),
        check_pairing(events, ops),
    ]
