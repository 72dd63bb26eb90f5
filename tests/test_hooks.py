"""The hooks with real git: a bare server running the pre-receive hook (pushed to
over file:// and git://), native client hooks, and the rejection corpus."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from git_gasp.agent.identity import set_identity_hash
from git_gasp.restore.identity import compute

from .conftest import git
from .conftest import run_cli as main

LOG = "state/events.jsonl"


def event(eid: str, kind: str, payload: object, cause: str | None = None) -> str:
    value = {
        "id": eid,
        "schema_version": 1,
        "ts_ms": 1796000000000,
        "actor": {"kind": "agent", "id": "demo-agent"},
        "kind": kind,
        "payload": payload,
        "causation_id": cause,
        "correlation_id": None,
    }
    return json.dumps(value, separators=(",", ":")) + "\n"


def goal_pair(tag: str, kind: str = "goal") -> str:
    goal = {"id": f"goal-{tag}", "status": "Open", "title": f"goal {tag}"}
    ops = [{"CreateNode": {"id": f"goal-{tag}", "kind": kind, "props": goal}}]
    return event(f"ev-{tag}", "goal.created", goal) + event(
        f"ev-{tag}-ops", "state.ops_applied", ops, f"ev-{tag}"
    )


def decision_pair(tag: str, kind: str = "user") -> str:
    """An Approved decision: a person's (``kind`` user), as identity commit writes it."""
    person = {"kind": kind, "id": "ann"}
    decision: dict[str, object] = {"id": f"dec-{tag}", "status": "Approved", "title": tag}
    decision["decided_by"] = person
    ops = [{"CreateNode": {"id": f"dec-{tag}", "kind": "decision", "props": decision}}]
    return by(event(f"ev-dec-{tag}", "decision.created", decision), person) + event(
        f"ev-dec-{tag}-ops", "state.ops_applied", ops, f"ev-dec-{tag}"
    )


def by(line: str, actor: dict[str, str]) -> str:
    """An event line recorded by ``actor``."""
    value = json.loads(line)
    value["actor"] = actor
    return json.dumps(value, separators=(",", ":")) + "\n"


def mkcommit(repo: Path, message: str, *parents: str) -> str:
    """A commit of the index with the given parents (git commit-tree)."""
    tree = git(repo, "write-tree").strip()
    args = [x for p in parents for x in ("-p", p)]
    return git(repo, "commit-tree", tree, *args, "-m", message).strip()


def bare_server(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str = "server") -> Path:
    server = tmp_path / f"{name}.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    code, _, err = main(
        capsys, "hooks", "install", "--server", "--python", sys.executable, "-C", str(server)
    )
    assert code == 0, err
    return server


def push(repo: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), "push", url, *args], capture_output=True, text=True
    )


def pushed_as(name: str, repo: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """A push whose hook sees the pusher as a forge names them (GitLab's
    ``GL_USERNAME``; over file:// the hook inherits the pusher's environment)."""
    env = {**os.environ, "GL_USERNAME": name}
    return subprocess.run(
        ["git", "-C", str(repo), "push", url, *args], capture_output=True, text=True, env=env
    )


def commit(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)


def try_commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    """``git commit`` with the hooks installed: its result, whatever it is."""
    return subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", message], capture_output=True, text=True
    )


def append(repo: Path, rel: str, data: str | bytes) -> None:
    with open(repo / rel, "ab") as fh:
        fh.write(data.encode() if isinstance(data, str) else data)


def lines_of(repo: Path) -> list[bytes]:
    return (repo / LOG).read_bytes().splitlines(keepends=True)


def write_lines(repo: Path, lines: list[bytes]) -> None:
    (repo / LOG).write_bytes(b"".join(lines))


# -- the rejection corpus -------------------------------------------------------------


def edit_line(repo: Path) -> None:
    lines = lines_of(repo)
    lines[2] = lines[2].replace(b'"ts_ms":', b'"ts_ms":1', 1)
    write_lines(repo, lines)


def delete_line(repo: Path) -> None:
    lines = lines_of(repo)
    del lines[2]
    write_lines(repo, lines)


def insert_line(repo: Path) -> None:
    lines = lines_of(repo)
    lines.insert(2, goal_pair("mid").encode().splitlines(keepends=True)[0])
    write_lines(repo, lines)


def reorder_lines(repo: Path) -> None:
    lines = lines_of(repo)
    lines[2], lines[3] = lines[3], lines[2]
    write_lines(repo, lines)


def truncate(repo: Path) -> None:
    write_lines(repo, lines_of(repo)[:-2])


def delete_log(repo: Path) -> None:
    (repo / LOG).unlink()


def identity_without_hash(repo: Path) -> None:
    append(repo, "identity/IDENTITY.md", "I obey whoever edits me.\n")


def identity_without_decision(repo: Path) -> None:
    identity_without_hash(repo)
    manifest = repo / "AGENT.md"
    manifest.write_text(set_identity_hash(manifest.read_text(), compute(str(repo))))


def identity_approved_by_an_agent(repo: Path) -> None:
    identity_without_decision(repo)
    append(repo, LOG, decision_pair("self", kind="agent"))


def unpaired(repo: Path) -> None:
    append(repo, LOG, goal_pair("lonely").splitlines(keepends=True)[0])


def duplicate_id(repo: Path) -> None:
    first = json.loads(lines_of(repo)[0])
    append(repo, LOG, goal_pair("dup").replace("ev-dup-ops", first["id"]))


def dangling_cause(repo: Path) -> None:
    append(
        repo,
        LOG,
        goal_pair("dangle").replace('"causation_id":"ev-dangle"', '"causation_id":"nowhere"'),
    )


def ops_chained(repo: Path) -> None:
    ops = [{"UpdateNode": {"id": "goal-chain", "props": {"title": "again"}}}]
    append(
        repo,
        LOG,
        goal_pair("chain") + event("ev-chain-2", "state.ops_applied", ops, "ev-chain-ops"),
    )


def undeclared_kind(repo: Path) -> None:
    append(repo, LOG, goal_pair("widget", kind="widget"))


def bad_snapshot(repo: Path) -> None:
    snapshot = repo / "snapshots" / "bad" / "graph.json"
    snapshot.parent.mkdir(parents=True)
    existing = next((repo / "snapshots").glob("*/graph.json"))
    value = json.loads(existing.read_text())
    value["integrity"]["sha256"] = "0" * 64
    snapshot.write_text(json.dumps(value))


def lease_file(repo: Path) -> None:
    (repo / ".agent" / "lease").write_text('{"worker":"w"}\n')
    git(repo, "add", "-f", ".agent/lease")


def secret(repo: Path) -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    append(repo, LOG, goal_pair("secret").replace("goal secret", f"key {key}"))


def invalid_utf8(repo: Path) -> None:
    append(repo, LOG, goal_pair("latin").encode().replace(b"goal latin", b"goal \xe9t\xe9"))


def oversized(repo: Path) -> None:
    git(repo, "config", "gasp.maxLineBytes", "2000")
    append(repo, LOG, goal_pair("big").replace("goal big", "x" * 3000))


def crlf_checkout(repo: Path) -> None:
    with (repo / ".gitattributes").open("a") as fh:
        fh.write("state/*.jsonl text eol=crlf\n")


def ident_checkout(repo: Path) -> None:
    (repo / "journal").mkdir(exist_ok=True)
    (repo / "journal" / ".gitattributes").write_text("JOURNAL.md ident\n")


def text_back_on(repo: Path) -> None:
    with (repo / ".gitattributes").open("a") as fh:
        fh.write("* text=auto\n")  # after init's -text lines, so it wins


def case_folded_filter(repo: Path) -> None:
    with (repo / ".gitattributes").open("a") as fh:
        fh.write("STATE/EVENTS.JSONL filter=lfs\n")  # what macOS and Windows clones match


def nested_facts_filter(repo: Path) -> None:
    (repo / "team").mkdir()
    (repo / "team" / "facts.jsonl").write_text("")
    (repo / "team" / ".gitattributes").write_text("facts.jsonl working-tree-encoding=UTF-16\n")


def skill(repo: Path, name: str, description: str = "Retry flaky steps.") -> None:
    (repo / "skills" / name).mkdir(parents=True, exist_ok=True)
    text = f"---\nname: {name}\ndescription: {description}\n---\n\nBody of {name}.\n"
    (repo / "skills" / name / "SKILL.md").write_text(text)


def surrogate_fact(repo: Path) -> None:
    line = '{"id":"fact_\\ud800","ts_ms":1,"text":"x","derived_from":[],"supersedes":null}\n'
    append(repo, "memory/facts.jsonl", line)


def two_skills(repo: Path) -> None:
    skill(repo, "retry")
    skill(repo, "backoff")


def skill_without_manifest(repo: Path) -> None:
    (repo / "skills" / "delta").mkdir()
    (repo / "skills" / "delta" / "notes.txt").write_text("x\n")


def bad_skill(repo: Path) -> None:
    (repo / "skills" / "retry").mkdir()
    (repo / "skills" / "retry" / "SKILL.md").write_text("---\nname: retry\n---\n")


CORPUS: list[tuple[str, Callable[[Path], None], str]] = [
    ("line edited", edit_line, "committed line 3 was edited"),
    ("line deleted", delete_line, "committed line 3 was deleted"),
    ("line inserted", insert_line, "a line was inserted before committed line 3"),
    ("lines reordered", reorder_lines, "committed lines were reordered at line 3"),
    ("log truncated", truncate, "the file was truncated"),
    ("log deleted", delete_log, f"{LOG}: [append-only] the file was deleted"),
    ("identity without hash", identity_without_hash, "identity_hash is not its new digest"),
    ("identity without decision", identity_without_decision, "without an Approved decision"),
    (
        "identity approved by an agent",
        identity_approved_by_an_agent,
        "without an Approved decision.created by a person",
    ),
    ("unpaired event", unpaired, "has no paired state.ops_applied"),
    ("duplicate id", duplicate_id, "duplicate event id"),
    ("dangling causation", dangling_cause, "causation_id nowhere does not reference"),
    ("ops chained to ops", ops_chained, "chained to another ops event"),
    ("undeclared kind", undeclared_kind, "uses undeclared kind `widget`"),
    ("bad snapshot", bad_snapshot, "integrity hash mismatch"),
    ("lease committed", lease_file, ".agent/lease: [control-plane]"),
    ("secret", secret, "[secret]"),
    ("fact with a lone surrogate", surrogate_fact, "[facts] not a fact in the GASP envelope"),
    ("two skills", two_skills, "[skill] 2 skills change in one commit (backoff, retry)"),
    ("skill without description", bad_skill, "missing required field `description`"),
    ("skill without SKILL.md", skill_without_manifest, "skill delta has files but no SKILL.md"),
    ("invalid UTF-8", invalid_utf8, "not valid UTF-8"),
    ("oversized line", oversized, "over the 2,000-byte cap"),
    (
        "CRLF checkout",
        crlf_checkout,
        ".gitattributes: [attributes] eol=crlf makes state/events.jsonl check out differently",
    ),
    ("ident checkout", ident_checkout, "ident makes journal/JOURNAL.md check out differently"),
    ("text back on", text_back_on, "turns line-ending conversion back on for state/events.jsonl"),
    ("case-folded filter", case_folded_filter, "filter=lfs makes state/events.jsonl check out"),
    (
        "nested facts encoding",
        nested_facts_filter,
        "working-tree-encoding=UTF-16 makes team/facts.jsonl check out",
    ),
]
IDS = [case[0] for case in CORPUS]


def test_server_accepts_the_demo_and_a_good_append(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bare_server(tmp_path, capsys)
    first = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert first.returncode == 0, first.stderr
    append(work, LOG, goal_pair("good"))
    commit(work)
    second = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert second.returncode == 0, second.stderr
    assert "gasp:" not in second.stderr  # silent when all is well


def test_attribute_changes_that_keep_checkouts_byte_for_byte_pass(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Path(served(work, tmp_path, capsys).removeprefix("file://"))
    attributes = work / ".gitattributes"
    assert "-text" in attributes.read_text()  # init's own lines
    attributes.write_text(
        "* text=auto eol=lf\n"  # before init's lines, which still win for the agent's files
        + attributes.read_text()
        + "*.md diff=markdown\nother.txt eol=crlf ident\n*.bin filter=lfs -text\n"
        + "state/events.jsonl eol=crlf working-tree-encoding=UTF-8 filter\n"  # all no-ops
    )
    commit(work, "line endings")
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr


def test_an_edit_is_reported_once_by_the_server(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    edit_line(work)
    commit(work, "edited")
    stderr = rejected(work, url, "HEAD:refs/heads/main")
    assert stderr.count("was edited") == 1, stderr  # not again as the ref's update
    assert "push rejected: 1 violation in 1 commit" in stderr


def test_a_facts_file_arriving_under_rewriting_attributes_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    with (work / ".gitattributes").open("a") as fh:
        fh.write("notes/** ident\n")  # no append-only file there yet
    commit(work, "attributes for notes/")
    assert push(work, url, "HEAD:refs/heads/main").returncode == 0
    (work / "notes").mkdir()
    (work / "notes" / "facts.jsonl").write_text("")
    commit(work, "a facts file under them")
    assert "ident makes notes/facts.jsonl check out differently" in rejected(
        work, url, "HEAD:refs/heads/main"
    )


def test_an_attributes_file_in_other_capitals_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    (work / "memory" / ".GITATTRIBUTES").write_text("facts.jsonl ident\n")
    commit(work, "capitals")
    assert "memory/.GITATTRIBUTES: [attributes] an attributes file in other capitals" in (
        rejected(work, url, "HEAD:refs/heads/main")
    )


def test_a_log_moved_where_attributes_rewrite_it_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    with (work / ".gitattributes").open("a") as fh:
        fh.write("logs/* filter=lfs\n")  # nothing append-only there yet
    commit(work, "attributes for logs/")
    assert push(work, url, "HEAD:refs/heads/main").returncode == 0
    manifest = work / "AGENT.md"
    manifest.write_text(
        manifest.read_text() + "\n| Location | Path |\n|---|---|\n| log | logs/b.jsonl |\n"
    )
    (work / "logs").mkdir()
    (work / "logs" / "b.jsonl").write_text(goal_pair("b"))
    append(work, LOG, decision_pair("declare"))
    commit(work, "declare a log under logs/")
    assert "AGENT.md: [attributes] filter=lfs makes logs/b.jsonl check out" in rejected(
        work, url, "HEAD:refs/heads/main"
    )


def test_server_accepts_the_canonical_fixture(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bare_server(tmp_path, capsys)
    result = push(fixture_repo, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(("name", "mutate", "expected"), CORPUS, ids=IDS)
def test_server_rejects(
    name: str,
    mutate: Callable[[Path], None],
    expected: str,
    work: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = Path(served(work, tmp_path, capsys).removeprefix("file://"))
    if mutate is oversized:
        git(server, "config", "gasp.maxLineBytes", "2000")
    mutate(work)
    commit(work, name)
    before = git(server, "rev-parse", "refs/heads/main")
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode != 0
    assert expected in result.stderr, result.stderr
    assert "pre-receive hook declined" in result.stderr
    assert "remote: gasp: refs/heads/main " in result.stderr  # ref and short commit
    assert git(server, "rev-parse", "refs/heads/main") == before


@pytest.mark.parametrize(("name", "mutate", "expected"), CORPUS, ids=IDS)
def test_pre_commit_hook_rejects(
    name: str,
    mutate: Callable[[Path], None],
    expected: str,
    work: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    head = git(work, "rev-parse", "HEAD")
    mutate(work)
    git(work, "add", "-A")
    result = subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "-m", name], capture_output=True, text=True
    )
    assert result.returncode != 0
    assert expected in result.stderr, result.stderr
    assert git(work, "rev-parse", "HEAD") == head


def test_a_merge_finished_by_git_commit_is_judged_as_a_merge(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`git merge --no-commit` (or a resolved conflict), then `git commit`:
    the index is judged against both parents, as the merge commit will be."""
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    main_branch = git(work, "branch", "--show-current").strip()
    git(work, "checkout", "-q", "-b", "side")
    skill(work, "retry")
    commit(work, "retry skill")
    skill(work, "backoff")
    commit(work, "backoff skill")
    git(work, "checkout", "-q", main_branch)
    append(work, LOG, goal_pair("main"))
    commit(work, "a goal on main")
    git(work, "merge", "-q", "--no-commit", "--no-ff", "side")
    done = subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "--no-edit"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert git(work, "rev-list", "--count", "--merges", "HEAD").strip() == "1"
    # a merge that drops a line the other parent added is still refused
    git(work, "checkout", "-q", "-b", "other", "HEAD~1")
    append(work, LOG, goal_pair("other"))
    commit(work, "a goal on other")
    git(work, "checkout", "-q", main_branch)
    git(work, "merge", "-q", "--no-commit", "other")
    git(work, "checkout", "HEAD", "--", LOG)  # keeps main's log: drops other's goal
    git(work, "add", LOG)
    refused = subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "--no-edit"], capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert "drops" in refused.stderr, refused.stderr


def test_an_agent_in_a_subdirectory_gets_a_warning(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    nested = work / "agents" / "bot"
    (nested / "state").mkdir(parents=True)
    shutil.copy(work / "AGENT.md", nested / "AGENT.md")
    shutil.copy(work / LOG, nested / LOG)
    git(work, "add", "-A")
    done = try_commit(work, "a second agent")
    assert done.returncode == 0, done.stderr
    assert "agents/bot/ looks like an agent in a subdirectory" in done.stderr


def test_a_facts_file_a_manifest_names_is_append_only_in_its_own_format(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """yoyo-gasp's row: `memory/facts.jsonl` (+ `memory/social_facts.jsonl`).
    The second file keeps a format of its own: append-only, no fact envelope."""
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    row = "| facts | `memory/facts.jsonl` (+ `memory/social_facts.jsonl`) | append-only |\n"
    with open(work / "AGENT.md", "a") as fh:
        fh.write("\n| GASP role | path | notes |\n|---|---|---|\n" + row)
    (work / "memory" / "social_facts.jsonl").write_text('{"type": "social", "day": 1}\n')
    commit(work, "the social facts, declared")
    append(work, "memory/social_facts.jsonl", '{"type": "social", "day": 2}\n')
    git(work, "add", "-A")
    done = try_commit(work, "a social fact")
    assert done.returncode == 0, done.stderr
    (work / "memory" / "social_facts.jsonl").write_text('{"type": "social", "day": 9}\n')
    git(work, "add", "-A")
    refused = try_commit(work, "rewrite it")
    assert refused.returncode != 0 and "memory/social_facts.jsonl" in refused.stderr


def test_deleting_a_skills_manifest_but_not_its_files_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bare_server(tmp_path, capsys)
    skill(work, "foo")
    (work / "skills" / "foo" / "a.py").write_text("x\n")
    commit(work, "the foo skill")
    git(work, "rm", "-q", "skills/foo/SKILL.md")
    commit(work, "drop its SKILL.md")
    assert "skill foo has files but no SKILL.md" in rejected(
        work, f"file://{server}", "HEAD:refs/heads/main"
    )
    git(work, "rm", "-q", "-r", "skills/foo")  # the whole skill goes: fine
    commit(work, "drop the skill")
    done = subprocess.run(
        [sys.executable, "-m", "git_gasp", "validate", "HEAD~1..HEAD", "-C", str(work)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_credential_in_a_merges_session_trailer_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bare_server(tmp_path, capsys)
    main_branch = git(work, "branch", "--show-current").strip()
    git(work, "checkout", "-q", "-b", "side")
    (work / "s.txt").write_text("s\n")
    commit(work, "side")
    git(work, "checkout", "-q", main_branch)
    (work / "m.txt").write_text("m\n")
    commit(work, "main")
    message = "merge\n\nAgent-Session: claude:AKIAABCDEFGHIJKLMNOP"
    git(work, "merge", "-q", "--no-verify", "--no-ff", "side", "-m", message)
    assert "Agent-Session looks like it holds" in rejected(
        work, f"file://{server}", f"HEAD:refs/heads/{main_branch}"
    )


def test_a_range_that_names_no_commit_is_an_error(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PRE_COMMIT_TO_REF is never read as an option, and a range of no
    commits is an error, not a pass."""
    import io

    from git_gasp.errors import GaspError
    from git_gasp.hooks import commithooks

    out = tmp_path / "written"
    for start, end in (
        (f"--output={out}", "HEAD"),
        ("HEAD~1", f"--output={out}"),
        ("HEAD", "HEAD:AGENT.md"),
    ):
        env = {"PRE_COMMIT_FROM_REF": start, "PRE_COMMIT_TO_REF": end}
        with pytest.raises(GaspError, match="names no commit") as caught:
            commithooks.pre_commit(str(work), io.StringIO(), env)
        assert caught.value.exit_code == 2
    assert not out.exists()


def test_a_skill_renamed_is_one_skill_change(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    server = bare_server(tmp_path, capsys)
    skill(work, "retry")
    (work / "skills" / "retry" / "run.sh").write_text("#!/bin/sh\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "add the retry skill")
    # git mv and the name line follow the directory: one change
    git(work, "mv", "skills/retry", "skills/retry-step")
    md = work / "skills" / "retry-step" / "SKILL.md"
    md.write_text(md.read_text().replace("name: retry\n", "name: retry-step\n"))
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "rename the retry skill")
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    # a rename that also rewrites the skill is two changes
    git(work, "mv", "skills/retry-step", "skills/retry")
    md = work / "skills" / "retry" / "SKILL.md"
    md.write_text(md.read_text().replace("name: retry-step\n", "name: retry\n") + "More.\n")
    git(work, "add", "-A")
    refused = try_commit(work, "rename and edit")
    assert refused.returncode != 0
    assert "2 skills change in one commit (retry, retry-step)" in refused.stderr
    git(work, "commit", "-q", "--no-verify", "-m", "rename and edit")
    assert "2 skills change in one commit" in rejected(work, f"file://{server}", "HEAD:main")


def test_forced_push_of_older_history_is_rejected(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Path(served(work, tmp_path, capsys).removeprefix("file://"))
    result = push(work, f"file://{server}", "-f", "HEAD~1:refs/heads/main")
    assert result.returncode != 0
    assert "forced update of refs/heads/main: the file was truncated" in result.stderr


def test_branch_deletion_is_rejected_unless_allowed(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Path(served(work, tmp_path, capsys).removeprefix("file://"))
    append(work, LOG, goal_pair("side"))  # lines no other ref holds
    commit(work, "side")
    assert push(work, f"file://{server}", "HEAD:refs/heads/side").returncode == 0
    refused = push(work, f"file://{server}", ":refs/heads/side")
    assert refused.returncode != 0 and "would drop an agent's log" in refused.stderr
    git(server, "config", "gasp.allowDeletion", "true")
    assert push(work, f"file://{server}", ":refs/heads/side").returncode == 0


def test_union_merge_of_two_agents_is_accepted(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Path(served(work, tmp_path, capsys).removeprefix("file://"))
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", f"file://{server}", str(other))
    append(other, LOG, goal_pair("from-other"))
    commit(other, "other agent")
    assert push(other, "origin", "HEAD:refs/heads/main").returncode == 0
    append(work, LOG, goal_pair("from-work"))
    commit(work, "this agent")
    git(work, "pull", "-q", "--no-rebase", "--no-edit", f"file://{server}", "main")
    assert len(git(work, "rev-list", "--merges", "HEAD").split()) == 1
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr


def test_merge_that_drops_a_parents_lines_is_rejected(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Path(served(work, tmp_path, capsys).removeprefix("file://"))
    base = git(work, "rev-parse", "HEAD").strip()
    append(work, LOG, goal_pair("side"))
    commit(work, "side")
    side = git(work, "rev-parse", "HEAD").strip()
    git(work, "reset", "-q", "--hard", base)
    append(work, LOG, goal_pair("main"))
    commit(work, "main")
    git(work, "merge", "-q", "-s", "ours", "--no-edit", side)  # keeps only main's log
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode != 0
    assert f"the merge drops lines that parent {side[:7]} added" in result.stderr


def test_an_audited_bypass(work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = Path(served(work, tmp_path, capsys).removeprefix("file://"))
    edit_line(work)
    commit(work, "rewrite")
    option = ["-o", "gasp.bypass=incident 42: scrub a leaked token"]
    refused = push(work, f"file://{server}", *option, "HEAD:refs/heads/main")
    assert refused.returncode != 0 and "gasp.allowBypass is not set" in refused.stderr
    git(server, "config", "gasp.allowBypass", "true")
    refused = push(work, f"file://{server}", "-o", "gasp.bypass= ", "HEAD:refs/heads/main")
    assert refused.returncode != 0 and "its reason is empty" in refused.stderr
    # issue 16: gasp.allowBypass alone lets no one bypass; the server lists who may,
    # by the name it knows them by (GitLab's GL_USERNAME here)
    git(server, "config", "gasp.bypassAllowed", "ann")
    result = pushed_as("ann", work, f"file://{server}", *option, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    assert "bypass by" in result.stderr and "not enforced" in result.stderr
    audit = (server / "gasp" / "audit.log").read_text().splitlines()
    record = json.loads(audit[-1])
    assert record["reason"] == "incident 42: scrub a leaked token"
    assert record["refs"][0]["ref"] == "refs/heads/main"


def test_an_internal_error_rejects_the_push(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bare_server(tmp_path, capsys)
    git(server, "config", "gasp.maxLineBytes", "lots")
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode != 0
    assert "gasp.maxlinebytes" in result.stderr.lower() and "push rejected" in result.stderr
    assert "Traceback" not in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_push_over_git_daemon(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bare_server(tmp_path, capsys)
    port = _free_port()
    daemon = subprocess.Popen(
        [
            "git",
            "daemon",
            "--export-all",
            "--enable=receive-pack",
            f"--base-path={tmp_path}",
            "--listen=127.0.0.1",
            f"--port={port}",
            "--reuseaddr",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # git daemon runs git-daemon as a child: kill the group
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            assert daemon.poll() is None, "git daemon exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "git daemon did not listen"
                time.sleep(0.05)
        url = f"git://127.0.0.1:{port}/{server.name}"
        accepted = push(work, url, "HEAD:refs/heads/main")
        assert accepted.returncode == 0, accepted.stderr
        edit_line(work)
        commit(work, "rewrite")
        rejected = push(work, url, "HEAD:refs/heads/main")
        assert rejected.returncode != 0
        assert "committed line 3 was edited" in rejected.stderr
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait()


# -- native client hooks --------------------------------------------------------------


def test_install_chains_an_existing_hook_and_uninstall_restores_it(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hooks = work / ".git" / "hooks"
    mine = hooks / "pre-commit"
    mine.write_text("#!/bin/sh\necho mine-ran >&2\n")
    mine.chmod(0o755)
    code, out, _ = main(capsys, "hooks", "install", "--pin", "-C", str(work))
    assert code == 0 and "kept as pre-commit.pre-gasp" in out
    append(work, LOG, goal_pair("ok"))
    git(work, "add", "-A")
    result = subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "-m", "ok"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "mine-ran" in result.stderr
    code, out, _ = main(capsys, "hooks", "status", "-C", str(work), "--json")
    assert json.loads(out)["hooks"]["pre-commit"] == "gasp+chained"
    code, out, _ = main(capsys, "hooks", "install", "--uninstall", "-C", str(work))
    assert code == 0
    assert mine.read_text() == "#!/bin/sh\necho mine-ran >&2\n"
    assert not (hooks / "commit-msg").exists()


def test_install_refuses_core_hooks_path(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(work, "config", "core.hooksPath", ".githooks")
    code, _, err = main(capsys, "hooks", "install", "-C", str(work))
    assert code == 2
    assert "core.hooksPath is set (.githooks)" in err and "hint:" in err


def test_a_pinned_interpreter_that_cannot_run_git_gasp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    code, _, err = main(capsys, "hooks", "install", "--server", "--python", "/bin/false",
                        "-C", str(server))  # fmt: skip
    assert code == 2 and "/bin/false cannot import git_gasp" in err
    assert not (server / "hooks" / "pre-receive").exists()  # nothing installed
    # one that could, and then cannot: status says so (its hooks refuse every push)
    python = tmp_path / "python"  # a wrapper: a symlink would lose the venv
    python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    assert main(capsys, "hooks", "install", "--server", "--python", str(python),
                "-C", str(server))[0] == 0  # fmt: skip
    python.write_text("#!/bin/sh\nexit 1\n")
    code, out, _ = main(capsys, "hooks", "status", "--server", "-C", str(server))
    assert code == 0 and out.split() == ["pre-receive", "broken", "post-receive", "broken"]
    # judged from where git runs the hooks, not from here: in a checkout of
    # git-gasp, a Python without it would import the package from the checkout
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    python.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')  # no site-packages
    code, _, err = main(capsys, "hooks", "install", "--server", "--python", str(python),
                        "-C", str(server))  # fmt: skip
    assert code == 2 and "cannot import git_gasp" in err
    code, out, _ = main(capsys, "hooks", "status", "--server", "-C", str(server))
    assert code == 0 and out.split() == ["pre-receive", "broken", "post-receive", "broken"]


def test_run_close_passes_the_installed_hooks(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(capsys, "hooks", "install", "--pin", "-C", str(work))[0] == 0
    os.environ["GASP_WORKER_ID"] = "hook-test"
    try:
        assert main(capsys, "run", "start", "--task", "t", "-C", str(work))[0] == 0
        code, _, err = main(
            capsys,
            "run",
            "close",
            "--outcome",
            "done",
            "--session",
            "claude:ses_1",
            "-C",
            str(work),
        )
    finally:
        del os.environ["GASP_WORKER_ID"]
    assert code == 0, err
    assert "run " in git(work, "log", "-1", "--format=%s")


def test_commit_msg_requires_the_run_trailers(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(capsys, "hooks", "install", "--pin", "-C", str(work))[0] == 0
    os.environ["GASP_WORKER_ID"] = "hook-test"
    try:
        assert main(capsys, "run", "start", "--task", "t", "-C", str(work))[0] == 0
        out = main(capsys, "run", "status", "-C", str(work), "--json")[1]
        run = json.loads(out)["open_run"]
    finally:
        del os.environ["GASP_WORKER_ID"]
    run_id = run["run_id"]
    payload = {"outcome": "done", "run_id": run_id}
    ops = [{"UpdateNode": {"id": run_id, "props": {"outcome": "done", "status": "finished"}}}]
    append(
        work,
        LOG,
        event("ev-fin", "run.finished", payload, run["started_event"])
        + event("ev-fin-ops", "state.ops_applied", ops, "ev-fin"),
    )
    git(work, "add", LOG)
    bad = subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "-m", "done"], capture_output=True, text=True
    )
    assert bad.returncode != 0
    assert "needs exactly one Run-Id trailer (found 0)" in bad.stderr
    message = f"run {run_id}: done\n\nRun-Id: {run_id}\nGoal: -\nOutcome: done\n"
    good = subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "-m", message], capture_output=True, text=True
    )
    assert good.returncode == 0, good.stderr


def test_the_standalone_server_script(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """hooks/pre-receive, copied into a plain bare repository, with GASP_PYTHON."""
    server = tmp_path / "plain.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    script = Path(__file__).parent.parent / "hooks" / "pre-receive"
    shutil.copy(script, server / "hooks" / "pre-receive")
    os.environ["GASP_PYTHON"] = sys.executable
    try:
        assert push(work, f"file://{server}", "HEAD:refs/heads/main").returncode == 0
        truncate(work)
        commit(work, "truncate")
        result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    finally:
        del os.environ["GASP_PYTHON"]
    assert result.returncode != 0 and "the file was truncated" in result.stderr


# -- ways around the server hook that must not work -----------------------------------


#: Per process, a server that accepted a push of a commit (and the client
#: hook and GASP_* variables it was pushed with), kept to be copied.
_SERVED: dict[tuple[str, bytes, tuple[tuple[str, str], ...]], Path] = {}


def served(work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A bare server with the server hooks that accepted ``work``'s HEAD as
    main. The first push of a HEAD in a process is real (its hook judges the
    whole history); a later test starting from the same HEAD gets a copy of
    that server, the state the same push leaves (refs, objects, the hook's
    caches: nothing in a server names its own path)."""
    hook = work / ".git" / "hooks" / "pre-push"
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("GASP_")))
    key = (git(work, "rev-parse", "HEAD").strip(), hook.read_bytes() if hook.exists() else b"", env)
    server = tmp_path / "server.git"
    if key in _SERVED:
        shutil.copytree(_SERVED[key], server, symlinks=True)
        return f"file://{server}"
    server = bare_server(tmp_path, capsys)
    assert push(work, f"file://{server}", "HEAD:refs/heads/main").returncode == 0
    kept = Path(tempfile.mkdtemp(prefix="git-gasp-served-")) / "server.git"
    shutil.copytree(server, kept, symlinks=True)
    atexit.register(shutil.rmtree, kept.parent, True)
    _SERVED[key] = kept
    return f"file://{server}"


def rejected(work: Path, url: str, *refspecs: str) -> str:
    result = push(work, url, *refspecs)
    assert result.returncode != 0, result.stderr
    return result.stderr


@pytest.mark.parametrize("ref", ["refs/agents/x", "refs/notes/foo", "refs/tags/t", "refs/x/y"])
def test_every_pushed_ref_is_judged(
    ref: str, work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    edit_line(work)
    commit(work, "parked")
    assert "committed line 3 was edited" in rejected(work, url, f"HEAD:{ref}")


def test_the_notes_ref_carries_only_notes(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    delete_log(work)
    commit(work, "no log")
    err = rejected(work, url, "HEAD:refs/notes/agent-sessions")
    assert "is not a note" in err and "the file was deleted" in err


def test_replace_refs_are_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    tip = git(work, "rev-parse", "HEAD").strip()
    assert "[replace-ref]" in rejected(work, url, f"HEAD~1:refs/replace/{tip}")


def test_a_path_with_a_newline_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    (work / "a\nHEAD:state").write_text("x\n")
    edit_line(work)
    commit(work, "odd name")
    err = rejected(work, url, "HEAD:refs/heads/main")
    assert "[path] a path name contains a line break" in err
    assert "committed line 3 was edited" in err


def test_a_file_named_like_a_commit_hides_nothing(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    (work / "first.txt").write_text("a\n")
    commit(work, "first")
    (work / git(work, "rev-parse", "HEAD").strip()).write_text("x\n")
    edit_line(work)
    commit(work, "second")
    assert "committed line 3 was edited" in rejected(work, url, "HEAD:refs/heads/main")


def test_a_declared_log_stays_append_only_when_undeclared(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    manifest = work / "AGENT.md"
    original = manifest.read_text()
    manifest.write_text(original + "\n| Location | Path |\n|---|---|\n| log | logs/b.jsonl |\n")
    (work / "logs").mkdir()
    (work / "logs" / "b.jsonl").write_text(goal_pair("b"))
    append(work, LOG, decision_pair("declare"))
    commit(work, "declare")
    assert push(work, url, "HEAD:refs/heads/main").returncode == 0
    manifest.write_text(original)
    lines = (work / "logs" / "b.jsonl").read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b"goal b", b"goal B")
    (work / "logs" / "b.jsonl").write_bytes(b"".join(lines))
    commit(work, "undeclare and edit")
    assert "logs/b.jsonl:1: [append-only] committed line 1 was edited" in rejected(
        work, url, "HEAD:refs/heads/main"
    )


def test_an_identity_merged_in_from_an_unrelated_root_needs_a_decision(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    git(work, "checkout", "-q", "--orphan", "root")
    git(work, "rm", "-rq", "--cached", ".")
    manifest = (work / "AGENT.md").read_text()
    identity_without_hash(work)
    (work / "AGENT.md").write_text(set_identity_hash(manifest, compute(str(work))))
    git(work, "add", "AGENT.md", "identity")
    git(work, "commit", "-q", "--no-verify", "-m", "new identity")
    git(work, "clean", "-qfdx")
    git(work, "checkout", "-q", "-f", "main")
    git(work, "merge", "-q", "--allow-unrelated-histories", "--no-commit", "-s", "ours", "root")
    git(work, "checkout", "root", "--", "AGENT.md", "identity")
    git(work, "commit", "-q", "--no-verify", "-m", "take the root's identity")
    assert "without an Approved decision.created" in rejected(work, url, "HEAD:refs/heads/main")


def test_a_merge_with_a_logless_parent_cannot_slip_a_line_in_front(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    good = (work / LOG).read_bytes()
    git(work, "checkout", "-q", "--orphan", "other")
    git(work, "rm", "-rq", "--cached", ".")
    git(work, "clean", "-qfdx")
    (work / "README").write_text("x\n")
    git(work, "add", "README")
    git(work, "commit", "-q", "--no-verify", "-m", "other")
    git(work, "checkout", "-q", "-f", "main")
    git(work, "merge", "-q", "--allow-unrelated-histories", "--no-commit", "-s", "ours", "other")
    (work / LOG).write_bytes(goal_pair("forged").encode() + good)
    git(work, "add", LOG)
    git(work, "commit", "-q", "--no-verify", "-m", "merge")
    assert "[append-only]" in rejected(work, url, "HEAD:refs/heads/main")


def test_a_forced_push_keeps_every_append_only_file(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "JOURNAL.md").write_text("# old journal\nline one\n")
    commit(work, "root journal")
    url = served(work, tmp_path, capsys)
    (work / "JOURNAL.md").write_text("# old journal\nline 1\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "--amend", "--no-verify", "-m", "rewritten")
    err = rejected(work, url, "+HEAD:refs/heads/main")
    assert "JOURNAL.md:2: [append-only] forced update of refs/heads/main" in err


def test_committed_transcripts_need_the_opt_in(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    (work / "transcripts").mkdir()
    (work / "transcripts" / "run_1.jsonl.gz").write_bytes(b"\x1f\x8b")
    git(work, "add", "-f", "transcripts")
    git(work, "commit", "-q", "--no-verify", "-m", "transcript")
    assert "[transcript]" in rejected(work, url, "HEAD:refs/heads/main")
    git(Path(url.removeprefix("file://")), "config", "gasp.commitTranscripts", "true")
    assert push(work, url, "HEAD:refs/heads/main").returncode == 0


def test_a_bypass_is_recorded_before_it_is_honoured(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    server = Path(url.removeprefix("file://"))
    (server / "hooks" / "post-receive").unlink()  # only pre-receive installed
    git(server, "config", "gasp.bypassAllowed", "ann")  # issue 16: the server lists who may
    edit_line(work)
    commit(work, "rewrite")
    result = pushed_as("ann", work, url, "-o", "gasp.bypass=cleanup", "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    records = [json.loads(x) for x in (server / "gasp" / "audit.log").read_text().splitlines()]
    assert [r["status"] for r in records] == ["requested"]


@pytest.mark.parametrize("how", ["--rebase", "--no-rebase"])
def test_two_clones_that_each_close_a_run_both_push(
    how: str, work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Concurrent run closes merge (or rebase) cleanly: union for the log,
    whole entries for the journal (the gasp-append driver), and the merge
    commit passes commit-msg though it brings in another run's end."""
    url = served(work, tmp_path, capsys)
    clones = []
    for name in ("one", "two"):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", url, str(clone))
        assert (
            main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(clone))[0] == 0
        )
        os.environ["GASP_WORKER_ID"] = name
        try:
            assert main(capsys, "run", "start", "--task", name, "-C", str(clone))[0] == 0
            assert (
                main(capsys, "run", "close", "--outcome", f"{name} done", "-C", str(clone))[0] == 0
            )
        finally:
            del os.environ["GASP_WORKER_ID"]
        clones.append(clone)
    one, two = clones
    assert push(two, "origin", "HEAD:refs/heads/main").returncode == 0
    pulled = subprocess.run(
        ["git", "-C", str(one), "pull", "-q", how, "--no-edit", "origin", "main"],
        capture_output=True,
        text=True,
    )
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    journal = (one / "journal" / "JOURNAL.md").read_text()
    entries = journal.split("\n## ")[-2:]
    # each entry whole: its heading, blank line, task and goal, in that order
    tails = sorted(e.split(": ", 1)[1].rstrip("\n") for e in entries)
    assert tails == [f"{n} done\n\n- task: {n}\n- goal: -" for n in ("one", "two")], journal
    result = push(one, "origin", "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    code, out, _ = main(capsys, "check", str(one))
    assert code == 0, out


def test_a_merge_cannot_insert_a_line_before_its_first_parents(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    root = git(work, "rev-list", "--max-parents=0", "HEAD").strip()  # its log is empty
    (work / LOG).write_bytes(goal_pair("x").encode() + (work / LOG).read_bytes())
    git(work, "add", LOG)
    merge = mkcommit(work, "merge", "HEAD", root)
    assert "does not keep parent" in rejected(work, url, f"{merge}:refs/heads/main")
    middle = lines_of(work)[2:]
    write_lines(work, [*lines_of(work)[:1], b"\n", *middle])  # an edit inside, via a merge
    git(work, "add", LOG)
    merge = mkcommit(work, "merge", "HEAD", "HEAD~1")
    assert "[append-only]" in rejected(work, url, f"{merge}:refs/heads/main")


def test_identity_through_a_merge_needs_its_own_decision(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    identity_without_decision(work)
    git(work, "add", "-A")
    empty = git(work, "commit-tree", git(work, "mktree", check=True).strip(), "-m", "r").strip()
    for parents in (("HEAD", "HEAD~1"), (empty, "HEAD")):
        merge = mkcommit(work, "merge", *parents)
        refused = rejected(work, url, f"{merge}:refs/heads/main")
        assert "without an Approved decision.created" in refused


def test_repointing_the_log_needs_a_decision(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    shutil.copy(work / LOG, work / "state" / "log2.jsonl")
    manifest = work / "AGENT.md"
    manifest.write_text(
        manifest.read_text() + "\n| Location | Path |\n|---|---|\n| log | state/log2.jsonl |\n"
    )
    commit(work, "repoint")
    assert "Locations table changes log without an Approved decision.created" in rejected(
        work, url, "HEAD:refs/heads/main"
    )


def test_the_new_tip_keeps_the_old_tips_files_whatever_the_path(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edit made in one commit and hidden again in the next still changes
    nothing the old tip had: judged across the ref update too."""
    url = served(work, tmp_path, capsys)
    lines = lines_of(work)
    edit_line(work)
    commit(work, "edit")
    write_lines(work, lines)
    commit(work, "restore")
    err = rejected(work, url, "HEAD:refs/heads/main")
    assert "committed line 3 was edited" in err


def test_a_merge_cannot_change_bytes_that_decode_alike(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    append(work, LOG, goal_pair("fffd").replace("goal fffd", "goal \ufffd"))
    commit(work, "fffd")
    append(work, LOG, goal_pair("after"))
    commit(work, "after")
    assert push(work, url, "HEAD:refs/heads/main").returncode == 0
    (work / LOG).write_bytes((work / LOG).read_bytes().replace(b"\xef\xbf\xbd", b"\xf0\x90\x80"))
    git(work, "add", LOG)
    merge = mkcommit(work, "merge", "HEAD", "HEAD~1")
    assert "[append-only]" in rejected(work, url, f"{merge}:refs/heads/main")


def test_a_ref_update_cannot_drop_agent_md(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dropping AGENT.md (here by a forced push of a root commit without it)
    would let a later identity pass as a new agent's first one."""
    url = served(work, tmp_path, capsys)
    git(work, "rm", "-q", "--cached", "-r", "AGENT.md", "identity")
    root = git(work, "commit-tree", git(work, "write-tree").strip(), "-m", "reorganise").strip()
    err = rejected(work, url, f"+{root}:refs/heads/main")
    assert "drops AGENT.md" in err
