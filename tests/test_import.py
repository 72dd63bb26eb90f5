"""git gasp import and usage: projectors on plain data, then the CLI on real git."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.adapters import claudecode, codex
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.codex import CodexSession
from git_gasp.adapters.emitting import _NAMESPACE, Resume, stable_id
from git_gasp.adapters.lifting import LiftConfig
from git_gasp.adapters.lines import Projection, Source
from git_gasp.adapters.summaries import redact
from git_gasp.cli.root import main
from git_gasp.core.event import Actor
from tests import transcripts as T
from tests.conftest import git

ACTOR = Actor("agent", "importer")


def _never(_: str) -> bool:
    return False


def _kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events if e.kind != "state.ops_applied"]


def _claude(version: str) -> Session:
    main_text, subs = T.claude_session(version)
    return Session(
        T.SESSION,
        [Source("main.jsonl", main_text)],
        {k: Source(f"agent-{k}.jsonl", v) for k, v in subs.items()},
    )


# -- the Claude Code projector on plain data -------------------------------------


@pytest.mark.parametrize("version", ["1.0.128", "2.0.49", "2.1.173"])
def test_claude_mapping(version: str) -> None:
    got = claudecode.project(_claude(version), ACTOR, _never)
    kinds = _kinds(got.events)
    assert kinds[0] == "run.started"
    assert kinds.count("task.created") == 2  # the typed prompt and the one with an image
    assert kinds.count("frame.created") == 2
    assert kinds.count("model.called") == 6 + 4  # one per message id, subagents included
    assert "observation.created" in kinds and "eval.finished" in kinds
    assert kinds.count("failure.observed") == 2  # the failed test, the API error
    injected = got.diagnostics.injected
    for why in ("slash command", "local command", "compaction summary", "interrupt marker"):
        assert injected[why] >= 1, why
    assert got.diagnostics.untested == []
    tasks = [e.payload["title"] for e in got.events if e.kind == "task.created"]
    assert tasks[0] == "Fix the retry bug in src/retry.py and run the tests"
    assert all("<" not in t for t in tasks)


def test_claude_subagent_nodes_are_contained_in_their_frames() -> None:
    got = claudecode.project(_claude("2.1.173"), ACTOR, _never)
    frames = {e.payload["id"] for e in got.events if e.kind == "frame.created"}
    contained = [
        op["CreateRelation"]["to"]
        for e in got.events
        if e.kind == "state.ops_applied"
        for op in e.payload
        if "CreateRelation" in op and op["CreateRelation"]["rel"] == "contained_in_frame"
    ]
    assert set(contained) == frames and len(contained) == 6  # 2 x (2 model calls, 1 tool call)


@settings(max_examples=300, deadline=None)
@given(prefix=st.sampled_from(["event", "run", "task"]), parts=st.lists(st.text(), max_size=5))
def test_stable_ids_are_name_based_uuids(prefix: str, parts: list[str]) -> None:
    """An id is the hex of uuid5 over the parts, spliced without the UUID object."""
    try:
        name = chr(0).join(parts).encode("utf-8")
    except UnicodeEncodeError:
        return  # a lone surrogate: no transcript's text holds one (it is decoded UTF-8)
    expected = uuid.uuid5(_NAMESPACE, name.decode("utf-8"))
    assert stable_id(prefix, *parts) == f"{prefix}_{expected.hex}"


def test_claude_ids_are_deterministic_and_reimport_appends_only_new() -> None:
    first = claudecode.project(_claude("2.1.173"), ACTOR, _never)
    again = claudecode.project(_claude("2.1.173"), ACTOR, _never)
    assert [e.id for e in first.events] == [e.id for e in again.events]
    logged = {e.id for e in first.events}
    assert claudecode.project(_claude("2.1.173"), ACTOR, logged.__contains__).events == []


def test_claude_unfinished_call_stays_visible_then_finishes() -> None:
    m = T.Claude("2.1.173")
    m.user("list the files")
    m.assistant(
        "msg_1",
        [{"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}],
        T.usage(1, 1),
        stop="tool_use",
    )
    session = Session(T.SESSION, [Source("m.jsonl", m.text())], {})
    first = claudecode.project(session, ACTOR, _never)
    calls = [e for e in first.events if e.kind == "tool.called"]
    assert calls[0].payload["success"] is None and calls[0].payload["metadata"]["unfinished"]
    assert first.diagnostics.unfinished_calls == 1 and first.outcome == "in-progress"
    m.tool_result("toolu_ls", "a\nb")
    grown = Session(T.SESSION, [Source("m.jsonl", m.text())], {})
    logged = {e.id for e in first.events}
    second = claudecode.project(grown, ACTOR, logged.__contains__)
    assert _kinds(second.events) == ["tool.finished"]


def test_claude_copied_records_are_never_the_childs() -> None:
    main_text, subs = T.claude_session("2.1.173")
    copied = main_text.splitlines(keepends=True)[2]  # the typed prompt, copied verbatim
    subs["sub1"] = copied + subs["sub1"]
    session = Session(
        T.SESSION, [Source("m.jsonl", main_text)], {k: Source(k, v) for k, v in subs.items()}
    )
    got = claudecode.project(session, ACTOR, _never)
    assert got.diagnostics.copied == 1
    assert _kinds(got.events).count("task.created") == 2


def test_claude_corrupt_middle_torn_last_and_unknown_types() -> None:
    lines = T.claude_session("2.1.173")[0].splitlines(keepends=True)
    lines.insert(3, "{not json\n")
    lines.insert(4, json.dumps({"type": "brand-new-record", "uuid": "x"}) + "\n")
    text = "".join(lines) + '{"type":"user","uuid":"torn'
    got = claudecode.project(Session(T.SESSION, [Source("m.jsonl", text)], {}), ACTOR, _never)
    assert got.diagnostics.corrupt == [
        "m.jsonl:4: not JSON (Expecting property name enclosed in double quotes)"
    ]
    assert got.diagnostics.torn == [f"m.jsonl:{len(lines) + 1}"]
    assert got.diagnostics.unknown_types["brand-new-record"] == 1
    assert "task.created" in _kinds(got.events)


def test_claude_untested_version_warns_and_projects() -> None:
    got = claudecode.project(_claude("3.0.1"), ACTOR, _never)
    assert "outside the versions" in got.diagnostics.untested[0]
    assert "model.called" in _kinds(got.events)


def test_claude_rewind_projects_the_active_branch() -> None:
    m = T.Claude("2.1.173")
    m.user("first try")
    fork = m.parent
    m.assistant("msg_old", [{"type": "text", "text": "old answer"}], T.usage(1, 1))
    m.parent = fork
    m.assistant("msg_new", [{"type": "text", "text": "new answer"}], T.usage(2, 2))
    got = claudecode.project(Session(T.SESSION, [Source("m", m.text())], {}), ACTOR, _never)
    outputs = [e.payload["output_summary"] for e in got.events if e.kind == "model.called"]
    assert outputs == ["new answer"] and got.diagnostics.abandoned == 1
    observed = [e.payload["title"] for e in got.events if e.kind == "observation.created"]
    assert observed == ["abandoned branch"]


def test_redaction_marks_credentials() -> None:
    text = redact("export GITHUB_TOKEN=ghp_" + "a1B2" * 9)
    assert "ghp_" not in text and "[redacted:" in text


# -- the Codex projector -------------------------------------------------------------


@pytest.mark.parametrize("version", ["0.128.0", "0.149.0"])
def test_codex_mapping(version: str) -> None:
    rollout = T.codex_rollout(version, new=version >= "0.139")
    session = CodexSession(T.CODEX_SESSION, [Source("r.jsonl", rollout)], {})
    got = codex.project(session, ACTOR, _never)
    kinds = _kinds(got.events)
    assert kinds.count("task.created") == 2  # the environment context is not one
    assert kinds.count("tool.called") == 4  # two execs, apply_patch, web search
    assert kinds.count("model.finished") == 4  # the repeated token count is counted once
    assert "patch.proposed" in kinds and kinds.count("eval.finished") == 2
    assert got.outcome == "aborted"
    models = {e.payload["model"] for e in got.events if e.kind == "model.called"}
    assert models == {"gpt-5.5", "gpt-5.5-mini"}
    reasoning = [
        e.payload["metadata"].get("reasoning") for e in got.events if e.kind == "model.called"
    ]
    assert "encrypted (not readable)" in reasoning


# -- the command, on real git ----------------------------------------------------------


@pytest.fixture
def agent_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    return repo


def _import(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["import", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("layout", ["nested", "sibling"])
def test_import_claude_code_is_conformant_and_idempotent(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    top = tmp_path / "cc" / "projects" / "-srv-example-app"
    T.write_claude(str(top), "2.1.173" if layout == "nested" else "2.0.49", layout)
    first = _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    (result,) = first["sessions"]
    assert result["appended"] > 40 and result["commit"]
    body = git(agent_repo, "log", "-1", "--format=%B")
    assert f"Agent-Session: claude-code:{T.SESSION}" in body
    assert f"Run-Id: {result['run_id']}" in body and "Outcome: completed" in body
    assert main(["check", str(agent_repo)]) == 0
    again = _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    assert again["sessions"][0]["unchanged"]
    shutil.rmtree(agent_repo / ".git" / "gasp" / "imports")  # no cursor: the ids still hold
    third = _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    assert third["sessions"][0]["appended"] == 0 and third["sessions"][0]["commit"] is None


def test_codex_projects_a_closed_run_growth_into_a_continuation() -> None:
    session = CodexSession(T.CODEX_SESSION, [Source("r.jsonl", T.codex_rollout("0.149.0"))], {})
    first = codex.project(session, ACTOR, _never)
    closed = Resume(first.run_id, first.events[0].id, True, first.task)
    half = len(first.events) // 2
    cut = next(i for i in range(half, len(first.events)) if _kinds([first.events[i]]))
    known = {e.id for e in first.events[:cut]}  # an earlier import logged these (whole pairs)
    grown = codex.project(session, ACTOR, known.__contains__, None, closed)
    assert grown.run_id != first.run_id
    started = grown.events[0]
    assert started.kind == "run.started" and started.correlation_id == grown.run_id
    assert started.payload["continues"] == first.run_id
    assert started.payload["task"] == first.task
    assert {e.correlation_id for e in grown.events} == {grown.run_id}
    assert all(first.run_id not in json.dumps(e.payload) for e in grown.events[2:])
    assert {e.id for e in grown.events[2:]} == {e.id for e in first.events} - known
    again = codex.project(session, ACTOR, known.__contains__, None, closed)
    assert again.events == grown.events  # deterministic


def _runs(repo: Path) -> list[dict[str, Any]]:
    lines = (repo / "state" / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["kind"] in ("run.started", "run.finished")]


def _goal(message: str) -> list[str]:
    return [line for line in message.splitlines() if line.startswith("Goal: ")]


def _said_hi(tmp_path: Path, agent_repo: Path) -> tuple[T.Claude, Path, list[str]]:
    """A one-turn session written to a file, and the import arguments of it."""
    m = T.Claude("2.1.173")
    m.user("say hi")
    m.assistant("msg_1", [{"type": "text", "text": "hi"}], T.usage(3, 1))
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_text(m.text())
    return m, path, ["claude-code", str(path), "--repo", str(agent_repo)]


def _say_bye(m: T.Claude, path: Path) -> None:
    m.user("and bye")
    m.assistant("msg_2", [{"type": "text", "text": "bye"}], T.usage(4, 1))
    path.write_text(m.text())


def test_import_grown_session_continues_in_a_continuation_run(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m, path, args = _said_hi(tmp_path, agent_repo)
    first = _import(args, capsys)["sessions"][0]
    _say_bye(m, path)
    second = _import(args, capsys)["sessions"][0]
    # its own run: run.started (naming the run it continues) + task + model, with pairs
    assert second["run_id"] != first["run_id"]
    assert second["appended"] == 6
    assert second["commit"] != first["commit"]
    message = git(agent_repo, "log", "-1", "--format=%B")
    assert f"Run-Id: {second['run_id']}" in message
    assert f"Agent-Session: claude-code:{T.SESSION}" in message
    first_message = git(agent_repo, "log", "-1", "--format=%B", first["commit"])
    assert _goal(message) == _goal(first_message)  # the same goal
    started = [e for e in _runs(agent_repo) if e["kind"] == "run.started"]
    assert started[1]["payload"]["continues"] == first["run_id"]
    assert started[1]["payload"]["task"] == started[0]["payload"]["task"]
    # the same file again, with or without the cursor: nothing, and no commit
    assert _import(args, capsys)["sessions"][0]["unchanged"] is True
    shutil.rmtree(agent_repo / ".git" / "gasp" / "imports")
    again = _import(args, capsys)["sessions"][0]
    assert (again["appended"], again["commit"]) == (0, None)
    # grown again: a continuation of the continuation
    m.user("one more")
    m.assistant("msg_3", [{"type": "text", "text": "ok"}], T.usage(5, 2))
    path.write_text(m.text())
    third = _import(args, capsys)["sessions"][0]
    runs = _runs(agent_repo)
    assert runs[-2]["payload"]["continues"] == second["run_id"]
    finished = [e["correlation_id"] for e in runs if e["kind"] == "run.finished"]
    assert finished == [first["run_id"], second["run_id"], third["run_id"]]  # each once
    assert main(["check", str(agent_repo)]) == 0
    capsys.readouterr()
    assert main(["usage", "--by", "session", "--repo", str(agent_repo), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["session"], r["input"], r["output"]) for r in rows] == [(T.SESSION, 12, 4)]


def _last_ms(text: str) -> int:
    from git_gasp.adapters.emitting import ts_ms

    return max(ts_ms(json.loads(line).get("timestamp"), 0) for line in text.splitlines())


def test_an_imported_run_finishes_when_its_session_did_not_when_imported(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m, path, args = _said_hi(tmp_path, agent_repo)
    first = _import(args, capsys)["sessions"][0]
    ended = _last_ms(m.text())  # 2026-06-15T10:00:..., months before the import
    (finished,) = [e for e in _runs(agent_repo) if e["kind"] == "run.finished"]
    assert finished["ts_ms"] == ended
    capsys.readouterr()
    assert main(["show", first["run_id"], "-C", str(agent_repo)]) == 0
    assert "- finished: 2026-06-15T10:" in capsys.readouterr().out
    _say_bye(m, path)  # grown: its continuation ends with its own last record
    _import(args, capsys)
    stamps = [e["ts_ms"] for e in _runs(agent_repo) if e["kind"] == "run.finished"]
    assert stamps == [ended, _last_ms(m.text())] and stamps[1] > stamps[0]
    assert main(["check", str(agent_repo)]) == 0


def test_import_codex_zst_from_codex_home(
    agent_repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    zstandard = pytest.importorskip("zstandard")
    day = tmp_path / "codex" / "sessions" / "2026" / "08" / "28"
    day.mkdir(parents=True)
    name = f"rollout-2026-08-28T10-00-00-{T.CODEX_SESSION}.jsonl.zst"
    (day / name).write_bytes(
        zstandard.ZstdCompressor().compress(T.codex_rollout("0.149.0").encode())
    )
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("GASP_AGENT_REPO", str(agent_repo))
    got = _import(["codex", "--session", T.CODEX_SESSION], capsys)
    assert got["sessions"][0]["outcome"] == "aborted"
    assert f"Agent-Session: codex:{T.CODEX_SESSION}" in git(agent_repo, "log", "-1", "--format=%B")
    assert main(["check", str(agent_repo)]) == 0


def test_import_refuses_a_file_with_nothing_recognised(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"hello": "world"}\n')
    assert main(["import", "claude-code", str(path), "--repo", str(agent_repo)]) == 1
    assert "nothing in it is a claude-code record" in capsys.readouterr().err


def test_import_without_a_repository_is_bad_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GASP_AGENT_REPO", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["import", "codex", str(tmp_path)]) == 2
    assert "no agent repository" in capsys.readouterr().err


def test_usage_agrees_with_ccusage_on_the_fixtures(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The figures ccusage printed for these same fixtures: 17.x (claude) and
    20.0.24 (``ccusage codex session``: a repeated token_count counted once,
    as here; the older @ccusage/codex counted it twice). Codex's input is
    compared with the cached tokens added back (input + cache_read)."""
    top = tmp_path / "cc" / "projects" / "-srv-example-app"
    T.write_claude(str(top), "2.1.173")
    _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    rollout = tmp_path / f"rollout-x-{T.CODEX_SESSION}.jsonl"
    rollout.write_text(T.codex_rollout("0.149.0"))
    _import(["codex", str(rollout), "--repo", str(agent_repo)], capsys)
    assert main(["usage", "--repo", str(agent_repo), "--json"]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    ccusage = {
        "claude-sonnet-4-5-20250929": (800, 140, 500, 3500),
        "claude-haiku-4-5-20251001": (220, 44, 400, 400),
    }
    for model, figures in ccusage.items():
        row = rows[model]
        assert (row["input"], row["output"], row["cache_creation"], row["cache_read"]) == figures
    codex_ccusage = {"gpt-5.5": (31000, 1600), "gpt-5.5-mini": (4000, 100)}
    for model, (inputs, outputs) in codex_ccusage.items():
        assert rows[model]["input"] + rows[model]["cache_read"] == inputs
        assert rows[model]["output"] == outputs


# -- lifting, --keep-transcript and the usage groupings ------------------------------


def _lifted_session() -> T.Claude:
    m = T.Claude("2.1.173")
    m.user("fix the retry bug and commit it")
    edit = {"file_path": "src/retry.py", "old_string": "a", "new_string": "b"}
    tool = {"type": "tool_use", "id": "toolu_e", "name": "Edit", "input": edit}
    m.assistant("msg_e", [tool], T.usage(5, 2), stop="tool_use")
    m.tool_result("toolu_e", "The file src/retry.py has been updated.")
    commit = {"command": "git commit -am 'fix retry'"}
    tool = {"type": "tool_use", "id": "toolu_c", "name": "Bash", "input": commit}
    m.assistant("msg_c", [tool], T.usage(6, 2), stop="tool_use")
    m.tool_result("toolu_c", "[main 1a2b3c4] fix retry\n 1 file changed")
    push = {"command": "git push --force"}
    tool = {"type": "tool_use", "id": "toolu_p", "name": "Bash", "input": push}
    m.assistant("msg_p", [tool], T.usage(7, 2), stop="tool_use")
    denial = "The user doesn't want to proceed with this tool use. The tool use was rejected."
    m.tool_result("toolu_p", denial, is_error=True)
    m.assistant("msg_d", [{"type": "text", "text": "committed, not pushed"}], T.usage(8, 3))
    return m


def test_lifting_a_commit_artifact_and_a_rejected_decision() -> None:
    session = Session(T.SESSION, [Source("main.jsonl", _lifted_session().text())], {})
    events = claudecode.project(session, ACTOR, _never).events
    by_kind = {e.kind: e for e in events}
    patch = by_kind["patch.proposed"].payload
    art = by_kind["artifact.attached"].payload
    assert art["node_id"] == patch["id"]
    assert art["artifact"]["kind"] == "git.commit" and art["artifact"]["uri"] == "git:1a2b3c4"
    decision = by_kind["decision.created"].payload
    assert decision["status"] == "Rejected"
    assert "approved" not in json.dumps([e.payload for e in events]).lower()  # never invented
    off = claudecode.project(session, ACTOR, _never, LiftConfig(frozenset({"eval"})))
    assert not {"patch.proposed", "artifact.attached", "decision.created"} & set(_kinds(off.events))


def test_keep_transcript_and_usage_by_commit_day_range_and_pricing(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_text(_lifted_session().text())
    got = _import(
        ["claude-code", str(path), "--repo", str(agent_repo), "--keep-transcript"], capsys
    )
    session = got["sessions"][0]
    stored = agent_repo / session["transcript"]
    assert stored.is_file() and session["transcript"].startswith("transcripts/")
    assert git(agent_repo, "ls-files", "transcripts").strip() == ""  # cold: not committed
    assert main(["check", str(agent_repo)]) == 0
    capsys.readouterr()
    assert main(["usage", "--by", "commit", "--repo", str(agent_repo), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["commit"], r["input"], r["output"]) for r in rows] == [(session["commit"], 26, 9)]
    assert main(["usage", "--by", "day", "--repo", str(agent_repo), "--json"]) == 0
    assert [r["day"] for r in json.loads(capsys.readouterr().out)["rows"]] == ["2026-06-15"]
    assert main(["usage", "HEAD~1..HEAD~1", "--repo", str(agent_repo), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == []  # an empty range counts nothing
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"claude-sonnet-4-5-20250929": {"input": 3, "output": 15}}))
    args = ["usage", "--pricing", str(prices), "--repo", str(agent_repo)]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cost_is_estimate"] is True
    assert report["rows"][0]["cost_estimate"] == round((26 * 3 + 9 * 15) / 1_000_000, 6)
    assert main(args) == 0
    assert "(estimate)" in capsys.readouterr().out


# -- the drift cases of adapters.md §3.7 (Codex) ----------------------------------------


def _codex(version: str, *items: tuple[str, dict[str, Any]]) -> Projection:
    lines = [("session_meta", {"id": T.CODEX_SESSION, "cli_version": version, "cwd": "/r"})]
    lines.append(("turn_context", {"turn_id": "t1", "model": "gpt-5.5", "cwd": "/r"}))
    text = "".join(
        json.dumps({"timestamp": f"2026-08-28T10:00:{i:02d}.000Z", "type": k, "payload": p}) + "\n"
        for i, (k, p) in enumerate([*lines, *items])
    )
    session = CodexSession(T.CODEX_SESSION, [Source("r.jsonl", text)], {})
    return codex.project(session, ACTOR, _never)


def _said(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


def _typed(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_codex_drift_reasoning_as_an_event_before_0_139() -> None:
    got = _codex(
        "0.138.0",
        ("event_msg", {"type": "user_message", "message": "fix it"}),
        ("event_msg", {"type": "agent_reasoning", "text": "thinking"}),
        ("response_item", _said("done")),
    )
    assert _kinds(got.events) == ["run.started", "task.created", "model.called"]


def test_codex_drift_metadata_on_response_items_from_0_141() -> None:
    got = _codex(
        "0.141.0",
        ("response_item", {**_typed("fix it"), "metadata": {"turn_id": "t1"}}),
        ("response_item", {**_said("done"), "metadata": {"turn_id": "t1"}}),
    )
    assert _kinds(got.events) == ["run.started", "task.created", "model.called"]


def test_codex_drift_item_completed_user_message_from_0_147() -> None:
    item = {"type": "UserMessage", "content": [{"type": "text", "text": "fix it"}]}
    got = _codex(
        "0.147.0",
        ("response_item", _typed("fix it")),
        ("event_msg", {"type": "item_completed", "item": item}),
        ("response_item", _said("done")),
    )
    tasks = [e.payload["title"] for e in got.events if e.kind == "task.created"]
    assert tasks == ["fix it"]  # once: the event, not also its response item


def test_codex_drift_prompt_only_as_a_user_message_from_0_148() -> None:
    got = _codex(
        "0.148.0",
        ("response_item", _typed("<environment_context>cwd=/r</environment_context>")),
        ("response_item", _typed("fix it")),
        ("response_item", _said("done")),
    )
    tasks = [e.payload["title"] for e in got.events if e.kind == "task.created"]
    assert tasks == ["fix it"]
    assert got.diagnostics.injected["environment context"] == 1


def test_codex_drift_code_mode_exec_is_one_visible_call() -> None:
    program = "await tools.exec_command({cmd: 'ls'})"
    call = {"type": "custom_tool_call", "name": "exec", "call_id": "x1", "input": program}
    got = _codex(
        "0.153.4",
        ("response_item", _typed("list files")),
        ("response_item", call),
        ("response_item", {"type": "custom_tool_call_output", "call_id": "x1", "output": "a b"}),
    )
    calls = [e.payload for e in got.events if e.kind == "tool.called"]
    assert [(c["tool"], c["success"]) for c in calls] == [("exec", True)]


CHILD = "019a0000-0000-7000-8000-00000000c41d"


def _rollout(meta: dict[str, Any], *items: tuple[str, dict[str, Any]]) -> str:
    lines = [("session_meta", {"cli_version": "0.149.0", "cwd": "/r", **meta})]
    lines.append(("turn_context", {"turn_id": "t1", "model": "gpt-5.5", "cwd": "/r"}))
    return "".join(
        json.dumps({"timestamp": f"2026-08-28T10:01:{i:02d}.000Z", "type": k, "payload": p}) + "\n"
        for i, (k, p) in enumerate([*lines, *items])
    )


def _tokens(inp: int, out: int) -> tuple[str, dict[str, Any]]:
    total = {"input_tokens": inp, "cached_input_tokens": 0, "output_tokens": out}
    info = {"total_token_usage": total, "last_token_usage": total}
    return ("event_msg", {"type": "token_count", "info": info})


def test_import_codex_subagent_thread_inside_its_parents_run(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spawn = {
        "type": "function_call",
        "name": "spawn_agent",
        "call_id": "s1",
        "arguments": json.dumps({"message": "find the flaky test"}),
    }
    spawned = {"agent_id": CHILD, "nickname": "scout"}
    parent = _rollout(
        {"id": T.CODEX_SESSION},
        ("event_msg", {"type": "user_message", "message": "fix the flaky test"}),
        ("response_item", spawn),
        (
            "response_item",
            {"type": "function_call_output", "call_id": "s1", "output": json.dumps(spawned)},
        ),
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
    (tmp_path / "rollouts").mkdir()
    (tmp_path / "rollouts" / f"rollout-a-{T.CODEX_SESSION}.jsonl").write_text(parent)
    (tmp_path / "rollouts" / f"rollout-b-{CHILD}.jsonl").write_text(child)
    got = _import(["codex", str(tmp_path / "rollouts"), "--repo", str(agent_repo)], capsys)
    assert [s["session"] for s in got["sessions"]] == [T.CODEX_SESSION]  # one run
    lines = (agent_repo / "state" / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    frames = [e["payload"] for e in events if e["kind"] == "frame.created"]
    assert [f["title"] for f in frames] == ["subagent scout"]
    tasks = [e["payload"]["title"] for e in events if e["kind"] == "task.created"]
    assert tasks == ["fix the flaky test"]  # the parent's message to the child is no task
    ops = [op for e in events if e["kind"] == "state.ops_applied" for op in e["payload"]]
    contained = [
        op for op in ops if op.get("CreateRelation", {}).get("rel") == "contained_in_frame"
    ]
    assert len(contained) == 1  # the child's model call
    assert main(["check", str(agent_repo)]) == 0
    capsys.readouterr()
    assert main(["usage", "--repo", str(agent_repo), "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert (totals["input"], totals["output"]) == (1300, 140)  # the child counted once


def test_a_directory_of_sessions_is_imported_through_one_open(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    """Every session closes its own run with its own boundary commit and note,
    but the log is opened (read, its lease taken) once for all of them, and
    git's auto maintenance runs once after the last commit."""
    from git_gasp.agent.api import Agent

    many = tmp_path / "many"
    many.mkdir()
    sessions = [f"{i:08d}-0000-4000-8000-00000000000c" for i in range(4)]
    for sid in sessions:
        m = T.Claude("2.1.173", session=sid)
        m.user(f"fix bug {sid[:8]}")
        m.assistant(f"msg_{sid[:8]}", [{"type": "text", "text": "done"}], T.usage(3, 2))
        (many / f"{sid}.jsonl").write_text(m.text())
    opened: list[str] = []
    real_open = Agent.open.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Agent], root: str = ".", *args: Any, **kwargs: Any) -> Agent:
        opened.append(root)
        return real_open(cls, root, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(Agent, "open", classmethod(counting))
    git(agent_repo, "config", "maintenance.auto", "true")  # the tests' git has it off
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    result = _import(["claude-code", str(many), "--repo", str(agent_repo)], capsys)
    monkeypatch.delenv("GIT_TRACE")
    assert len(opened) == 1
    # git commit's housekeeping ran once, after the last commit, not after each
    said = trace.read_text()
    assert said.count("built-in: git commit") == 4
    assert said.count("git maintenance run --auto") == 1
    assert sorted(r["session"] for r in result["sessions"]) == sessions
    assert len({r["commit"] for r in result["sessions"]}) == 4
    for r in result["sessions"]:
        body = git(agent_repo, "log", "-1", "--format=%B", r["commit"])
        assert f"Agent-Session: claude-code:{r['session']}" in body
        assert git(agent_repo, "notes", "--ref", "refs/notes/agent-sessions", "show", r["commit"])
    assert main(["check", str(agent_repo)]) == 0
    again = _import(["claude-code", str(many), "--repo", str(agent_repo)], capsys)
    assert all(r["unchanged"] for r in again["sessions"]) and len(opened) == 1
