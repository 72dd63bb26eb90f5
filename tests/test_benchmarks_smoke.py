"""Smoke tests for the benchmark generator (benchmarks/generate.py and the
modules it uses: agentsim, logs, repofiles).

A generated history must be a conformant agent repository (all seven checks
pass), one that git-gasp's writer can continue, and deterministic. No timings
are asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from git_gasp.agent.api import Agent
from git_gasp.agent.runs import close_run
from git_gasp.cli.root import main
from git_gasp.store.runmarker import LOCAL_PATHS

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import generate as gen  # noqa: E402
from logs import log_text  # noqa: E402
from repofiles import AGENT_ID  # noqa: E402

RUN_KINDS = {
    "run.started",
    "run.finished",
    "observation.created",
    "tool.called",
    "model.called",
    "failure.observed",
    "hypothesis.created",
    "patch.proposed",
    "eval.finished",
    "decision.created",
    "patch.status_changed",
}


def check_json(repo: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict:
    capsys.readouterr()
    code = main(["check", str(repo), "--json", *flags])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    return report


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def test_generated_history_passes_all_seven_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    head = gen.generate(repo, commits=12, target_log_bytes=60_000, seed=7)
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "12"
    assert git(repo, "status", "--porcelain") == ""
    for flags in (("--no-cache",), ()):
        report = check_json(repo, capsys, *flags)
        assert report["conformant"]
        assert [c["number"] for c in report["checks"] if c["passed"]] == list(range(1, 8))
    restore = report["checks"][5]
    assert any("identity hash verified" in n for n in restore["notes"])

    # every commit is a boundary commit with the runtime's trailers (§8)
    message = git(repo, "log", "-1", "--format=%B")
    subject, _, trailers = message.partition("\n\n")
    run_id, outcome = subject.removeprefix("run ").split(": ")
    assert trailers.splitlines()[:3] == [
        f"Run-Id: {run_id}",
        trailers.splitlines()[1],
        f"Outcome: {outcome}",
    ]
    assert trailers.splitlines()[1].startswith("Goal: goal_")

    # each commit appended to the log, the facts and the journal
    facts = (repo / "memory" / "facts.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(facts) == 12
    assert set(json.loads(facts[0])) == {"id", "ts_ms", "text", "derived_from", "supersedes"}
    assert (repo / "journal" / "JOURNAL.md").read_text(encoding="utf-8").count("\n## ") == 12

    # one more run commit (ordinary git commit) keeps the repo conformant
    new_head = gen.append_run(repo, seed=7)
    assert new_head != head
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "13"
    assert check_json(repo, capsys)["conformant"]


def test_generated_history_can_be_continued(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What rows e and f of benchmarks/run.py do: open the generated repo with
    the Python API, run, record, close with a boundary commit; still conformant."""
    repo = tmp_path / "agent"
    gen.generate(repo, commits=12, target_log_bytes=60_000, seed=7)
    ignored = (repo / ".gitignore").read_text().splitlines()
    assert set(LOCAL_PATHS) <= set(ignored)  # as `git gasp init` writes it

    with Agent.open(str(repo), worker="bench-smoke") as agent:
        assert agent.open_run is None
        assert agent.actor.id == AGENT_ID
        run_id = agent.start_run("continue the generated history")
        goal = agent.record_goal(None, "Keep retries reliable", "after the generated runs")
        agent.record_observation(None, "counter persisted", "the counter survives a timeout")
        closed = close_run(agent, "continued", goal=goal)
    assert closed.run_id == run_id and closed.commit is not None
    assert git(repo, "rev-parse", "HEAD").strip() == closed.commit
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "13"
    assert git(repo, "status", "--porcelain") == ""  # lease, marker: gone or ignored
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith(f"run {run_id}: continued\n\n")
    assert f"Goal: {goal}" in message
    report = check_json(repo, capsys)
    assert report["conformant"]
    assert [c["number"] for c in report["checks"] if c["passed"]] == list(range(1, 8))


def test_generator_is_deterministic(tmp_path: Path) -> None:
    a = gen.generate(tmp_path / "a", commits=5, target_log_bytes=20_000, seed=3)
    b = gen.generate(tmp_path / "b", commits=5, target_log_bytes=20_000, seed=3)
    c = gen.generate(tmp_path / "c", commits=5, target_log_bytes=20_000, seed=4)
    assert a == b
    assert a != c
    assert git(tmp_path / "a", "rev-list", "HEAD") == git(tmp_path / "b", "rev-list", "HEAD")
    assert gen.append_run(tmp_path / "a", seed=3) == gen.append_run(tmp_path / "b", seed=3)


def test_log_text_has_the_requested_events_and_kinds() -> None:
    text = log_text(events=2000, target_bytes=1_000_000, seed=5)
    lines = text.splitlines()
    assert len(lines) == 2000
    assert abs(len(text.encode()) - 1_000_000) < 150_000
    kinds = Counter(json.loads(line)["kind"] for line in lines)
    assert RUN_KINDS <= set(kinds)
    assert kinds["state.ops_applied"] == 1000
    assert text == log_text(events=2000, target_bytes=1_000_000, seed=5)


def test_real_shaped_history_is_conformant_and_pushes_through_the_hook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows l, r and s's history: a second facts file AGENT.md's Locations
    names, appended every commit; all seven checks pass, one more run commit
    appends to it too, and the server hook takes the whole history (no
    onboarding option) as git-gasp's default rules judge it."""
    from git_gasp.core.locations import parse_locations

    repo = tmp_path / "agent"
    gen.generate(repo, commits=12, target_log_bytes=60_000, seed=7, social=True)
    manifest = (repo / "AGENT.md").read_text(encoding="utf-8")
    locations, warnings = parse_locations(manifest)
    assert locations["facts"] == ("memory/facts.jsonl", "memory/social_facts.jsonl")
    assert warnings == []
    social = repo / "memory" / "social_facts.jsonl"
    assert len(social.read_text(encoding="utf-8").splitlines()) == 12
    assert git(repo, "log", "--format=%H", "--", "memory/social_facts.jsonl").count("\n") == 12
    assert check_json(repo, capsys, "--no-cache")["conformant"]
    gen.append_run(repo, seed=7)
    assert len(social.read_text(encoding="utf-8").splitlines()) == 13
    assert check_json(repo, capsys)["conformant"]

    server = tmp_path / "server.git"
    subprocess.run(["git", "init", "-q", "--bare", str(server)], check=True)
    assert (
        main(["hooks", "install", "--server", "--python", sys.executable, "-C", str(server)]) == 0
    )
    pushed = subprocess.run(
        ["git", "-C", str(repo), "push", str(server), "HEAD:refs/heads/main"],
        capture_output=True,
        text=True,
    )
    assert pushed.returncode == 0, pushed.stderr
    assert git(server, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
