"""Claude Code shapes of agent teams (round 3: 2.1.211 member files, as
converters of agent-team sessions read them): each a synthetic fixture
written here in the shape a real file had (no real content copied).
"""

from __future__ import annotations

import json

from git_gasp.adapters import claudecode
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.lines import Projection, Source
from git_gasp.adapters.usage import counted
from git_gasp.core.event import Actor
from tests import transcripts as T

ACTOR = Actor("agent", "importer")
TEAM = "session-74589d7d"


def _never(_: str) -> bool:
    return False


def _cc(text: str) -> Projection:
    return claudecode.project(Session(T.SESSION, [Source("main.jsonl", text)], {}), ACTOR, _never)


def _member() -> T.Claude:
    """A member's file: its title records, then lines naming its team and
    itself; the lead's brief is its first user line, a ``teammate-message``."""
    m = T.Claude("2.1.211")
    m.add({"type": "ai-title", "aiTitle": "Harden the backend", "sessionId": T.SESSION})
    m.add({"type": "agent-name", "agentName": "Harden the backend", "sessionId": T.SESSION})
    brief = "\nYou are the backend engineer: batch D, concurrency.\n"
    m.user(f'<teammate-message teammate_id="team-lead">{brief}</teammate-message>')
    m.assistant("msg_m1", [{"type": "text", "text": "On it."}], T.usage(5, 30, 10, 20))
    stop = {"type": "shutdown_request", "from": "team-lead", "reason": "done"}
    m.user(f'<teammate-message teammate_id="team-lead">{json.dumps(stop)}</teammate-message>')
    lines = [json.loads(x) for x in m.lines]
    for value in lines:
        if value["type"] in ("user", "assistant"):
            value.update(teamName=TEAM, agentName="fix-d")
    m.lines = [json.dumps(v) + "\n" for v in lines]
    return m


def test_cc_a_team_member_s_brief_is_observed_and_names_its_run() -> None:
    """The lead's brief is not a person's task (no task), but it is not
    dropped either: an observation of who wrote it, with its text, and the
    member's run is titled by its name and team, not by a bare session id.
    The team's JSON protocol messages (a ``shutdown_request``) are counted
    only."""
    got = _cc(_member().text())
    assert not [e for e in got.events if e.kind == "task.created"]
    seen = [e.payload for e in got.events if e.kind == "observation.created"]
    assert [(o["title"], o["summary"]) for o in seen] == [
        ("message from teammate team-lead", "You are the backend engineer: batch D, concurrency.")
    ]
    assert got.task == f"teammate fix-d of team {TEAM}"
    assert got.diagnostics.injected["teammate message"] == 2
    assert got.diagnostics.unknown_fields == {} and got.diagnostics.unknown_types == {}


def test_cc_the_lead_s_prompt_stays_its_task_beside_a_member_s_report() -> None:
    """On the lead's side a member's report is a ``teammate-message`` user
    line: observed, while the person's prompt remains the run's task."""
    m = T.Claude("2.1.211")
    m.user("build it with a team")
    m.user('<teammate-message teammate_id="tester" color="blue">all tests pass</teammate-message>')
    got = _cc(m.text())
    assert [e.payload["title"] for e in got.events if e.kind == "task.created"] == [
        "build it with a team"
    ]
    seen = [e.payload for e in got.events if e.kind == "observation.created"]
    assert [(o["title"], o["summary"]) for o in seen] == [
        ("message from teammate tester", "all tests pass")
    ]
    assert got.task == "build it with a team"


def _inline_sidechain() -> T.Claude:
    """Claude Code up to 2.0.x wrote a ``Task`` subagent's conversation into
    the main file: ``isSidechain`` lines whose own chain begins at a user line
    holding the call's prompt, then the call's result on the main chain."""
    m = T.Claude("1.0.30")
    m.user("research the border colors")
    task = {"description": "Research", "prompt": "Research how data-border-color is used"}
    task["subagent_type"] = "general-purpose"
    call = [{"type": "tool_use", "id": "toolu_T", "name": "Task", "input": task}]
    m.assistant("msg_1", call, T.usage(3, 5, 100, 0))
    main_parent = m.parent
    side = T.Claude("1.0.30", sidechain=True, tag="s")
    side.minute = 5
    side.user(task["prompt"])
    grep = [{"type": "tool_use", "id": "toolu_G", "name": "Grep", "input": {"pattern": "x"}}]
    side.assistant("msg_s1", grep, T.usage(3, 7, 50, 0))
    side.tool_result("toolu_G", "a.css")
    side.assistant("msg_s2", [{"type": "text", "text": "In a.css"}], T.usage(3, 9, 0, 50))
    m.lines += side.lines
    m.parent = main_parent
    m.minute = 20
    m.tool_result("toolu_T", "In a.css")
    m.assistant("msg_2", [{"type": "text", "text": "Done"}], T.usage(3, 4, 0, 100))
    return m


def test_cc_an_inline_sidechain_is_a_frame_and_its_prompt_no_task() -> None:
    """The sidechain's prompt is the ``Task`` call's, not a person's: it was
    taken as a second task. Its lines are projected inside one frame titled
    by the call, and its tokens still count once each."""
    got = _cc(_inline_sidechain().text())
    assert [e.payload["title"] for e in got.events if e.kind == "task.created"] == [
        "research the border colors"
    ]
    [frame] = [e.payload for e in got.events if e.kind == "frame.created"]
    assert frame["title"] == "general-purpose: Research"
    inside = {
        op["CreateRelation"]["from"]
        for e in got.events
        if e.kind == "state.ops_applied"
        for op in e.payload
        if op.get("CreateRelation", {}).get("rel") == "contained_in_frame"
        and op["CreateRelation"]["to"] == frame["id"]
    }
    named = {
        e.payload["id"]: e.payload.get("tool") or e.payload.get("metadata", {}).get("message_id")
        for e in got.events
        if e.kind in ("tool.called", "model.called")
    }
    assert sorted(named[n] for n in inside) == ["Grep", "msg_s1", "msg_s2"]
    assert got.diagnostics.injected["subagent prompt"] == 1
    assert sum(c["output"] for _, _, c in counted(got.events)) == 5 + 7 + 9 + 4
