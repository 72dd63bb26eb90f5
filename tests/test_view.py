"""Seeing the agent: show, lineage, nodes and runs a person reads, on literal
graphs and on a real-shaped history (600 generated runs and one arc)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from git_gasp.core import nodefields as nf
from git_gasp.core.event import Actor, Event
from git_gasp.core.graph import Graph, Node, Relation
from git_gasp.core.lineage import lineage
from git_gasp.core.lineagedraw import lineage_dot, lineage_mermaid, lineage_text
from git_gasp.core.nodetable import nodes_text, select_nodes
from git_gasp.core.provenance import Provenance
from git_gasp.core.runlog import RunCommit, select_runs
from git_gasp.core.showing import RELATIONS_SHOWN, show_text
from git_gasp.view.story import read_story

from .conftest import git, run_cli
from .history import ARC

# the real-shaped history is built once per worker: keep its tests on one
pytestmark = pytest.mark.xdist_group("story-history")


# --- what a node shows --------------------------------------------------------


def _n(node_id: str, kind: str, **props: object) -> Node:
    return Node(node_id, kind, dict(props))


def test_fields_by_kind() -> None:
    decision = _n(
        "d",
        "decision",
        status="Rejected",
        reason="eval failed",
        decided_by={"kind": "agent", "id": "evolve"},
    )
    assert nf.fields(decision) == [("reason", "eval failed"), ("decided by", "agent:evolve")]
    assert (nf.status(decision), nf.tone(decision), nf.title(decision)) == (
        "Rejected",
        "bad",
        "eval failed",
    )
    call = _n(
        "t",
        "tool_call",
        tool="pytest",
        input_summary="-q",
        output_summary="1 failed",
        success=False,
    )
    assert nf.status(call) == "failed" and nf.tone(call) == "bad"
    assert ("success", "no") in nf.fields(call) and ("input", "-q") in nf.fields(call)
    evaluation = _n("e", "eval", command="pytest -q", status="Passed", score=1.0)
    assert nf.fields(evaluation) == [("command", "pytest -q"), ("score", "1.0")]
    assert nf.tone(evaluation) == "good"
    run = _n("r", "run", task="fix it", status="finished", outcome="promoted")
    assert (nf.title(run), nf.status(run), nf.tone(run)) == ("fix it", "promoted", "good")
    failure = _n("f", "failure", title="lost", summary="counter reset")
    assert nf.status(failure) is None and nf.tone(failure) == "open"
    assert nf.label(failure, "f") == "lost (failure)"
    assert nf.shorten("a  b\nc " * 20, 10) == "a b c a b…"
    assert nf.status(Node("x", "patch", [1])) is None  # props of another shape


def _event(i: int, kind: str, payload: object, run: str | None, cause: str | None = None) -> Event:
    return Event(
        f"e{i}", 1, 1_739_000_000_000 + i * 1000, Actor("agent", "a"), kind, payload, cause, run
    )


def _ops(*ops: dict[str, object]) -> list[dict[str, object]]:
    return list(ops)


LOG = [
    _event(0, "run.started", {"run_id": "run_1", "task": "fix"}, "run_1"),
    _event(
        1,
        "state.ops_applied",
        _ops(
            {
                "CreateNode": {
                    "id": "run_1",
                    "kind": "run",
                    "props": {"task": "fix", "status": "started"},
                }
            }
        ),
        "run_1",
        "e0",
    ),
    _event(2, "patch.proposed", {}, "run_1"),
    _event(
        3,
        "state.ops_applied",
        _ops(
            {
                "CreateNode": {
                    "id": "p",
                    "kind": "patch",
                    "props": {"title": "persist", "status": "Proposed"},
                }
            },
            {"CreateRelation": {"from": "p", "rel": "advances", "to": "g", "props": {}}},
        ),
        "run_1",
        "e2",
    ),
    _event(4, "patch.status_changed", {}, "run_1"),
    _event(
        5,
        "state.ops_applied",
        _ops({"UpdateNode": {"id": "p", "props": {"status": "Promoted"}}}),
        "run_1",
        "e4",
    ),
    _event(6, "run.finished", {}, "run_1"),
    _event(
        7,
        "state.ops_applied",
        _ops(
            {"UpdateNode": {"id": "run_1", "props": {"outcome": "promoted", "status": "finished"}}}
        ),
        "run_1",
        "e6",
    ),
]


def test_provenance_follows_the_runs() -> None:
    prov = Provenance()
    for event in LOG:
        prov.add(event)
    assert prov.run_of("p") == "run_1" and prov.run_of("g") is None
    assert prov.started == {"run_1": LOG[0].ts_ms} and prov.finished == {"run_1": LOG[6].ts_ms}
    entries = prov.entries["run_1"]
    assert [(e.event, e.op, e.node) for e in entries] == [
        ("run.started", "CreateNode", "run_1"),
        ("patch.proposed", "CreateNode", "p"),
        ("patch.proposed", "CreateRelation", "p"),
        ("patch.status_changed", "UpdateNode", "p"),
        ("run.finished", "UpdateNode", "run_1"),
    ]
    assert entries[2].detail == "advances -> g"
    assert [(c.node, c.status) for c in prov.status_changes] == [
        ("p", "Promoted"),
        ("run_1", "finished"),
    ]


def test_show_text_groups_relations_and_bounds_them() -> None:
    nodes = {"p": _n("p", "patch", title="persist", status="Promoted", references_commit="abc")}
    rels = []
    for i in range(RELATIONS_SHOWN + 3):
        nodes[f"f{i}"] = _n(f"f{i}", "failure", title=f"failure {i}")
        rels.append(Relation("p", "addresses", f"f{i}", {}))
    nodes["e"] = _n("e", "eval", command="pytest", status="Failed")
    rels.insert(1, Relation("p", "validated_by", "e", {}))
    text = show_text(Graph(nodes, tuple(rels), 1), "p")
    assert text.startswith(
        "# persist\n\n- id: p\n- kind: patch\n- status: Promoted\n- commit: abc\n"
    )
    lines = text.splitlines()
    at = lines.index("- validated_by -> e")
    assert lines[at + 1] == "  pytest (eval, Failed)"
    assert lines.index("- addresses -> f0") < at  # grouped by rel, in graph order within
    assert lines[lines.index("- addresses -> f0") + 1] == "  failure 0 (failure)"
    assert "- … and 3 more (see `git gasp show p --json`)" in lines


# --- the lineage scope ----------------------------------------------------------

HUB = Graph(
    {
        n.id: n
        for n in (
            _n("p1", "patch", title="first", status="Rejected"),
            _n("p2", "patch", title="second", status="Promoted"),
            _n("p3", "patch", title="unrelated", status="Proposed"),
            _n("e1", "eval", status="Failed"),
            _n("f", "failure", title="limit"),
            _n("g", "goal", title="reliable", status="Open"),
            _n("r", "run", task="try", outcome="rejected"),
            _n("c", "tool_call", tool="pytest", success=False, run_id="r"),
        )
    },
    (
        Relation("p1", "validated_by", "e1", {}),
        Relation("e1", "observes", "f", {}),
        Relation("p2", "addresses", "f", {}),
        Relation("p2", "supersedes", "p1", {}),
        Relation("p1", "advances", "g", {}),
        Relation("p2", "advances", "g", {}),
        Relation("p3", "advances", "g", {}),
        Relation("c", "produced_by", "r", {}),
        Relation("f", "observes", "r", {}),
    ),
    9,
)


def test_lineage_stops_at_goals_and_runs() -> None:
    found = lineage(HUB, "p1")
    assert {r.id for r in found.nodes} == {"p1", "e1", "f", "p2", "g", "r"}
    assert found.stopped == ("g", "r")
    assert "p3" not in lineage_text(found) and "c" not in {r.id for r in found.nodes}
    assert "not walked through: g, r" in lineage_text(found)
    wide = lineage(HUB, "p1", through_goals=True)
    assert "p3" in {r.id for r in wide.nodes} and wide.stopped == ("r",)
    assert {r.id for r in lineage(HUB, "g", 1).nodes} == {"g", "p1", "p2", "p3"}  # a root is walked


def test_lineage_says_what_it_cut() -> None:
    found = lineage(HUB, "p1", depth=1)
    assert [r.id for r in found.nodes] == ["p1", "e1", "g", "p2"]
    assert found.beyond_depth == 1  # f, two hops away
    assert "cut: 1 more node beyond --depth 1" in lineage_text(found)
    small = lineage(HUB, "p1", max_nodes=3)
    assert [r.id for r in small.nodes] == ["p1", "e1", "g"] and small.beyond_max == 3
    assert all(r.from_ in {"p1", "e1", "g"} and r.to in {"p1", "e1", "g"} for r in small.relations)
    assert "cut: 3 more nodes past --max-nodes 3" in lineage_text(small)


def test_drawings_colour_by_status_and_group_by_run() -> None:
    found = lineage(HUB, "p1")
    runs = {"p1": "r", "e1": "r", "f": "r", "p2": None, "g": None, "r": "r"}
    dot = lineage_dot(found, runs, {"r": "try"})
    assert 'subgraph cluster_0 {\n    label="run: try";' in dot
    assert 'label="first\\npatch, Rejected", style="filled,bold", fillcolor="#ffd9d9"' in dot
    assert '"p2" [label="second\\npatch, Promoted", style=filled, fillcolor="#d8f3dc"' in dot
    assert '"f" [label="limit\\nfailure", style=filled, fillcolor="#eef1f4"' in dot
    mermaid = lineage_mermaid(found, runs, {"r": "try"})
    assert '  subgraph r0["run: try"]\n' in mermaid and "\n  end\n" in mermaid
    assert "classDef good fill:#d8f3dc" in mermaid and "classDef bad fill:#ffd9d9" in mermaid
    assert '["second<br/>patch, Promoted"]' in mermaid
    tricky = Graph({"x": _n("x", "patch", title='fix #12; "now" <b>')}, (), 1)
    assert '["fix #35;12; #quot;now#quot; #lt;b#gt;<br/>patch"]' in lineage_mermaid(
        lineage(tricky, "x")
    )


# --- runs, nodes: the pure selections ---------------------------------------------


def test_select_runs() -> None:
    runs = [
        RunCommit("a" * 40, "run_1", "goal_1", "promoted", (), "s", "2025-02-08T00:00:00Z"),
        RunCommit("b" * 40, "run_2", "goal_2", "Rejected", (), "s", "2025-02-09T00:00:00Z"),
        RunCommit("c" * 40, "run_3", None, None, (), "s", "2025-02-10T00:00:00Z"),
    ]
    titles = {"goal_1": "Make retry reliable", "goal_2": "Cut latency"}
    assert [r.run_id for r in select_runs(runs, limit=2)] == ["run_1", "run_2"]
    assert [r.run_id for r in select_runs(runs, outcome="rejected")] == ["run_2"]
    assert [r.run_id for r in select_runs(runs, goal="RETRY", titles=titles)] == ["run_1"]
    assert [r.run_id for r in select_runs(runs, goal="goal_2")] == ["run_2"]
    assert select_runs(runs, limit=0) == []


def test_select_nodes_and_table() -> None:
    assert [n.id for n in select_nodes(HUB, ["patch"], ["rejected", "PROMOTED"])] == ["p1", "p2"]
    assert [n.id for n in select_nodes(HUB, grep="LIMIT")] == ["f"]
    table = nodes_text(select_nodes(HUB, ["patch"])).splitlines()
    assert table[0].split() == ["ID", "KIND", "STATUS", "TITLE"]
    assert table[1].split() == ["p1", "patch", "Rejected", "first"]


# --- on a real-shaped history ------------------------------------------------------


def test_the_history_is_real_shaped(story_history: Path) -> None:
    story = read_story(str(story_history))
    kinds = [n.kind for n in story.graph.nodes.values()]
    assert kinds.count("run") == 602 and kinds.count("patch") >= 300
    assert len(git(story_history, "rev-list", "HEAD").split()) == 602


def test_every_patch_lineage_is_a_story_not_the_goal(story_history: Path) -> None:
    """The default scope, on every patch: a handful of nodes, never the
    goal's hundreds of patches; walking through the goal would give those."""
    graph = read_story(str(story_history)).graph
    patches = [n.id for n in graph.nodes.values() if n.kind == "patch"]
    sizes = [len(lineage(graph, p).nodes) for p in patches]
    assert max(sizes) <= 20, max(sizes)
    assert all(lineage(graph, p).beyond_max == 0 for p in patches[:50])
    assert len(lineage(graph, patches[0], through_goals=True).nodes) > len(patches)


def test_the_arc_is_one_lineage(story_history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "lineage", ARC["first"], "-C", str(story_history), "--json")
    assert code == 0
    value = json.loads(out)
    ids = {n["id"] for n in value["nodes"]}
    assert set(ARC.values()) <= ids  # patch, failed eval, failure, fixing patch, passed eval
    status = {n["id"]: n["status"] for n in value["nodes"]}
    assert status[ARC["first"]] == "Rejected" and status[ARC["fix"]] == "Promoted"
    decisions = {n["status"] for n in value["nodes"] if n["kind"] == "decision"}
    assert decisions == {"Rejected", "Approved"}
    assert len(value["nodes"]) <= 12 and value["cut"] == {"beyond_depth": 0, "beyond_max_nodes": 0}
    assert len(set(value["runs"].values())) == 2  # grouped by the arc's two runs


def test_the_arc_fits_one_picture(story_history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "lineage", ARC["first"], "-C", str(story_history), "--format", "dot"
    )
    assert code == 0
    png = subprocess.run(["dot", "-Tpng"], input=out.encode(), capture_output=True, check=True)
    width, height = struct.unpack(">II", png.stdout[16:24])
    assert max(width, height) <= 2000, (width, height)
    code, svg, _ = run_cli(
        capsys, "lineage", ARC["first"], "-C", str(story_history), "--format", "svg"
    )
    assert code == 0 and svg.startswith("<?xml") and "</svg>" in svg


def test_svg_without_graphviz(
    story_history: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    git_binary = shutil.which("git")
    assert git_binary is not None
    (tmp_path / "git").symlink_to(git_binary)  # git is there (reading the log asks it), dot is not
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = run_cli(
        capsys, "lineage", ARC["fix"], "-C", str(story_history), "--format", "svg"
    )
    assert (code, out) == (2, "")
    assert "error: --format svg needs Graphviz's `dot`" in err and "apt-get install graphviz" in err
    assert shutil.which("dot", path=str(tmp_path)) is None


def test_show_a_run_lists_what_it_recorded(
    story_history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    story = read_story(str(story_history))
    run = story.provenance.run_of(ARC["fix"])
    assert run is not None
    code, out, _ = run_cli(capsys, "show", run, "-C", str(story_history))
    assert code == 0
    head = git(story_history, "rev-parse", "HEAD").strip()
    assert "- task: back off with jitter\n- outcome: promoted\n" in out
    assert f"- commit: {head}\n" in out and "- started: 2025-" in out
    recorded = out.split("## Recorded in this run\n", 1)[1].splitlines()
    assert recorded[0].split()[2:5] == ["run.started", "CreateNode", "run"]
    made = [line for line in recorded if "patch.proposed  CreateNode patch" in line]
    assert made and ARC["fix"] in made[0] and "Promoted" in made[0]
    assert recorded[-1].split()[2:4] == ["run.finished", "UpdateNode"]
    code, out, _ = run_cli(capsys, "show", run, "-C", str(story_history), "--json")
    value = json.loads(out)
    assert value["run"]["commit"] == head
    assert len(value["run"]["entries"]) == len(story.provenance.entries[run])


def test_show_a_patch_names_its_neighbours(
    story_history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "show", ARC["first"], "-C", str(story_history))
    assert code == 0
    assert "- status: Rejected\n" in out and "- status reason: failed eval_first\n" in out
    assert (
        "## Incoming\n- supersedes <- patch_fix\n  back off with jitter (patch, Promoted)\n" in out
    )
    assert "- validated_by -> eval_first\n  pytest -q (eval, Failed)\n" in out


def test_nodes_command(story_history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("nodes", "-C", str(story_history), "--kind", "patch", "--status", "promoted")
    code, out, _ = run_cli(capsys, *args, "--json")
    value = json.loads(out)
    assert code == 0 and value["format"] == "git-gasp.nodes/1"
    assert value["count"] == len(value["nodes"]) > 100
    assert {n["status"] for n in value["nodes"]} == {"Promoted"}
    code, out, _ = run_cli(capsys, *args)
    assert len(out.splitlines()) == value["count"] + 1
    code, out, err = run_cli(capsys, "nodes", "-C", str(story_history), "--grep", "jitter")
    assert code == 0 and "patch_fix" in out
    code, out, err = run_cli(capsys, "nodes", "-C", str(story_history), "--kind", "nope")
    assert (code, out) == (0, "") and "no nodes match" in err


def test_runs_filters_and_titles(story_history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = str(story_history)
    code, out, _ = run_cli(capsys, "runs", "-C", repo, "-n", "3")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3 and "Make retry reliable  promoted" in lines[0]
    code, out, _ = run_cli(capsys, "runs", "-C", repo, "--outcome", "Rejected", "--json")
    found = json.loads(out)["runs"]
    assert found and {r["outcome"] for r in found} == {"rejected"}
    code, out, _ = run_cli(capsys, "runs", "-C", repo, "--goal", "retry", "-n", "700", "--json")
    assert len(json.loads(out)["runs"]) == 602
    code, out, _ = run_cli(capsys, "runs", "-C", repo, "--goal", "latency", "--json")
    assert json.loads(out)["runs"] == []
    dates = [
        r["date"] for r in json.loads(run_cli(capsys, "runs", "-C", repo, "--json")[1])["runs"]
    ]
    middle = sorted(dates)[300]
    code, out, _ = run_cli(capsys, "runs", "-C", repo, "--since", middle, "--json")
    assert 250 < len(json.loads(out)["runs"]) < 350
    code, out, _ = run_cli(capsys, "runs", "-C", repo, "--until", "2000-01-01", "--json")
    assert json.loads(out)["runs"] == []
