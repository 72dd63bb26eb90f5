"""The log pass's memo (``check/logmemo``): a re-check goes on from where the
last pass stood only while the log still begins with the bytes it read (and
check 3's vocabulary and check 2's snapshots allow it), and then says exactly
what a full pass (``--no-cache``) says."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from git_gasp import git as gitlib
from git_gasp.check import conformance
from git_gasp.check.logmemo import CACHE_NAME, LogMemo
from git_gasp.check.logpass import can_resume
from git_gasp.store import worktree
from tests.conftest import commit_all, log_lines, log_path, run_cli, write_lines


def _memo(repo: Path) -> Path:
    return Path(gitlib.repo_info(str(repo)).common_dir) / "gasp" / CACHE_NAME


def _resumes(repo: Path) -> bool:
    memo = LogMemo(gitlib.repo_info(str(repo)).common_dir, str(log_path(repo)))
    with open(log_path(repo), "rb") as fh:
        state, _ = memo.resume(fh)
    if state is None:
        return False
    snapshots, _ = worktree.read_snapshots(str(repo))
    return can_resume(state, snapshots, worktree.read_packs(str(repo))[0])


def _agrees(repo: Path) -> list[conformance.CheckReport]:
    warm = conformance.run_all(str(repo))
    assert warm == conformance.run_all(str(repo), use_cache=False)
    return warm


def test_a_recheck_after_more_lines_goes_on_from_the_memo(fixture_repo: Path) -> None:
    assert all(r.passed for r in _agrees(fixture_repo))
    assert _memo(fixture_repo).is_file() and _resumes(fixture_repo)
    lines = log_lines(fixture_repo)
    write_lines(fixture_repo, [*lines, lines[0], "not json", ""])
    commit_all(fixture_repo)
    assert _resumes(fixture_repo)
    reports = _agrees(fixture_repo)
    envelope = reports[0].failures
    assert any(f.startswith(f"line {len(lines) + 2}: not JSON") for f in envelope), envelope
    assert not all(r.passed for r in reports)


def test_findings_before_the_memo_stay_and_later_lines_add_to_them(fixture_repo: Path) -> None:
    """The checks' state is carried over: a line before the memo repeated,
    then an ops event claiming it again and its run's last line again."""
    lines = log_lines(fixture_repo)
    write_lines(fixture_repo, [*lines, lines[0]])
    first = _agrees(fixture_repo)
    assert not all(r.passed for r in first) and _memo(fixture_repo).is_file()
    ops = next(line for line in lines if "state.ops_applied" in line)
    write_lines(fixture_repo, [*lines, lines[0], ops, lines[-1]])
    assert _resumes(fixture_repo)
    reports = _agrees(fixture_repo)
    assert [r.failures for r in reports] != [r.failures for r in first]
    assert all(set(a.failures) <= set(b.failures) for a, b in zip(first, reports, strict=True))


def test_an_edited_earlier_line_is_never_taken_from_the_memo(fixture_repo: Path) -> None:
    _agrees(fixture_repo)
    lines = log_lines(fixture_repo)
    edited = lines[0].replace('"', "'", 1)  # same length, no longer JSON
    assert len(edited) == len(lines[0])
    write_lines(fixture_repo, [edited, *lines[1:]])
    assert not _resumes(fixture_repo)
    reports = _agrees(fixture_repo)
    assert any(f.startswith("line 1: not JSON") for f in reports[0].failures)


def test_a_cut_log_or_a_damaged_memo_means_a_full_pass(fixture_repo: Path) -> None:
    _agrees(fixture_repo)
    lines = log_lines(fixture_repo)
    write_lines(fixture_repo, lines[:-1])
    assert not _resumes(fixture_repo)
    _agrees(fixture_repo)
    for damage in (b"", b"\x80\x04garbage", b"not a pickle at all"):
        _memo(fixture_repo).write_bytes(damage)
        assert not _resumes(fixture_repo)
        _agrees(fixture_repo)
        assert _resumes(fixture_repo)  # written again by the full pass


def test_other_packs_or_snapshots_mean_a_full_pass(fixture_repo: Path) -> None:
    """Check 3 judged the kept lines with the packs' vocabulary, and check 2
    compares each snapshot with the fold of a prefix: neither is kept."""
    _agrees(fixture_repo)
    assert _resumes(fixture_repo)
    pack = fixture_repo / ".agent" / "packs" / "extra.json"
    pack.parent.mkdir(parents=True, exist_ok=True)
    widget = {"kind": "widget", "required_props": []}
    value = {"id": "x", "name": "x", "version": "1", "object_types": {"widget": widget}}
    more = {"relation_types": {}, "policies": [], "prompts": [], "settings": None}
    pack.write_text(json.dumps({**value, **more}))
    assert not _resumes(fixture_repo)
    _agrees(fixture_repo)
    assert _resumes(fixture_repo)  # written again with the new vocabulary
    pack.unlink()
    assert not _resumes(fixture_repo)
    _agrees(fixture_repo)
    snapshot = fixture_repo / "snapshots" / "0001"
    snapshot.mkdir(parents=True)
    (snapshot / "graph.json").write_text('{"integrity": {"line_count": 2}}')
    assert not _resumes(fixture_repo)
    _agrees(fixture_repo)


class _Runs:
    """Unpickled, it would create ``path`` (if the memo loaded any callable)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.path), "w"))


def test_a_memo_naming_any_other_callable_is_refused(fixture_repo: Path, tmp_path: Path) -> None:
    _agrees(fixture_repo)
    marker = tmp_path / "ran"
    data = pickle.loads(_memo(fixture_repo).read_bytes())
    data["state"].reader["envelope"] = [_Runs(marker)]
    _memo(fixture_repo).write_bytes(pickle.dumps(data))
    assert not _resumes(fixture_repo) and not marker.exists()
    _agrees(fixture_repo)
    assert not marker.exists() and _resumes(fixture_repo)


def test_no_cache_neither_reads_nor_writes_the_memo(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "check", "--repo", str(fixture_repo), "--no-cache")
    assert code == 0 and "conformant" in out
    assert not _memo(fixture_repo).exists()
    code, warm, _ = run_cli(capsys, "check", "--repo", str(fixture_repo))
    assert code == 0 and warm == out and _memo(fixture_repo).is_file()


def test_one_batch_of_look_ups_still_fails_only_the_path_that_is_not_a_file(
    fixture_repo: Path,
) -> None:
    """Check 4 looks up every path's versions at once; a path that was a
    directory in one commit fails alone, and the others are still judged."""
    journal = fixture_repo / "journal" / "JOURNAL.md"
    journal.parent.mkdir()
    journal.write_text("# Journal\n")
    commit_all(fixture_repo, "a journal")
    kept = journal.read_bytes()
    journal.unlink()
    journal.mkdir()
    (journal / "f").write_text("x\n")
    commit_all(fixture_repo, "a directory")
    (journal / "f").unlink()
    journal.rmdir()
    journal.write_bytes(kept)
    lines = log_lines(fixture_repo)
    write_lines(fixture_repo, [*lines[:-1], lines[-1].replace('"', "'", 1)])
    commit_all(fixture_repo, "an edited log line")
    write_lines(fixture_repo, lines)
    failures = conformance.run_all(str(fixture_repo), use_cache=False)[3].failures
    assert any(f.startswith("journal/JOURNAL.md: cannot walk history: ") for f in failures)
    assert any(f.startswith("state/events.jsonl: commit ") for f in failures), failures
