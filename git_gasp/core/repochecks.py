"""Checks 2 (replay, with snapshots) and 6 (restore, with identity).

Both take what the adapter read from the work tree as plain values, so they
run on literal data in tests.

REFERENCE §11.13: a snapshot's ``event_id`` is verified when it is present and
a string (the checker's rule; git-gasp always writes it), ``sha256`` compares
case-sensitively, and the directory name is not verified. §11.16: identity is
verified fail-closed (lib.rs d5a18b2) over the working tree, with the root
``IDENTITY.md`` fallback; a non-UTF-8 ``AGENT.md`` fails (the reference skips).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from typing import NamedTuple

from git_gasp.core.event import Event
from git_gasp.core.fold import Folder, FoldError, FoldResult
from git_gasp.core.graph import Graph, GraphError, graphs_equal, parse_graph
from git_gasp.core.jsonvalue import JsonError, bom_said, loads
from git_gasp.core.log import events_in_prefix, physical_line_count, physical_prefix
from git_gasp.core.manifest import declared_identity_hash
from git_gasp.core.report import CheckReport

FoldOutcome = FoldResult | FoldError


class SnapshotFile(NamedTuple):
    name: str  # the entry name under snapshots/
    data: bytes | None  # graph.json bytes; None when the entry has no graph.json
    error: str | None = None  # why graph.json could not be read


class Identity(NamedTuple):
    present: bool  # identity/ is a directory or IDENTITY.md a file
    manifest: bytes | None  # AGENT.md bytes; None when AGENT.md is not a file
    digest: str | None  # the recomputed identity hash
    error: str | None = None  # why the digest could not be computed


class _Seal(NamedTuple):
    name: str
    events: int  # events in the prefix
    event_id: str | None
    graph: Graph


class Prefixes(NamedTuple):
    """What check 2 reads of the log's bytes, taken as a pass streamed them:
    the physical line count and, for each line count a snapshot covers, the
    sha256 of those lines and how many of them are not blank."""

    lines: int
    at: Mapping[int, tuple[str, int]]
    last_ids: Mapping[int, str]  # by event count at a line count in ``at``: its last event's id


def check_replay(
    events: tuple[Event, ...],
    raw_log: bytes | Prefixes,
    outcome: FoldOutcome,
    snapshots: list[SnapshotFile] | None,
    snapshots_error: str | None = None,
    prefix_equal: Mapping[str, bool] | None = None,
) -> CheckReport:
    """Check 2: the log folds; every snapshot equals the fold of its prefix.

    ``prefix_equal``, when given, holds that verdict by snapshot name, as a
    fold that streamed the log found it when it passed the snapshot's prefix
    (:func:`prefix_counts` says where); ``events`` are then not read (the
    pass's :class:`Prefixes` name the last event of each prefix)."""
    if isinstance(outcome, FoldError):
        return CheckReport(2, (f"fold failed: {outcome.msg}",))
    notes = [s.note() for s in outcome.skipped]
    if snapshots_error is not None:
        return CheckReport(2, (f"cannot read snapshots/: {snapshots_error}",), tuple(notes))
    if snapshots is None:
        notes.append("no snapshots/ — skipped seed check")
        return CheckReport(2, (), tuple(notes))
    failures: list[str] = []
    seals: list[_Seal] = []
    last_id: Callable[[int], str | None]
    if isinstance(raw_log, Prefixes):
        lines, prefix, last_id = raw_log.lines, raw_log.at.__getitem__, raw_log.last_ids.get
    else:
        lines, prefix = physical_line_count(raw_log), functools.partial(_prefix, raw_log)
        last_id = functools.partial(_last_id, events)
    for snap in sorted(snapshots, key=lambda s: s.name):
        if snap.data is None and snap.error is None:
            notes.append(f"snapshot {snap.name}: no graph.json — not verified")
            continue
        problem, seal = _read_seal(snap, prefix, lines, last_id)
        if problem:
            failures.append(f"snapshot {snap.name}: {problem}")
        elif seal is not None:
            seals.append(seal)
    folder = Folder()
    done = 0
    for seal in sorted(seals, key=lambda s: s.events):
        if prefix_equal is not None:
            same = prefix_equal.get(seal.name, False)
        else:
            for event in events[done : seal.events]:
                folder.apply(event)
            done = seal.events
            same = graphs_equal(folder.graph(), seal.graph)
        if not same:
            failures.append(f"snapshot {seal.name}: snapshot differs from folding its log prefix")
    return CheckReport(2, tuple(failures), tuple(notes))


def prefix_counts(snapshots: list[SnapshotFile] | None) -> dict[int, list[str]]:
    """The snapshots whose graph check 2 may compare with the fold of the
    log's first lines, by the count of lines their integrity record covers
    (records it refuses may be listed)."""
    points: dict[int, list[str]] = {}
    for snap in snapshots or ():
        try:
            value = loads(snap.data.decode("utf-8")) if snap.data is not None else None
        except (UnicodeDecodeError, JsonError):
            continue
        integrity = value.get("integrity") if isinstance(value, dict) else None
        count = integrity.get("line_count") if isinstance(integrity, dict) else None
        if type(count) is int and count > 0:
            points.setdefault(count, []).append(snap.name)
    return points


def snapshot_graph(snap: SnapshotFile) -> Graph | None:
    """The graph ``snap`` holds, or None when it does not parse."""
    try:
        value = loads(snap.data.decode("utf-8")) if snap.data is not None else None
        return parse_graph(value.get("graph")) if isinstance(value, dict) else None
    except (UnicodeDecodeError, JsonError, GraphError):
        return None


def _prefix(raw_log: bytes, count: int) -> tuple[str, int]:
    return hashlib.sha256(physical_prefix(raw_log, count)).hexdigest(), events_in_prefix(
        raw_log, count
    )


def _last_id(events: tuple[Event, ...], count: int) -> str | None:
    return events[count - 1].id if count else None


def _read_seal(
    snap: SnapshotFile,
    prefix: Callable[[int], tuple[str, int]],
    lines: int,
    last_id: Callable[[int], str | None],
) -> tuple[str | None, _Seal | None]:
    """Verify one snapshot's record up to the graph comparison."""
    if snap.error is not None or snap.data is None:
        return f"unreadable: {snap.error}", None
    try:
        text = snap.data.decode("utf-8")
        value = loads(text)
    except UnicodeDecodeError:
        return "unreadable: stream did not contain valid UTF-8", None
    except JsonError as exc:
        return f"not JSON: {bom_said(text, exc.msg)}", None
    graph_v = value.get("graph") if isinstance(value, dict) else None
    integrity = value.get("integrity") if isinstance(value, dict) else None
    if not isinstance(value, dict) or "graph" not in value or "integrity" not in value:
        return "missing `graph` or `integrity` record", None
    count = integrity.get("line_count") if isinstance(integrity, dict) else None
    if type(count) is not int or not 0 <= count < 2**64:
        return "integrity record missing numeric `line_count`", None
    assert isinstance(integrity, dict)
    sha = integrity.get("sha256")
    if type(sha) is not str:
        return "integrity record missing `sha256`", None
    if count == 0 or count > lines:
        return f"line_count {count} out of range (log has {lines} lines)", None
    digest, k = prefix(count)
    if digest != sha:
        return "integrity hash mismatch (log prefix changed?)", None
    event_id = integrity.get("event_id")
    if type(event_id) is str and (k == 0 or last_id(k) != event_id):
        return f"integrity event_id `{event_id}` is not the last event of the prefix", None
    try:
        graph = parse_graph(graph_v)
    except GraphError as exc:
        return f"graph does not parse: {exc}", None
    return None, _Seal(snap.name, k, event_id if type(event_id) is str else None, graph)


def check_restore(identity: Identity, outcome: FoldOutcome, fixture: bool) -> CheckReport:
    """Check 6: manifest and identity present, identity hash verified, log folds."""
    failures: list[str] = []
    notes: list[str] = []
    if identity.manifest is None:
        failures.append("AGENT.md manifest missing")
    if not identity.present:
        failures.append(
            "no identity/ directory or IDENTITY.md "
            "(manifest-declared alternate locations are not yet checked)"
        )
    elif identity.manifest is not None:
        _verify_identity(identity, failures, notes)
    if isinstance(outcome, FoldError):
        failures.append(f"fold failed: {outcome.msg}")
    elif fixture:
        failures.extend(fixture_findings(outcome.graph))
    return CheckReport(6, tuple(failures), tuple(notes))


def _verify_identity(identity: Identity, failures: list[str], notes: list[str]) -> None:
    assert identity.manifest is not None
    try:
        text = identity.manifest.decode("utf-8")
    except UnicodeDecodeError:
        # The reference skips verification here (fail-open, REFERENCE §10.2);
        # git-gasp fails closed: an unreadable digest is not a verified one.
        failures.append("AGENT.md is not valid UTF-8 — its identity_hash cannot be read")
        return
    declared = declared_identity_hash(text)
    if declared.raw is None:
        failures.append(
            "AGENT.md declares no identity_hash — restore cannot verify identity/ "
            "(add `identity_hash: <sha256>` to the first fenced block)"
        )
    elif declared.value is None:
        failures.append(
            f"AGENT.md identity_hash is malformed: `{declared.raw}` is not 64 hex chars"
        )
    elif identity.digest is None:
        failures.append(f"cannot compute identity hash: {identity.error}")
    elif identity.digest != declared.value:
        failures.append(
            f"identity bytes do not match the manifest: declared {declared.value}, "
            f"computed {identity.digest} (identity/ changed without a human-approved "
            "manifest update)"
        )
    else:
        notes.append("identity hash verified against identity bytes")


def fixture_findings(graph: Graph) -> list[str]:
    """The four facts of the canonical fixture (``--fixture``)."""

    def prop(node_id: str, key: str) -> object:
        node = graph.nodes.get(node_id)
        props = node.props if node is not None else None
        return props.get(key) if isinstance(props, dict) else None

    def edge(source: str, rel: str, target: str) -> bool:
        return any(r.to == target for r in graph.outgoing(source, rel))

    def is_str(value: object, text: str) -> bool:
        return type(value) is str and value == text

    out = []
    if "goal_retry" not in graph.nodes:
        out.append("fixture: goal_retry missing")
    if not edge("patch_9", "advances", "goal_retry"):
        out.append("fixture: patch_9 --advances--> goal_retry missing")
    if not is_str(prop("patch_9", "status"), "Promoted"):
        out.append("fixture: patch_9.status != Promoted")
    if not is_str(prop("patch_9", "references_commit"), "abc1234"):
        out.append("fixture: patch_9.references_commit != abc1234")
    if not edge("patch_9", "validated_by", "eval_5") or not is_str(
        prop("eval_5", "status"), "Passed"
    ):
        out.append("fixture: patch_9 validated_by passed eval_5 missing")
    if not edge("patch_9", "approved_by", "decision_3") or not is_str(
        prop("decision_3", "status"), "Approved"
    ):
        out.append("fixture: patch_9 approved_by approved decision_3 missing")
    return out
