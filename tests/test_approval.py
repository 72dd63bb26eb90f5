"""Approval means a person (issue 16, item 4): the hooks count an Approved
decision only when neither its recorder nor its ``decided_by`` is an agent,
and ``record decision`` records a person's approval only past the gate
``identity commit`` takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_gasp.agent import init_repo
from git_gasp.core.agentfiles import approves
from git_gasp.core.event import parse_event

from .conftest import run_cli as run


def _decision(actor: str, decided_by: str | None) -> dict[str, object]:
    payload: dict[str, object] = {"id": "d1", "status": "Approved", "reason": "ok"}
    if decided_by is not None:
        payload["decided_by"] = {"kind": decided_by, "id": "x"}
    return {
        "id": "e1",
        "schema_version": 1,
        "ts_ms": 1,
        "actor": {"kind": actor, "id": "x"},
        "kind": "decision.created",
        "payload": payload,
        "causation_id": None,
        "correlation_id": None,
    }


@pytest.mark.parametrize(
    ("actor", "decided_by", "counts"),
    [
        ("user", "user", True),
        ("system", "user", True),
        ("agent", "user", False),
        ("user", "agent", False),
        ("agent", "agent", False),
        ("user", None, False),
    ],
)
def test_only_a_persons_approval_counts(actor: str, decided_by: str | None, counts: bool) -> None:
    line = json.dumps(_decision(actor, decided_by))
    assert approves(parse_event(line)) is counts


def test_an_agent_cannot_record_a_persons_approval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "agent"
    init_repo(str(repo), "gated")
    log = repo / "state" / "events.jsonl"
    before = log.read_bytes()
    args = ["record", "decision", "--status", "Approved", "--reason", "r", "-C", str(repo)]
    monkeypatch.setenv("GASP_ACTOR_KIND", "agent")
    code, _, err = run(capsys, *args, "--decided-by", "user:ann")
    assert code == 1 and "an agent cannot record an Approved decision by user:ann" in err
    assert len(err.strip().splitlines()) <= 2 and log.read_bytes() == before
    # its own approval is recorded, and counts for nothing in the hooks
    code, _, err = run(capsys, *args)
    assert code == 0, err
    recorded = [json.loads(x) for x in log.read_text().splitlines()]
    decision = next(e for e in recorded if e["kind"] == "decision.created")
    assert decision["payload"]["decided_by"]["kind"] == "agent"
    assert not approves(parse_event(json.dumps(decision)))
    monkeypatch.delenv("GASP_ACTOR_KIND")
    code, _, err = run(capsys, *args, "--decided-by", "user:ann")
    assert code == 0, err
