"""Issue 20 items 3, 4, 5, 7 and 8: a whole scripted Claude Code session
recorded live (payloads + a transcript file) becomes a committed conformant
run with trailers and notes, agreeing with the transcript's import; commits in
the workspace carry the session; the lazy close; rehydration's budget."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from git_gasp.cli.root import main
from tests import live_payloads as L
from tests import transcripts as T
from tests.conftest import git
from tests.test_live import hook, spooled

SID = T.SESSION


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, str]:
    """An agent repository, a workspace with the hooks installed, a transcript."""
    agent = tmp_path / "agent"
    assert main(["init", str(agent), "--agent-id", "live"]) == 0
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    assert main(["hooks", "install", "--repo", str(work)]) == 0
    top = tmp_path / "cc" / "projects" / "-srv-example-app"
    transcript = T.write_claude(str(top), "2.1.173")
    return agent, work, transcript


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _commit(work: Path, name: str) -> str:
    (work / name).write_text(name)
    git(work, "add", name)
    env_free = {k: v for k, v in os.environ.items() if k != "CLAUDE_CODE_SESSION_ID"}
    subprocess.run(["git", "commit", "-qm", f"add {name}"], cwd=work, env=env_free, check=True)
    return git(work, "log", "-1", "--format=%B")


# long: one scripted session from start to end, asserted as it goes
def test_a_scripted_session_recorded_live(
    setup: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent, work, transcript = setup

    def send(event: str, **extra: Any) -> bytes:
        payload = L.claude(event, L.CC_NEW, SID, transcript, str(work), **extra)
        done = hook(agent, payload)
        assert done.returncode == 0 and done.stderr == b""
        return done.stdout

    out = json.loads(send("SessionStart"))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "# Agent context: live" in context and len(context) <= 9000
    assert f"Agent-Session: claude-code:{SID}" in _commit(work, "a.txt")
    linked = git(work, "rev-parse", "HEAD").strip()
    for event in ("UserPromptSubmit", "PostToolUse", "PostModelSwitch"):
        assert send(event) == b""
    assert send("Stop") == b""
    first = _run_json(capsys, "adapt", "flush", "--repo", str(agent), "--session", SID)
    (flushed,) = first["sessions"]
    assert flushed["appended"] > 40 and not flushed["closed"] and flushed["version"] == "2.1.173"
    assert spooled(agent, session=SID) == []  # consumed once appended
    seen = json.loads((agent / ".git" / "gasp" / "live" / "seen-claude-code.json").read_text())
    assert seen["version"] == "2.1.173" and seen["session"] == SID
    events = [json.loads(x) for x in (agent / "state" / "events.jsonl").read_text().splitlines()]
    switch = [e for e in events if e["kind"] == "observation.created" and "switched" in str(e)]
    assert len(switch) == 1 and "claude-haiku-4-5-20251001" in switch[0]["payload"]["title"]
    assert send("SessionEnd") == b""
    second = _run_json(capsys, "adapt", "flush", "--repo", str(agent), "--session", SID)
    (closed,) = second["sessions"]
    assert closed["closed"] and closed["commit"]
    body = git(agent, "log", "-1", "--format=%B")
    assert f"Agent-Session: claude-code:{SID}" in body and f"Run-Id: {closed['run_id']}" in body
    assert "Outcome: completed" in body
    assert git(agent, "notes", "--ref", "agent-sessions", "show", "HEAD").strip()
    assert main(["check", str(agent)]) == 0
    assert "Agent-Session" not in _commit(work, "b.txt")  # the session is over
    note = git(work, "notes", "--ref", "agent-sessions", "show", linked)
    assert f'"session":"claude-code:{SID}"' in note and '"kind":"session"' in note
    again = _run_json(capsys, "adapt", "flush", "--repo", str(agent), "--session", SID)
    assert all(s["appended"] == 0 and s["commit"] is None for s in again["sessions"])
    imported = _run_json(capsys, "import", "claude-code", transcript, "--repo", str(agent))
    assert all(s["unchanged"] or s["appended"] == 0 for s in imported["sessions"])
    assert imported["sessions"][0].get("commit") is None
    fresh = tmp_path / "fresh"
    assert main(["init", str(fresh), "--agent-id", "live"]) == 0
    _run_json(capsys, "import", "claude-code", transcript, "--repo", str(fresh))
    live_usage = _run_json(capsys, "usage", "--repo", str(agent))["rows"]
    import_usage = _run_json(capsys, "usage", "--repo", str(fresh))["rows"]
    assert live_usage == import_usage and live_usage
    # the boundary commit and the run say what the import's say: the same
    # message (Run-Id, Goal, Outcome, Agent-Session) and the same task
    assert body == git(fresh, "log", "-1", "--format=%B")
    assert _started(agent) == _started(fresh) and _started(agent)["task"]


def _started(repo: Path) -> dict[str, Any]:
    """The payload of the log's last run.started."""
    lines = (repo / "state" / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["kind"] == "run.started"][-1]["payload"]


def test_the_lazy_close_and_run_close(
    setup: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    agent, work, transcript = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    for event in ("SessionStart", "UserPromptSubmit", "Stop"):
        assert hook(agent, L.claude(event, L.CC_MID, SID, transcript, str(work))).returncode == 0
    _run_json(capsys, "adapt", "flush", "--repo", str(agent), "--session", SID)
    newer = "66660000-0000-4000-8000-00000000000c"
    start = L.claude("SessionStart", L.CC_MID, newer, None, str(work))
    assert hook(agent, start).returncode == 0  # headless: the first session never ended
    done = _run_json(capsys, "adapt", "flush", "--repo", str(agent))
    by_session = {s["session"]: s for s in done["sessions"]}
    assert by_session[SID]["closed"] and by_session[SID]["commit"]
    assert not by_session[newer]["closed"]
    assert f"Agent-Session: claude-code:{SID}" in git(agent, "log", "-1", "--format=%B")
    assert f"Agent-Session: claude-code:{newer}" in _commit(work, "c.txt")
    assert main(["check", str(agent)]) == 0


def test_run_close_closes_a_live_sessions_run_with_its_session(
    setup: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    agent, work, transcript = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    for event in ("SessionStart", "Stop"):
        assert hook(agent, L.claude(event, L.CC_MID, SID, transcript, str(work))).returncode == 0
    _run_json(capsys, "adapt", "flush", "--repo", str(agent), "--session", SID)
    closed = _run_json(capsys, "run", "close", "--outcome", "done", "--repo", str(agent))
    assert closed["commit"]
    assert f"Agent-Session: claude-code:{SID}" in git(agent, "log", "-1", "--format=%B")
    assert "Agent-Session" not in _commit(work, "d.txt")
    assert main(["check", str(agent)]) == 0


def test_stop_and_session_end_flush_detached(setup: tuple[Path, Path, str]) -> None:
    agent, work, transcript = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    on = {"GASP_LIVE_FLUSH": "on"}
    for event in ("SessionStart", "Stop", "SessionEnd"):
        payload = L.claude(event, L.CC_MID, SID, transcript, str(work))
        started = time.monotonic()
        assert hook(agent, payload, **on).returncode == 0
        assert time.monotonic() - started < 60
    deadline = time.monotonic() + 240
    while f"claude-code:{SID}" not in git(agent, "log", "-1", "--format=%B"):
        assert time.monotonic() < deadline, "the detached flush never closed the session"
        time.sleep(0.5)
    assert main(["check", str(agent)]) == 0


def test_rehydration_stays_within_its_budget_and_turns_off(tmp_path: Path) -> None:
    from git_gasp.agent import Agent, close_run

    agent_repo = tmp_path / "agent"
    assert main(["init", str(agent_repo), "--agent-id", "live"]) == 0
    with Agent.open(str(agent_repo)) as agent:
        agent.start_run("many goals")
        for n in range(120):
            agent.record_goal(None, f"goal {n}: keep the retries reliable " + '"q" ' * 40)
        close_run(agent, "done")
    payload = L.claude("SessionStart", L.CC_NEW, SID, None, str(tmp_path))
    out = hook(agent_repo, payload).stdout.decode()
    assert 8_000 < len(out) <= 10_000  # quotes escaped in JSON: a smaller document fits
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "keep the retries reliable" in context and "of 120 open goals" in context
    git(agent_repo, "config", "gasp.live.rehydrate", "false")
    assert hook(agent_repo, payload).stdout == b""


def test_a_codex_session_recorded_live_agrees_with_its_import(
    setup: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent, work, _ = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    rollout = tmp_path / f"rollout-2026-08-28T10-00-00-{T.CODEX_SESSION}.jsonl"
    rollout.write_text(T.codex_rollout("0.149.0"))
    for event in L.CODEX_EVENTS:
        payload = L.codex(event, T.CODEX_SESSION, str(rollout), str(work))
        done = hook(agent, payload, harness="codex")
        assert (done.returncode, done.stdout) == (0, b"")
    (closed,) = _run_json(capsys, "adapt", "flush", "--repo", str(agent))["sessions"]
    assert closed["closed"] and closed["commit"] and closed["version"] == "0.149.0"
    body = git(agent, "log", "-1", "--format=%B")
    assert f"Agent-Session: codex:{T.CODEX_SESSION}" in body
    assert main(["check", str(agent)]) == 0
    fresh = tmp_path / "fresh"
    assert main(["init", str(fresh), "--agent-id", "live"]) == 0
    _run_json(capsys, "import", "codex", str(rollout), "--repo", str(fresh))
    live_usage = _run_json(capsys, "usage", "--repo", str(agent))["rows"]
    assert live_usage == _run_json(capsys, "usage", "--repo", str(fresh))["rows"]


def test_an_ephemeral_codex_session_is_recorded_from_its_hooks(
    setup: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    agent, work, _ = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    for event in L.CODEX_EVENTS:  # transcript_path is null under --ephemeral
        payload = L.codex(event, T.CODEX_SESSION, None, str(work))
        assert hook(agent, payload, harness="codex").returncode == 0
    (closed,) = _run_json(capsys, "adapt", "flush", "--repo", str(agent))["sessions"]
    assert closed["closed"] and closed["commit"]
    kinds = [
        json.loads(line)["kind"]
        for line in (agent / "state" / "events.jsonl").read_text().splitlines()
    ]
    assert "task.created" in kinds and "tool.called" in kinds
    assert main(["check", str(agent)]) == 0
    again = _run_json(capsys, "adapt", "flush", "--repo", str(agent))["sessions"]
    assert again == []


def test_after_a_model_switch_the_next_model_call_names_the_model_used(
    setup: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent, work, _ = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    m = T.Claude("2.1.251")
    m.user("Summarise the retry module")
    m.assistant("msg_before", [{"type": "text", "text": "Reading it."}], T.usage(10, 5))
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_text(m.text())
    send = {"transcript_path": str(path)}
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "PostModelSwitch"):
        assert hook(agent, L.claude(event, L.CC_NEW, SID, None, str(work), **send)).returncode == 0
    m.user("Now the tests")
    haiku = "claude-haiku-4-5-20251001"
    m.assistant("msg_after", [{"type": "text", "text": "Done."}], T.usage(8, 4), model=haiku)
    path.write_text(m.text())
    assert (
        hook(agent, L.claude("SessionEnd", L.CC_NEW, SID, None, str(work), **send)).returncode == 0
    )
    _run_json(capsys, "adapt", "flush", "--repo", str(agent))
    events = [json.loads(x) for x in (agent / "state" / "events.jsonl").read_text().splitlines()]
    kinds = [e["kind"] for e in events]
    switch = next(
        i
        for i, e in enumerate(events)
        if e["kind"] == "observation.created" and "model switched" in e["payload"]["title"]
    )
    models = [e["payload"]["model"] for e in events if e["kind"] == "model.called"]
    assert models == ["claude-sonnet-4-5-20250929", haiku]
    assert "run.finished" in kinds and switch < kinds.index("run.finished")
    assert main(["check", str(agent)]) == 0


@pytest.mark.parametrize("point", ["close:finished", "close:projected", "close:committed"])
def test_a_flush_killed_in_its_close_is_completed_by_the_next(
    setup: tuple[Path, Path, str], capsys: pytest.CaptureFixture[str], point: str
) -> None:
    agent, work, transcript = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    for event in ("SessionStart", "Stop", "SessionEnd"):
        assert hook(agent, L.claude(event, L.CC_MID, SID, transcript, str(work))).returncode == 0
    command = [sys.executable, "-m", "git_gasp", "adapt", "flush", "--repo", str(agent)]
    killed = subprocess.run(command, env={**os.environ, "GASP_FAULT": point})
    assert killed.returncode == -9
    _run_json(capsys, "adapt", "flush", "--repo", str(agent))
    bodies = git(agent, "log", "--format=%B%x00").split("\0")
    closes = [b for b in bodies if f"Agent-Session: claude-code:{SID}" in b]
    assert len(closes) == 1 and "Run-Id: run_" in closes[0]
    assert main(["check", str(agent)]) == 0
    assert _run_json(capsys, "adapt", "flush", "--repo", str(agent))["sessions"] == []


def test_the_commands_install_writes_record_a_session(
    setup: tuple[Path, Path, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """h20a's installed entries, run as the harness runs them (a shell command
    line, the payload on stdin), feed this side: the contract between the two."""
    agent, work, transcript = setup
    monkeypatch.chdir(work)
    monkeypatch.setenv("GASP_LIVE_FLUSH", "off")
    _run_json(capsys, "adapt", "claude-code", "install", "--scope", "project", "--repo", str(agent))
    assert (agent / ".git" / "gasp" / "live" / "context.json").is_file()  # primed
    settings = json.loads((work / ".claude" / "settings.json").read_text())
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        (command,) = [h["command"] for g in settings["hooks"][event] for h in g["hooks"]]
        payload = json.dumps(L.claude(event, L.CC_MID, SID, transcript, str(work)))
        done = subprocess.run(command, shell=True, input=payload.encode(), capture_output=True)
        assert done.returncode == 0 and done.stderr == b"", event
        if event == "SessionStart":
            assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        else:
            assert done.stdout == b"", event
    (closed,) = _run_json(capsys, "adapt", "flush", "--repo", str(agent))["sessions"]
    assert closed["closed"] and closed["commit"]
    assert main(["check", str(agent)]) == 0


def test_linkage_is_per_work_tree(setup: tuple[Path, Path, str], tmp_path: Path) -> None:
    agent, work, transcript = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    _commit(work, "base.txt")
    linked = tmp_path / "linked"
    git(work, "worktree", "add", "-q", "-b", "side", str(linked))
    (linked / "sub").mkdir()
    start = L.claude("SessionStart", L.CC_MID, SID, transcript, str(linked / "sub"))
    assert hook(agent, start).returncode == 0
    assert f"Agent-Session: claude-code:{SID}" in _commit(linked, "in-linked.txt")
    assert "Agent-Session" not in _commit(work, "in-main.txt")  # another work tree


def test_a_codex_subagents_rollout_joins_its_parents_run_as_an_import_does(
    setup: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.test_import import CHILD, _rollout, _said, _tokens, _typed

    agent, work, _ = setup
    git(agent, "config", "gasp.live.rehydrate", "false")
    spawn = {"type": "function_call", "name": "spawn_agent", "call_id": "s1", "arguments": "{}"}
    spawned = json.dumps({"agent_id": CHILD, "nickname": "scout"})
    parent = _rollout(
        {"id": T.CODEX_SESSION},
        ("event_msg", {"type": "user_message", "message": "fix the flaky test"}),
        ("response_item", spawn),
        ("response_item", {"type": "function_call_output", "call_id": "s1", "output": spawned}),
        ("response_item", _said("the scout found it")),
        _tokens(1000, 100),
    )
    source = {"subagent": {"thread_spawn": {"parent_thread_id": T.CODEX_SESSION, "depth": 1}}}
    child = _rollout(
        {"id": CHILD, "source": source},
        ("response_item", _typed("find the flaky test")),
        ("response_item", _said("tests/test_retry.py is flaky")),
        _tokens(300, 40),
    )
    rollouts = tmp_path / "rollouts"
    rollouts.mkdir()
    main_file = rollouts / f"rollout-a-{T.CODEX_SESSION}.jsonl"
    main_file.write_text(parent)
    child_file = rollouts / f"rollout-b-{CHILD}.jsonl"
    child_file.write_text(child)
    for event in ("SessionStart", "SubagentStop", "Stop", "SessionEnd"):
        extra = {"agent_transcript_path": str(child_file)} if event == "SubagentStop" else {}
        payload = L.codex(event, T.CODEX_SESSION, str(main_file), str(work), **extra)
        assert hook(agent, payload, harness="codex").returncode == 0
    (closed,) = _run_json(capsys, "adapt", "flush", "--repo", str(agent))["sessions"]
    assert closed["closed"] and closed["commit"]
    events = [json.loads(x) for x in (agent / "state" / "events.jsonl").read_text().splitlines()]
    frames = [e["payload"]["title"] for e in events if e["kind"] == "frame.created"]
    assert frames == ["subagent scout"]
    assert main(["check", str(agent)]) == 0
    fresh = tmp_path / "fresh"
    assert main(["init", str(fresh), "--agent-id", "live"]) == 0
    _run_json(capsys, "import", "codex", str(rollouts), "--repo", str(fresh))
    live_usage = _run_json(capsys, "usage", "--repo", str(agent))["rows"]
    assert live_usage == _run_json(capsys, "usage", "--repo", str(fresh))["rows"]


def test_usage_reads_the_agent_repository_it_is_run_in(
    setup: tuple[Path, Path, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent, _, transcript = setup
    _run_json(capsys, "import", "claude-code", transcript, "--repo", str(agent))
    expected = _run_json(capsys, "usage", "--repo", str(agent))["rows"]
    monkeypatch.delenv("GASP_AGENT_REPO", raising=False)
    monkeypatch.chdir(agent)
    assert _run_json(capsys, "usage")["rows"] == expected and expected
    monkeypatch.chdir(agent.parent)  # not an agent repository, none named: one line, a hint
    capsys.readouterr()
    assert main(["usage"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no agent repository to read\nhint: pass --repo PATH")


def test_session_start_hands_identity_skills_memory_goals_tasks_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from git_gasp.agent import Agent, close_run
    from tests.conftest import commit_all

    agent_repo = tmp_path / "agent"
    assert main(["init", str(agent_repo), "--agent-id", "live"]) == 0
    folder = agent_repo / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: ship a release\n---\nGo.\n")
    commit_all(agent_repo, "a skill")
    with Agent.open(str(agent_repo)) as agent:
        goal = agent.record_goal(None, "Make retry reliable")
        run = agent.start_run("fix the retry counter", goal)
        task = agent.record_task(None, "Add a test for the timeout", goal=goal)
        close_run(agent, "completed")
    assert main(["fact", "add", "retries use exponential backoff", "-C", str(agent_repo)]) == 0
    capsys.readouterr()
    payload = L.claude("SessionStart", L.CC_NEW, SID, None, str(tmp_path))
    out = json.loads(hook(agent_repo, payload).stdout)["hookSpecificOutput"]
    context = out["additionalContext"]
    assert out["hookEventName"] == "SessionStart" and len(context) <= 9000
    assert "I am live." in context  # identity
    assert "deploy" in context and "ship a release" in context  # the skill index
    assert "retries use exponential backoff" in context  # active memory and facts
    assert goal in context and "Make retry reliable" in context  # open goals
    assert task in context and "Add a test for the timeout" in context  # open tasks
    assert run in context and "completed" in context  # the last run and its outcome


def test_a_stale_document_is_made_again_without_keeping_the_agent_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_gasp.live import rehydrate

    agent_repo = tmp_path / "agent"
    assert main(["init", str(agent_repo), "--agent-id", "live"]) == 0
    monkeypatch.chdir(tmp_path)  # the install writes .claude/settings.local.json here
    assert main(["adapt", "claude-code", "install", "--repo", str(agent_repo)]) == 0  # makes it
    assert main(["fact", "add", "retries use exponential backoff", "-C", str(agent_repo)]) == 0
    payload = L.claude("SessionStart", L.CC_NEW, SID, None, str(tmp_path))
    monkeypatch.setenv("GASP_LIVE_FAULT", "slow-context")  # the new one takes 2 s to make
    out = hook(agent_repo, payload).stdout
    kept = rehydrate._kept(str(agent_repo))
    assert kept and kept["key"] != rehydrate.cache_key(str(agent_repo))  # not awaited
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(rehydrate.STALE) and "exponential backoff" not in context
    monkeypatch.delenv("GASP_LIVE_FAULT")
    deadline = time.monotonic() + 120
    while not (kept := rehydrate._kept(str(agent_repo))) or kept["key"] != rehydrate.cache_key(
        str(agent_repo)
    ):
        assert time.monotonic() < deadline, "the detached refresh never finished"
        time.sleep(0.1)
    context = json.loads(hook(agent_repo, payload).stdout)["hookSpecificOutput"]
    assert "exponential backoff" in context["additionalContext"]
    assert not context["additionalContext"].startswith(rehydrate.STALE)
    git(agent_repo, "config", "gasp.live.rehydrate", "false")  # off: at once, never the old one
    assert hook(agent_repo, payload).stdout == b""
