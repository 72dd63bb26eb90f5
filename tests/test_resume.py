"""The run a runtime resumes (REFERENCE resume_open_run), on plain data and
as `git gasp status` and `run status` report it."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.agent.fixture import write_fixture
from git_gasp.core.event import Actor, Event, encode_event
from git_gasp.core.log import parse_log
from git_gasp.core.restorereport import CLOSE_HINT
from git_gasp.core.resume import ResumedRun, resumed_run, resumed_run_seeded

from .conftest import git
from .conftest import run_cli as main

AGENT = Actor("agent", "evolve")


def event(n: int, kind: str, payload: object) -> Event:
    return Event(f"event_{n:04d}", 1, 1739000000000 + n, AGENT, kind, payload, None, None)


def started(n: int, run: object, task: str = "t") -> Event:
    return event(n, "run.started", {"run_id": run, "task": task})


def finished(n: int, run: object) -> Event:
    return event(n, "run.finished", {"outcome": "done", "run_id": run})


def test_the_last_start_is_resumed_until_its_own_finish() -> None:
    assert resumed_run([]) is None
    assert resumed_run([started(1, "a")]) == ResumedRun("a", "event_0001", "t")
    assert resumed_run([started(1, "a"), finished(2, "a")]) is None
    # a later start replaces the earlier: a's finish no longer matters
    assert resumed_run([started(1, "a"), started(2, "b"), finished(3, "a")]) == ResumedRun(
        "b", "event_0002", "t"
    )
    # a finish before the restart of the same id does not close the restart
    assert resumed_run([started(1, "a"), finished(2, "a"), started(3, "a")]) == ResumedRun(
        "a", "event_0003", "t"
    )
    # a start without a string run_id changes nothing
    assert resumed_run([started(1, "a"), started(2, 42)]) == ResumedRun("a", "event_0001", "t")
    assert resumed_run([event(1, "goal.created", {"run_id": "x"})]) is None


def _line(e: Event, spelling: str) -> bytes:
    text = encode_event(e)
    if spelling == "escaped":  # the same event, its kind spelled with an escape
        text = text.replace('"kind":"run.', '"kind":"run\\u002e', 1)
    elif spelling == "spaced":
        text = text.replace('"kind":"', '"kind" : "', 1)
    return text.encode() + b"\n"


_step = st.tuples(
    st.sampled_from(["start", "finish", "other", "mention", "badstart", "escapes"]),
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from(["plain", "escaped", "spaced"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_step, max_size=14), st.data())
def test_a_seeded_prefix_resumes_what_a_full_read_does(
    steps: list[tuple[str, str, str]], data: st.DataObject
) -> None:
    events, lines = [], []
    for n, (what, run, spelling) in enumerate(steps):
        if what == "start":
            e = started(n, run)
        elif what == "finish":
            e = finished(n, run)
        elif what == "badstart":
            e = started(n, None)
        elif what == "mention":  # the texts "run.started", "run.finished" where no kind is
            summary = {"summary": "run.started", "title": "run.finished", "run_id": run}
            e = event(n, "observation.created", summary)
        elif what == "escapes":  # a \\u escape in a line that is no run event
            e = event(n, "goal.created", {"id": f"goal_{n}", "title": "bell \x07"})
        else:
            e = event(n, "goal.created", {"id": f"goal_{n}"})
        events.append(e)
        lines.append(_line(e, spelling))
    log = b"".join(lines)
    assert list(parse_log(log).events) == events  # every spelling is the same event
    cut = data.draw(st.integers(0, len(events)))
    offset = len(b"".join(lines[:cut]))
    assert resumed_run_seeded(log, offset, events[cut:]) == resumed_run(events)


# -- as the commands report it ---------------------------------------------------------


@pytest.fixture
def fixture_repo(tmp_path: Path) -> Path:
    dest = tmp_path / "agent"
    write_fixture(str(dest))
    return dest


def status_json(capsys: pytest.CaptureFixture[str], repo: Path) -> dict[str, object]:
    code, out, err = main(capsys, "status", "-C", str(repo), "--json")
    assert code == 0, err
    value = json.loads(out)
    assert isinstance(value, dict)
    return value


def test_status_and_run_status_agree_on_a_start_without_a_node(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the fixture starts run_42 without an ops pair and never finishes it
    report = status_json(capsys, fixture_repo)
    assert report["open_runs"] == [
        {
            "id": "run_42",
            "task": "fix retry skill",
            "node": False,
            "close_with": CLOSE_HINT,
        }
    ]
    code, out, _ = main(capsys, "status", "-C", str(fixture_repo))
    assert code == 0
    assert "open runs:       run_42 (no run node for this start: no ops pair)" in out
    code, out, _ = main(capsys, "run", "status", "-C", str(fixture_repo), "--json")
    assert code == 0 and json.loads(out)["open_run"]["run_id"] == "run_42"


def _start_with_node(n: int, run: str) -> list[Event]:
    start = started(n, run, task=run)
    op = {"CreateNode": {"id": run, "kind": "run", "props": {"status": "started", "task": run}}}
    pair = Event(
        f"event_{n + 1:04d}", 1, 1739000000000 + n, AGENT, "state.ops_applied", [op], start.id, run
    )
    return [start._replace(correlation_id=run), pair]


def test_a_superseded_run_is_stale_not_open(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a runtime that started run_b without resuming run_a (which never finished)
    repo = tmp_path / "agent"
    shutil.copytree(template, repo, symlinks=True)
    with open(repo / "state" / "events.jsonl", "a", encoding="utf-8") as fh:
        for e in [*_start_with_node(9001, "run_a"), *_start_with_node(9003, "run_b")]:
            fh.write(encode_event(e) + "\n")
    report = status_json(capsys, repo)
    assert [(r["id"], r["node"]) for r in report["open_runs"]] == [("run_b", True)]
    stale = [{"id": "run_a", "task": "run_a", "finished": False, "outcome": None}]
    assert report["stale_runs"] == stale  # no run.finished of run_a in the log
    code, out, _ = main(capsys, "status", "-C", str(repo))
    assert "stale runs:      run_a (marked started, but no runtime resumes them)" in out
    hint = out.split("mark one finished with: ")[1].splitlines()[0]
    ops = shlex.split(hint)[-1].replace('"RUN"', '"run_a"')
    code, _, err = main(capsys, "record", "ops", "--json-ops", ops, "-C", str(repo))
    assert code == 0, err
    assert status_json(capsys, repo)["stale_runs"] == []
    code, out, _ = main(capsys, "run", "status", "-C", str(repo), "--json")
    assert code == 0 and json.loads(out)["open_run"]["run_id"] == "run_b"


def test_an_agent_seeded_past_a_start_without_a_node_still_resumes_it(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from git_gasp.agent.api import Agent

    repo = tmp_path / "agent"
    shutil.copytree(template, repo, symlinks=True)
    unpaired = started(9001, "run_x", task="crashed before its ops pair")
    with open(repo / "state" / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(encode_event(unpaired._replace(correlation_id="run_x")) + "\n")
        fh.write(encode_event(event(9002, "goal.created", {"id": "goal_z"})) + "\n")
    code, _, err = main(capsys, "snapshot", "-C", str(repo))
    assert code == 0, err
    for _ in range(2):  # the first open verifies the snapshot, the second is seeded by it
        agent = Agent.open(str(repo), worker="w")
        assert agent.open_run is not None and agent.open_run.run_id == "run_x"
        assert agent.open_run.started_event == unpaired.id
        agent.close()
    assert agent._seed is not None and not agent.recent_events()
    assert status_json(capsys, repo)["open_runs"][0]["id"] == "run_x"


def test_a_restarted_run_id_is_closed_by_run_close(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # run_a started, finished, then started again (the reference allows reusing an id)
    repo = tmp_path / "agent"
    shutil.copytree(template, repo, symlinks=True)
    log = repo / "state" / "events.jsonl"
    done = finished(9003, "run_a")._replace(causation_id="event_9001", correlation_id="run_a")
    again = started(9005, "run_a", task="again")._replace(correlation_id="run_a")
    with open(log, "a", encoding="utf-8") as fh:
        for e in [*_start_with_node(9001, "run_a"), done, again]:
            fh.write(encode_event(e) + "\n")
    git(repo, "commit", "-q", "--no-verify", "-am", "a run restarted")
    assert status_json(capsys, repo)["open_runs"][0]["id"] == "run_a"
    code, _, err = main(capsys, "run", "close", "--outcome", "done again", "-C", str(repo))
    assert code == 0, err
    closing = parse_log(log.read_bytes()).events[-2]
    assert (closing.kind, closing.payload["run_id"], closing.causation_id) == (
        "run.finished",
        "run_a",
        again.id,
    )
    assert status_json(capsys, repo)["open_runs"] == []
    code, out, _ = main(capsys, "run", "status", "-C", str(repo), "--json")
    assert code == 0 and json.loads(out)["open_run"] is None


def test_status_names_a_run_this_clone_has_not_committed(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from git_gasp.agent.api import Agent

    repo = tmp_path / "agent"
    shutil.copytree(template, repo, symlinks=True)
    code, _, err = main(capsys, "run", "start", "--task", "t", "-C", str(repo))
    assert code == 0, err
    report = status_json(capsys, repo)
    assert len(report["open_runs"]) == 1 and report["warnings"] == []
    run_id = report["open_runs"][0]["id"]
    agent = Agent.open(str(repo))
    agent.finish_run("done")  # a crash before the boundary commit: the marker stays
    agent.close()
    report = status_json(capsys, repo)
    assert report["open_runs"] == []
    assert report["warnings"] == [
        f"this clone's run marker (.agent/RUN) names {run_id}, not committed yet; "
        "git gasp run status shows it, git gasp run close completes it"
    ]
    code, out, _ = main(capsys, "run", "status", "-C", str(repo), "--json")
    assert json.loads(out)["open_run"]["run_id"] == run_id
    code, _, err = main(capsys, "run", "close", "--outcome", "done", "-C", str(repo))
    assert code == 0, err
    assert status_json(capsys, repo)["warnings"] == []
