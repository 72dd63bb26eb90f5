"""Issue 20 items 2, 5 and 8: the live hook handler spools every payload as is,
prints nothing (SessionStart: its rehydration document), exits 0 whatever
happens, survives a burst of parallel calls and a kill mid-write."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from git_gasp.cli.root import main
from tests import live_payloads as L
from tests.conftest import git

SID = "55550000-0000-4000-8000-00000000000a"


def hook(
    repo: Path,
    payload: dict[str, Any] | None,
    harness: str = "claude-code",
    raw: bytes | None = None,
    **env: str,
) -> subprocess.CompletedProcess[bytes]:
    data = raw if raw is not None else json.dumps(payload).encode()
    command = [sys.executable, "-m", "git_gasp", "adapt", "hook", harness, "--repo", str(repo)]
    environ = {**os.environ, "GASP_LIVE_FLUSH": "off", **env}
    return subprocess.run(command, input=data, capture_output=True, env=environ, timeout=300)


def spooled(repo: Path, harness: str = "claude-code", session: str = SID) -> list[Path]:
    folder = repo / ".git" / "gasp" / "live" / "spool" / harness / session
    return sorted(p for p in folder.glob("*.json") if not p.name.startswith("."))


def errors(repo: Path) -> list[dict[str, Any]]:
    path = repo / ".git" / "gasp" / "live" / "errors.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def agent_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "live"]) == 0
    return repo


@pytest.mark.parametrize("version", sorted(L.CLAUDE_EVENTS))
def test_every_claude_code_handler_spools_as_is_and_prints_nothing(
    agent_repo: Path, tmp_path: Path, version: str
) -> None:
    git(agent_repo, "config", "gasp.live.rehydrate", "false")
    for event in L.CLAUDE_EVENTS[version]:
        payload = L.claude(event, version, SID, None, str(tmp_path))
        data = json.dumps(payload, indent=None if event != "Stop" else 2).encode()
        done = hook(agent_repo, None, raw=data)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), event
        assert spooled(agent_repo)[-1].read_bytes() == data, event
    assert len(spooled(agent_repo)) == len(L.CLAUDE_EVENTS[version])
    assert errors(agent_repo) == []


def test_every_codex_handler_spools_as_is(agent_repo: Path, tmp_path: Path) -> None:
    git(agent_repo, "config", "gasp.live.rehydrate", "false")
    session = "01999999-0000-7000-8000-00000000000b"
    for event in L.CODEX_EVENTS:
        data = json.dumps(L.codex(event, session, None, str(tmp_path))).encode()
        done = hook(agent_repo, None, harness="codex", raw=data)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), event
        assert spooled(agent_repo, "codex", session)[-1].read_bytes() == data
    assert errors(agent_repo) == []


def test_session_id_nested_or_escaped_falls_back_to_json(agent_repo: Path) -> None:
    tricky = {"tool_input": {"session_id": "not-this"}, "session_id": "the-real-one"}
    assert hook(agent_repo, tricky).returncode == 0
    assert len(spooled(agent_repo, session="the-real-one")) == 1
    assert hook(agent_repo, None, raw=b"not json at all").returncode == 0
    assert len(spooled(agent_repo, session="_unknown")) == 1  # kept as is, still
    assert main(["adapt", "flush", "--repo", str(agent_repo), "--session", "the-real-one"]) == 0
    assert len(spooled(agent_repo, session="_unknown")) == 1  # attributed to no session


def test_internal_errors_go_to_the_log_never_to_the_agent(agent_repo: Path) -> None:
    done = hook(agent_repo, {"session_id": SID}, harness="cursor")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    (logged,) = errors(agent_repo)
    assert "claude-code, codex" in logged["error"] and "\n" not in logged["error"]
    assert set(logged) == {"ts", "harness", "event", "error"}
    nowhere = hook(agent_repo.parent / "missing", {"session_id": SID})
    assert (nowhere.returncode, nowhere.stdout, nowhere.stderr) == (0, b"", b"")


def test_a_burst_of_twenty_parallel_post_tool_use_loses_and_mixes_nothing(
    agent_repo: Path, tmp_path: Path
) -> None:
    command = [sys.executable, "-m", "git_gasp", "adapt", "hook", "claude-code"]
    command += ["--repo", str(agent_repo)]
    sent = []
    procs = []
    for n in range(20):
        payload = L.claude("PostToolUse", L.CC_MID, SID, None, str(tmp_path))
        payload["tool_use_id"] = f"toolu_{n:02d}"
        payload["tool_response"] = {"stdout": f"{n}" * 20000}  # big enough to write in parts
        data = json.dumps(payload).encode()
        sent.append(data)
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        procs.append((proc, data))
    for proc, data in procs:
        out, _ = proc.communicate(data, timeout=300)
        assert (proc.returncode, out) == (0, b"")
    got = sorted(p.read_bytes() for p in spooled(agent_repo))
    assert got == sorted(sent)


def test_a_kill_mid_write_loses_only_that_payload(agent_repo: Path, tmp_path: Path) -> None:
    first = L.claude("PostToolUse", L.CC_MID, SID, None, str(tmp_path))
    assert hook(agent_repo, first).returncode == 0
    command = [sys.executable, "-m", "git_gasp", "adapt", "hook", "claude-code"]
    command += ["--repo", str(agent_repo)]
    env = {**os.environ, "GASP_LIVE_FAULT": "slow-write", "GASP_LIVE_FLUSH": "off"}
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, env=env)
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(first).encode())
    proc.stdin.close()
    folder = spooled(agent_repo)[0].parent
    deadline = time.monotonic() + 120
    while not any(p.name.startswith(".tmp-") for p in folder.iterdir()):
        assert time.monotonic() < deadline, "the handler never started writing"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert [p.read_bytes() for p in spooled(agent_repo)] == [json.dumps(first).encode()]
    assert hook(agent_repo, L.claude("Stop", L.CC_MID, SID, None, str(tmp_path))).returncode == 0
    assert len(spooled(agent_repo)) == 2  # the spool goes on; the torn temporary is ignored
    (torn,) = [p for p in folder.iterdir() if p.name.startswith(".tmp-")]
    os.utime(torn, (time.time() - 7200, time.time() - 7200))
    assert main(["adapt", "flush", "--repo", str(agent_repo)]) == 0
    assert not torn.exists() and spooled(agent_repo) == []


def test_the_fast_path_loads_no_click_and_no_command_line(agent_repo: Path) -> None:
    probe = (
        "import sys, io; from git_gasp import entry; "
        f"sys.argv = ['git-gasp', 'adapt', 'hook', 'codex', '--repo', {str(agent_repo)!r}]; "
        'sys.stdin = io.TextIOWrapper(io.BytesIO(b\'{"session_id": "s1"}\')); '
        "code = entry.main(); "
        "bad = sorted(m for m in sys.modules if m in ('click', 'json') "
        "or m.startswith('git_gasp.cli') or m.startswith('git_gasp.agent')); "
        "print(code, bad)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "0 []", done.stderr


def test_the_errors_log_rotates_above_one_mebibyte(agent_repo: Path) -> None:
    from git_gasp.live import spool

    live = agent_repo / ".git" / "gasp" / "live"
    live.mkdir(parents=True)
    (live / "errors.log").write_bytes(b"x" * (spool.ROTATE_BYTES + 1))
    spool.log_error(str(live), "codex", "Stop", "boom\nsecond line")
    assert (live / "errors.log.1").stat().st_size == spool.ROTATE_BYTES + 1
    (logged,) = errors(agent_repo)
    assert logged["error"] == "boom second line" and logged["event"] == "Stop"


def test_the_command_line_shape_runs_the_same_handler(agent_repo: Path, tmp_path: Path) -> None:
    payload = L.claude("PostToolUse", L.CC_MID, SID, None, str(tmp_path))
    command = [sys.executable, "-m", "git_gasp", "adapt", "hook", "claude-code", "-C"]
    command.append(str(agent_repo))
    done = subprocess.run(command, input=json.dumps(payload).encode(), capture_output=True)
    assert (done.returncode, done.stdout) == (0, b"")
    assert len(spooled(agent_repo)) == 1


def test_the_work_trees_active_session_a_commit_carries(tmp_path: Path) -> None:
    from git_gasp.sessions import active

    git_dir = str(tmp_path)
    assert active.session_for(git_dir, {}) is None
    active.record(git_dir, "claude-code", "a", "/agent", "2026-12-01T10:00:00Z")
    active.record(git_dir, "codex", "b", "/agent", "2026-12-01T11:00:00Z")
    assert active.session_for(git_dir, {}) == "codex:b"  # the newest
    assert active.session_for(git_dir, {"CLAUDE_CODE_SESSION_ID": "a"}) == "claude-code:a"
    assert active.session_for(git_dir, {"CLAUDE_CODE_SESSION_ID": "other"}) is None
    active.clear(git_dir, "codex", "b")
    active.clear(git_dir, "claude-code", "a")
    assert active.session_for(git_dir, {}) is None
