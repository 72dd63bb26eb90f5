"""git gasp handoff --to claude-code|codex (issue 20, items 6 and 8).

The user's own CLAUDE.md / AGENTS.md and skills are never replaced; a re-run
changes nothing; and a session recorded from Claude Code, handed to Codex,
leaves AGENTS.md (what Codex loads) holding the last run's outcome.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_gasp.live.handoff import BEGIN, END
from tests import transcripts as T
from tests.conftest import commit_all, git, run_cli

USER_CLAUDE = "# My project\n\nAlways run `make lint` first.\n"
USER_AGENTS = "# Repository rules\n\nUse tabs.\n"


def _skill(root: Path, name: str, body: str = "Do it.\n") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} things\n---\n{body}")


@pytest.fixture
def agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", str(repo), "--agent-id", "handed")[0] == 0
    _skill(repo / "skills", "deploy")
    (repo / "skills" / "deploy" / "scripts").mkdir()
    (repo / "skills" / "deploy" / "scripts" / "go.sh").write_text("make deploy\n")
    _skill(repo / "skills", "review")
    commit_all(repo, "skills")
    return repo


def _handoff(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, "handoff", *argv, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def _not_taken(report: dict[str, Any], kind: str) -> dict[str, str]:
    return {n["what"]: n["reason"] for n in report["notTaken"] if n["kind"] == kind}


def test_handoff_to_claude_code_keeps_the_users_claude_md_and_skills(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    (work / ".claude" / "skills").mkdir(parents=True)
    (work / "CLAUDE.md").write_text(USER_CLAUDE)
    _skill(work / ".claude" / "skills", "review", "My own review steps.\n")
    mine = (work / ".claude" / "skills" / "review" / "SKILL.md").read_bytes()
    report = _handoff(capsys, "--to", "claude-code", str(work), "--repo", str(agent))
    text = (work / "CLAUDE.md").read_text()
    assert text.startswith(USER_CLAUDE)
    assert (
        f"{BEGIN}\n" in text
        and "\n@.gasp/handoff/CONTEXT.md\n" in text
        and text.endswith(f"{END}\n")
    )
    context = (work / ".gasp" / "handoff" / "CONTEXT.md").read_text()
    assert context.startswith("# Agent context: handed") and "## Skills" in context
    assert (work / ".gasp" / "handoff" / ".gitignore").read_text().endswith("*\n")
    copied = work / ".claude" / "skills" / "deploy"
    assert (copied / "scripts" / "go.sh").read_text() == "make deploy\n"
    assert (work / ".claude" / "skills" / "review" / "SKILL.md").read_bytes() == mine
    assert "already there" in _not_taken(report, "skill")["review"]
    assert {"sessions", "settings", "tools"} <= {n["kind"] for n in report["notTaken"]}
    assert all(n["reason"] for n in report["notTaken"])
    taken = {t["kind"]: t for t in report["taken"] if t["kind"] != "skill"}
    assert taken["instructions"]["what"] == "CLAUDE.md" and taken["instructions"]["changed"]
    files = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    again = _handoff(capsys, "--to", "claude-code", str(work), "--repo", str(agent))
    assert {p: p.read_bytes() for p in work.rglob("*") if p.is_file()} == files
    assert not any(t["changed"] for t in again["taken"])
    (copied / "SKILL.md").write_text("edited by hand\n")  # now the user's: left alone
    third = _handoff(capsys, "--to", "claude-code", str(work), "--repo", str(agent))
    assert (copied / "SKILL.md").read_text() == "edited by hand\n"
    assert "deploy" in _not_taken(third, "skill")
    code, out, _ = run_cli(
        capsys, "handoff", "--to", "claude-code", str(work), "--repo", str(agent)
    )
    assert code == 0 and "taken:" in out and "not taken:" in out and "review:" in out


def test_handoff_to_codex_merges_into_agents_md(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "AGENTS.md").write_text(USER_AGENTS + f"\n{BEGIN}\nan old handoff\n{END}\n\n## After\n")
    monkeypatch.chdir(work)  # DIR defaults to here
    monkeypatch.setenv("GASP_AGENT_REPO", str(agent))
    report = _handoff(capsys, "--to", "codex")
    text = (work / "AGENTS.md").read_text()
    assert text.startswith(USER_AGENTS) and text.endswith(f"{END}\n\n## After\n")
    assert "an old handoff" not in text and text.count(BEGIN) == 1
    assert "# Agent context: handed" in text and "@.gasp" not in text  # Codex has no imports
    assert len(text.encode()) <= 32 * 1024
    assert (work / ".agents" / "skills" / "review" / "SKILL.md").is_file()
    assert report["dir"] == str(work) and report["to"] == "codex"


def test_codex_reads_agents_override_md_and_broken_markers_are_left(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "AGENTS.md").write_text(USER_AGENTS)
    (work / "AGENTS.override.md").write_text("# override\n")
    _handoff(capsys, "--to", "codex", str(work), "--repo", str(agent))
    assert (work / "AGENTS.md").read_text() == USER_AGENTS
    assert BEGIN in (work / "AGENTS.override.md").read_text()
    (work / "CLAUDE.md").write_text(f"mine\n{BEGIN}\nno end\n")
    report = _handoff(capsys, "--to", "claude-code", str(work), "--repo", str(agent))
    assert (work / "CLAUDE.md").read_text() == f"mine\n{BEGIN}\nno end\n"
    assert "without its pair" in _not_taken(report, "instructions")["CLAUDE.md"]


def test_handoff_refuses_bad_input_in_one_line(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        capsys, "handoff", "--to", "codex", str(tmp_path / "nowhere"), "--repo", str(agent)
    )
    assert code == 2 and "no such directory" in err
    code, _, err = run_cli(
        capsys, "handoff", "--to", "codex", str(tmp_path), "--repo", str(tmp_path)
    )
    assert code == 2 and "git gasp init" in err
    code, _, err = run_cli(capsys, "handoff", "--to", "gemini", str(tmp_path))
    assert code == 2 and "gemini" in err


def test_a_claude_code_session_handed_to_codex_starts_knowing_its_outcome(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recorded from Claude Code (its transcript projected as import and the
    live flush both project it), handed to Codex: AGENTS.md, which Codex loads
    at its start, holds the run, its outcome and its goal."""
    top = tmp_path / "cc" / "projects" / "-srv-example-app"
    T.write_claude(str(top), "2.1.173")
    code, out, err = run_cli(
        capsys, "import", "claude-code", str(top), "--repo", str(agent), "--json"
    )
    assert code == 0, err
    (session,) = json.loads(out)["sessions"]
    run_id, outcome = session["run_id"], session["outcome"]
    assert f"Outcome: {outcome}" in git(agent, "log", "-1", "--format=%B")
    work = tmp_path / "codex-work"
    work.mkdir()
    (work / "AGENTS.md").write_text(USER_AGENTS)
    _handoff(capsys, "--to", "codex", str(work), "--repo", str(agent))
    loaded = (work / "AGENTS.md").read_text()
    assert loaded.startswith(USER_AGENTS)
    recent = loaded[loaded.index("## Recent runs") :]
    assert f"`{run_id}`" in recent and f"): {outcome}" in recent
    assert "Fix the retry bug in src/retry.py" in loaded  # what the session was asked


def test_symlinks_in_a_skill_are_not_carried_and_a_rerun_is_still_unchanged(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (agent / "skills" / "deploy" / "link").symlink_to(agent / "AGENT.md")
    work = tmp_path / "work"
    work.mkdir()
    first = _handoff(capsys, "--to", "codex", str(work), "--repo", str(agent))
    assert "a symlink" in _not_taken(first, "skill file")[".agents/skills/deploy/link"]
    assert not (work / ".agents" / "skills" / "deploy" / "link").exists()
    again = _handoff(capsys, "--to", "codex", str(work), "--repo", str(agent))
    assert not any(t["changed"] for t in again["taken"])


def test_handoff_inside_an_agent_repo_hands_off_that_repo_and_says_so(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GASP_AGENT_REPO", raising=False)
    monkeypatch.chdir(agent)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    code, out, err = run_cli(capsys, "handoff", "--to", "codex", str(workspace))
    assert code == 0, err
    assert out.splitlines()[0] == f"handed {agent} to codex in {workspace}"
    assert "handed" in (workspace / "AGENTS.md").read_text()
    # $GASP_AGENT_REPO still comes before the current directory
    other = tmp_path / "other"
    assert run_cli(capsys, "init", str(other), "--agent-id", "other")[0] == 0
    monkeypatch.setenv("GASP_AGENT_REPO", str(other))
    assert _handoff(capsys, "--to", "codex", str(workspace))["repo"] == str(other)
