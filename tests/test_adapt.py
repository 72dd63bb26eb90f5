"""git gasp adapt claude-code|codex install/uninstall and adapt status (issue 20, items 1, 8).

Real settings files holding other tools' hooks (Entire's and Git AI's, as
their installers write them), real agent repositories made by ``git gasp init``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_gasp.live.settings import CLAUDE_EVENTS, CODEX_EVENTS
from tests import transcripts as T
from tests.conftest import git, run_cli

ENTIRE_CC = {
    "SessionStart": [
        {"hooks": [{"type": "command", "command": "entire hooks claude-code session-start"}]}
    ],
    "UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "entire hooks claude-code user-prompt-submit"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "entire hooks claude-code stop"}]}],
    "PreToolUse": [
        {
            "matcher": "Task",
            "hooks": [{"type": "command", "command": "entire hooks claude-code pre-task"}],
        }
    ],
    "PostToolUse": [
        {
            "matcher": "Task",
            "hooks": [{"type": "command", "command": "entire hooks claude-code post-task"}],
        },
        {
            "matcher": "Write|Edit|MultiEdit",
            "hooks": [
                {"type": "command", "command": "git-ai checkpoint claude --hook-input stdin"}
            ],
        },
    ],
}
SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"deny": ["Read(./.entire/metadata/**)"]},
    "hooks": ENTIRE_CC,
    "model": "opus",
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
}
ENTIRE_CODEX = {
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "entire hooks codex stop", "timeout": 30}]}
        ],
        "PostToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "git-ai checkpoint codex"}],
            }
        ],
    }
}


@pytest.fixture
def agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", str(repo), "--agent-id", "live")[0] == 0
    return repo


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    git(work, "init", "-q")
    (work / "src").mkdir()
    monkeypatch.chdir(work / "src")  # the top of the work tree is found from below
    return work


def _write(path: Path, value: Any, indent: int | str | None = 4) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=indent) + "\n")
    return path.read_bytes()


def _ours(value: dict[str, Any], harness: str = "claude-code") -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for event, groups in value.get("hooks", {}).items():
        for group in groups:
            for entry in group["hooks"]:
                if f" adapt hook {harness} --repo " in entry.get("command", ""):
                    out.setdefault(event, []).append(entry)
    return out


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_install_merges_beside_entire_and_git_ai_and_uninstall_restores(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".claude" / "settings.json"
    before = _write(path, SETTINGS)
    report = _json(
        capsys, "adapt", "claude-code", "install", "--scope", "project", "--repo", str(agent)
    )
    assert report["file"] == str(path) and report["repo"] == str(agent)
    value = json.loads(path.read_text())
    assert list(value) == list(SETTINGS)  # key order and every other key kept
    assert value["permissions"] == SETTINGS["permissions"]
    assert value["statusLine"] == SETTINGS["statusLine"]
    assert path.read_text().startswith('{\n    "$schema"')  # the file's indentation
    for event, groups in ENTIRE_CC.items():  # theirs first, untouched, then ours
        assert value["hooks"][event][: len(groups)] == groups
    ours = _ours(value)
    assert set(ours) == {w.event for w in CLAUDE_EVENTS}
    assert all(len(entries) == 1 for entries in ours.values())
    command = ours["Stop"][0]["command"]
    assert command.endswith(f"adapt hook claude-code --repo {agent}")
    assert Path(command.split()[0]).name == "git-gasp" and Path(command.split()[0]).is_absolute()
    assert ours["PostToolUse"][0]["async"] is True and "async" not in ours["SessionStart"][0]
    assert ours["SessionEnd"][0]["timeout"] >= 10
    installed = path.read_bytes()
    again = _json(
        capsys, "adapt", "claude-code", "install", "--scope", "project", "--repo", str(agent)
    )
    assert path.read_bytes() == installed and again["events"]["added"] == []
    assert len(again["events"]["unchanged"]) == len(CLAUDE_EVENTS)
    gone = _json(capsys, "adapt", "claude-code", "uninstall", "--scope", "project")
    assert sorted(gone["removed"]) == sorted(w.event for w in CLAUDE_EVENTS)
    assert json.loads(path.read_text()) == SETTINGS and path.read_bytes() == before
    code, out, _ = run_cli(capsys, "adapt", "claude-code", "uninstall", "--scope", "project")
    assert code == 0 and "nothing of git-gasp" in out and path.read_bytes() == before


def test_reinstall_updates_in_place_without_duplicates(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".claude" / "settings.local.json"  # the default scope
    run_cli(capsys, "adapt", "claude-code", "install", "--repo", str(agent))
    value = json.loads(path.read_text())
    stop = value["hooks"]["Stop"]
    stop.insert(0, {"hooks": [{"type": "command", "command": "entire hooks claude-code stop"}]})
    stop[1]["hooks"][0]["command"] = f"/old/venv/bin/git-gasp adapt hook claude-code --repo {agent}"
    stop[1]["hooks"].append({"type": "command", "command": "echo mine"})
    value["hooks"]["PostToolUse"].append(dict(value["hooks"]["PostToolUse"][0]))  # a duplicate
    _write(path, value, 2)
    report = _json(capsys, "adapt", "claude-code", "install", "--repo", str(agent))
    assert set(report["events"]["updated"]) == {"Stop", "PostToolUse"}
    value = json.loads(path.read_text())
    stop = value["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "entire hooks claude-code stop"
    assert stop[1]["hooks"][0]["command"].startswith("/") and "/old/" not in json.dumps(stop)
    assert stop[1]["hooks"][1] == {"type": "command", "command": "echo mine"}
    assert len(stop) == 2 and len(value["hooks"]["PostToolUse"]) == 1


def test_user_scope_honours_claude_config_dir(
    agent: Path,
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "cc-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    report = _json(
        capsys, "adapt", "claude-code", "install", "--scope", "user", "--repo", str(agent)
    )
    assert report["file"] == str(config / "settings.json")
    assert set(_ours(json.loads((config / "settings.json").read_text()))) == {
        w.event for w in CLAUDE_EVENTS
    }


def test_events_follow_the_version(
    agent: Path,
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "cc-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    T.write_claude(str(config / "projects" / "-srv-app"), "2.0.49")  # the newest transcript's
    report = _json(capsys, "adapt", "claude-code", "install", "--repo", str(agent))
    assert report["version"] == {"version": "2.0.49", "from": "transcript"}
    events = set(_ours(json.loads((project / ".claude" / "settings.local.json").read_text())))
    assert events.isdisjoint({"StopFailure", "PostCompact", "PreModelSwitch", "PostModelSwitch"})
    assert {"SessionStart", "Stop", "SubagentStart", "SessionEnd"} <= events
    value = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert "async" not in json.dumps(value)  # 2.0 waits for every hook
    newer = _json(
        capsys,
        "adapt",
        "claude-code",
        "install",
        "--repo",
        str(agent),
        "--agent-version",
        "2.1.260",
    )
    assert {"StopFailure", "PostModelSwitch"} <= set(newer["events"]["added"])
    older = _json(
        capsys, "adapt", "claude-code", "install", "--repo", str(agent), "--agent-version", "2.1.0"
    )
    assert set(older["events"]["removed"]) == {
        "StopFailure",
        "PostCompact",
        "PreModelSwitch",
        "PostModelSwitch",
    }
    code, _, err = run_cli(
        capsys, "adapt", "claude-code", "install", "--repo", str(agent), "--agent-version", "new"
    )
    assert code == 2 and "not a version" in err


def test_codex_install_beside_others_and_the_trust_step(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / ".codex" / "hooks.json"
    before = _write(path, ENTIRE_CODEX, 2)
    (project / ".codex" / "config.toml").write_text("[features]\ncodex_hooks = false\n")
    code, out, _ = run_cli(capsys, "adapt", "codex", "install", "--repo", str(agent))
    assert code == 0 and "/hooks" in out and "codex_hooks = false" in out
    value = json.loads(path.read_text())
    assert value["hooks"]["Stop"][0] == ENTIRE_CODEX["hooks"]["Stop"][0]
    assert value["hooks"]["PostToolUse"][0] == ENTIRE_CODEX["hooks"]["PostToolUse"][0]
    ours = _ours(value, "codex")
    assert set(ours) == {w.event for w in CODEX_EVENTS}
    assert ours["SessionEnd"][0]["timeout"] <= 3 and "async" not in ours["Stop"][0]
    assert _json(capsys, "adapt", "codex", "uninstall")["removed"]
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n', "line 3, column"),
        ('{"hooks": []}', '"hooks" is not an object'),
        ('{"hooks": {"Stop": {"hooks": []}}}', '"hooks.Stop" is not a list'),
        ('{"hooks": {"Stop": [5]}}', '"hooks.Stop[0]" is not a matcher group'),
        ('{"hooks": {"Stop": [{"hooks": "x"}]}}', '"hooks.Stop[0].hooks" is not a list of hook'),
        ("[1, 2]", "not a JSON object"),
        ('{"hooks": {}, "model": "a", "model": "b"}', "the key 'model' appears twice"),
    ],
)
def test_malformed_settings_are_refused_and_left_as_is(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str], text: str, why: str
) -> None:
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text(text)
    code, out, err = run_cli(capsys, "adapt", "claude-code", "install", "--repo", str(agent))
    assert code == 2 and out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"error: {path}: ") and why in first and "left as is" in first
    assert "git gasp adapt claude-code install" in err
    assert path.read_text() == text
    # uninstall has nothing to take from an event of another shape; the rest it refuses too
    code = run_cli(capsys, "adapt", "claude-code", "uninstall")[0]
    assert code == (0 if "hooks.Stop" in why else 2) and path.read_text() == text


def test_install_refuses_what_is_not_an_agent_repository(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "adapt", "claude-code", "install", "--repo", str(tmp_path))
    assert code == 2 and "not an agent repository" in err and "git gasp init" in err
    code, _, err = run_cli(capsys, "adapt", "codex", "install")
    assert code == 2 and "no agent repository to record into" in err
    assert not (project / ".claude").exists() and not (project / ".codex").exists()


def test_install_takes_the_agent_repository_from_config(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(project, "config", "gasp.agentRepo", str(agent))
    assert _json(capsys, "adapt", "codex", "install")["repo"] == str(agent)


def _live(agent: Path) -> Path:
    live = agent / ".git" / "gasp" / "live"
    live.mkdir(parents=True, exist_ok=True)
    return live


def test_status_reports_files_versions_errors_and_drift(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _json(capsys, "adapt", "status")
    assert [a["installed"] for a in empty["agents"]] == [False, False]
    path = project / ".claude" / "settings.json"
    _write(path, SETTINGS)
    install = ("adapt", "claude-code", "install", "--scope", "project", "--agent-version")
    run_cli(capsys, *install, "2.1.173", "--repo", str(agent))
    value = json.loads(path.read_text())
    del value["hooks"]["SessionEnd"]
    value["hooks"]["Stop"][-1]["hooks"][0]["timeout"] = 1
    value["hooks"]["PreCompact"][-1]["matcher"] = "manual"
    _write(path, value)
    seen = {"version": "2.1.173", "ts": "2026-12-01T10:00:00Z", "event": "Stop", "session": "s1"}
    (_live(agent) / "seen-claude-code.json").write_text(json.dumps(seen))
    errors = [
        {
            "ts": f"2026-12-01T10:00:0{i}Z",
            "harness": "claude-code",
            "event": "Stop",
            "error": f"boom {i}",
        }
        for i in range(7)
    ]
    log = [json.dumps(e) + "\n" for e in errors]
    (_live(agent) / "errors.log.1").write_text("".join(log[:4]))  # rotated
    (_live(agent) / "errors.log").write_text("".join(log[4:]))
    report = _json(capsys, "adapt", "status")
    claude = report["agents"][0]
    assert claude["harness"] == "claude-code" and claude["installed"]
    (project_file,) = [f for f in claude["files"] if f["scope"] == "project"]
    assert project_file["repos"] == [str(agent)] and "SessionEnd" not in project_file["events"]
    assert set(project_file["drift"]) == {
        "SessionEnd: removed",
        "Stop: changed (timeout)",
        "PreCompact: limited to matcher 'manual'",
    }
    (repo,) = claude["repos"]
    assert repo["seen"]["version"] == "2.1.173" and repo["in_tested_range"] is True
    assert [e["error"] for e in repo["errors"]] == [f"boom {i}" for i in range(2, 7)]
    code, out, _ = run_cli(capsys, "adapt", "status")
    assert code == 0
    assert "claude-code: installed" in out and "codex: not installed" in out
    assert "drift: SessionEnd: removed" in out and "error 2026-12-01T10:00:06Z Stop: boom 6" in out
    assert "version seen last 2.1.173" in out and "inside the tested range" in out
    (_live(agent) / "seen-claude-code.json").write_text(json.dumps({**seen, "version": "9.0.0"}))
    assert "OUTSIDE the tested range" in run_cli(capsys, "adapt", "status")[1]
    (_live(agent) / "seen-claude-code.json").write_text(json.dumps({**seen, "version": "2.0.49"}))
    drift = _json(capsys, "adapt", "status")["agents"][0]["files"][0]["drift"]
    assert "StopFailure: newer than claude-code 2.0.49, seen last (run install again)" in drift


def test_status_survives_a_malformed_file_and_reads_codex_inline_hooks(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{oops")
    (project / ".codex").mkdir()
    command = f"git-gasp adapt hook codex --repo {agent}"
    (project / ".codex" / "config.toml").write_text(
        f'[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "{command}"\n'
    )
    report = _json(capsys, "adapt", "status", "--repo", str(agent))
    claude, codex = report["agents"]
    assert "line 1" in claude["files"][0]["error"]
    assert codex["files"][0]["inline_config_toml"] == ["Stop"]
    assert codex["repos"][0]["repo"] == str(agent)
    code, out, _ = run_cli(capsys, "adapt", "status")
    assert code == 0 and "unreadable" in out and "also inline in config.toml: Stop" in out


def test_a_symlinked_settings_file_is_written_where_it_leads(
    agent: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dotfiles = tmp_path / "dotfiles" / "settings.local.json"
    _write(dotfiles, {"model": "opus"}, 2)
    link = project / ".claude" / "settings.local.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    assert run_cli(capsys, "adapt", "claude-code", "install", "--repo", str(agent))[0] == 0
    assert link.is_symlink() and _ours(json.loads(dotfiles.read_text()))
    assert json.loads(dotfiles.read_text())["model"] == "opus"


def test_install_says_when_commits_here_would_not_carry_the_session(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "adapt", "claude-code", "install", "--repo", str(agent))
    assert code == 0
    (hint,) = [line for line in out.splitlines() if "prepare-commit-msg" in line]
    assert hint.startswith("note: ") and f"git gasp hooks install --repo {project}" in hint
    assert "the events of the newest version (--agent-version VERSION" in out
    assert run_cli(capsys, "hooks", "install", "--repo", str(project))[0] == 0
    code, out, _ = run_cli(capsys, "adapt", "claude-code", "install", "--repo", str(agent))
    assert code == 0 and "prepare-commit-msg" not in out
