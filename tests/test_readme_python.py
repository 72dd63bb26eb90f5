"""The README's "Use from Python" example runs as written and records a checked run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from git_gasp.check.conformance import run_all
from git_gasp.restore.folding import fold_repo

from .conftest import git

README = Path(__file__).resolve().parent.parent / "README.md"


def python_example() -> str:
    """The first ```python block under the "Use from Python" heading."""
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Use from Python\n(.*?)(?=^## )", text, re.M | re.S)
    assert section, 'README.md has no "## Use from Python" section'
    block = re.search(r"^```python\n(.*?)^```", section.group(1), re.M | re.S)
    assert block, 'no ```python block under "Use from Python"'
    return block.group(1)


def test_the_readme_python_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme_example"}
    exec(compile(python_example(), "README.md", "exec"), namespace)

    repo = tmp_path / "retry-agent"
    run_id, closed = namespace["run"], namespace["closed"]
    assert capsys.readouterr().out.split() == [run_id, getattr(closed, "commit", None)]

    # one boundary commit after the init commit, naming the run in its trailers
    assert len(git(repo, "log", "--format=%H").split()) == 2
    fmt = "%(trailers:key=Run-Id,valueonly)%x00%(trailers:key=Outcome,valueonly)%x00%s"
    trailer_run, outcome, subject = git(repo, "log", "-1", f"--format={fmt}").split("\x00")
    assert trailer_run.strip() == run_id and outcome.strip() == "promoted"
    assert subject.strip() == f"run {run_id}: promoted"
    assert "skills/retry/SKILL.md" in git(repo, "show", "--name-only", "--format=", "HEAD")
    assert git(repo, "status", "--porcelain") == ""

    graph = fold_repo(str(repo)).result.graph
    patches = [n for n in graph.nodes.values() if n.kind == "patch"]
    assert [p.props.get("status") for p in patches if isinstance(p.props, dict)] == ["Promoted"]
    assert all(r.passed for r in run_all(str(repo))), "the example's repo fails a check"
    from git_gasp.cli.root import main

    assert main(["skill", "check", "-C", str(repo)]) == 0, "the example's skill is invalid"
    assert any(r.rel == "advances" for r in graph.outgoing(patches[0].id))
