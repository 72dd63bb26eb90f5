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


def test_checks_pass_keeps_no_event_and_judges_and_folds_as_the_whole_log(tmp_path: Path) -> None:
    from git_gasp.check.logpass import read_pass
    from git_gasp.core.checks import (
        check_causation,
        check_pairing,
        check_vocabulary,
        parse_all_ops,
    )
    from git_gasp.core.runlifecycle import lifecycle_findings
    from git_gasp.store.worktree import read_packs, read_snapshots

    repo, _ = _snapshotted(tmp_path)
    data = (repo / LOG).read_bytes()
    snapshots, _ = read_snapshots(str(repo))
    packs, problems = read_packs(str(repo))
    with (repo / LOG).open("rb") as fh:
        read = read_pass(fh, snapshots, packs, problems)
    assert read is not None
    whole = parse_log(data)
    assert read.log.events == ()  # checks 3, 5 and 7 were judged as the pass read
    assert read.log.envelope_failures == whole.envelope_failures
    ops = parse_all_ops(whole.events)
    causation = check_causation(whole.events)
    causation = causation._replace(failures=causation.failures + lifecycle_findings(whole.events))
    assert read.judged == (
        check_vocabulary(whole.events, ops, packs, problems),
        causation,
        check_pairing(whole.events, ops),
    )
    assert not isinstance(read.outcome, Exception)
    assert graphs_equal(read.outcome.graph, fold(whole.events).graph)
    assert read.prefix_equal and all(read.prefix_equal.values())  # the snapshot's prefix


def _line(eid: str, kind: str, payload: object, cause: str | None) -> str:
    import json

    return json.dumps(
        {
            "id": eid,
            "schema_version": 1,
            "ts_ms": 1,
            "actor": {"kind": "agent", "id": "a"},
            "kind": kind,
            "payload": payload,
            "causation_id": cause,
            "correlation_id": None,
        },
        separators=(",", ":"),
    )


def test_checks_pass_finds_what_the_whole_log_checks_find(tmp_path: Path) -> None:
    """Checks 3, 5 (with the run lifecycle) and 7, judged in the pass, word
    every finding as the whole-log functions do, in the same order."""
    import io

    from git_gasp.check.logpass import read_pass
    from git_gasp.core.checks import (
        check_causation,
        check_pairing,
        check_vocabulary,
        parse_all_ops,
    )
    from git_gasp.core.runlifecycle import lifecycle_findings

    def node(nid: str, kind: str, status: object = None) -> object:
        props = {} if status is None else {"status": status}
        return {"CreateNode": {"id": nid, "kind": kind, "props": props}}

    rel = {"CreateRelation": {"from": "g1", "rel": "bogus_rel", "to": "t1", "props": {}}}
    lines = [
        _line("o0", "state.ops_applied", [node("t9", "task")], "d1"),  # claims a later event
        _line("d1", "task.created", {"id": "t9", "status": "Open"}, None),
        _line("o1", "state.ops_applied", [node("t9", "task", "Done")], "d1"),  # second creator
        _line("d2", "goal.created", {"id": "g1"}, None),
        _line("o2", "state.ops_applied", [node("g1", "task"), rel], "d2"),  # wrong kind
        _line("d3", "goal.created", {"title": "no id"}, None),
        _line("d4", "decision.created", {"id": "x1"}, None),  # unpaired
        _line("o3", "state.ops_applied", [node("q1", "weird_kind")], "o2"),  # chained
        _line("o4", "state.ops_applied", {"not": "ops"}, "d4"),  # malformed
        _line("d1", "note.added", {}, "ahead"),  # duplicate id, forward cause, bad root
        _line("r1", "run.started", {"run_id": "run_a"}, None),
        _line("r2", "run.started", {"run_id": "run_b"}, None),
        _line("r3", "run.finished", {"run_id": "run_b"}, "r2"),
        _line("r4", "run.finished", {"run_id": "run_b"}, "r2"),
        _line("o5", "state.ops_applied", [], "o4"),  # chained to an ops event
        _line("o2", "task.created", {"id": "t2"}, None),  # o2's last event is not ops
    ]
    data = ("\n".join(lines) + "\n").encode()
    read = read_pass(io.BytesIO(data), None, [], ["packs/x: a problem"])
    assert read is not None
    whole = parse_log(data)
    assert whole.ok
    ops = parse_all_ops(whole.events)
    causation = check_causation(whole.events)
    causation = causation._replace(failures=causation.failures + lifecycle_findings(whole.events))
    expected = (
        check_vocabulary(whole.events, ops, [], ["packs/x: a problem"]),
        causation,
        check_pairing(whole.events, ops),
    )
    assert read.judged == expected
    assert all(len(report.failures) >= 3 for report in expected)  # each check found things
