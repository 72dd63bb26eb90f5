"""Adding a run's transcript (``git gasp transcript add``): stored cold by
:mod:`git_gasp.sessions.transcripts`, then recorded.

The run's events record it as an ``artifact.attached`` event (and its
``AttachArtifact`` pair) on the run node, chained to the run's ``run.started``
event with the run as its correlation, whether the run is open or already
closed::

    {"kind": "gasp.transcript/v1",
     "uri": "file://transcripts/<run-id>.jsonl.gz",
     "hash": "sha256:<hex of the .gz file>",
     "summary": null,
     "metadata": {"bytes": <size of the .gz file>, "compression": "gzip",
                  "path": "transcripts/<run-id>.jsonl.gz",
                  "raw_bytes": <size of the raw transcript>,
                  "raw_digest": "sha256:<hex of the raw transcript>"}}

When the run already has a boundary commit (a commit whose ``Run-Id`` trailer
names it), that commit's note in ``refs/notes/agent-sessions`` gets a
``kind: transcript`` record: the commit's first ``Agent-Session`` (as
``git gasp run close`` writes it), the digest, the size, the run and the path.
Never the transcript. A commit with no ``Agent-Session`` trailer gets no note.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.sessions.transcripts import (
    ARTIFACT_KIND,
    artifact,
    boundary_commit,
    commits_transcripts,
    ensure_ignored,
    note_record,
    refuse_a_committed_link_out,
    store_transcript,
    transcript_path,
)

if TYPE_CHECKING:
    from git_gasp.agent.api import Agent
    from git_gasp.core.graph import Node


class Added(NamedTuple):
    run_id: str
    path: str  # transcripts/<run-id>.jsonl.gz, relative to the repository
    digest: str  # of the stored file
    bytes: int  # of the stored file
    raw_digest: str
    raw_bytes: int
    written: bool  # False when the same transcript was already stored
    event: str | None  # the artifact.attached event; None if already recorded
    gitignore: bool  # whether /transcripts was appended to .gitignore
    commit: str | None  # the run's boundary commit, if it has one
    noted: str | None  # the session of the note record written
    note_skipped: str | None  # why no note was written, when none was


def _run_node(agent: Agent, run_id: str) -> Node:
    from git_gasp.core.suggest import did_you_mean

    node = agent.graph.nodes.get(run_id)
    if node is None or node.kind != "run":
        runs = [n.id for n in agent.graph.nodes.values() if n.kind == "run"]
        what = "is not a run" if node is not None else "is not a node of the log"
        hint = did_you_mean(run_id, runs) or "list the runs with: git gasp runs"
        raise GaspError(f"{run_id} {what}", hint, USAGE)
    return node


def _started_event(agent: Agent, run_id: str) -> str:
    for event in agent.run_events(run_id):
        if event.kind == "run.started":
            return event.id
    raise GaspError(
        f"run {run_id} has no run.started event to chain the transcript to",
        "only runs started through run.started can take a transcript",
        FINDINGS,
    )


def record_artifact(agent: Agent, run_id: str, art: dict[str, Any]) -> str | None:
    """Attach ``art`` to the run node unless an equal transcript is already
    attached; the ``artifact.attached`` event id, or None."""
    from git_gasp.agent.api import SYSTEM
    from git_gasp.core import runpayloads

    node = _run_node(agent, run_id)
    for known in node.artifacts:
        if known.kind == ARTIFACT_KIND and known.hash == art["hash"]:
            return None
    # what Agent.attach_artifact records (actor system), chained to the run's own
    # run.started explicitly: a closed run is not the open run, and another run
    # may be open
    started = _started_event(agent, run_id)
    rec = runpayloads.attachment(run_id, art)
    return agent.record(rec, SYSTEM, causation=started, correlation=run_id).event_ids[0]


def add_transcript(agent: Agent, run_id: str, source_file: str) -> Added:
    """``git gasp transcript add RUN FILE`` (see the module docstring)."""
    root = agent.root
    rel = transcript_path(run_id)
    refuse_a_committed_link_out(root)
    _run_node(agent, run_id)
    if not os.path.isfile(source_file):
        raise GaspError(f"{source_file}: not a readable file", "pass the transcript file", USAGE)
    ignored = False if commits_transcripts(root) else ensure_ignored(root)
    stored, written = store_transcript(root, rel, source_file)
    event = record_artifact(agent, run_id, artifact(rel, stored))
    found = boundary_commit(root, run_id)
    commit: str | None = None
    noted: str | None = None
    skipped: str | None = None
    if found is None:
        skipped = f"{run_id} has no boundary commit yet"
    else:
        commit, sessions = found
        if not sessions:
            skipped = f"commit {commit[:12]} has no Agent-Session trailer"
        else:
            from git_gasp.sessions import notes as sessionnotes

            noted = sessions[0]
            record = note_record(run_id, rel, stored, noted)
            sessionnotes.add_records(root, commit, [record], f"gasp: transcript of {run_id}")
    return Added(
        run_id,
        rel,
        stored.digest,
        stored.bytes,
        stored.raw_digest,
        stored.raw_bytes,
        written,
        event,
        ignored,
        commit,
        noted,
        skipped,
    )
