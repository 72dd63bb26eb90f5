"""``git gasp demo``: the main job end to end, on built-in data."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from git_gasp.agent.projecting import read_facts
from git_gasp.check.conformance import run_all
from git_gasp.cli import root as cli
from git_gasp.core.projections import current_facts
from git_gasp.restore.folding import fold_repo

from .conftest import git


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def trailers(repo: Path) -> list[tuple[str, str, str, str]]:
    """(commit, Run-Id, Goal, Outcome) of every commit, newest first."""
    keys = ("Run-Id", "Goal", "Outcome")
    fmt = "%H" + "".join(f"%x00%(trailers:key={k},valueonly)" for k in keys) + "%x1e"
    rows = []
    for record in git(repo, "log", f"--format={fmt}").split("\x1e"):
        parts = [p.strip() for p in record.strip("\n").split("\x00")]
        if len(parts) == 4:
            rows.append((parts[0], parts[1], parts[2], parts[3]))
    return rows


def test_demo_records_two_checked_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "demo"
    code, out, _ = run(capsys, "demo", str(repo))
    assert code == 0, out
    assert "conformant: all checks passed" in out
    assert str(repo) in out.splitlines()[-2]  # it names the directory it kept
    assert 'goal       "Make retry reliable": Satisfied (goal_' in out  # titles, not ids only
    assert 'goal "Cut retry latency"  outcome rejected' in out

    # two run commits, each naming its run, goal and outcome in trailers
    graph = fold_repo(str(repo)).result.graph
    rows = trailers(repo)
    runs = [row for row in rows if row[1]]
    assert [r[3] for r in runs] == ["rejected", "promoted"]
    assert len(rows) == 3  # and the init commit
    for _, run_id, goal, _ in runs:
        assert graph.nodes[run_id].kind == "run"
        assert graph.nodes[goal].kind == "goal"
        assert run_id in out
    assert git(repo, "status", "--porcelain") == ""  # everything committed

    # all seven checks pass on what is committed
    reports = run_all(str(repo), use_cache=False)
    assert [r.number for r in reports] == [1, 2, 3, 4, 5, 6, 7]
    assert all(r.passed for r in reports), [r.failures for r in reports]

    # one patch promoted, one rejected; the first goal satisfied
    def status(node_id: str) -> object:
        props = graph.nodes[node_id].props
        return props.get("status") if isinstance(props, dict) else None

    patches = sorted(str(status(n)) for n, node in graph.nodes.items() if node.kind == "patch")
    assert patches == ["Promoted", "Rejected"]
    assert status(runs[1][2]) == "Satisfied"  # run 1's goal
    for rel in ("validated_by", "approved_by", "rejected_by", "advances", "explains"):
        assert any(r.rel == rel for r in graph.relations), rel

    # facts, one superseded by another
    memory = read_facts(str(repo))
    assert len(memory.facts) == 3
    superseding = [f for f in memory.facts if f.supersedes]
    assert len(superseding) == 1 and superseding[0].supersedes == memory.facts[0].id
    assert len(current_facts(memory.facts)) == 2
    active = (repo / "memory" / "active_memory.md").read_text(encoding="utf-8")
    assert memory.facts[0].id not in active and superseding[0].id in active


def test_demo_snapshot_is_committed_and_verified_by_check_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "demo"
    assert run(capsys, "demo", str(repo))[0] == 0
    snapshots = list((repo / "snapshots").glob("*/graph.json"))
    assert len(snapshots) == 1
    rel = snapshots[0].relative_to(repo).as_posix()
    assert git(repo, "ls-files", rel).strip() == rel
    replay = run_all(str(repo))[1]
    assert replay.passed and not replay.notes  # a snapshot was there, and it matched
    # check 2 really compares it: a changed graph fails
    record = json.loads(snapshots[0].read_text(encoding="utf-8"))
    record["graph"]["version"] += 1
    snapshots[0].write_text(json.dumps(record), encoding="utf-8")
    replay = run_all(str(repo))[1]
    assert not replay.passed


def test_demo_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--json", str(tmp_path / "demo"))
    doc = json.loads(out)
    assert code == 0 and doc["format"] == "git-gasp.demo/1" and doc["conformant"] is True
    assert sorted(doc["patches"].values()) == ["Promoted", "Rejected"]
    assert sorted(doc["titles"][p] for p in doc["patches"]) == [
        "halve the retry backoff",
        "persist the retry counter",
    ]
    assert len(doc["facts"]["superseded"]) == 1 and len(doc["facts"]["current"]) == 2
    assert [c["outcome"] for c in doc["commits"]] == ["rejected", "promoted", None]
    assert [c["number"] for c in doc["checks"]] == [1, 2, 3, 4, 5, 6, 7]
    assert doc["snapshot"].startswith("snapshots/")


def test_demo_without_a_git_identity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh machine or CI: no user.name/user.email anywhere. The demo still
    commits, as its own identity, and changes no configuration."""
    for role in ("AUTHOR", "COMMITTER"):
        for field in ("NAME", "EMAIL"):
            monkeypatch.delenv(f"GIT_{role}_{field}")
    monkeypatch.setenv("EMAIL", "")  # git's last fallback for the address
    gitconfig = Path(os.environ["HOME"]) / ".gitconfig"
    before = gitconfig.read_bytes()
    repo = tmp_path / "demo"
    code, out, _ = run(capsys, "demo", str(repo))
    assert code == 0, out
    demo = "git-gasp demo <demo@git-gasp.invalid>"
    lines = git(repo, "log", "--format=%an <%ae>|%cn <%ce>").splitlines()
    assert set(lines) == {f"{demo}|{demo}"} and len(lines) == 3
    assert gitconfig.read_bytes() == before
    assert git(repo, "config", "--get", "user.name", check=False) == ""
    assert "GIT_AUTHOR_NAME" not in os.environ  # the environment is restored


def test_demo_uses_the_configured_identity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "demo"
    assert run(capsys, "demo", str(repo))[0] == 0
    lines = git(repo, "log", "--format=%an <%ae>").splitlines()
    assert set(lines) == {"Test Author <author@example.invalid>"}


def test_demo_in_a_temporary_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    code, out, _ = run(capsys, "demo")
    assert code == 0
    made = [p for p in tmp_path.iterdir() if p.name.startswith("git-gasp-demo-")]
    assert len(made) == 1 and (made[0] / "AGENT.md").is_file()
    assert f"the repository is kept in {made[0]}" in out


def test_demo_refuses_a_non_empty_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "keep.txt").write_text("mine\n")
    code, _, err = run(capsys, "demo", str(tmp_path))
    assert code == 2 and "not an empty directory" in err
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_demo_inside_another_work_tree_makes_its_own_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    assert run(capsys, "demo", str(outer / "demo"))[0] == 0
    assert git(outer, "log", "--oneline", check=False) == ""  # the outer repo got no commits
    top = git(outer / "demo", "rev-parse", "--show-toplevel").strip()
    assert top == str((outer / "demo").resolve())
