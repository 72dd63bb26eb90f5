"""``git gasp check``: the seven conformance checks over one repository.

A missing or unparseable log is a conformance failure, never a tool error:
dependent checks are marked failed (fail closed) and check 4, which needs
only git, always runs (REFERENCE §10.1).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from git_gasp import git
from git_gasp.check.history import Asked, ask, check_append_only
from git_gasp.check.logmemo import LogMemo
from git_gasp.check.logpass import LogPass, can_resume, read_pass
from git_gasp.core import pathcase
from git_gasp.core.checks import check_envelope
from git_gasp.core.locations import DEFAULT_LOCATIONS
from git_gasp.core.pack import Pack
from git_gasp.core.repochecks import SnapshotFile, check_replay, check_restore
from git_gasp.core.report import CheckReport, failed
from git_gasp.errors import GaspError
from git_gasp.store import worktree


def _with_case(repo: str, report: CheckReport, asked: Asked | None = None) -> CheckReport:
    """Check 6 with the tracked paths a case-insensitive checkout (macOS,
    Windows) would restore as another agent file (:mod:`git_gasp.core.pathcase`)."""
    if asked is not None and asked.files is not None:
        files = asked.files
    else:
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


#: Up to this size the log is read while check 4 walks history in a second
#: thread (both cores at work: the hashing and git's output release the
#: interpreter). A larger log is read after check 4 has let go of what it read
#: of history, so that peak memory stays near the log's size.
PARALLEL_LOG_BYTES = 32 << 20


def run_all(repo: str, fixture: bool = False, use_cache: bool = True) -> list[CheckReport]:
    """The seven reports, in order 1..7."""
    try:
        size = os.stat(os.path.join(repo, worktree.EVENTS_PATH)).st_size
    except OSError:
        size = 0
    asked = ask(repo)  # both passes ask these: git is asked once
    if size > PARALLEL_LOG_BYTES:
        append_only = check_append_only(repo, use_cache, asked)
        return _log_checks(repo, fixture, append_only, use_cache, asked)
    history = _Beside(lambda: check_append_only(repo, use_cache, asked))
    reports = _log_checks(repo, fixture, None, use_cache, asked)
    reports[3] = history.result()
    return reports


class _Beside(threading.Thread):
    """Check 4 in a second thread (a plain thread: a pool would load
    ``concurrent.futures`` and logging with it into every check)."""

    def __init__(self, work: Callable[[], CheckReport]) -> None:
        super().__init__(daemon=True)
        self._work = work
        self._report: CheckReport | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self._report = self._work()
        except BaseException as exc:  # raised again in the caller's thread
            self._error = exc

    def result(self) -> CheckReport:
        self.join()
        if self._error is not None:
            raise self._error
        assert self._report is not None
        return self._report


def _log_checks(
    repo: str,
    fixture: bool,
    given: CheckReport | None,
    use_cache: bool = True,
    asked: Asked | None = None,
) -> list[CheckReport]:
    """Checks 1-7 in order; check 4 is ``given``, or a place held for it."""
    append_only = given if given is not None else failed(4, "not run")
    snapshots, snapshots_error = worktree.read_snapshots(repo)
    packs, problems = worktree.read_packs(repo)
    read, error = _read(
        repo, snapshots if snapshots_error is None else None, packs, problems, use_cache, asked
    )
    if read is None:
        return [
            failed(1, f"{worktree.EVENTS_PATH}: {error}"),
            *(failed(n, "log unavailable (see check 1)") for n in (2, 3)),
            append_only,
            *(failed(n, "log unavailable (see check 1)") for n in (5, 6, 7)),
        ]
    log = read.log
    if not log.ok:
        return [
            check_envelope(log),
            *(failed(n, "log does not fully parse; see check 1") for n in (2, 3)),
            append_only,
            *(failed(n, "log does not fully parse; see check 1") for n in (5, 6, 7)),
        ]
    outcome = read.outcome
    vocabulary, causation, pairing = read.judged
    replay = (log.events, read.prefixes, outcome, snapshots, snapshots_error, read.prefix_equal)
    return [
        check_envelope(log),
        check_replay(*replay),
        vocabulary,
        append_only,
        causation,
        _with_case(repo, check_restore(worktree.read_identity(repo), outcome, fixture), asked),
        pairing,
    ]


def _memo(repo: str, path: str, use_cache: bool, asked: Asked | None) -> LogMemo:
    common = None
    if use_cache and asked is not None and asked.where is not None:
        common = asked.where[0].common_dir
    elif use_cache:
        try:
            common = git.repo_info(repo).common_dir
        except git.GitError:
            pass  # not a repository: check 4 says so; nothing to keep
    return LogMemo(common, path)


def _read(
    repo: str,
    snapshots: list[SnapshotFile] | None,
    packs: list[Pack],
    problems: list[str],
    use_cache: bool = True,
    asked: Asked | None = None,
) -> tuple[LogPass | None, str | None]:
    """The log read in one pass (:mod:`git_gasp.check.logpass`), going on
    from the memo of the last (:mod:`git_gasp.check.logmemo`), or why it
    cannot be read (as check 1 words it)."""
    path = os.path.join(repo, worktree.EVENTS_PATH)
    try:
        with worktree.open_log(repo, asked.cap if asked is not None else None) as fh:
            memo = _memo(repo, path, use_cache, asked)
            start, lines = memo.resume(fh)
            if start is not None and not can_resume(start, snapshots, packs):
                start, lines = None, memo.restart(lines)
            read = read_pass(lines, snapshots, packs, problems, start)
            if read is not None:
                memo.save(read.state, lines)
    except OSError as exc:
        return None, f"cannot read {path}: {worktree.os_error(exc)}"
    except GaspError as exc:  # not a regular file, or over gasp.maxLogBytes
        return None, f"cannot read {path}: {exc.message}"
    if read is None:
        return None, f"cannot read {path}: stream did not contain valid UTF-8"
    return read, None
