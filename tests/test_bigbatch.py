"""A batch of megabytes (an import of a long transcript) is screened for
credentials by ``git grep`` in a second process while the append validates
it (:mod:`git_gasp.agent.screening`), with the verdicts of the screen here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from git_gasp import git
from git_gasp.agent import screening
from git_gasp.agent.api import Agent
from git_gasp.agent.ids import new_id
from git_gasp.agent.init import init_repo
from git_gasp.core import payloads as P
from git_gasp.core.event import OPS_APPLIED, Actor, Event, encode_event
from git_gasp.core.secretscreen import scan_lines
from git_gasp.errors import FINDINGS, GaspError

from .conftest import log_path

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
ACTOR = Actor("agent", "evolve")


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[Agent]:
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    with Agent.open(str(root), worker="worker-1") as opened:
        yield opened


def _batch(count: int, special: dict[int, str] | None = None) -> list[Event]:
    """``count`` observations (each with its pair) of ~1.2 KB, observation
    ``i`` summarised by ``special[i]`` where given."""
    events: list[Event] = []
    for i in range(count):
        text = (special or {}).get(i, f"step {i}: the retry counter held " + "ok " * 350)
        rec = P.observation(new_id("observation"), f"note {i}", text, None, {})
        ms = 1000 + i
        domain = Event(new_id("event"), 1, ms, ACTOR, str(rec.kind), rec.payload, None, None)
        pair = Event(new_id("event"), 1, ms, ACTOR, OPS_APPLIED, list(rec.ops), domain.id, None)
        events += [domain, pair]
    return events


def _lines(events: list[Event]) -> bytes:
    return "".join(encode_event(e) + "\n" for e in events).encode()


def test_a_credential_deep_in_a_large_batch_is_refused_and_nothing_is_written(
    agent: Agent,
) -> None:
    events = _batch(1200, {700: f"deploy with {TOKEN}"})
    assert len(_lines(events)) >= screening.GREP_FROM  # the second process screens it
    before = log_path(Path(agent.root)).read_bytes()
    with pytest.raises(GaspError) as caught:
        agent.append(events)
    assert caught.value.exit_code == FINDINGS
    assert caught.value.message == (
        "state/events.jsonl: the observation.created event not written: "
        "it carries what looks like a GitHub token (ghp_…) [github-token]"
    )
    assert log_path(Path(agent.root)).read_bytes() == before
    agent.append(_batch(1200))  # the same size without it is written
    assert log_path(Path(agent.root)).read_bytes().count(b"\n") == before.count(b"\n") + 2400


def test_a_credential_is_named_before_any_other_refusal(tmp_path: Path) -> None:
    """A batch both over the line cap and carrying a credential: the
    credential is what the error names, as when the screen ran first."""
    root = tmp_path / "agent"
    init_repo(str(root), "evolve")
    git.run(str(root), ["config", "gasp.maxLineBytes", "2000"])
    agent = Agent.open(str(root), worker="worker-1")
    events = _batch(1200, {3: f"deploy with {TOKEN}", 900: "long " * 1000})
    with pytest.raises(GaspError, match=r"GitHub token \(ghp_…\) \[github-token\]"):
        agent.append(events)
    events = _batch(1200, {900: "long " * 1000})
    with pytest.raises(GaspError, match="over the 2,000-byte cap"):
        agent.append(events)


def test_the_second_process_finds_the_lines_the_screen_here_finds() -> None:
    special = {
        0: f"first {TOKEN}",
        411: "password: hunter2x9 in caf\u00e9 text",  # not ASCII: still screenable
        1199: "AKIAABCDEFGHIJKLMNOP at the end",
    }
    lines = _lines(_batch(1200, special))
    screen = screening.Screen(lines)
    assert screen._thread is not None  # started: a batch of megabytes
    assert screen.lines() == scan_lines(lines) == {0, 1, 822, 823, 2398, 2399}
    small = _lines(_batch(3, {1: f"x {TOKEN}"}))
    screen = screening.Screen(small)
    assert screen._thread is None and screen.lines() == {2, 3}  # the event and its pair
    # a byte the byte-wise screen cannot read (KELVIN SIGN lowers to "k"):
    # screened here, as text
    odd = _lines(_batch(1200, {5: "\u212aey rotated"}))
    screen = screening.Screen(odd)
    assert screen._thread is None and screen.lines() == scan_lines(odd)


def test_when_git_cannot_screen_the_batch_is_screened_here(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(contents: object, needles: object) -> list[set[int]]:
        raise git.GitError("git grep failed")

    monkeypatch.setattr(git, "lines_holding", fails)
    lines = _lines(_batch(1200, {50: f"use {TOKEN}"}))
    assert screening.Screen(lines).lines() == scan_lines(lines) == {100, 101}
    with pytest.raises(GaspError, match=r"\[github-token\]"):
        agent.append(_batch(1200, {50: f"use {TOKEN}"}))


def test_a_slow_second_process_is_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """git grep's answer is waited for only as long as half the screen here
    would take (every line holding a trigger makes git grep the slower one):
    then the screen here gives the answer, never the late one."""
    import threading
    import time

    release = threading.Event()

    def slow(contents: object, needles: object) -> list[set[int]]:
        release.wait(10)
        return [set()]  # a wrong answer, which must never be taken

    monkeypatch.setattr(git, "lines_holding", slow)
    special = {i: f"key {i}: password: hunter2x9" for i in range(0, 1200, 7)}
    lines = _lines(_batch(1200, special))
    assert len(lines) >= screening.GREP_FROM
    start = time.perf_counter()
    found = screening.Screen(lines).lines()
    took = time.perf_counter() - start
    release.set()
    assert found == scan_lines(lines) and len(found) == 2 * len(special)
    assert took < 10
