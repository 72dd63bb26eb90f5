"""Agent repositories as they are found in the wild, rebuilt synthetically.

The shape is that of a seeded yoyo-evolve state repository (the public
yologdev/yoyo-gasp and its fork MKonovalov/arc-gasp): one seed commit
holding the whole history (hundreds of events, no boundary commit, so no
``Run-Id`` trailer anywhere), a genesis run whose ``run.finished`` has no ops
pair, an observation payload with the pre-0.3 ``observed_in`` field, status
changes written by a ``system`` actor, a manifest whose Locations table is
prose and whose identity recipe is a second fenced block, legacy-format
facts lines, a ``skills/_journal.md`` that is no skill, identity files in
CRLF and with a BOM, and a file that is not UTF-8. No content is copied.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from git_gasp.check.conformance import run_all

from .conftest import commit_all, git, run_cli

IDENTITY = {
    "identity/IDENTITY.md": b"# who\n\nI am zed.\n",
    "identity/PERSONALITY.md": b"curious\r\n",
    "identity/PRINCIPLES.md": "\ufeffeconomics\n".encode(),
}


def _identity_hash() -> str:
    digest = hashlib.sha256()
    for rel in sorted(IDENTITY):
        digest.update(rel.encode() + b"\n" + IDENTITY[rel])
    return digest.hexdigest()


def _manifest() -> str:
    return (
        "# AGENT \u2014 zed \U0001f419\n\n```yaml\nspec_version: 1\nagent_id: zed\n"
        f"identity_hash: {_identity_hash()}\nexecutor: .agent/config.toml\n```\n\n"
        "## Locations\n\n| GASP role | path | notes |\n|---|---|---|\n"
        "| event log | `state/events.jsonl` | source of truth, append-only |\n"
        "| skills | `skills/` | versioned; `skills/_journal.md` is a journal, not a skill |\n"
        "| facts | `memory/facts.jsonl` (+ `memory/social_facts.jsonl`) | append-only |\n\n"
        "## Identity hash recipe\n\n```\nfind identity -type f | LC_ALL=C sort | "
        'while IFS= read -r f; do printf \'%s\\n\' "$f"; cat "$f"; done | shasum -a 256\n```\n'
    )


class _Log:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0

    def add(
        self,
        kind: str,
        payload: object,
        cause: str | None,
        corr: str | None,
        actor: tuple[str, str] = ("agent", "zed"),
    ) -> str:
        self.n += 1
        event_id = f"event_{self.n:032x}"
        envelope = {
            "id": event_id,
            "schema_version": 1,
            "ts_ms": 1783028351924 + self.n,
            "actor": {"kind": actor[0], "id": actor[1]},
            "kind": kind,
            "payload": payload,
            "causation_id": cause,
            "correlation_id": corr,
        }
        self.lines.append(json.dumps(envelope, separators=(",", ":"), ensure_ascii=False))
        return event_id


def _genesis(log: _Log) -> None:
    created = {"id": "goal_keep", "status": "Open", "title": "Keep"}
    goal = log.add("goal.created", created, None, None)
    create = {"id": "goal_keep", "kind": "goal", "props": {"status": "Open", "title": "Keep"}}
    log.add("state.ops_applied", [{"CreateNode": create}], goal, None)
    run = log.add("run.started", {"run_id": "run_genesis", "task": "bootstrap"}, None, None)
    props = {"status": "started", "task": "bootstrap"}
    node = {"id": "run_genesis", "kind": "run", "props": props}
    log.add("state.ops_applied", [{"CreateNode": node}], run, None)
    seen = {"id": "obs_seed", "observed_in": "run_genesis", "title": "seeded"}
    obs = log.add("observation.created", seen, run, None)
    edge = {"from": "obs_seed", "props": {}, "rel": "observes", "to": "run_genesis"}
    made = {"id": "obs_seed", "kind": "observation", "props": {"title": "seeded"}}
    log.add("state.ops_applied", [{"CreateNode": made}, {"CreateRelation": edge}], obs, None)
    log.add("run.finished", {"outcome": "seeded", "run_id": "run_genesis"}, run, None)


def _evolve_run(log: _Log, day: int) -> None:
    rid = f"run_day{day}_20260703T093850Z"
    run = log.add("run.started", {"run_id": rid, "task": f"evolve day {day}"}, None, rid)
    props = {"status": "started", "task": f"evolve day {day}"}
    node = {"id": rid, "kind": "run", "props": props}
    log.add("state.ops_applied", [{"CreateNode": node}], run, rid)
    patch = f"patch_{rid}_1"
    proposed = {"id": patch, "status": "Proposed", "title": "Self-improvement"}
    made = log.add("patch.proposed", proposed, run, rid)
    node = {"id": patch, "kind": "patch", "props": {"status": "Proposed"}}
    log.add("state.ops_applied", [{"CreateNode": node}], made, rid)
    system = ("system", "yoagent-state")
    changed = {"patch_id": patch, "reason": None, "status": "Promoted"}
    status = log.add("patch.status_changed", changed, run, rid, system)
    update = {"id": patch, "props": {"status": "Promoted", "status_reason": None}}
    log.add("state.ops_applied", [{"UpdateNode": update}], status, rid, system)
    done = log.add("run.finished", {"outcome": "promoted 1/1", "run_id": rid}, run, rid)
    finish = {"id": rid, "props": {"outcome": "promoted 1/1", "status": "finished"}}
    log.add("state.ops_applied", [{"UpdateNode": finish}], done, rid)


def _legacy_facts() -> bytes:
    lines = [
        json.dumps({"type": "lesson", "day": d, "ts": f"2026-03-{d:02d}T17:14Z", "title": "t"})
        for d in range(1, 29)
    ]
    return ("\n".join(lines) + "\n").encode()


def seeded(repo: Path, days: int = 40) -> Path:
    """The seeded repository, in one commit with no trailers."""
    log = _Log()
    _genesis(log)
    for day in range(125, 125 + days):
        _evolve_run(log, day)
    files = {
        **IDENTITY,
        "AGENT.md": _manifest().encode(),
        ".agent/config.toml": b'[executor]\nprovider = "anthropic"\nmodel = "m"\n',
        "state/events.jsonl": ("\n".join(log.lines) + "\n").encode(),
        "memory/facts.jsonl": _legacy_facts(),
        "skills/_journal.md": b"# skill journal\n",
        "skills/social/SKILL.md": b"\xef\xbb\xbf---\r\nname: social\r\ndescription: t\r\n---\r\n",
        "journal/JOURNAL.md": b"# Journal\r\n\r\n## Day 1\r\nseeded\r\n",
        "DREAM.md": b"dream \xe9\xff\n",
    }
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    git(repo, "init", "-q")
    commit_all(repo, "seed: zed's state from zed-evolve")
    return repo


@pytest.fixture
def wild(tmp_path: Path) -> Path:
    path = tmp_path / "zed"
    path.mkdir()
    return seeded(path)


def test_the_seeded_shape_is_conformant(wild: Path) -> None:
    assert [r.failures for r in run_all(str(wild))] == [()] * 7


def test_runs_of_a_seed_commit_say_the_log_records_them(
    wild: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No commit carries a Run-Id trailer, yet the log records 41 runs: an
    empty answer alone reads as an agent that never ran."""
    monkeypatch.chdir(wild)
    code, out, err = run_cli(capsys, "runs")
    assert (code, out) == (0, "")
    assert "no runs in HEAD: no commit there has a Run-Id trailer" in err
    assert "its log records 41 runs" in err
    assert "git gasp nodes --kind run" in err
    code, _, err = run_cli(capsys, "runs", "--outcome", "seeded")
    assert err.strip() == "no runs in HEAD match --outcome seeded"  # a filter: its own answer


def test_a_seeded_genesis_run_finished_without_its_ops_pair_is_not_to_abandon(
    wild: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run_genesis's run.finished (outcome "seeded") has no ops pair, so its
    node still says started; restore and status said "no runtime resumes
    them", offered to mark it finished with outcome "abandoned", and the
    --context document listed it under open runs."""
    bare = tmp_path / "zed.git"
    git(tmp_path, "clone", "-q", "--bare", str(wild), str(bare))
    code, out, err = run_cli(capsys, "restore", bare.as_uri(), str(tmp_path / "restored"))
    assert code == 0, err
    line = "stale runs:      run_genesis (seeded): finished by a run.finished without its ops pair"
    assert line in out
    assert "mark one finished with" not in out and "abandoned" not in out
    code, out, _ = run_cli(capsys, "status", "--json", "-C", str(tmp_path / "restored"))
    stale = json.loads(out)["stale_runs"]
    assert stale == [
        {"id": "run_genesis", "task": "bootstrap", "finished": True, "outcome": "seeded"}
    ]
    code, out, _ = run_cli(capsys, "status", "--context", "-", "-C", str(tmp_path / "restored"))
    assert "run_genesis" not in out.split("## Open runs")[1].split("##")[0]


def test_a_log_saved_with_a_byte_order_mark_is_named_so(
    wild: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log saved "UTF-8 with BOM" fails to parse, as in the reference;
    every command said only "Expecting value: line 1 column 1"."""
    log = wild / "state" / "events.jsonl"
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes())
    commit_all(wild, "re-saved by an editor")
    monkeypatch.chdir(wild)
    bom = "a byte order mark (U+FEFF, bytes EF BB BF) starts it; JSON allows none"
    code, out, _ = run_cli(capsys, "check")
    assert code == 1
    assert f"line 1: not JSON: {bom} (Expecting value: line 1 column 1)" in out
    for argv in (["fold"], ["status"], ["show", "goal_keep"]):
        code, _, err = run_cli(capsys, *argv)
        assert code != 0 and f"state/events.jsonl:1: corrupt event: {bom}" in err, argv


def test_identity_files_in_crlf_or_with_a_bom_read_as_text_in_the_context(
    wild: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hash covers the bytes (verified above); the document an agent
    reads had an escaped \\r ending every CRLF line and the BOM's invisible
    character before the first word."""
    code, out, _ = run_cli(capsys, "status", "--context", "-", "-C", str(wild))
    assert code == 0
    identity = out.split("## Identity")[1].split("## Skills")[0]
    assert "### identity/PERSONALITY.md\n\ncurious\n" in identity
    assert "### identity/PRINCIPLES.md\n\neconomics\n" in identity
    assert "\\r" not in identity and "\ufeff" not in identity
    assert "identity verified" in out


def test_the_recent_runs_of_a_seeded_log_come_from_the_log(
    wild: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No boundary commit names a run, so status said "last run: none" and
    the --context document had no recent runs, over a log of 41 finished
    runs: a new session started knowing nothing of what the agent did."""
    code, out, err = run_cli(capsys, "status", "-C", str(wild))
    assert code == 0, err
    newest = "run_day164_20260703T093850Z"
    assert f"last run:        {newest} — promoted 1/1 (in the log; no boundary commit)" in out
    code, out, _ = run_cli(capsys, "status", "--json", "-C", str(wild))
    assert json.loads(out)["last_run"] == {
        "run_id": newest,
        "outcome": "promoted 1/1",
        "commit": None,
        "goal": None,
    }
    code, out, _ = run_cli(capsys, "status", "--context", "-", "-C", str(wild))
    recent = out.split("## Recent runs")[1].split("\n## ")[0].strip().splitlines()
    assert [line.split("`")[1] for line in recent] == [
        f"run_day{d}_20260703T093850Z" for d in (164, 163, 162, 161, 160)
    ]
    assert recent[0].endswith(
        ", finished in the log, no boundary commit): promoted 1/1 — evolve day 164"
    )
