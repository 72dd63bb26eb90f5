"""The reading commands: runs (trailers read as git reads them), show, lineage."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.agent.runs import close_run
from git_gasp.cli import root as cli
from git_gasp.core.graph import Graph, Node, Relation
from git_gasp.core.lineage import lineage, to_markdown
from git_gasp.core.lineagedraw import lineage_dot, lineage_mermaid, lineage_text, lineage_value
from git_gasp.core.ops import Artifact
from git_gasp.core.runlog import (
    LOG_FORMAT,
    RunCommit,
    RunLogError,
    _between_quotes,
    missing_runs,
    parse_run_log,
    runs_to_text,
)

from .conftest import git


def main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# --- core/runlog on literal git output ----------------------------------------


def test_log_format_asks_git_for_each_trailer_key() -> None:
    for key in ("Run-Id", "Goal", "Outcome", "Agent-Session"):
        assert f"%(trailers:key={key},valueonly,unfold,separator=%x1f)" in LOG_FORMAT


def test_parse_run_log_keeps_only_commits_with_a_run_id() -> None:
    text = (
        "a" * 40 + "\0run run_1: done\0" + "2025-02-08T07:33:20+00:00\0run_1\0goal_1\0done\0"
        "claude:s1\x1fcodex:ns:s2\x1e\n"
        + "b" * 40
        + "\0plain commit\0"
        + "2025-02-08T07:33:20+00:00\0\0\0\0\x1e\n"
        + "c" * 40
        + "\0run run_2: x\0"
        + "2025-02-09T00:00:00+00:00\0run_2\x1frun_dup\0\0\0\x1e\n"
    )
    assert parse_run_log(text) == [
        RunCommit(
            "a" * 40,
            "run_1",
            "goal_1",
            "done",
            ("claude:s1", "codex:ns:s2"),
            "run run_1: done",
            "2025-02-08T07:33:20+00:00",
        ),
        RunCommit("c" * 40, "run_2", None, None, (), "run run_2: x", "2025-02-09T00:00:00+00:00"),
    ]
    assert parse_run_log("") == []
    with pytest.raises(RunLogError):
        parse_run_log("not\0a record\x1e")


def test_runs_to_text() -> None:
    run = RunCommit("d" * 40, "run_1", None, "done", ("claude:s1",), "s", "2025-02-08T00:00:00Z")
    assert runs_to_text([run]) == (
        "dddddddddddd  2025-02-08T00:00:00Z  run_1  -  done\n    session claude:s1"
    )


_QUOTY = st.text(alphabet='ab"\\,:', max_size=6)  # ids and logs dense in quotes


@settings(max_examples=300, deadline=None, database=None)
@given(
    ids=st.lists(_QUOTY, max_size=6), parts=st.lists(_QUOTY, max_size=12), step=st.integers(1, 9)
)
def test_missing_runs_is_the_substring_rule(ids: list[str], parts: list[str], step: int) -> None:
    """A run is missing when its id's JSON is not in the log's bytes, read
    once between quotes (in pieces of ``step`` bytes) or, for an id whose
    JSON holds a quote, searched as it is."""
    log = "".join(parts).encode() + b"".join(json.dumps(i).encode() for i in ids[::2])
    runs = [RunCommit("e" * 40, i, None, None, (), "s", "2025-02-08T00:00:00Z") for i in ids]
    expected = {i for i in ids if json.dumps(i).encode() not in log}
    assert missing_runs(runs, log) == expected
    plain = {json.dumps(i).encode()[1:-1] for i in ids}
    plain = {inside for inside in plain if b'"' not in inside}
    assert _between_quotes(log, plain, step) == {p for p in plain if b'"' + p + b'"' in log}


# --- runs on a real repository -------------------------------------------------


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """Two runs closed through the API, and between them a commit that only
    mentions a Run-Id in its body and one with lower-case trailer keys."""
    repo = tmp_path / "agent"
    init_repo(str(repo), "evolve")
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("first", run_id="run_a")
    close_run(agent, "done", sessions=["claude:ses_1", "codex:ns:ses_2#r3"])
    prose = "notes\n\nRun-Id: fake_1 is what the old tool printed.\n\nJust prose at the end.\n"
    git(repo, "commit", "-q", "--allow-empty", "-m", prose)
    lower = "manual run\n\nrun-id: run_low\ngoal: goal_x\noutcome: merged\n"
    git(repo, "commit", "-q", "--allow-empty", "-m", lower)
    agent = Agent.open(str(repo), worker="w")
    agent.record_goal("goal_retry", "Make retry reliable")
    agent.start_run("second", run_id="run_b")
    close_run(agent, "promoted", goal="goal_retry")
    return repo


def _git_run_ids(repo: Path) -> list[str]:
    """Run-Id values of each commit, newest first, as interpret-trailers parses them."""
    found = []
    for commit in git(repo, "rev-list", "HEAD").split():
        body = git(repo, "log", "-1", "--format=%B", commit)
        parsed = subprocess.run(
            ["git", "interpret-trailers", "--parse"],
            input=body,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for line in parsed.splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() == "run-id":
                found.append(value.strip())
    return found


def test_runs_reads_trailers_as_git_does(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = main(capsys, "runs", "-C", str(history), "--json")
    assert code == 0
    value = json.loads(out)
    assert value["format"] == "git-gasp.runs/1" and value["range"] == "HEAD"
    ids = [r["run_id"] for r in value["runs"]]
    assert ids == ["run_b", "run_low", "run_a"] == _git_run_ids(history)
    run_b, run_low, run_a = value["runs"]
    assert (run_b["goal"], run_b["outcome"], run_b["sessions"]) == ("goal_retry", "promoted", [])
    assert (run_low["goal"], run_low["outcome"]) == ("goal_x", "merged")
    assert run_a["sessions"] == ["claude:ses_1", "codex:ns:ses_2#r3"]
    assert (run_a["goal"], run_a["subject"]) == ("-", "run run_a: done")
    assert run_b["commit"] == git(history, "rev-parse", "HEAD").strip()
    assert run_b["date"] == "2025-02-08T07:33:20+00:00"


def test_runs_text_and_range(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = main(capsys, "runs", "-C", str(history))
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[2] for line in lines if not line.startswith(" ")] == [
        "run_b",
        "run_low",
        "run_a",
    ]
    assert "    session claude:ses_1" in lines
    code, out, _ = main(capsys, "runs", "HEAD~1..HEAD", "-C", str(history), "--json")
    assert code == 0 and [r["run_id"] for r in json.loads(out)["runs"]] == ["run_b"]


def test_runs_in_a_repository_without_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    code, out, err = main(capsys, "runs", "-C", str(repo))
    assert (code, out) == (0, "") and "no runs" in err
    code, out, _ = main(capsys, "runs", "-C", str(repo), "--json")
    assert code == 0 and json.loads(out)["runs"] == []


@pytest.mark.parametrize("args", [("--no-such-rev",), ("nope..HEAD",)])
def test_runs_bad_range(
    history: Path, capsys: pytest.CaptureFixture[str], args: tuple[str]
) -> None:
    code, _, err = main(capsys, "runs", *args, "-C", str(history))
    assert code == 2 and "error" in err.lower()


def test_runs_outside_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = main(capsys, "runs", "-C", str(tmp_path))
    assert code == 2
    assert "not a git repository" in err and "hint:" in err
    code, _, err = main(capsys, "runs", "-C", str(tmp_path / "missing"))
    assert code == 2


# --- core/lineage on a literal graph -------------------------------------------


def _node(node_id: str, kind: str, **props: str) -> Node:
    return Node(node_id, kind, dict(props))


ARC = Graph(
    {
        n.id: n
        for n in (
            _node("failure_1", "failure", title="retries lost", status="Open"),
            _node("patch_1", "patch", title="persist counter", status="Proposed"),
            _node("eval_1", "eval", status="Passed"),
            _node("decision_1", "decision", status="Approved"),
            _node("goal_1", "goal", title="reliable retry"),
            _node("other", "goal"),
        )
    },
    (
        Relation("patch_1", "addresses", "failure_1", {}),
        Relation("patch_1", "validated_by", "eval_1", {}),
        Relation("patch_1", "approved_by", "decision_1", {}),
        Relation("patch_1", "advances", "goal_1", {}),
        Relation("goal_1", "blocks", "failure_1", {}),  # a cycle
        Relation("eval_1", "measures", "ghost", {}),  # an endpoint that is not a node
    ),
    6,
)


def test_lineage_walks_both_directions_once() -> None:
    found = lineage(ARC, "failure_1")
    assert [(r.id, r.distance) for r in found.nodes] == [
        ("failure_1", 0),
        ("goal_1", 1),
        ("patch_1", 1),
        ("decision_1", 2),
        ("eval_1", 2),
        ("ghost", 3),
    ]
    assert found.nodes[-1].node is None
    assert found.relations == ARC.relations  # every relation, in graph order, once
    assert "other" not in {r.id for r in found.nodes}


def test_lineage_depth() -> None:
    assert [r.id for r in lineage(ARC, "failure_1", 0).nodes] == ["failure_1"]
    assert lineage(ARC, "failure_1", 0).relations == ()
    one = lineage(ARC, "failure_1", 1)
    assert [r.id for r in one.nodes] == ["failure_1", "goal_1", "patch_1"]
    assert [r.rel for r in one.relations] == ["addresses", "blocks"]
    with pytest.raises(KeyError):
        lineage(ARC, "ghost")


def test_lineage_renderings() -> None:
    found = lineage(ARC, "patch_1")
    value = lineage_value(found)
    assert json.loads(json.dumps(value)) == value
    assert value["root"] == "patch_1" and value["depth"] is None
    assert {"id": "ghost", "distance": 2, "kind": None, "title": None, "status": None,
            "missing": True} in value["nodes"]  # fmt: skip
    assert len(value["relations"]) == 6
    assert lineage_text(found).startswith("# lineage of patch_1 (depth unlimited)\n")
    assert "- patch_1 -addresses-> failure_1" in lineage_text(found)
    dot = lineage_dot(found)
    assert dot.startswith("digraph lineage {") and dot.rstrip().endswith("}")
    assert '"patch_1" -> "failure_1" [label="addresses"];' in dot
    mermaid = lineage_mermaid(found)
    assert mermaid.startswith("graph LR\n")
    assert '-->|"addresses"|' in mermaid


def test_dot_and_mermaid_quote_awkward_ids() -> None:
    graph = Graph(
        {'a"b': _node('a"b', "x"), "c<d>": _node("c<d>", "y")},
        (Relation('a"b', "r|s", "c<d>", {}),),
        1,
    )
    found = lineage(graph, 'a"b')
    assert '"a\\"b" -> "c<d>"' in lineage_dot(found)
    mermaid = lineage_mermaid(found)
    assert 'n0["a#quot;b<br/>x"]' in mermaid and 'n1["c#lt;d#gt;<br/>y"]' in mermaid


def test_to_markdown_follows_the_reference() -> None:
    assert to_markdown(ARC, "nope") == "Node not found.\n"
    assert to_markdown(ARC, "failure_1") == (
        "# retries lost\n\n- id: failure_1\n- kind: failure\n- status: Open\n\n"
        "## Incoming\n- addresses <- patch_1\n- blocks <- goal_1\n"
    )
    art = Artifact("git.diff", "file:///d.patch", None, None, None)
    node = Node("n", "patch", [1], stale=True, artifacts=(art,))
    graph = Graph({"n": node}, (Relation("n", "self", "n", {}),), 1)
    assert to_markdown(graph, "n") == (
        "# n\n\n- id: n\n- kind: patch\n- status: unknown\n- stale: true\n\n"
        "## Artifacts\n- git.diff: file:///d.patch\n\n"
        "## Outgoing\n- self -> n\n\n## Incoming\n- self <- n\n"
    )


# --- show and lineage on the canonical fixture -----------------------------------


def test_show(fixture_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = main(capsys, "show", "patch_9", "-C", str(fixture_repo))
    assert code == 0
    assert out.startswith("# persist retry counter\n\n- id: patch_9\n- kind: patch\n")
    assert "## Outgoing\n- advances -> goal_retry\n" in out
    code, out, _ = main(capsys, "show", "goal_retry", "--repo", str(fixture_repo), "--json")
    value = json.loads(out)
    assert code == 0 and value["node"]["kind"] == "goal"
    assert value["incoming"] == [
        {"from": "patch_9", "rel": "advances", "to": "goal_retry", "props": {}}
    ]
    assert value["outgoing"] == []


def test_lineage_of_the_fixture_patch(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = main(capsys, "lineage", "patch_9", "-C", str(fixture_repo))
    assert code == 0
    for node_id in ("goal_retry", "eval_5", "decision_3"):
        assert f"- {node_id} (" in out
    code, out, _ = main(
        capsys, "lineage", "goal_retry", "-C", str(fixture_repo), "--format", "json"
    )
    value = json.loads(out)
    assert {n["id"] for n in value["nodes"]} == {"goal_retry", "patch_9", "eval_5", "decision_3"}
    code, out, _ = main(capsys, "lineage", "goal_retry", "-C", str(fixture_repo), "--json")
    assert json.loads(out) == value  # --json, as every reading command takes it
    code, _, err = main(capsys, "lineage", "goal_retry", "--json", "--format", "dot")
    assert code == 2 and "ask for two formats" in err
    code, out, _ = main(capsys, "lineage", "goal_retry", "-C", str(fixture_repo), "--depth", "1",
                        "--format", "json")  # fmt: skip
    assert [n["id"] for n in json.loads(out)["nodes"]] == ["goal_retry", "patch_9"]
    code, out, _ = main(capsys, "lineage", "patch_9", "-C", str(fixture_repo), "--format", "dot")
    assert code == 0 and out.startswith("digraph")
    code, out, _ = main(
        capsys, "lineage", "patch_9", "-C", str(fixture_repo), "--format", "mermaid"
    )
    assert code == 0 and out.startswith("graph LR")


@pytest.mark.parametrize("command", ["show", "lineage"])
def test_unknown_node(fixture_repo: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, err = main(capsys, command, "patch9", "-C", str(fixture_repo))
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == "error: unknown node: patch9"
    assert "hint: did you mean patch_9?" in err


@pytest.mark.parametrize(
    "args", [("--depth", "-1"), ("--depth", "x"), ("--format", "png"), ("--max-nodes", "0")]
)
def test_lineage_bad_options(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, str]
) -> None:
    code, out, _ = main(capsys, "lineage", "patch_9", "-C", str(fixture_repo), *args)
    assert (code, out) == (2, "")


def test_show_without_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = main(capsys, "show", "patch_9", "-C", str(tmp_path))
    assert code == 2 and "not an agent repository (no AGENT.md or state/)" in err
    (tmp_path / "AGENT.md").write_text("# AGENT\n")  # an agent without its log
    code, _, err = main(capsys, "show", "patch_9", "-C", str(tmp_path))
    assert code == 2 and "state/events.jsonl" in err
