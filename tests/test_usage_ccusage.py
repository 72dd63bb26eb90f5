"""Token figures held to ccusage's on the same files (round 3).

Each fixture is written here in a shape real transcripts have (Codex
``token_count`` events of 0.4x to 0.150, Claude Code 1.0.x and agent-team
lines, the usage fields of the Anthropic API); the expected figures are the
ones ccusage 20.0.24 (``ccusage claude|codex session --json``) printed for the
very same files. Codex's input there excludes the cached tokens and the cache
writes, as ``usage`` counts it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_gasp.cli.root import main
from tests import transcripts as T

Figures = tuple[int, int, int, int]  # input, output, cache_creation, cache_read


@pytest.fixture
def agent_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "agent"
    assert main(["init", str(repo), "--agent-id", "importer"]) == 0
    return repo


def _u(inp: int, cached: int, out: int, **more: int) -> dict[str, int]:
    return {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": 0,
        "total_tokens": inp + out,
        **more,
    }


def _count(total: Any = None, last: Any = None, **info: Any) -> dict[str, Any]:
    found = dict(info)
    if total is not None:
        found["total_token_usage"] = total
    if last is not None:
        found["last_token_usage"] = last
    return {"type": "token_count", "info": found, "rate_limits": None}


def _rollout(path: Path, version: str, counts: list[dict[str, Any]], model: str = "model") -> None:
    """A rollout of one turn of ``gpt-5.2``: its prompt, then ``counts``;
    ``model`` is the turn context's field that names it."""
    head = [
        ("session_meta", {"id": T.CODEX_SESSION, "cwd": "/r", "cli_version": version}),
        ("turn_context", {"cwd": "/r", model: "gpt-5.2", "summary": "auto"}),
        ("event_msg", {"type": "user_message", "message": "hi", "kind": "plain"}),
    ]
    lines = [*head, *(("event_msg", c) for c in counts)]
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2025-09-10T10:00:{n:02d}.000Z", "type": k, "payload": p})
            + "\n"
            for n, (k, p) in enumerate(lines)
        )
    )


def _usage(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Figures]:
    capsys.readouterr()
    assert main(["usage", "--repo", str(repo), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    return {
        r["model"]: (r["input"], r["output"], r["cache_creation"], r["cache_read"]) for r in rows
    }


def _import(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["import", *args, "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    return session["diagnostics"]  # type: ignore[no-any-return]


CODEX_SHAPES = {
    # 0.4x: info with the call's usage only, no cumulative total; a call
    # repeated with the same usage is a second call
    "last usage only": (
        "0.46.0",
        [_count(last=_u(1000, 200, 50)), _count(last=_u(1000, 200, 50))],
        {"gpt-5.2": (1600, 100, 0, 400)},
    ),
    # the call's usage is not the totals' delta (the total jumped): the call's counts
    "last usage beside a total that jumped": (
        "0.80.0",
        [
            _count(_u(1000, 200, 50), _u(1000, 200, 50)),
            _count(_u(5000, 600, 90), _u(1500, 300, 20)),
        ],
        {"gpt-5.2": (2000, 70, 0, 500)},
    ),
    # more cached tokens than input ones: the cache reads are at most the input
    "cached over input": (
        "0.63.0",
        [_count(_u(1000, 1200, 50), _u(1000, 1200, 50))],
        {"gpt-5.2": (0, 50, 0, 1000)},
    ),
    # cache writes are part of the input, after the cache reads
    "cache writes": (
        "0.80.0",
        [
            _count(
                _u(1000, 100, 50, cache_write_input_tokens=300),
                _u(1000, 100, 50, cache_write_input_tokens=300),
            ),
            _count(
                _u(2000, 700, 80, cache_write_input_tokens=1000),
                _u(1000, 600, 30, cache_write_input_tokens=700),
            ),
        ],
        {"gpt-5.2": (600, 80, 700, 700)},
    ),
    # the Anthropic spelling of the cache reads, as a Codex on another provider logs it
    "cache_read_input_tokens": (
        "0.80.0",
        [
            _count(
                {"input_tokens": 1000, "cache_read_input_tokens": 300, "output_tokens": 50},
                {"input_tokens": 1000, "cache_read_input_tokens": 300, "output_tokens": 50},
            )
        ],
        {"gpt-5.2": (700, 50, 0, 300)},
    ),
    # 0.150 names the model of the call on the event; it holds for what follows
    "the model on the event": (
        "0.150.0",
        [
            _count(_u(1000, 200, 50), _u(1000, 200, 50), model="gpt-5.4-mini"),
            _count(_u(1500, 300, 60), _u(500, 100, 10)),
        ],
        {"gpt-5.4-mini": (1200, 60, 0, 300)},
    ),
    # an empty usage is no call, and the model it names names nothing
    "an empty usage": (
        "0.80.0",
        [
            _count(_u(0, 0, 0), _u(0, 0, 0), model="gpt-5.1"),
            _count(_u(1000, 200, 50), _u(1000, 200, 50)),
        ],
        {"gpt-5.2": (800, 50, 0, 200)},
    ),
}


@pytest.mark.parametrize("shape", sorted(CODEX_SHAPES))
def test_codex_usage_agrees_with_ccusage(
    shape: str, agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    version, counts, expected = CODEX_SHAPES[shape]
    rollout = tmp_path / f"rollout-2025-09-10T10-00-00-{T.CODEX_SESSION}.jsonl"
    _rollout(rollout, version, counts)
    diag = _import(["codex", str(rollout), "--repo", str(agent_repo)], capsys)
    assert diag["unknown_fields"] == {} and diag["unknown_types"] == {}
    assert _usage(agent_repo, capsys) == expected


def test_codex_a_turn_context_s_model_name_names_the_model(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A turn context naming its model ``model_name`` (ccusage reads both
    spellings) is that model's, not ``unknown``."""
    rollout = tmp_path / f"rollout-2025-09-10T10-00-00-{T.CODEX_SESSION}.jsonl"
    _rollout(rollout, "0.80.0", [_count(_u(1000, 200, 50), _u(1000, 200, 50))], "model_name")
    _import(["codex", str(rollout), "--repo", str(agent_repo)], capsys)
    assert _usage(agent_repo, capsys) == {"gpt-5.2": (800, 50, 0, 200)}


def test_codex_a_repeated_total_and_a_rate_limits_event_count_nothing(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex writes a ``token_count`` again with the same total (even with
    another ``last_token_usage``), and one with ``info: null`` for the rate
    limits alone: neither counts (ccusage: the first call's 800/50/0/200)."""
    rollout = tmp_path / f"rollout-2025-09-10T10-00-00-{T.CODEX_SESSION}.jsonl"
    rate_limits = {"type": "token_count", "info": None, "rate_limits": {"primary": None}}
    first = _u(1000, 200, 50)
    _rollout(rollout, "0.45.0", [rate_limits, _count(first, first), _count(first, _u(9, 0, 9))])
    diag = _import(["codex", str(rollout), "--repo", str(agent_repo)], capsys)
    assert diag["ignored"] == {"token_count without usage": 1, "repeated token_count": 1}
    assert _usage(agent_repo, capsys) == {"gpt-5.2": (800, 50, 0, 200)}


def test_codex_counts_outside_info_are_shown_not_dropped(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``token_count`` whose counts sit in the payload itself, not in the
    ``info`` every version met writes (ccusage counts nothing of it either),
    is an unknown shape the diagnostics name, not a quiet ``ignored``."""
    rollout = tmp_path / f"rollout-2025-06-10T10-00-00-{T.CODEX_SESSION}.jsonl"
    flat = {"type": "token_count", "input_tokens": 1000, "output_tokens": 50}
    _rollout(rollout, "0.21.0", [flat])
    diag = _import(["codex", str(rollout), "--repo", str(agent_repo)], capsys)
    assert diag["unknown_fields"] == {"token_count with its counts outside info (not counted)": 1}
    assert _usage(agent_repo, capsys) == {}


def test_claude_cache_creation_split_alone_is_counted(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The API's ``cache_creation`` split (5-minute and 1-hour writes) beside
    ``cache_creation_input_tokens`` is the same tokens (counted once); a
    usage that logged only the split counts the split's sum. ccusage: 1,400
    cache-creation tokens; ``server_tool_use`` and ``cache_write_input_tokens``
    (not an Anthropic field) count nothing there, nor here."""
    m = T.Claude("2.1.30")
    m.user("hello")
    split = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 900}
    both = {**T.usage(3, 50, 900, 5000), "cache_creation": split}
    both["server_tool_use"] = {"web_search_requests": 2, "web_fetch_requests": 1}
    alone = {"input_tokens": 7, "output_tokens": 9, "cache_read_input_tokens": 100}
    alone["cache_creation"] = {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 200}
    other = {"input_tokens": 11, "output_tokens": 5, "cache_write_input_tokens": 400}
    for n, usage in enumerate((both, alone, other)):
        m.assistant(f"msg_{n}", [{"type": "text", "text": f"t{n}"}], usage, "claude-opus-4-5")
    top = tmp_path / "projects" / "-srv-example-app"
    top.mkdir(parents=True)
    (top / f"{T.SESSION}.jsonl").write_text(m.text())
    _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    assert _usage(agent_repo, capsys) == {"claude-opus-4-5": (21, 64, 1400, 5100)}


def test_claude_1_0_and_agent_team_fields_are_known(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """1.0.x lines carry ``costUSD`` and ``durationMs`` (and no
    ``requestId``), a summary line heads the file; an agent team's member
    writes ``teamName`` and ``agentName`` on each line: all known fields, so
    the diagnostics keep ``unknown_fields`` for what is new. The message's
    usage counts once (ccusage: 4/120/2000/10000)."""
    m = T.Claude("1.0.17")
    m.add({"type": "summary", "summary": "Fix the parser", "leafUuid": "x"})
    m.user("fix the parser please")
    usage = T.usage(4, 120, 2000, 10000)
    blocks = [{"type": "text", "text": "Looking."}]
    blocks.append({"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}})
    m.assistant("msg_01A", blocks, usage, "claude-sonnet-4-20250514")
    lines = [json.loads(x) for x in m.lines]
    for value in lines:
        if value["type"] == "assistant":
            del value["requestId"]
            value.update(costUSD=0.0123, durationMs=3000)
        if value["type"] in ("user", "assistant"):
            value.update(teamName="alpha", agentName="tester")
    m.lines = [json.dumps(v) + "\n" for v in lines]
    m.tool_result("toolu_1", "a\nb")
    top = tmp_path / "projects" / "-srv-example-app"
    top.mkdir(parents=True)
    (top / f"{T.SESSION}.jsonl").write_text(m.text())
    diag = _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    assert diag["unknown_fields"] == {} and diag["unknown_types"] == {}
    assert diag["versions"] == ["1.0.17"] and diag["untested"] == []
    assert _usage(agent_repo, capsys) == {"claude-sonnet-4-20250514": (4, 120, 2000, 10000)}


def test_claude_the_cache_creation_split_is_read_first_and_a_usage_without_counts_is_shown(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the split and the total disagree (the API writes them equal),
    ccusage counts the split, an empty one as 0; a usage with no number of
    input or output tokens it skips whole. ``usage`` counts alike, and import
    names the skipped usages (ccusage: 7/13/300/10 for the first three)."""
    m = T.Claude("2.1.50")
    m.user("hello")
    usages: list[dict[str, Any]] = [
        {**T.usage(3, 5, 900, 10), "cache_creation": {"ephemeral_5m_input_tokens": 300}},
        {**T.usage(2, 7, 40, 0), "cache_creation": {}},
        {
            **T.usage(2, 1, 30, 0),
            "cache_creation": dict.fromkeys(
                ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"), 0
            ),
        },
        {"output_tokens": 7, "cache_read_input_tokens": 10},
        {"input_tokens": "4", "output_tokens": 7, "cache_read_input_tokens": 10},
    ]
    for n, usage in enumerate(usages):
        m.assistant(f"msg_{n}", [{"type": "text", "text": f"t{n}"}], usage, "claude-sonnet-4-6")
    top = tmp_path / "projects" / "-srv-example-app"
    top.mkdir(parents=True)
    (top / f"{T.SESSION}.jsonl").write_text(m.text())
    diag = _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    assert diag["unknown_fields"] == {
        "usage without input_tokens or output_tokens (not counted)": 2
    }
    assert _usage(agent_repo, capsys) == {"claude-sonnet-4-6": (7, 13, 300, 10)}


def test_claude_fast_mode_is_counted_as_the_model_s_fast_variant(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A message answered in fast mode says ``speed: "fast"`` in its usage;
    ccusage counts it as ``<model>-fast`` (priced apart), so ``usage`` does."""
    m = T.Claude("2.1.100")
    m.user("hello")
    m.assistant(
        "msg_1", [{"type": "text", "text": "a"}], {**T.usage(3, 5, 100, 10), "speed": "fast"}
    )
    m.assistant(
        "msg_2", [{"type": "text", "text": "b"}], {**T.usage(4, 7, 0, 10), "speed": "standard"}
    )
    for n in (1, 2):  # the model of both
        m.lines[n] = m.lines[n].replace("claude-sonnet-4-5-20250929", "claude-opus-4-6")
    top = tmp_path / "projects" / "-srv-example-app"
    top.mkdir(parents=True)
    (top / f"{T.SESSION}.jsonl").write_text(m.text())
    _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    assert _usage(agent_repo, capsys) == {
        "claude-opus-4-6-fast": (3, 5, 100, 10),
        "claude-opus-4-6": (4, 7, 0, 10),
    }


def test_claude_a_message_counts_its_most_complete_usage(
    agent_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lines of one message carry its usage as it streamed; ccusage keeps
    the one of most tokens (the first of equals), not the last line's: a
    message whose last line says fewer (1, then 40, then 20 output tokens)
    counts 40, and of two equal totals the first counts."""
    m = T.Claude("2.1.220")
    m.user("hello")
    for n, out in enumerate((1, 40, 20)):
        m.assistant("msg_a", [{"type": "text", "text": f"a{n}"}], T.usage(3, out, 100, 2000))
    m.assistant("msg_b", [{"type": "text", "text": "b0"}], T.usage(3, 40, 100, 2000))
    m.assistant("msg_b", [{"type": "text", "text": "b1"}], T.usage(3, 50, 100, 1990))
    top = tmp_path / "projects" / "-srv-example-app"
    top.mkdir(parents=True)
    (top / f"{T.SESSION}.jsonl").write_text(m.text())
    _import(["claude-code", str(top), "--repo", str(agent_repo)], capsys)
    assert _usage(agent_repo, capsys) == {"claude-sonnet-4-5-20250929": (6, 80, 200, 4000)}
