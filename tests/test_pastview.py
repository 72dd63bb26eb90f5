"""restore --at checks out the past; --context within a budget; bounded lists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from git_gasp.agent.api import Agent

from .conftest import git, run_cli


def _events(repo: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (repo / "state" / "events.jsonl").read_text().splitlines()]


@pytest.fixture
def demo(template: Path, tmp_path: Path) -> Path:
    repo = tmp_path / "demo"
    shutil.copytree(template, repo, symlinks=True)
    return repo


def test_restore_at_checks_out_the_commit_that_holds_the_event(
    demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = demo / "skills" / "later" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: later\ndescription: a skill added after the runs\n---\n# later\n")
    git(demo, "add", "skills/later")
    git(demo, "commit", "-q", "--no-verify", "-m", "a later skill")
    first_run = next(e for e in _events(demo) if e["kind"] == "run.started")["correlation_id"]
    last_of_first = [e for e in _events(demo) if e["correlation_id"] == first_run][-1]["id"]
    boundary = git(demo, "log", "--format=%H", f"--grep=Run-Id: {first_run}").split()[0]

    dest = tmp_path / "past"
    code, out, err = run_cli(
        capsys, "restore", demo.as_uri(), str(dest), "--at", str(last_of_first), "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    head = git(demo, "rev-parse", "HEAD").strip()
    assert report["checkout"] == {"commit": boundary, "head": head, "event": last_of_first}
    assert git(dest, "rev-parse", "HEAD").strip() == boundary
    assert git(dest, "symbolic-ref", "-q", "HEAD", check=False) == ""  # detached
    assert not (dest / "skills" / "later").exists()
    assert "later" not in [s["name"] for s in report["skills"]["loaded"]]
    assert git(dest, "status", "--porcelain") == ""
    code, out, _ = run_cli(
        capsys, "restore", demo.as_uri(), str(tmp_path / "p2"), "--at", str(last_of_first)
    )
    assert code == 0
    assert f"{'checked out:':<17}{boundary} (detached HEAD: the commit that holds" in out
    assert "go on from it with: git switch -c NAME" in out

    # the log's last event is held by HEAD's run commit only: no checkout, the present
    newest = str(_events(demo)[-1]["id"])
    code, out, _ = run_cli(
        capsys, "restore", demo.as_uri(), str(tmp_path / "now"), "--at", newest, "--json"
    )
    assert json.loads(out)["checkout"] is None
    assert (tmp_path / "now" / "skills" / "later").exists()


def _busy(repo: Path, tasks: int, goals: int) -> None:
    with Agent.open(str(repo), worker="w") as agent:
        for i in range(goals):
            agent.record_goal(None, f"goal number {i}")
        for i in range(tasks):
            agent.record_task(None, f"task number {i} " + "x" * 40)


def test_the_context_document_fits_its_budget(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (fixture_repo / "identity" / "IDENTITY.md").write_text(
        "# Who I am\n\nI am evolve.\n\n## Skills\n\nMy own heading, not the document's.\n"
    )
    git(fixture_repo, "add", "-A")
    _busy(fixture_repo, 600, 3)
    from git_gasp.agent.identity import compute, set_identity_hash

    manifest = fixture_repo / "AGENT.md"
    manifest.write_text(set_identity_hash(manifest.read_text(), compute(str(fixture_repo))))
    ctx = tmp_path / "ctx.md"
    code, _, err = run_cli(capsys, "status", "-C", str(fixture_repo), "--context", str(ctx))
    assert code == 0, err
    text = ctx.read_text()
    assert len(text) <= 24_000
    assert "#### Who I am" in text and "##### Skills" in text and "I am evolve." in text
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == [
        "## Identity",
        "## Skills",
        "## Active memory",
        "## Open goals",
        "## Open runs",
        "## Recent runs",
        "## Open tasks",
    ]
    shown = text.count("\n- task `")
    assert "- goal `goal_retry`" in text and 0 < shown < 600
    last = text.rstrip().splitlines()[-1]
    assert last.startswith("_Cut to the --budget of 24,000 characters")
    assert f"left out {600 - shown} of 600 open tasks" in last

    code, _, _ = run_cli(
        capsys, "status", "-C", str(fixture_repo), "--context", str(ctx), "--budget", "3000"
    )
    small = ctx.read_text()
    assert code == 0 and len(small) <= 3000 and "I am evolve." in small
    code, _, _ = run_cli(
        capsys, "status", "-C", str(fixture_repo), "--context", str(ctx), "--budget", "0"
    )
    whole = ctx.read_text()
    assert code == 0 and whole.count("\n- task `") == 600 and "_Cut" not in whole
    code, _, err = run_cli(capsys, "status", "-C", str(fixture_repo), "--budget", "10")
    assert code == 2 and "at least 2000" in err


def test_restore_and_status_bound_their_lists(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _busy(fixture_repo, 0, 200)
    code, out, _ = run_cli(capsys, "status", "-C", str(fixture_repo))
    line = next(x for x in out.splitlines() if x.startswith("open goals:"))
    assert code == 0 and len(line) < 700  # ten ids, not two hundred
    assert line.endswith(
        "… and 191 more (see `git gasp nodes --kind goal --status Open --status InProgress`)"
    )
    code, out, _ = run_cli(capsys, "status", "-C", str(fixture_repo), "--json")
    assert len(json.loads(out)["open_goals"]) == 201  # --json keeps everything
