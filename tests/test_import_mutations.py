"""Transcripts of versions nobody has seen yet: every kind of value put where
another kind was, in every line of the fixtures, projected by the pure
projectors. Each projection either projects what it recognises or counts what
it does not; none raises, and what it projects is a batch the append takes
as it is (envelope, pairing, depth, line size, no credential). A fixed sample
of the mutations runs here (the same one every run); the whole set, about
36,000, passes too (``GASP_MUTATIONS=all``, about a minute).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest

from git_gasp.adapters import claudecode, codex
from git_gasp.adapters import usage as U
from git_gasp.adapters.claudecode import Session
from git_gasp.adapters.codex import CodexSession
from git_gasp.adapters.lines import Projection, Source
from git_gasp.agent import validate as V
from git_gasp.core.event import Actor, encode_event
from git_gasp.core.fold import Folder
from tests import transcripts as T

ACTOR = Actor("agent", "importer")
#: what a field of another version may hold instead
VALUES: tuple[Any, ...] = (None, 0, -1, 2**70, 1.5, "", "x", True, [], {}, ["x"], {"a": 1}, [None])
SAMPLE = 80  # mutations per fixture

FIXTURES = {
    "claude-1.0.128": ("cc", "1.0.128"),
    "claude-2.0.49": ("cc", "2.0.49"),
    "claude-2.1.173": ("cc", "2.1.173"),
    "codex-old": ("codex", "0.30.0"),
    "codex-new": ("codex", "0.66.0"),
}


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in ``value``: itself, each key, the first items of each list."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):
            yield from _paths(item, (*at, i))


def _put(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    value = json.loads(json.dumps(value))
    inner = value
    for key in at[:-1]:
        inner = inner[key]
    inner[at[-1]] = new
    return value


def _files(fixture: str) -> tuple[str, str, dict[str, str]]:
    agent, version = FIXTURES[fixture]
    if agent == "cc":
        main, subs = T.claude_session(version)
        return agent, main, subs
    return agent, T.codex_rollout(version, new=fixture == "codex-new"), {}


def _project(agent: str, main: str, subs: dict[str, str]) -> Projection:
    if agent == "cc":
        children = {k: Source(f"agent-{k}.jsonl", v) for k, v in subs.items()}
        session = Session(T.SESSION, [Source("main.jsonl", main)], children)
        return claudecode.project(session, ACTOR, lambda _: False)
    rollout = CodexSession(T.CODEX_SESSION, [Source("rollout.jsonl", main)], {})
    return codex.project(rollout, ACTOR, lambda _: False)


def _appendable(got: Projection) -> None:
    """What the append checks before it writes, on the projected batch."""
    lines = "".join(encode_event(e) + "\n" for e in got.events).encode()
    V.batch(got.events, Folder(), {}, [])
    V.depths(got.events, lines, "import")
    V.secrets("state/events.jsonl", lines, "import")
    V.line_sizes("state/events.jsonl", lines, 1 << 20, "import")
    Folder(strict=True).apply_all(got.events)
    U.counted(got.events)


def _mutations(fixture: str) -> list[tuple[str, int, tuple[Any, ...], Any]]:
    _, main, subs = _files(fixture)
    found = []
    for name, text in [("main", main), *sorted(subs.items())]:
        for n, line in enumerate(text.splitlines()):
            for at in _paths(json.loads(line)):
                found += [(name, n, at, value) for value in VALUES]
    if os.environ.get("GASP_MUTATIONS") == "all":
        return found
    return random.Random(fixture).sample(found, SAMPLE)


@pytest.mark.parametrize("fixture", sorted(FIXTURES))
def test_a_value_of_another_kind_anywhere_is_projected_or_counted_never_a_crash(
    fixture: str,
) -> None:
    agent, main, subs = _files(fixture)
    whole = _project(agent, main, subs)
    _appendable(whole)
    assert whole.events  # the fixture itself projects
    for name, n, at, value in _mutations(fixture):
        text = main if name == "main" else subs[name]
        lines = text.splitlines()
        lines[n] = json.dumps(_put(json.loads(lines[n]), at, value))
        changed = "\n".join(lines) + "\n"
        where = f"{name} line {n + 1}, {list(at)} = {value!r}"
        try:
            if name == "main":
                got = _project(agent, changed, subs)
            else:
                got = _project(agent, main, {**subs, name: changed})
            _appendable(got)
        except Exception as exc:  # the mutation that broke it, named
            raise AssertionError(f"{fixture}: {where}: {type(exc).__name__}: {exc}") from exc
