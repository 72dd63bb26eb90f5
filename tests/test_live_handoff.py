"""Issue 20, the loop end to end with scripted payloads: the hook entries
``adapt claude-code install`` writes are run as Claude Code runs them (the
command line, through a shell, the payload on stdin), the session closes into
a run, ``handoff --to codex`` writes AGENTS.md, and Codex starts knowing the
last run's outcome (in AGENTS.md, and in its SessionStart hook's context)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from git_gasp.cli.root import main
from tests import live_payloads as L
from tests import transcripts as T
from tests.conftest import git

SID = T.SESSION


def _installed(settings: Path, event: str, harness: str) -> str:
    """The command git-gasp's entry for ``event`` runs, as installed."""
    for group in json.loads(settings.read_text())["hooks"][event]:
        for entry in group["hooks"]:
            if f" adapt hook {harness} " in entry["command"]:
                return str(entry["command"])
    raise AssertionError(f"no git-gasp entry for {event}")


def _run(command: str, payload: dict[str, Any], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GASP_LIVE_FLUSH": "off"}
    return subprocess.run(
        command, shell=True, input=json.dumps(payload).encode(), capture_output=True,
        cwd=cwd, env=env, timeout=300,
    )  # fmt: skip


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# long: the whole loop, asserted as it goes
def test_recorded_in_claude_code_handed_to_codex_knows_the_last_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    assert main(["init", str(agent), "--agent-id", "live"]) == 0
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    monkeypatch.chdir(work)
    _json(capsys, "adapt", "claude-code", "install", "--repo", str(agent))
    settings = work / ".claude" / "settings.local.json"
    transcript = T.write_claude(str(tmp_path / "cc" / "projects" / "-srv-app"), L.CC_MID)
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        payload = L.claude(event, L.CC_MID, SID, transcript, str(work))
        done = _run(_installed(settings, event, "claude-code"), payload, work)
        assert done.returncode == 0 and done.stderr == b""
    (closed,) = _json(capsys, "adapt", "flush", "--repo", str(agent))["sessions"]
    assert closed["closed"] and closed["commit"]
    outcome = git(agent, "log", "-1", "--format=%(trailers:key=Outcome,valueonly)").strip()
    assert outcome and closed["run_id"] in git(agent, "log", "-1", "--format=%B")
    status = _json(capsys, "adapt", "status")["agents"][0]
    assert status["repos"][0]["seen"]["version"] == L.CC_MID and status["repos"][0]["errors"] == []
    (local,) = [f for f in status["files"] if f["scope"] == "local"]
    assert {d.split(":")[0] for d in local["drift"]} == {"PreModelSwitch", "PostModelSwitch"}
    again = _json(capsys, "adapt", "claude-code", "install", "--repo", str(agent))  # for 2.1.173
    assert set(again["events"]["removed"]) == {"PreModelSwitch", "PostModelSwitch"}
    status = _json(capsys, "adapt", "status")["agents"][0]
    assert not any(f["drift"] for f in status["files"])

    codex_work = tmp_path / "codex-work"
    codex_work.mkdir()
    git(codex_work, "init", "-q")
    (codex_work / "AGENTS.md").write_text("# Rules\n\nUse tabs.\n")
    _json(capsys, "handoff", "--to", "codex", str(codex_work), "--repo", str(agent))
    loaded = (codex_work / "AGENTS.md").read_text()
    assert loaded.startswith("# Rules\n\nUse tabs.\n")
    recent = loaded[loaded.index("## Recent runs") :]
    assert f"`{closed['run_id']}`" in recent and f"): {outcome}" in recent
    # the run's line says what the session was asked, too
    (line,) = [x for x in recent.splitlines() if closed["run_id"] in x]
    assert line.endswith(f"): {outcome} — Fix the retry bug in src/retry.py and run the tests")

    monkeypatch.chdir(codex_work)
    _json(capsys, "adapt", "codex", "install", "--repo", str(agent))
    command = _installed(codex_work / ".codex" / "hooks.json", "SessionStart", "codex")
    start = _run(command, L.codex("SessionStart", "codex-1", None, str(codex_work)), codex_work)
    assert start.returncode == 0
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"`{closed['run_id']}`" in context and outcome in context
