"""Restore's careful fold reads the log streaming (issue 16, item 3): one
line at a time, never the whole log nor its events; snapshots are checked as
the stream passes the line they cover."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from git_gasp.core.event import Event
from git_gasp.core.fold import Folder, fold
from git_gasp.core.graph import graphs_equal
from git_gasp.core.log import parse_log
from git_gasp.restore import streamfold
from git_gasp.restore.seededfold import fold_log

from .test_restore import _snapshotted

LOG = "state/events.jsonl"


class _Pipe:
    """A log as a pipe gives it: lines made one by one, no ``read``, no ``seek``."""

    def __init__(self, data: bytes) -> None:
        self._lines = data.splitlines(keepends=True)
        self.made = 0

    def __iter__(self) -> Iterator[bytes]:
        for line in self._lines:
            self.made += 1
            yield line


def test_the_careful_fold_reads_one_line_ahead_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = _snapshotted(tmp_path)
    data = (repo / LOG).read_bytes()
    pipe = _Pipe(data)
    ahead: list[int] = []
    applied = 0
    real = Folder.apply

    def apply(self: Folder, event: Event) -> None:
        nonlocal applied
        applied += 1
        ahead.append(pipe.made - applied)
        real(self, event)

    monkeypatch.setattr(Folder, "apply", apply)
    info, folder = streamfold.fold_streaming(str(repo), pipe, LOG, None, True)  # type: ignore[arg-type]
    events = parse_log(data).events
    assert ahead and max(ahead) == 0  # each event folded as soon as its line is made
    assert info.events == len(events) and info.seeded_from is not None
    assert info.verified_by in ("fold of prefix", "cache")  # write_snapshot remembers it
    monkeypatch.setattr(Folder, "apply", real)
    assert graphs_equal(folder.graph(), fold(events).graph)


def test_the_streaming_fold_matches_the_whole_logs_at_every_event(tmp_path: Path) -> None:
    repo, _ = _snapshotted(tmp_path)
    events = parse_log((repo / LOG).read_bytes()).events
    for n, event in enumerate(events, 1):
        info, folder = fold_log(str(repo), LOG, event.id)
        assert (info.events, info.complete) == (n, n == len(events))
        assert graphs_equal(folder.graph(), fold(events[:n]).graph), event.id


def test_a_bad_line_after_at_still_fails_the_fold(tmp_path: Path) -> None:
    repo, _ = _snapshotted(tmp_path)
    events = parse_log((repo / LOG).read_bytes()).events
    with (repo / LOG).open("ab") as fh:
        fh.write(b'{"id": not json}\n')
    from git_gasp.errors import GaspError

    with pytest.raises(GaspError, match=r"state/events.jsonl:\d+: corrupt event"):
        fold_log(str(repo), LOG, events[0].id)


def test_checks_pass_keeps_each_event_slim_and_folds_as_the_whole_log(tmp_path: Path) -> None:
    from git_gasp.check.logpass import read_pass
    from git_gasp.store.worktree import read_snapshots

    repo, _ = _snapshotted(tmp_path)
    data = (repo / LOG).read_bytes()
    snapshots, _ = read_snapshots(str(repo))
    with (repo / LOG).open("rb") as fh:
        read = read_pass(fh, snapshots)
    assert read is not None
    whole = parse_log(data)
    assert [e.id for e in read.log.events] == [e.id for e in whole.events]
    assert read.log.envelope_failures == whole.envelope_failures
    for slim, event in zip(read.log.events, whole.events, strict=True):
        assert (slim.kind, slim.causation_id) == (event.kind, event.causation_id)
        assert slim.payload is None or len(slim.payload) <= 2  # id and status, or run_id
    assert not isinstance(read.outcome, Exception)
    assert graphs_equal(read.outcome.graph, fold(whole.events).graph)
    assert read.prefix_equal and all(read.prefix_equal.values())  # the snapshot's prefix
