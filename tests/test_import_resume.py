"""Re-importing a grown Claude Code session from its resume state (issue 19 item 10).

A projection that resumes reads only the new lines, and must append exactly
what projecting everything again would: the same event ids. When the new
lines do not continue what was read (a rewind into read lines, a rewritten
file, a new subagent file), the projector reads everything again.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from git_gasp.adapters import claudecode, resuming
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.lines import Diagnostics, Projection, Source
from git_gasp.cli.root import main
from git_gasp.core.event import Actor
from git_gasp.core.log import canonical_ids
from git_gasp.core.secrets import find_secrets, may_hold_secrets
from tests import transcripts as T

ACTOR = Actor("agent", "importer")


def _session(main_text: str, subs: dict[str, str] | None = None) -> Session:
    subs = subs or {}
    return Session(
        T.SESSION,
        [Source("main.jsonl", main_text)],
        {k: Source(f"agent-{k}.jsonl", v) for k, v in subs.items()},
    )


def _turn(m: T.Claude, n: int) -> None:
    m.user(f"step {n}: run the tests")
    m.assistant(
        f"msg_r{n}",
        [{"type": "tool_use", "id": f"toolu_r{n}", "name": "Bash", "input": {"command": "pytest"}}],
        T.usage(10, 5),
        stop="tool_use",
    )
    m.tool_result(f"toolu_r{n}", "3 passed")
    m.assistant(f"msg_r{n}b", [{"type": "text", "text": f"passed {n}"}], T.usage(10, 5))


def _again(session: Session, first: Projection, state: Any) -> Projection:
    logged = {e.id for e in first.events}
    return claudecode.project(session, ACTOR, logged.__contains__, None, None, state)


def _ids(p: Projection) -> list[str]:
    return sorted(e.id for e in p.events)


def test_resumed_projection_appends_what_a_full_one_does() -> None:
    main_text, subs = T.claude_session("2.1.173")
    first = claudecode.project(_session(main_text, subs), ACTOR, lambda _: False)
    assert first.state is not None and set(first.state["files"]) == {
        "main.jsonl",
        "agent-sub1.jsonl",
        "agent-sub2.jsonl",
    }
    m = T.Claude("2.1.173", tag="g")
    m.parent = json.loads(main_text.splitlines()[-1])["uuid"]  # continues the active branch
    for n in range(3):
        _turn(m, n)
    grown = _session(main_text + m.text(), subs)
    diag = Diagnostics()
    tails = resuming.tails([*grown.mains, *grown.subagents.values()], first.state, diag)
    assert tails is not None and len(tails["main.jsonl"]) == len(m.lines)  # only the new
    resumed = _again(grown, first, first.state)
    full = _again(grown, first, None)
    assert _ids(resumed) == _ids(full) and len(resumed.events) > 12
    # even told that the log holds nothing, a resumed projection reads no old line
    never = claudecode.project(grown, ACTOR, lambda _: False, None, None, first.state)
    old = {e.id for e in first.events if e.kind in ("task.created", "model.called")}
    assert not old & set(_ids(never)) and set(_ids(full)) <= set(_ids(never))
    assert resumed.diagnostics.recognised > first.diagnostics.recognised


def test_a_call_unfinished_at_one_import_finishes_at_the_next() -> None:
    m = T.Claude("2.1.173")
    m.user("list the files")
    m.assistant(
        "msg_1",
        [{"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}],
        T.usage(1, 1),
        stop="tool_use",
    )
    first = claudecode.project(_session(m.text()), ACTOR, lambda _: False)
    m.tool_result("toolu_ls", "a\nb")
    resumed = _again(_session(m.text()), first, first.state)
    assert [e.kind for e in resumed.events if e.kind != "state.ops_applied"] == ["tool.finished"]


@pytest.mark.parametrize("change", ["rewind", "rewritten", "new subagent", "torn then whole"])
def test_what_does_not_continue_is_projected_again(change: str) -> None:
    m = T.Claude("2.1.173")
    m.user("first try")
    fork = m.parent
    m.assistant("msg_a", [{"type": "text", "text": "answer a"}], T.usage(1, 1))
    m.user("and then")
    m.assistant("msg_b", [{"type": "text", "text": "answer b"}], T.usage(1, 1))
    text = m.text()
    first = claudecode.project(_session(text), ACTOR, lambda _: False)
    subs: dict[str, str] = {}
    if change == "rewind":  # a new branch under a record before the leaf
        m.parent = fork
        m.assistant("msg_c", [{"type": "text", "text": "answer c"}], T.usage(2, 2))
        text = m.text()
    elif change == "rewritten":
        text = text.replace("first try", "first TRY")
    elif change == "new subagent":
        child = T.Claude("2.1.173", sidechain=True, tag="s")
        child.assistant("msg_s", [{"type": "text", "text": "sub"}], T.usage(1, 1))
        subs = {"late": child.text()}
    else:  # a torn last line at the first import, whole at the next
        m.user("third")
        whole = m.text()
        first = claudecode.project(_session(whole[:-20]), ACTOR, lambda _: False)
        text = whole
    grown = _session(text, subs)
    diag = Diagnostics()
    tails = resuming.tails([*grown.mains, *grown.subagents.values()], first.state, diag)
    assert (tails is None) is (change != "torn then whole")
    assert _ids(_again(grown, first, first.state)) == _ids(_again(grown, first, None))
    if change == "rewind":
        resumed = _again(grown, first, first.state)
        assert resumed.diagnostics.abandoned >= 1


def test_import_resumes_from_the_cursor_and_stays_conformant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    m, path = _transcript(tmp_path, 3)
    args = ["import", "claude-code", str(path), "--repo", str(repo), "--json"]
    assert main(args) == 0
    cursor = repo / ".git" / "gasp" / "imports" / "claude-code" / f"{T.SESSION}.json"
    saved = json.loads(cursor.read_text())
    assert saved["state"]["files"][str(path)]["offset"] == len(m.text())
    assert saved["last_event"] and saved["run"][0]
    _turn(m, 9)
    path.write_text(m.text())
    capsys.readouterr()
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)["sessions"][0]
    assert second["appended"] == 2 + 2 * 5  # run.started, task, model x2, tool, eval: paired
    assert second["run_id"] != saved["run"][0]  # a continuation of the closed run
    assert json.loads(cursor.read_text())["run"][0] == second["run_id"]
    assert main(["check", str(repo)]) == 0


def _transcript(tmp_path: Path, turns: int) -> tuple[T.Claude, Path]:
    """A session of ``turns`` turns, written where a user would point the import."""
    m = T.Claude("2.1.173")
    for n in range(turns):
        _turn(m, n)
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_text(m.text())
    return m, path


def _one_turn_imported(tmp_path: Path) -> tuple[Path, T.Claude, Path]:
    """An agent repository with a one-turn session imported: the repository,
    the transcript's model and its file."""
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    m, path = _transcript(tmp_path, 1)
    assert main(["import", "claude-code", str(path), "--repo", str(repo), "--json"]) == 0
    return repo, m, path


def test_a_transcript_named_from_another_directory_resumes_from_its_cursor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, m, path = _one_turn_imported(tmp_path)
    _turn(m, 1)
    path.write_text(m.text())
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["import", "claude-code", path.name, "--repo", str(repo), "--json"]) == 0
    cursor = repo / ".git" / "gasp" / "imports" / "claude-code" / f"{T.SESSION}.json"
    files = json.loads(cursor.read_text())["state"]["files"]
    assert list(files) == [str(path)] and files[str(path)]["offset"] == len(m.text())
    assert json.loads(capsys.readouterr().out)["sessions"][0]["appended"] > 0


def test_the_latest_run_of_a_session_is_found_however_the_log_spells_its_id(
    tmp_path: Path,
) -> None:
    """A session the log never saw has no run (found without parsing the log);
    one whose run id the log spells with a JSON escape is still found."""
    from git_gasp.adapters.emitting import stable_id
    from git_gasp.adapters.importing import latest_run
    from git_gasp.agent.api import Agent

    repo, _, _ = _one_turn_imported(tmp_path)
    agent = Agent.open(str(repo), worker="w")
    found = latest_run(agent, "claude-code", T.SESSION)
    assert found is not None and found.run_id == stable_id("run", "claude-code", T.SESSION)
    assert found.closed and latest_run(agent, "claude-code", "another-session") is None
    log = repo / "state" / "events.jsonl"
    escaped = found.run_id.replace("run_", "\\u0072un_", 1)  # the same string, escaped
    log.write_text(log.read_text().replace(f'"{found.run_id}"', f'"{escaped}"'))
    again = latest_run(Agent.open(str(repo), worker="w"), "claude-code", T.SESSION)
    assert again is not None and again.run_id == found.run_id


def test_a_cursor_the_log_does_not_back_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _, path = _one_turn_imported(tmp_path)
    args = ["import", "claude-code", str(path), "--repo", str(repo), "--json"]
    cursor = repo / ".git" / "gasp" / "imports" / "claude-code" / f"{T.SESSION}.json"
    saved = json.loads(cursor.read_text())
    saved["last_event"] = "event_" + "0" * 32  # an event the log never held
    saved["files"] = []
    cursor.write_text(json.dumps(saved))
    capsys.readouterr()
    assert main(args) == 0  # projected from the start: every event is known, nothing new
    again = json.loads(capsys.readouterr().out)["sessions"][0]
    assert (again["appended"], again["commit"]) == (0, None)
    assert main(["check", str(repo)]) == 0


def test_canonical_ids_and_the_batch_secret_screen() -> None:
    log = b'{"id":"a","schema_version":1}\n\n{"id":"b","schema_version":1}\n'
    assert canonical_ids(log) == {"a", "b"}
    assert canonical_ids(b'{"id":"a\\u0062","schema_version":1}\n') is None  # escaped
    assert canonical_ids(b'{"schema_version":1,"id":"a"}\n') is None  # other order
    token = "ghp_" + "a1B2" * 9
    text = f"nothing here\nexport GITHUB_TOKEN={token}"
    assert may_hold_secrets(text) and find_secrets(text.splitlines()[1])
    assert not may_hold_secrets("step 3: run the tests\npassed 3")


def test_a_close_snapshot_is_remembered_verified_and_the_next_import_seeds_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from git_gasp.agent.eventlog import EventLog
    from git_gasp.store import seeding

    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    config = repo / ".agent" / "config.toml"
    text = re.sub(r"snapshot_every = \d+", "snapshot_every = 5", config.read_text())
    assert "snapshot_every = 5" in text
    config.write_text(text)
    m, path = _transcript(tmp_path, 3)
    args = ["import", "claude-code", str(path), "--repo", str(repo), "--json"]
    assert main(args) == 0
    (snapshot,) = (repo / "snapshots").glob("*/graph.json")
    digest = hashlib.sha256(snapshot.read_bytes()).hexdigest()
    assert digest in seeding.verified_digests(seeding.common_dir(str(repo)))
    with EventLog.open(str(repo)) as log:
        assert log.recent_events() == ()  # seeded from the close's snapshot, nothing after
    _turn(m, 7)
    path.write_text(m.text())
    assert main(args) == 0
    assert main(["check", str(repo)]) == 0
