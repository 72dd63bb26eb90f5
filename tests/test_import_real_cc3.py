"""Claude Code shapes of agent teams (round 3: 2.1.211 member files, as
converters of agent-team sessions read them): each a synthetic fixture
written here in the shape a real file had (no real content copied).
"""

from __future__ import annotations

import json

from git_gasp.adapters import claudecode
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.lines import Projection, Source
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
