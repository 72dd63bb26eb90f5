"""The --context document's budget, heading demotion, bounded lists, and the
commit that holds an event."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from git_gasp.core.bounded import bounded
from git_gasp.core.contextbudget import Section, cut_line, demote, fit
from git_gasp.git.pastcommit import commit_holding

from .conftest import git


def test_demote_pushes_headings_below_the_documents() -> None:
    text = "# Identity\nI am x.\n## Principles\n```\n# a comment in code\n```\n#not a heading"
    assert demote(text, 3).splitlines() == [
        "#### Identity",
        "I am x.",
        "##### Principles",
        "```",
        "# a comment in code",
        "```",
        "#not a heading",
    ]
    assert demote("##### deep", 3) == "###### deep"


def _sections() -> list[Section]:
    identity = "### identity/IDENTITY.md\n\n" + "\n".join(f"line {i}" for i in range(400))
    return [
        Section("", ("# Agent context: x",), 0, "", empty=""),
        Section("## Identity", (identity,), 1, "identity files", cuttable=True),
        Section("## Open goals", tuple(f"- goal {i}" for i in range(30)), 2, "open goals"),
        Section("## Recent runs", tuple(f"- run {i}" for i in range(30)), 3, "recent runs"),
        Section("## Open tasks", tuple(f"- task {i}" for i in range(500)), 4, "open tasks"),
    ]


def test_fit_gives_room_by_priority_and_says_what_it_cut() -> None:
    whole, notes = fit(_sections(), None)
    assert notes == [] and "- task 499" in whole
    text, notes = fit(_sections(), 5_000)
    assert len(text) <= 5_000 - 400
    assert "line 399" in text and "- goal 29" in text and "- run 29" in text
    assert "- task 0" in text and "- task 499" not in text
    assert len(notes) == 1 and notes[0].endswith(" of 500 open tasks")
    # the order of the document is kept whatever the priorities
    assert text.index("## Identity") < text.index("## Open goals") < text.index("## Open tasks")
    small, notes = fit(_sections(), 2_500)
    assert "cut here: the rest is over the --budget" in small and "line 399" not in small
    assert notes[0] == "the end of 1 of 1 identity files"
    assert "30 of 30 recent runs" in notes and "500 of 500 open tasks" in notes
    assert "(over the --budget: see the line at the end)" in small
    assert cut_line(notes, 2_500).startswith("_Cut to the --budget of 2,500 characters: ")


def test_bounded() -> None:
    assert bounded(["a", "b"], "git gasp nodes") == "a, b"
    items = [f"goal_{i}" for i in range(100_000)]
    shown = bounded(items, "git gasp nodes --kind goal --status Open")
    assert shown.startswith("goal_0, goal_1") and len(shown) < 300
    assert shown.endswith("… and 99990 more (see `git gasp nodes --kind goal --status Open`)")


def test_the_commit_that_holds_an_event(template: Path, tmp_path: Path) -> None:
    """In the demo's history (init, then one commit per run), each run's last
    event is first held by the run's boundary commit."""
    repo = tmp_path / "demo"
    shutil.copytree(template, repo, symlinks=True)
    log = "state/events.jsonl"
    commits = git(repo, "rev-list", "--first-parent", "HEAD").split()[::-1]
    assert len(commits) == 3
    for commit in commits[1:]:
        last = json.loads(git(repo, "show", f"{commit}:{log}").splitlines()[-1])["id"]
        assert commit_holding(str(repo), log, last) == commit
    first = json.loads(git(repo, "show", f"HEAD:{log}").splitlines()[0])["id"]
    assert commit_holding(str(repo), log, first) in commits[:2]
    assert commit_holding(str(repo), log, "event_nope") is None
