"""``record`` and ``repair`` agree on a log that ends with a domain event
without its ops pair, and name the way out that works: repair for a crash's
half batch, the pair appended (``record ops --causation``) for a committed one.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from git_gasp.agent.api import Agent
from git_gasp.check.conformance import run_all

from .conftest import git
from .test_durability import EVENTS, agent_repo, gasp, seed_committed_log

__all__ = ["agent_repo"]  # the fixture


def _cut_pair(root: Path) -> None:
    """Record a task, then drop its ops pair (a crash between the two lines)."""
    log = root / EVENTS
    with Agent.open(str(root), worker="crashy") as agent:
        agent.record_task("task_half", "half", "its summary", "Open")
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:-1]))


def _way_out(text: str) -> list[str]:
    """The ``git gasp record ops ...`` command a message names, as arguments."""
    command = text[text.index("git gasp record ops") :].strip().split("\n")[0]
    return shlex.split(command)[2:]


def test_record_and_repair_name_the_pair_for_a_committed_unpaired_event(
    agent_repo: Path,
) -> None:
    seed_committed_log(agent_repo)
    _cut_pair(agent_repo)
    git(agent_repo, "commit", "-qam", "a committed event without its pair")
    refused = gasp(agent_repo, "record", "goal", "--title", "next")
    assert refused.returncode == 1
    assert "ends with task.created" in refused.stderr
    assert "a commit holds it, so repair keeps it; append its pair:" in refused.stderr
    assert "run `git gasp repair`" not in refused.stderr  # it would find nothing to do
    repaired = gasp(agent_repo, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "nothing to repair" in repaired.stdout
    assert "is committed without its state.ops_applied: repair keeps it" in repaired.stdout
    assert _way_out(repaired.stdout) == _way_out(refused.stderr)  # the same way out
    done = gasp(agent_repo, *_way_out(refused.stderr))
    assert done.returncode == 0, done.stderr
    assert gasp(agent_repo, "record", "goal", "--title", "next").returncode == 0
    assert "append its pair" not in gasp(agent_repo, "repair").stdout
    git(agent_repo, "commit", "-qam", "paired")
    assert [r.failures for r in run_all(str(agent_repo))] == [()] * 7


def test_record_names_repair_for_an_uncommitted_unpaired_event(agent_repo: Path) -> None:
    seed_committed_log(agent_repo)
    _cut_pair(agent_repo)
    refused = gasp(agent_repo, "record", "goal", "--title", "next")
    assert refused.returncode == 1
    assert "run `git gasp repair`: it removes it (no commit holds it)" in refused.stderr
    repaired = gasp(agent_repo, "repair")
    assert "removed a last event whose ops pair a crash cut off" in repaired.stdout
    assert "append its pair" not in repaired.stdout
    assert gasp(agent_repo, "record", "goal", "--title", "next").returncode == 0
