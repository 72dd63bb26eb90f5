"""The change validator on plain data (git_gasp.core.change), and a property:
random damage to a good change never crashes it and never passes when a
committed line is dropped or altered."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.agent.fixture import fixture_files
from git_gasp.core.agentfiles import check_control_plane, check_identity
from git_gasp.core.appendedevents import check_facts
from git_gasp.core.change import appended_chunk, check_lines, edit_finding, judge_log_change
from git_gasp.core.event import Actor, Event
from git_gasp.core.logcontext import LogContext, context_of

LOG = "state/events.jsonl"
FIXTURE_LOG = fixture_files()[LOG]
assert FIXTURE_LOG is not None
LINES = FIXTURE_LOG.splitlines(keepends=True)


def line(eid: str, kind: str, payload: object, cause: str | None = None) -> bytes:
    value = {
        "id": eid,
        "schema_version": 1,
        "ts_ms": 1,
        "actor": {"kind": "agent", "id": "a"},
        "kind": kind,
        "payload": payload,
        "causation_id": cause,
        "correlation_id": None,
    }
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"


def pair(tag: str) -> bytes:
    goal = {"id": f"g-{tag}", "status": "Open", "title": tag}
    ops = [{"CreateNode": {"id": f"g-{tag}", "kind": "goal", "props": goal}}]
    return line(f"e-{tag}", "goal.created", goal) + line(
        f"o-{tag}", "state.ops_applied", ops, f"e-{tag}"
    )


def rules(findings: list) -> list[str]:  # type: ignore[type-arg]
    return [f.rule for f in findings]


def test_a_good_append_passes() -> None:
    assert judge_log_change(LOG, FIXTURE_LOG, FIXTURE_LOG + pair("new")) == []


def test_the_whole_fixture_as_a_new_file_passes() -> None:
    assert judge_log_change(LOG, None, FIXTURE_LOG) == []


def test_edits_are_described_by_their_first_differing_line() -> None:
    old = b"a\nb\nc\n"
    assert edit_finding(LOG, old, b"a\nB\nc\n").message == "committed line 2 was edited"
    assert edit_finding(LOG, old, b"a\nc\n").message == "committed line 2 was deleted"
    assert edit_finding(LOG, old, b"a\nx\nb\nc\n").message == (
        "a line was inserted before committed line 2"
    )
    assert (
        edit_finding(LOG, old, b"a\nc\nb\n").message == "committed lines were reordered at line 2"
    )
    truncated = edit_finding(LOG, old, b"a\n")
    assert truncated.message == "the file was truncated: committed lines 2-3 are gone"
    assert truncated.line == 2
    cut = edit_finding(LOG, old, b"a\nb")  # `truncate -s`: the cut falls inside a line
    assert (
        cut.message == "the file was truncated inside committed line 2: lines 2-3 are cut or gone"
    )
    assert cut.line == 2


def test_appended_chunk_rules() -> None:
    assert appended_chunk(LOG, b"a\n", b"a\nb\n", True) == ([], b"b\n")
    assert appended_chunk(LOG, b"a\n", b"a\n", True) == ([], None)
    findings, chunk = appended_chunk(LOG, b"a", b"ab\n", True)
    assert chunk is None and "had no newline and was extended" in findings[0].message
    findings, _ = appended_chunk("journal/JOURNAL.md", b"a", b"ab\n", False)
    assert "had no newline and was extended" in findings[0].message
    assert appended_chunk("journal/JOURNAL.md", b"a", b"a\nb\n", False) == ([], b"\nb\n")
    findings, _ = appended_chunk(LOG, b"a\n", None, True)
    assert findings[0].message == "the file was deleted"


def test_event_rules_report_the_physical_line() -> None:
    before = pair("one")
    bad = (
        line("e-x", "goal.created", {"id": "g-x"})
        + b"\n"
        + line("o-y", "state.ops_applied", [], "nope")
    )
    found = judge_log_change(LOG, before, before + bad)
    by_rule = {(f.rule, f.line) for f in found}
    assert ("pairing", 3) in by_rule  # goal.created without its pair
    assert ("causation", 5) in by_rule  # after a blank line 4


def test_strict_fold_and_vocabulary() -> None:
    before = pair("one")
    update = [{"UpdateNode": {"id": "g-missing", "props": {}}}]
    widget = [{"CreateNode": {"id": "w", "kind": "widget", "props": {}}}]
    chunk = line("o-1", "state.ops_applied", update) + line("o-2", "state.ops_applied", widget)
    found = judge_log_change(LOG, before, before + chunk)
    messages = [f.message for f in found]
    assert (
        "UpdateNode names node `g-missing`, which does not exist (a fold would skip it)" in messages
    )
    assert "CreateNode w uses undeclared kind `widget`" in messages


def test_recreating_an_earlier_events_entity_breaks_pairing() -> None:
    before = pair("one")
    again = [{"CreateNode": {"id": "g-one", "kind": "goal", "props": {}}}]
    found = judge_log_change(LOG, before, before + line("o-2", "state.ops_applied", again, "e-one"))
    assert any("created again for event e-one" in f.message for f in found)


def test_lines_size_utf8_secret_and_torn() -> None:
    chunk = b"x" * 20 + b"\n" + b"\xff\n" + b'{"token":"ghp_' + b"a1B2c3D4" * 5 + b'"}\n' + b"tail"
    found = check_lines(LOG, chunk, 10, 16, jsonl=True)
    assert [(f.rule, f.line) for f in found] == [
        ("line-size", 10),
        ("utf-8", 11),
        ("line-size", 12),
        ("torn", 13),
    ]
    # a whole last object without its newline is no torn write (REFERENCE §10.4)
    assert check_lines(LOG, b'{"a":1}\n{"b":2}', 1, 1 << 20, True) == []
    assert rules(check_lines(LOG, b'{"a":1}\n{"b":', 1, 1 << 20, True)) == ["torn"]
    small = check_lines(LOG, b'{"k":"ghp_' + b"a1B2c3D4" * 4 + b'e5F6"}\n', 1, 1 << 20, True)
    assert rules(small) == ["secret"] and "ghp_" not in small[0].message.replace("ghp_…", "")


def test_facts_envelope_and_ids() -> None:
    fact = {
        "id": "f2",
        "ts_ms": 1,
        "text": "t",
        "derived_from": ["e-one", "zzz"],
        "supersedes": "f9",
    }
    chunk = json.dumps(fact).encode() + b"\n" + b"legacy line\n"
    found = check_facts("memory/facts.jsonl", chunk, 4, {"f1"}, lambda ref: ref == "e-one")
    assert [(f.line, f.message) for f in found] == [
        (4, "derived_from names zzz, which is no event, node or fact"),
        (4, "supersedes f9, which is no earlier fact"),
        (5, "not a fact in the GASP envelope"),
    ]


def test_identity_rules() -> None:
    def manifest(digest: str) -> bytes:
        return f"# A\n```yaml\nidentity_hash: {digest}\n```\n".encode()

    old, new = "a" * 64, "b" * 64

    def decided(status: str) -> Event:
        payload = {"id": "x", "status": status, "decided_by": {"kind": "user", "id": "h"}}
        return Event("d", 1, 1, Actor("user", "h"), "decision.created", payload, None, None)

    decision = decided("Approved")
    assert check_identity(True, manifest(old), manifest(new), new, [decision], LOG) == []
    for status in ("Rejected", "Pending"):  # a decision that does not approve it
        refused = check_identity(True, manifest(old), manifest(new), new, [decided(status)], LOG)
        assert "without an Approved decision.created" in refused[0].message
    assert rules(check_identity(True, manifest(old), manifest(old), new, [decision], LOG)) == [
        "identity"
    ]
    missing = check_identity(True, manifest(old), manifest(new), new, [], LOG)
    assert "without an Approved decision.created" in missing[0].message
    alone = check_identity(False, manifest(old), manifest(new), None, [], LOG)
    assert alone[0].message == "identity_hash changed but identity/ did not" and alone[0].line == 3
    assert check_identity(True, None, manifest(new), new, [], LOG) == []  # a new agent


def test_control_plane() -> None:
    found = check_control_plane([".agent/lease", ".agent/config.toml", ".agent/RUN"])
    assert [f.path for f in found] == [".agent/RUN", ".agent/lease"]


def test_context_round_trips_and_extends() -> None:
    context = context_of(FIXTURE_LOG)
    again = LogContext.from_value(json.loads(json.dumps(context.to_value())))
    assert again is not None and again.to_value() == context.to_value()
    assert LogContext.from_value({"format": 99}) is None
    assert context.lines == FIXTURE_LOG.count(b"\n")


# -- the property ---------------------------------------------------------------------

mutations = st.sampled_from(["flip", "move", "cut", "duplicate", "drop"])


@settings(max_examples=300, deadline=None)
@given(
    split=st.integers(min_value=1, max_value=len(LINES) - 1),
    kind=mutations,
    a=st.integers(min_value=0, max_value=10**6),
    b=st.integers(min_value=0, max_value=10**6),
    bit=st.integers(min_value=0, max_value=7),
)
def test_damage_never_crashes_and_never_passes_a_lost_line(
    split: int, kind: str, a: int, b: int, bit: int
) -> None:
    before = b"".join(LINES[:split])
    good = FIXTURE_LOG + pair("p")
    lines = good.splitlines(keepends=True)
    if kind == "flip":
        data = bytearray(good)
        data[a % len(data)] ^= 1 << bit
        after = bytes(data)
    elif kind == "move":
        moved = lines.pop(a % len(lines))
        lines.insert(b % (len(lines) + 1), moved)
        after = b"".join(lines)
    elif kind == "cut":
        after = good[: a % (len(good) + 1)]
    elif kind == "duplicate":
        lines.insert(b % (len(lines) + 1), lines[a % len(lines)])
        after = b"".join(lines)
    else:
        del lines[a % len(lines)]
        after = b"".join(lines)
    findings = judge_log_change(LOG, before, after)
    if not after.startswith(before):
        assert "append-only" in rules(findings)
    for finding in findings:
        assert finding.message and finding.hint and "\n" not in finding.message


def test_secrets_spelled_with_json_escapes_are_found() -> None:
    token = "ghp_" + "a1B2c3D4" * 4 + "e5F6"
    escaped = json.dumps({"k": token}).replace("g", "\\u0067", 1).encode() + b"\n"
    assert b"ghp_" not in escaped
    found = check_lines(LOG, escaped, 1, 1 << 20, True)
    assert rules(found) == ["secret"] and "in a JSON string" in found[0].message
    url = json.dumps({"u": "https://user:hunter2pw@example.com/x"}).replace("/", "\\/")
    assert rules(check_lines(LOG, url.encode() + b"\n", 1, 1 << 20, True)) == ["secret"]


def test_attribute_changes_judged_on_plain_data() -> None:
    from git_gasp.core.attributes import check_attributes

    log = "state/events.jsonl"
    off = {log: {"text": "unset"}}

    def rules(before: list[dict[str, dict[str, str]]], after: list[dict[str, dict[str, str]]]):
        return [f.message for f in check_attributes(".gitattributes", before, after)]

    assert rules([off], [{log: {"text": "unset", "eol": "crlf", "filter": "set"}}]) == []
    assert rules([off], [{log: {"text": "auto"}}]) == [
        f"turns line-ending conversion back on for {log}"
    ]
    assert rules([off], [{log: {}}]) == [f"turns line-ending conversion back on for {log}"]
    # issue 16 item 8: a new text/eol setting on a log never marked -text is refused too
    # (this case passed before: "it was never off")
    assert rules([{log: {}}], [{log: {"text": "set"}}]) == [
        f"text turns line-ending conversion on for {log}"
    ]
    assert rules([{log: {"text": "set"}}], [{log: {"text": "set"}}]) == []  # kept, not new
    assert rules([{log: {"filter": "lfs"}}], [{log: {"filter": "lfs"}}]) == []  # kept, not new
    assert rules([], [{log: {"eol": "crlf"}}]) == [
        f"eol=crlf makes {log} check out differently from its committed bytes"
    ]
    # a setting either view gives counts (case-insensitive clones match more)
    assert rules([{log: {}}, {log: {}}], [{log: {}}, {log: {"ident": "set"}}]) == [
        f"ident makes {log} check out differently from its committed bytes"
    ]
    assert rules([{log: {}}], [{log: {"working-tree-encoding": "utf-8"}}]) == []


def test_an_agent_in_a_subdirectory_is_named() -> None:
    from git_gasp.hooks.steps import nested_agents, nested_warning

    paths = ["AGENT.md", "state/events.jsonl", "agents/bot/AGENT.md", "x/y/state/events.jsonl"]
    assert nested_agents(paths) == ["agents/bot", "x/y"]
    warning = nested_warning(paths)
    assert warning is not None
    assert "agents/bot/, x/y/ looks like an agent in a subdirectory" in warning
    assert "git gasp check agents/bot" in warning
    assert nested_warning(["AGENT.md", "state/events.jsonl", "notes/AGENT.md.bak"]) is None
    odd = nested_warning(["sub agent/AGENT.md", "x\ny/AGENT.md"])
    assert odd is not None and "\n" not in odd and "git gasp check 'sub agent'" in odd
