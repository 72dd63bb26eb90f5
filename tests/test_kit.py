"""The conformance kit's self-tests (REFERENCE §10.5), on real git repositories.

Every test of ``conformance-check/tests/fixture.rs`` (d5a18b2) as the table in
§10.5 describes it: the same mutation of the fixture, the same expected check
number and message text, driven through :func:`git_gasp.check.conformance.run_all` (and
``git_gasp.cli.root.main`` for the exit codes). Where the table implies that the
other checks are unaffected, the exact set of failing checks is asserted.

Mutated logs are committed in a fresh one-commit repository (as the fixture is,
§10.4) unless the test is about the working tree, so check 4 stays quiet.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from git_gasp.agent.fixture import fixture_files
from git_gasp.check.conformance import run_all
from git_gasp.cli import root as cli
from git_gasp.core.event import encode_event, parse_event
from git_gasp.core.fold import fold
from git_gasp.core.graph import graph_to_value
from git_gasp.core.log import parse_log
from git_gasp.core.report import CheckReport

from .conftest import commit_all, committed_repo, git, log_lines, log_path, write_lines

FIXTURE_LOG = fixture_files()["state/events.jsonl"].decode("utf-8")
# "Fixture lines" = the filtered log lines (§10.5).
FIXTURE_LINES = [line for line in FIXTURE_LOG.split("\n") if line.strip()]
FIXTURE_IDENTITY_HASH = "ec257c2341e50902b376b0c9ac8a8c5b312348508309cb7f97ef8191429798e9"
IDENTITY_LINE = f"identity_hash: {FIXTURE_IDENTITY_HASH}"

NO_FAILURES: frozenset[int] = frozenset()


# --------------------------------------------------------------------------- helpers


def check(repo: Path, fixture: bool = False, use_cache: bool = True) -> dict[int, CheckReport]:
    """run_all on ``repo``: always seven reports, in order 1..7."""
    reports = run_all(str(repo), fixture=fixture, use_cache=use_cache)
    assert [r.number for r in reports] == [1, 2, 3, 4, 5, 6, 7]
    for report in reports:
        assert report.passed == (not report.failures)
    return {r.number: r for r in reports}


def failing(reports: dict[int, CheckReport]) -> set[int]:
    return {n for n, r in reports.items() if not r.passed}


def has_failure(reports: dict[int, CheckReport], number: int, text: str) -> bool:
    return any(text in failure for failure in reports[number].failures)


def expect(
    reports: dict[int, CheckReport],
    fails: set[int] | frozenset[int],
    messages: dict[int, list[str]] | None = None,
) -> None:
    """Exactly the checks in ``fails`` fail, each with the listed message substrings."""
    summary = {n: r.failures for n, r in reports.items() if r.failures}
    assert failing(reports) == set(fails), summary
    for number, texts in (messages or {}).items():
        for text in texts:
            assert has_failure(reports, number, text), (number, text, reports[number].failures)


def mutate(lines: list[str], number: int, old: str, new: str) -> list[str]:
    """Replace the one occurrence of ``old`` in (1-based) line ``number``."""
    out = list(lines)
    assert out[number - 1].count(old) == 1, (number, old)
    out[number - 1] = out[number - 1].replace(old, new)
    return out


def build_repo(
    base: Path,
    lines: list[str] | None,
    files: dict[str, bytes | None] | None = None,
    name: str = "repo",
) -> Path:
    """The fixture with its log replaced by ``lines`` (None: no log), committed in a
    fresh one-commit repository (§10.4). ``files`` adds (bytes) or drops (None) files."""
    repo = base / name
    contents: dict[str, bytes | None] = dict(fixture_files())
    contents.update(files or {})
    contents["state/events.jsonl"] = (
        None if lines is None else "".join(line + "\n" for line in lines).encode("utf-8")
    )
    return committed_repo(repo, contents)


def plain_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    return path


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- the fixture


def test_fixture_passes_all_checks(fixture_repo: Path) -> None:
    reports = check(fixture_repo, fixture=True)
    expect(reports, NO_FAILURES)
    assert "no snapshots/ — skipped seed check" in reports[2].notes
    assert "identity hash verified against identity bytes" in reports[6].notes


def test_fixture_log_is_the_reference_worked_example() -> None:
    # §10.4: the ten lines; §3.2: the file (ending in "\n") hashes to e571e6e5…
    assert [parse_event(line).id for line in FIXTURE_LINES] == [
        f"event_{n:02d}" for n in range(1, 11)
    ]
    assert hashlib.sha256(FIXTURE_LOG.encode("utf-8")).hexdigest() == (
        "e571e6e58147aaf4d9e7935d1c8847b3a3263408fb875c43e8e6a2391f1ddcb1"
    )


# --------------------------------------------------------------------------- check 1


def test_envelope_rejects_unknown_field(tmp_path: Path) -> None:
    lines = mutate(FIXTURE_LINES, 1, '"causation_id"', '"extra":1,"causation_id"')
    reports = check(build_repo(tmp_path, lines))
    expect(reports, {1}, {1: ["line 1: unknown top-level field `extra`"]})
    assert all(f.startswith("line 1: ") for f in reports[1].failures)


def test_envelope_rejects_missing_field(tmp_path: Path) -> None:
    line = '{"id":"event_x","kind":"goal.created","payload":{}}'
    reports = check(build_repo(tmp_path, [line]))
    missing = ["schema_version", "ts_ms", "actor", "causation_id", "correlation_id"]
    expect(
        reports,
        {1, 2, 3, 5, 6, 7},
        {1: [f"line 1: missing envelope field `{key}`" for key in missing]},
    )
    for present in ("id", "kind", "payload"):
        assert not has_failure(reports, 1, f"missing envelope field `{present}`")
    assert has_failure(reports, 1, "line 1: not a valid envelope: ")
    for number in (2, 3, 5, 6, 7):
        assert reports[number].failures == ("log does not fully parse; see check 1",)


def test_envelope_accepts_reordered_keys_and_nested_extras(tmp_path: Path) -> None:
    line = (
        '{"kind":"goal.created","id":"event_x","schema_version":1,"ts_ms":1,'
        '"actor":{"kind":"agent","id":"a"},"payload":{"id":"g","novel_nested_field":true},'
        '"causation_id":null,"correlation_id":null}'
    )
    reports = check(build_repo(tmp_path, [line]))
    assert reports[1].passed
    # The goal is never materialized by an ops event, which only check 7 minds.
    expect(reports, {7}, {7: ["line 1: goal.created `g` has no paired state.ops_applied"]})


# --------------------------------------------------------------------------- check 2


def snapshot_record(log: bytes, count: int, event_id: str) -> dict[str, Any]:
    """A valid snapshot record of the first ``count`` physical lines (§3.2)."""
    prefix = b"".join(part + b"\n" for part in log.split(b"\n")[:count])
    graph = fold(parse_log(prefix.decode("utf-8")).events).graph
    return {
        "graph": graph_to_value(graph),
        "integrity": {
            "event_id": event_id,
            "line_count": count,
            "sha256": hashlib.sha256(prefix).hexdigest(),
        },
    }


def _line_count(record: dict[str, Any], value: object) -> None:
    record["integrity"]["line_count"] = value


def _bad_hash(record: dict[str, Any]) -> None:
    record["integrity"]["line_count"] = 5
    record["integrity"]["sha256"] = "0" * 64


CORRUPTIONS = {
    "line_count_5_zero_hash": (_bad_hash, "integrity hash mismatch"),
    "line_count_0": (lambda r: _line_count(r, 0), "line_count 0 out of range (log has 10 lines)"),
    "line_count_99": (
        lambda r: _line_count(r, 99),
        "line_count 99 out of range (log has 10 lines)",
    ),
    "sha256_removed": (lambda r: r["integrity"].pop("sha256"), "missing `sha256`"),
    "event_id_99": (
        lambda r: r["integrity"].update(event_id="event_99"),
        "integrity event_id `event_99` is not the last event of the prefix",
    ),
    "graph_version_999": (
        lambda r: r["graph"].update(version=999),
        "snapshot differs from folding its log prefix",
    ),
}


def test_snapshot_valid_passes(fixture_repo: Path) -> None:
    record = snapshot_record(log_path(fixture_repo).read_bytes(), 10, "event_10")
    assert record["graph"]["version"] == 8
    write(fixture_repo, "snapshots/event_10/graph.json", json.dumps(record))
    reports = check(fixture_repo)
    expect(reports, NO_FAILURES)
    assert not any("snapshot" in note for note in reports[2].notes)


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_snapshot_corruptions_fail(fixture_repo: Path, case: str) -> None:
    corrupt, message = CORRUPTIONS[case]
    record = snapshot_record(log_path(fixture_repo).read_bytes(), 10, "event_10")
    corrupt(record)
    write(fixture_repo, "snapshots/event_10/graph.json", json.dumps(record))
    reports = check(fixture_repo)
    expect(reports, {2}, {2: [message]})
    assert len(reports[2].failures) == 1
    assert reports[2].failures[0].startswith("snapshot event_10: ")


def test_snapshot_without_graph_json_is_only_a_note(fixture_repo: Path) -> None:
    record = snapshot_record(log_path(fixture_repo).read_bytes(), 10, "event_10")
    write(fixture_repo, "snapshots/event_10/graph.json", json.dumps(record))
    (fixture_repo / "snapshots" / "event_10" / "graph.json").unlink()
    reports = check(fixture_repo)
    expect(reports, NO_FAILURES)
    assert any("not verified" in note for note in reports[2].notes)
    assert "snapshot event_10: no graph.json — not verified" in reports[2].notes


def test_worked_snapshot_of_section_3_2_verifies(fixture_repo: Path) -> None:
    # The §3.2 record, verbatim: a 5-line prefix, version 3, sha256 45756522…
    write(fixture_repo, "snapshots/event_05/graph.json", "".join(WORKED_SNAPSHOT))
    expect(check(fixture_repo), NO_FAILURES)
    # ...and the same record no longer matches once a prefix line is edited.
    lines = mutate(log_lines(fixture_repo), 3, '"fix retry skill"', '"fix retry skill!"')
    write_lines(fixture_repo, lines)
    reports = check(fixture_repo)
    assert has_failure(reports, 2, "snapshot event_05: integrity hash mismatch")


# --------------------------------------------------------------------------- check 3


def test_vocabulary_rejects_undeclared_kind(tmp_path: Path) -> None:
    lines = mutate(FIXTURE_LINES, 2, '"kind":"goal"', '"kind":"vibe"')
    reports = check(build_repo(tmp_path, lines))
    # Check 7 also sees goal.created materialized with the wrong kind.
    expect(
        reports,
        {3, 7},
        {
            3: ["line 2: CreateNode goal_retry uses undeclared kind `vibe`"],
            7: ["created as kind `vibe`"],
        },
    )
    assert len(reports[3].failures) == 1


CUSTOM_PACK = (
    '{"id":"pack_custom","name":"custom","version":"1","object_types":{"experiment":'
    '{"kind":"experiment","required_props":[],"prop_docs":{}}},"relation_types":{},'
    '"policies":[],"prompts":[],"settings":{}}'
)


def test_pack_admits_custom_kind_and_malformed_pack_fails(tmp_path: Path) -> None:
    lines = mutate(FIXTURE_LINES, 2, '"kind":"goal"', '"kind":"experiment"')
    repo = build_repo(tmp_path, lines)
    reports = check(repo)
    assert has_failure(reports, 3, "undeclared kind `experiment`")

    write(repo, ".agent/packs/custom.json", CUSTOM_PACK)
    reports = check(repo)
    assert reports[3].passed, reports[3].failures

    write(repo, ".agent/packs/broken.json", '{"id":')
    reports = check(repo)
    assert not reports[3].passed
    assert all("broken.json" in failure for failure in reports[3].failures)
    assert has_failure(reports, 3, "pack broken.json does not parse as a Pack")
    assert not has_failure(reports, 3, "undeclared kind")  # custom.json still counts


def test_vocabulary_rejects_malformed_ops_payload(tmp_path: Path) -> None:
    payload = (
        '[{"CreateNode":{"id":"goal_retry","kind":"goal",'
        '"props":{"title":"Make retry reliable","status":"Open"}}}]'
    )
    lines = mutate(FIXTURE_LINES, 2, payload, '{"not":"ops"}')
    reports = check(build_repo(tmp_path, lines))
    # Fail closed (§10.2): checks 2, 3 and 6 fail; the pair of line 1 is malformed too.
    expect(
        reports,
        {2, 3, 6, 7},
        {
            3: ["line 2: state.ops_applied payload does not parse as ops"],
            2: ["fold failed: invalid event payload for state.ops_applied"],
            6: ["fold failed: invalid event payload for state.ops_applied"],
            7: ["line 1: paired ops event event_02 has malformed payload"],
        },
    )


# --------------------------------------------------------------------------- check 4


@pytest.mark.parametrize("use_cache", [True, False])
def test_append_only_rejects_history_rewrite_and_deletion(tmp_path: Path, use_cache: bool) -> None:
    repo = plain_repo(tmp_path / "ao")
    write(repo, "state/events.jsonl", "line one\nline two\n")
    commit_all(repo, "one")
    write(repo, "state/events.jsonl", "line one\nline two\nline three\n")
    commit_all(repo, "two")
    reports = check(repo, use_cache=use_cache)
    assert reports[4].passed, reports[4].failures

    write(repo, "state/events.jsonl", "line ONE\nline two\nline three\n")
    reports = check(repo, use_cache=use_cache)
    assert reports[4].failures == ("state/events.jsonl: working tree edits committed lines",)

    edit = commit_all(repo, "rewrite")
    reports = check(repo, use_cache=use_cache)
    assert reports[4].failures == (
        f"state/events.jsonl: commit {edit[:7]} edits existing lines (not append-only)",
    )

    git(repo, "rm", "-q", "state/events.jsonl")
    deletion = commit_all(repo, "delete")
    reports = check(repo, use_cache=use_cache)
    assert has_failure(reports, 4, f"state/events.jsonl: deleted in commit {deletion[:7]}")
    assert has_failure(reports, 4, f"commit {edit[:7]} edits existing lines")


def test_append_only_covers_facts_glob_and_missing_worktree_file(tmp_path: Path) -> None:
    repo = plain_repo(tmp_path / "facts")
    write(repo, "knowledge/facts.jsonl", "fact one\n")
    commit_all(repo, "fact")
    assert check(repo)[4].passed
    write(repo, "knowledge/facts.jsonl", "fact ONE\n")
    edit = commit_all(repo, "edit fact")
    reports = check(repo)
    assert reports[4].failures == (
        f"knowledge/facts.jsonl: commit {edit[:7]} edits existing lines (not append-only)",
    )

    other = plain_repo(tmp_path / "missing")
    write(other, "state/events.jsonl", "e1\n")
    commit_all(other, "log")
    assert check(other)[4].passed
    (other / "state" / "events.jsonl").unlink()  # uncommitted deletion
    reports = check(other)
    assert reports[4].failures == ("state/events.jsonl: committed file missing from working tree",)


def test_append_only_fails_on_non_git_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    reports = check(empty)
    assert reports[4].failures == (
        "not a git repository (conformance rule 1: state lives in a git repo)",
    )


# --------------------------------------------------------------------------- check 5


def test_causation_rejects_dangling_reference(tmp_path: Path) -> None:
    lines = mutate(FIXTURE_LINES, 10, '"causation_id":"event_09"', '"causation_id":"event_99"')
    reports = check(build_repo(tmp_path, lines))
    # event_09 (decision.created) thereby loses its pair, which check 7 reports.
    expect(
        reports,
        {5, 7},
        {
            5: ["line 10: causation_id event_99 does not reference an earlier event"],
            7: ["line 9: decision.created `decision_3` has no paired state.ops_applied"],
        },
    )
    assert len(reports[5].failures) == 1


def test_causation_rejects_bad_root_but_allows_ops_root(tmp_path: Path) -> None:
    lines = mutate(FIXTURE_LINES, 7, '"causation_id":"event_06"', '"causation_id":null')
    reports = check(build_repo(tmp_path, lines))
    expect(reports, {5}, {5: ["root event"]})
    assert reports[5].failures == (
        "line 7: root event (null causation) has kind `eval.finished`, "
        "expected *.created / *.started / state.ops_applied",
    )

    ops_root = (
        '{"id":"event_m1","schema_version":1,"ts_ms":1,"actor":{"kind":"system","id":"s"},'
        '"kind":"state.ops_applied","payload":[{"MarkStale":{"id":"goal_old",'
        '"reason":"maintenance"}}],"causation_id":null,"correlation_id":null}'
    )
    reports = check(build_repo(tmp_path, [ops_root], name="ops_root"))
    assert reports[5].passed, reports[5].failures
    expect(reports, NO_FAILURES)  # the dangling MarkStale is only a note (check 2)


def test_causation_rejects_duplicate_and_self_referencing_ids(tmp_path: Path) -> None:
    dup = FIXTURE_LINES[0].replace("event_01", "event_dup")
    assert dup != FIXTURE_LINES[0]
    reports = check(build_repo(tmp_path, [*FIXTURE_LINES, dup, dup]))
    assert has_failure(reports, 5, "duplicate event id")
    assert [f for f in reports[5].failures if "duplicate" in f] == [
        f for f in reports[5].failures if f.startswith("line 12: duplicate event id event_dup")
    ]
    assert len(reports[5].failures) == 1

    self_ref = (
        '{"id":"event_x","schema_version":1,"ts_ms":1,"actor":{"kind":"agent","id":"a"},'
        '"kind":"goal.created","payload":{"id":"g"},"causation_id":"event_x",'
        '"correlation_id":null}'
    )
    reports = check(build_repo(tmp_path, [self_ref], name="self"))
    assert reports[5].failures == (
        "line 1: causation_id event_x does not reference an earlier event",
    )


# --------------------------------------------------------------------------- check 6


def test_restore_asserts_fixture_facts(tmp_path: Path) -> None:
    update = ',{"UpdateNode":{"id":"patch_9","props":{"status":"Promoted"}}}'
    lines = mutate(FIXTURE_LINES, 10, update, "")
    repo = build_repo(tmp_path, lines)
    reports = check(repo, fixture=True)
    expect(reports, {6})
    assert reports[6].failures == ("fixture: patch_9.status != Promoted",)
    assert check(repo, fixture=False)[6].passed  # only a fixture fact


def test_restore_verifies_the_fixture_identity_hash(fixture_repo: Path) -> None:
    reports = check(fixture_repo, fixture=False)
    assert reports[6].passed
    assert any("identity hash verified" in note for note in reports[6].notes)


def test_restore_rejects_tampered_identity_bytes(fixture_repo: Path) -> None:
    identity = fixture_repo / "identity" / "IDENTITY.md"
    identity.write_bytes(identity.read_bytes() + b"\nsynthetic-tamper\n")
    computed = hashlib.sha256(b"identity/IDENTITY.md\n" + identity.read_bytes()).hexdigest()
    reports = check(fixture_repo)
    expect(reports, {6}, {6: ["identity bytes do not match the manifest"]})
    assert has_failure(
        reports,
        6,
        f"identity bytes do not match the manifest: declared {FIXTURE_IDENTITY_HASH}, "
        f"computed {computed}",
    )
    assert not any("verified" in note for note in reports[6].notes)


def _edit_manifest(repo: Path, new_line: str | None) -> None:
    manifest = repo / "AGENT.md"
    lines = manifest.read_text(encoding="utf-8").split("\n")
    assert IDENTITY_LINE in lines
    if new_line is None:
        lines.remove(IDENTITY_LINE)
    else:
        lines[lines.index(IDENTITY_LINE)] = new_line
    manifest.write_text("\n".join(lines), encoding="utf-8")


def test_restore_rejects_malformed_identity_hash(fixture_repo: Path) -> None:
    _edit_manifest(fixture_repo, "identity_hash: not-a-digest")
    reports = check(fixture_repo)
    expect(reports, {6}, {6: ["malformed"]})
    assert reports[6].failures == (
        "AGENT.md identity_hash is malformed: `not-a-digest` is not 64 hex chars",
    )


def test_restore_rejects_missing_identity_hash(fixture_repo: Path) -> None:
    _edit_manifest(fixture_repo, None)
    reports = check(fixture_repo)
    expect(reports, {6}, {6: ["AGENT.md declares no identity_hash"]})
    assert len(reports[6].failures) == 1


IDENTITY_VECTOR = "c3c98b9b7b4f93b8e62036d30c7da8540f358ab4a03ad0fd547bfd186d5c94aa"


def _manifest(digest: str, agent: str = "evolve") -> bytes:
    return (
        f"# AGENT\n\n```yaml\nspec_version: 1\nagent_id: {agent}\nidentity_hash: {digest}\n```\n"
    ).encode()


def test_identity_hash_recipe_covers_all_files_in_byte_order(tmp_path: Path) -> None:
    # §9.2 test vector: identity/b.md = "bee", identity/sub/a.md = "ay".
    assert hashlib.sha256(b"identity/b.md\nbeeidentity/sub/a.md\nay").hexdigest() == IDENTITY_VECTOR
    repo = build_repo(
        tmp_path,
        FIXTURE_LINES,
        {
            "identity/IDENTITY.md": None,
            "identity/b.md": b"bee",
            "identity/sub/a.md": b"ay",
            "AGENT.md": _manifest(IDENTITY_VECTOR),
        },
    )
    reports = check(repo)
    expect(reports, NO_FAILURES)
    assert "identity hash verified against identity bytes" in reports[6].notes

    # The other order (sub/a.md first) is a different digest, so it must fail.
    wrong = hashlib.sha256(b"identity/sub/a.md\nayidentity/b.md\nbee").hexdigest()
    (repo / "AGENT.md").write_bytes(_manifest(wrong))
    assert has_failure(check(repo), 6, "identity bytes do not match the manifest")

    # Every file counts, hidden and untracked ones included (the working tree is hashed).
    (repo / "AGENT.md").write_bytes(_manifest(IDENTITY_VECTOR))
    (repo / "identity" / ".hidden").write_bytes(b"")
    reports = check(repo)
    with_hidden = hashlib.sha256(
        b"identity/.hidden\nidentity/b.md\nbeeidentity/sub/a.md\nay"
    ).hexdigest()
    assert has_failure(reports, 6, f"computed {with_hidden}")


# --------------------------------------------------------------------------- check 7


def test_pairing_rejects_missing_ops_event(tmp_path: Path) -> None:
    lines = [line for line in FIXTURE_LINES if '"id":"event_02"' not in line]
    assert len(lines) == 9
    reports = check(build_repo(tmp_path, lines))
    expect(reports, {7}, {7: ["no paired state.ops_applied"]})
    assert reports[7].failures == (
        "line 1: goal.created `goal_retry` has no paired state.ops_applied",
    )


def test_pairing_rejects_status_contradiction_even_with_decoy(tmp_path: Path) -> None:
    lines = mutate(
        FIXTURE_LINES, 10, '"props":{"status":"Approved"}', '"props":{"status":"Rejected"}'
    )
    decoy = FIXTURE_LINES[9].replace('"id":"event_10"', '"id":"event_11"')
    assert decoy != FIXTURE_LINES[9]
    reports = check(build_repo(tmp_path, [*lines, decoy]))
    expect(
        reports,
        {7},
        {
            7: [
                "line 9: `decision_3` status contradicts domain event",
                "line 9: `decision_3` created by 2 ops events (pairing must be exactly one)",
            ]
        },
    )
    assert has_failure(reports, 7, '("Approved" vs "Rejected")')


def test_pairing_rejects_wrong_created_kind(tmp_path: Path) -> None:
    lines = mutate(FIXTURE_LINES, 2, '"kind":"goal"', '"kind":"task"')
    reports = check(build_repo(tmp_path, lines))
    assert reports[3].passed  # `task` is baseline vocabulary
    expect(reports, {7}, {7: ["created as kind `task`"]})
    assert reports[7].failures == (
        "line 1: `goal_retry` created as kind `task`, domain event implies `goal`",
    )


def test_pairing_rejects_ops_chained_to_ops(tmp_path: Path) -> None:
    chained = (
        '{"id":"event_x","schema_version":1,"ts_ms":1739000001000,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied",'
        '"payload":[{"MarkStale":{"id":"goal_retry","reason":"x"}}],'
        '"causation_id":"event_02","correlation_id":null}'
    )
    reports = check(build_repo(tmp_path, [*FIXTURE_LINES, chained]))
    expect(reports, {7}, {7: ["chained to another ops event"]})
    assert reports[7].failures == (
        "ops event event_x chained to another ops event, not a domain event",
    )


# --------------------------------------------------------------------------- whole-kit


def test_missing_log_is_a_conformance_failure_not_a_tool_error(tmp_path: Path) -> None:
    repo = plain_repo(tmp_path / "bare")
    reports = run_all(str(repo))
    assert len(reports) == 7
    by_number = {r.number: r for r in reports}
    assert not by_number[1].passed
    assert sum(not r.passed for r in reports) >= 5
    assert by_number[1].failures[0].startswith("state/events.jsonl: cannot read ")
    expect(by_number, {1, 2, 3, 5, 6, 7})
    for number in (2, 3, 5, 6, 7):
        assert by_number[number].failures == ("log unavailable (see check 1)",)
    assert by_number[4].notes == ("no commits yet — nothing to violate",)


def test_cli_exit_codes(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(*argv: str) -> tuple[int, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        return code, out + err

    code, out = run("check", str(fixture_repo), "--fixture")
    assert code == 0, out
    assert "conformant: all checks passed" in out

    # Causation stays consistent, but check 4 sees committed lines edited.
    text = log_path(fixture_repo).read_text(encoding="utf-8")
    assert text.count("event_09") == 2
    log_path(fixture_repo).write_text(text.replace("event_09", "event_99"), encoding="utf-8")
    code, out = run("check", str(fixture_repo), "--fixture")
    assert code == 1
    expect(
        check(fixture_repo, fixture=True),
        {4},
        {4: ["state/events.jsonl: working tree edits committed lines"]},
    )

    code, out = run("check", "--fixtrue", str(fixture_repo))
    assert code == 2 and "--fixtrue" in out
    code, _ = run("check", str(fixture_repo), str(fixture_repo))
    assert code == 2
    code, _ = run("check", str(tmp_path / "does-not-exist"))
    assert code == 2


def test_a_dangling_op_is_readable_and_reported_not_failed(fixture_repo: Path) -> None:
    probe = (
        '{"actor":{"id":"evolve","kind":"agent"},"causation_id":"event_01",'
        '"correlation_id":"goal_retry","id":"event_dangling_probe","kind":"state.ops_applied",'
        '"payload":[{"UpdateNode":{"id":"node_never_created","props":{"status":"closed"}}}],'
        '"schema_version":1,"ts_ms":1739000000002}'
    )
    write_lines(fixture_repo, [*log_lines(fixture_repo), probe])  # uncommitted append
    reports = check(fixture_repo, fixture=True)
    expect(reports, NO_FAILURES)
    notes = [n for n in reports[2].notes if "UpdateNode" in n and "skipped" in n]
    assert notes == [
        "UpdateNode at batch index 0 skipped — node not found: node_never_created. The log is "
        "readable but malformed; a conformant runtime folds past this, and so does this check"
    ]


# --------------------------------------------------------------------------- §4.5 emitter


IT_AGENT_IDENTITY = b"# Identity\n\nI am it-agent.\n"
IT_AGENT_HASH = "7dee8e9ab12b08bfb41df44daba354987318e86f5abae2a05ddb227e7b45defd"


def test_gitventstore_emitted_lines_are_runtime_shaped() -> None:
    assert len(EMITTED_LINES) == 40
    for line in EMITTED_LINES:
        # Envelope in declaration order, payload keys sorted: encode_event reproduces it.
        assert encode_event(parse_event(line)) == line


def test_gitventstore_emitted_repo_passes_all_checks(tmp_path: Path) -> None:
    repo = plain_repo(tmp_path / "it-agent")
    # init_agent_repo (0.5.3 adds identity_hash to the manifest) + GitEventStore::open.
    (repo / "identity").mkdir()
    (repo / "identity" / "IDENTITY.md").write_bytes(IT_AGENT_IDENTITY)
    (repo / "AGENT.md").write_bytes(_manifest(IT_AGENT_HASH, agent="it-agent"))
    write(repo, ".gitignore", ".agent/lease\n.agent/HEAD\n")
    (repo / "state").mkdir()
    (repo / ".agent").mkdir()
    commit_all(repo, "init")
    # The helpers append the 40 lines; commit_run makes the boundary commit.
    write_lines(repo, list(EMITTED_LINES))
    git(repo, "add", "--", "state/events.jsonl")
    git(
        repo,
        "commit",
        "-q",
        "-m",
        "run run_42: promoted\n\nRun-Id: run_42\nGoal: goal_retry\nOutcome: promoted",
        "--",
        "state/events.jsonl",
    )
    assert git(repo, "status", "--porcelain") == ""

    reports = check(repo, fixture=False)
    expect(reports, NO_FAILURES)
    assert "identity hash verified against identity bytes" in reports[6].notes
    assert reports[2].notes == ("no snapshots/ — skipped seed check",)

    log = parse_log(log_path(repo).read_text(encoding="utf-8"))
    assert log.ok and len(log.events) == 40
    result = fold(log.events)
    assert (len(result.graph.nodes), len(result.graph.relations), result.graph.version) == (
        15,
        13,
        36,
    )
    assert result.skipped == ()


# --------------------------------------------------------------------------- data

# §3.2's worked snapshot record of the fixture's first five lines, verbatim.
WORKED_SNAPSHOT = (
    '{"graph":{"nodes":{"goal_retry":{"id":"goal_retry","kind":"goal","props":{"title":"Make '
    'retry reliable","status":"Open"},"stale":false,"tombstoned":false,"artifacts":[]},"patch'
    '_9":{"id":"patch_9","kind":"patch","props":{"title":"persist retry counter","status":"Pr'
    'oposed","references_commit":"abc1234"},"stale":false,"tombstoned":false,"artifacts":[]}}'
    ',"relations":[{"from":"patch_9","rel":"advances","to":"goal_retry","props":{}}],"version'
    '":3},"integrity":{"event_id":"event_05","line_count":5,"sha256":"45756522ad03d46627de5f0'
    'edb271390de402c83a195d555d03e7c59d169a0eb"}}'
)

# The 40 lines of §4.5 (yoagent-state 0.4.2's helpers, run run_42), verbatim.
EMITTED_LINES = (
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0001","schema_version":1,"ts_ms":1739000000007,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"goal.created","payload":{"id":"goal_retry'
        '","metadata":{},"owner":{"id":"evolve","kind":"agent"},"status":"Open","summary":"retrie'
        's drop state after timeout","title":"Make retry reliable"},"causation_id":null,"correlat'
        'ion_id":null}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0002","schema_version":1,"ts_ms":1739000000014,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"goal_retry","kind":"goal","props":{"metadata":{},"owner":{"id":"evolve","kind"'
        ':"agent"},"status":"Open","summary":"retries drop state after timeout","title":"Make ret'
        'ry reliable"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0001","correlation_id'
        '":null}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","schema_version":1,"ts_ms":1739000000021,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"run.started","payload":{"run_id":"run_42"'
        ',"task":"fix retry skill"},"causation_id":null,"correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0004","schema_version":1,"ts_ms":1739000000028,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"run_42","kind":"run","props":{"status":"started","task":"fix retry skill"}}}],'
        '"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0005","schema_version":1,"ts_ms":1739000000035,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"task.created","payload":{"created_by":{"i'
        'd":"evolve","kind":"agent"},"goal":"goal_retry","id":"task_7","metadata":{},"status":"In'
        'Progress","summary":"find why retry state resets","title":"Investigate retry timeout"},"'
        'causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0006","schema_version":1,"ts_ms":1739000000042,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"task_7","kind":"task","props":{"metadata":{},"status":"InProgress","summary":"'
        'find why retry state resets","title":"Investigate retry timeout"}}},{"CreateRelation":{"'
        'from":"task_7","props":{},"rel":"serves","to":"goal_retry"}}],"causation_id":"event_9f1c'
        '2b7e4d5a4e3f8a6b0c1d2e3f0005","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0007","schema_version":1,"ts_ms":1739000000049,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"observation.created","payload":{"id":"obs'
        'ervation_3","metadata":{},"observed_in":"run_42","summary":"attempt count is 0 after tim'
        'eout","title":"retry counter resets"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f'
        '0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0008","schema_version":1,"ts_ms":1739000000056,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"observation_3","kind":"observation","props":{"metadata":{},"summary":"attempt '
        'count is 0 after timeout","title":"retry counter resets"}}},{"CreateRelation":{"from":"o'
        'bservation_3","props":{},"rel":"observes","to":"run_42"}}],"causation_id":"event_9f1c2b7'
        'e4d5a4e3f8a6b0c1d2e3f0007","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0009","schema_version":1,"ts_ms":1739000000063,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"failure.observed","payload":{"failure_id"'
        ':"failure_1","id":"failure_1","summary":"attempt count resets","title":"retry timeout lo'
        'ses state"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"ru'
        'n_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000a","schema_version":1,"ts_ms":1739000000070,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"failure_1","kind":"failure","props":{"summary":"attempt count resets","title":'
        '"retry timeout loses state"}}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0009",'
        '"correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000b","schema_version":1,"ts_ms":1739000000077,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"hypothesis.created","payload":{"confidenc'
        'e":0.7,"id":"hypothesis_2","metadata":{},"summary":"state is not persisted across timeou'
        'ts","title":"counter kept in memory only"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1'
        'd2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000c","schema_version":1,"ts_ms":1739000000084,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"hypothesis_2","kind":"hypothesis","props":{"confidence":0.7,"metadata":{},"sum'
        'mary":"state is not persisted across timeouts","title":"counter kept in memory only"}}},'
        '{"CreateRelation":{"from":"hypothesis_2","props":{},"rel":"explains","to":"failure_1"}}]'
        ',"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000b","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000d","schema_version":1,"ts_ms":1739000000091,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"patch.proposed","payload":{"artifacts":[{'
        '"hash":null,"kind":"git.diff","metadata":{},"summary":"persist counter","uri":"file://.y'
        'oyo/artifacts/patch_9.diff"}],"base_project_ref":null,"base_state_version":0,"created_by'
        '":{"id":"evolve","kind":"agent"},"evidence":["failure_1"],"expected_effects":[{"TestPass'
        'es":{"name":"retry_timeout"}}],"id":"patch_9","ops":[{"CreateRelation":{"from":"patch_9"'
        ',"props":{},"rel":"advances","to":"goal_retry"}}],"preconditions":[{"StateVersionIs":0}]'
        ',"status":"Proposed","summary":"counter survives timeouts","title":"persist retry counte'
        'r"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000e","schema_version":1,"ts_ms":1739000000098,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"patch_9","kind":"patch","props":{"base_project_ref":null,"base_state_version":'
        '0,"expected_effects":[{"TestPasses":{"name":"retry_timeout"}}],"preconditions":[{"StateV'
        'ersionIs":0}],"status":"Proposed","summary":"counter survives timeouts","title":"persist'
        ' retry counter"}}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"addresses","to"'
        ':"failure_1"}},{"AttachArtifact":{"artifact":{"hash":null,"kind":"git.diff","metadata":{'
        '},"summary":"persist counter","uri":"file://.yoyo/artifacts/patch_9.diff"},"id":"patch_9'
        '"}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"advances","to":"goal_retry"}}]'
        ',"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000d","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000f","schema_version":1,"ts_ms":1739000000105,'
        '"actor":{"kind":"tool","id":"cargo"},"kind":"tool.called","payload":{"id":"tool_1","inpu'
        't_summary":"cargo test retry","metadata":{},"output_summary":"ok, 1 passed","run_id":"ru'
        'n_42","success":true,"tool":"cargo test"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d'
        '2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0010","schema_version":1,"ts_ms":1739000000112,'
        '"actor":{"kind":"tool","id":"cargo"},"kind":"state.ops_applied","payload":[{"CreateNode"'
        ':{"id":"tool_1","kind":"tool_call","props":{"input_summary":"cargo test retry","metadata'
        '":{},"output_summary":"ok, 1 passed","run_id":"run_42","success":true,"tool":"cargo test'
        '"}}},{"CreateRelation":{"from":"tool_1","props":{},"rel":"produced_by","to":"run_42"}}],'
        '"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f000f","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0011","schema_version":1,"ts_ms":1739000000119,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"model.called","payload":{"id":"node_4b1e"'
        ',"metadata":{},"model":"claude-opus-4-6","output_summary":null,"prompt_summary":"plan th'
        'e retry fix","run_id":"run_42"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003",'
        '"correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0012","schema_version":1,"ts_ms":1739000000126,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"node_4b1e","kind":"model_call","props":{"metadata":{},"model":"claude-opus-4-6'
        '","output_summary":null,"prompt_summary":"plan the retry fix","run_id":"run_42"}}},{"Cre'
        'ateRelation":{"from":"node_4b1e","props":{},"rel":"produced_by","to":"run_42"}}],"causat'
        'ion_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0011","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0013","schema_version":1,"ts_ms":1739000000133,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"eval.finished","payload":{"command":"carg'
        'o test retry","id":"eval_5","metadata":{},"score":1.0,"status":"Passed"},"causation_id":'
        '"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0014","schema_version":1,"ts_ms":1739000000140,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"eval_5","kind":"eval","props":{"command":"cargo test retry","metadata":{},"sco'
        're":1.0,"status":"Passed"}}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"valid'
        'ated_by","to":"eval_5"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0013","corre'
        'lation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0015","schema_version":1,"ts_ms":1739000000147,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"decision.created","payload":{"decided_by"'
        ':{"id":"evolve","kind":"agent"},"id":"decision_3","metadata":{},"reason":"eval passed; p'
        'romote","status":"Approved"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","co'
        'rrelation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0016","schema_version":1,"ts_ms":1739000000154,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"decision_3","kind":"decision","props":{"decided_by":{"id":"evolve","kind":"age'
        'nt"},"metadata":{},"reason":"eval passed; promote","status":"Approved"}}},{"CreateRelati'
        'on":{"from":"patch_9","props":{},"rel":"approved_by","to":"decision_3"}}],"causation_id"'
        ':"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0015","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0017","schema_version":1,"ts_ms":1739000000161,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"patch.status_changed","payload":{'
        '"patch_id":"patch_9","reason":"eval passed","status":"Promoted"},"causation_id":"event_9'
        'f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0018","schema_version":1,"ts_ms":1739000000168,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"U'
        'pdateNode":{"id":"patch_9","props":{"status":"Promoted","status_reason":"eval passed"}}}'
        '],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0017","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0019","schema_version":1,"ts_ms":1739000000175,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"goal.status_changed","payload":{"'
        'goal_id":"goal_retry","reason":null,"status":"Satisfied"},"causation_id":"event_9f1c2b7e'
        '4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001a","schema_version":1,"ts_ms":1739000000182,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"U'
        'pdateNode":{"id":"goal_retry","props":{"status":"Satisfied","status_reason":null}}}],"ca'
        'usation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0019","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001b","schema_version":1,"ts_ms":1739000000189,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"task.status_changed","payload":{"'
        'reason":"fixed","status":"Done","task_id":"task_7"},"causation_id":"event_9f1c2b7e4d5a4e'
        '3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001c","schema_version":1,"ts_ms":1739000000196,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"U'
        'pdateNode":{"id":"task_7","props":{"status":"Done","status_reason":"fixed"}}}],"causatio'
        'n_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001b","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001d","schema_version":1,"ts_ms":1739000000203,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"frame.created","payload":{"id":"frame_2",'
        '"metadata":{},"parent":"frame_1","summary":"working set for the retry fix","title":"retr'
        'y investigation"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_i'
        'd":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001e","schema_version":1,"ts_ms":1739000000210,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"frame_2","kind":"frame","props":{"metadata":{},"summary":"working set for the '
        'retry fix","title":"retry investigation"}}},{"CreateRelation":{"from":"frame_2","props":'
        '{},"rel":"contained_in_frame","to":"frame_1"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a'
        '6b0c1d2e3f001d","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f001f","schema_version":1,"ts_ms":1739000000217,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"project.snapshot_recorded","payload":{"ar'
        'tifacts":[{"hash":null,"kind":"git-commit","metadata":{},"summary":null,"uri":"abc1234"}'
        '],"id":"snapshot_abc1234","metadata":{},"project":{"branch":"main","commit":"abc1234","r'
        'epo":"yoyo-evolve","worktree":null}},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0'
        '003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0020","schema_version":1,"ts_ms":1739000000224,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"snapshot_abc1234","kind":"project_snapshot","props":{"metadata":{},"project":{'
        '"branch":"main","commit":"abc1234","repo":"yoyo-evolve","worktree":null}}}},{"AttachArti'
        'fact":{"artifact":{"hash":null,"kind":"git-commit","metadata":{},"summary":null,"uri":"a'
        'bc1234"},"id":"snapshot_abc1234"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f00'
        '1f","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0021","schema_version":1,"ts_ms":1739000000231,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"artifact.attached","payload":{"ar'
        'tifact":{"hash":null,"kind":"git-commit","metadata":{},"summary":null,"uri":"abc1234"},"'
        'node_id":"patch_9"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation'
        '_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0022","schema_version":1,"ts_ms":1739000000238,'
        '"actor":{"kind":"system","id":"yoagent-state"},"kind":"state.ops_applied","payload":[{"A'
        'ttachArtifact":{"artifact":{"hash":null,"kind":"git-commit","metadata":{},"summary":null'
        ',"uri":"abc1234"},"id":"patch_9"}}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f00'
        '21","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0023","schema_version":1,"ts_ms":1739000000245,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateNod'
        'e":{"id":"eval_6","kind":"eval","props":{"command":"cargo test","passed":true}}},{"Creat'
        'eRelation":{"from":"patch_9","props":{"passed":true},"rel":"validated_by","to":"eval_6"}'
        '}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0024","schema_version":1,"ts_ms":1739000000252,'
        '"actor":{"kind":"user","id":"reviewer"},"kind":"state.ops_applied","payload":[{"CreateNo'
        'de":{"id":"decision_4","kind":"decision","props":{"approved":true,"reason":"looks good"}'
        '}},{"CreateRelation":{"from":"patch_9","props":{},"rel":"approved_by","to":"decision_4"}'
        '}],"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0025","schema_version":1,"ts_ms":1739000000259,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"CreateRel'
        'ation":{"from":"failure_1","props":{},"rel":"blocks","to":"goal_retry"}}],"causation_id"'
        ':"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0026","schema_version":1,"ts_ms":1739000000266,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"MarkStale'
        '":{"id":"hypothesis_2","reason":"superseded by eval_5"}}],"causation_id":"event_9f1c2b7e'
        '4d5a4e3f8a6b0c1d2e3f0003","correlation_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0027","schema_version":1,"ts_ms":1739000000273,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"run.finished","payload":{"outcome":"promo'
        'ted","run_id":"run_42"},"causation_id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0003","correla'
        'tion_id":"run_42"}'
    ),
    (
        '{"id":"event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0028","schema_version":1,"ts_ms":1739000000280,'
        '"actor":{"kind":"agent","id":"evolve"},"kind":"state.ops_applied","payload":[{"UpdateNod'
        'e":{"id":"run_42","props":{"outcome":"promoted","status":"finished"}}}],"causation_id":"'
        'event_9f1c2b7e4d5a4e3f8a6b0c1d2e3f0027","correlation_id":"run_42"}'
    ),
)
