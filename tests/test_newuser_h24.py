"""A new user's mistakes, the third pass (issue h24u): dates git cannot read,
the lease as a person reads it, an event's id given to ``show``, and what
``init`` kept. Every test drives the real git through the CLI.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import git, run_cli


def agent_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", "--agent-id", "a", str(repo))[0] == 0
    return repo


@pytest.mark.parametrize("command", ["runs", "sessions"])
@pytest.mark.parametrize("option", ["--since", "--until"])
@pytest.mark.parametrize("value", ["garbage", "", "  "])
def test_a_date_git_cannot_read_is_an_error_not_an_empty_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, option: str, value: str
) -> None:
    repo = agent_repo(tmp_path, capsys)
    code, out, err = run_cli(capsys, command, "-C", str(repo), option, value)
    # was exit 0 with nothing on stdout (git log reads "garbage" as now)
    assert code == 2 and not out, (code, out, err)
    first, hint = err.splitlines()
    reads = " git reads" if value.strip() else ""
    assert first == f"error: {option} {value!r} is not a date{reads}"
    assert hint.startswith("hint: give a date as git log reads it, e.g. 2026-01-31")


@pytest.mark.parametrize("value", ["2025-01-31", "2025-02-01 10:00", "Feb 1 2025", "2020.01.31"])
def test_a_date_git_reads_still_filters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    repo = agent_repo(tmp_path, capsys)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    assert run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "done")[0] == 0
    code, out, _ = run_cli(capsys, "runs", "-C", str(repo), "--since", value)
    assert code == 0 and out.count("run_") == 1
    code, out, err = run_cli(capsys, "runs", "-C", str(repo), "--until", value)
    assert code == 0 and not out and err.startswith("no runs in HEAD match --until")


def test_run_status_shows_the_lease_expiry_as_a_time_and_json_keeps_the_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    code, out, _ = run_cli(capsys, "run", "status", "-C", str(repo))
    line = next(line for line in out.splitlines() if line.startswith("lease:"))
    # was "... until 1739000600000 (2025-02-08T07:43:20Z)": the raw milliseconds first
    assert code == 0 and re.fullmatch(
        r"lease: worker \S+ \(pid \d+\) until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in (9|10) min\)",
        line,
    ), line
    code, out, _ = run_cli(capsys, "run", "status", "-C", str(repo), "--json")
    lease = json.loads(out)["lease"]
    assert isinstance(lease["expires_at_ms"], int) and lease["expired"] is False
    stamp = datetime.fromtimestamp(lease["expires_at_ms"] // 1000, UTC)
    assert lease["expires_at"] == stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_run_status_says_a_lease_expired_and_how_long_ago(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    past = int(time.time() * 1000) - 3 * 60_000 - 5_000
    lease = {"worker_id": "w-gone", "pid": 1, "expires_at_ms": past}
    (repo / ".agent" / "lease").write_text(json.dumps(lease, separators=(",", ":")))
    code, out, _ = run_cli(capsys, "run", "status", "-C", str(repo))
    assert code == 0 and out.rstrip().endswith("UTC (expired 3 min ago)"), out
    code, out, _ = run_cli(capsys, "run", "status", "-C", str(repo), "--json")
    assert json.loads(out)["lease"]["expired"] is True


def recorded_goal(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str, str]:
    """A goal recorded in ``repo``: its id, its event's and its ops event's."""
    code, out, _ = run_cli(capsys, "record", "goal", "-C", str(repo), "--title", "G", "--json")
    assert code == 0
    made = json.loads(out)
    return made["id"], made["event_ids"][0], made["event_ids"][1]


def test_show_of_an_event_id_shows_the_event_and_the_nodes_it_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    goal, event, ops = recorded_goal(repo, capsys)
    code, out, err = run_cli(capsys, "show", event, "-C", str(repo))
    # was "error: unknown node: event_…" with a hint to list nodes
    assert (code, err) == (0, ""), err
    lines = out.splitlines()
    assert lines[0] == f"# event {event}"
    assert "- kind: goal.created" in lines and f"- its ops: {ops} (state.ops_applied)" in lines
    assert f"- CreateNode goal {goal}" in lines
    assert lines[-1] == f"see a node with: git gasp show {goal}"
    code, out, _ = run_cli(capsys, "show", ops, "-C", str(repo))
    assert code == 0 and f"- caused by: {event} (goal.created)" in out.splitlines()
    code, out, _ = run_cli(capsys, "show", ops, "-C", str(repo), "--json")
    shown = json.loads(out)
    assert shown["format"] == "git-gasp.show-event/1" and shown["event"]["id"] == ops
    assert shown["pair"]["id"] == event and shown["cause_kind"] == "goal.created"
    assert shown["event"]["payload"][0]["CreateNode"]["id"] == goal


def test_lineage_of_an_event_or_a_fact_says_what_the_id_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    _, event, _ = recorded_goal(repo, capsys)
    code, out, err = run_cli(capsys, "lineage", event, "-C", str(repo))
    assert (code, out) == (2, "") and err.splitlines() == [
        f"error: {event}: an event of the log (goal.created), not a node of the graph",
        f"hint: see the event and the nodes it touched with: git gasp show {event}",
    ]
    code, out, _ = run_cli(capsys, "fact", "add", "-C", str(repo), "x", "--json")
    fact = json.loads(out)["id"]
    for command in ("show", "lineage"):
        code, out, err = run_cli(capsys, command, fact, "-C", str(repo))
        assert (code, out) == (2, "") and err.splitlines() == [
            f"error: {fact}: a memory fact (memory/facts.jsonl), not a node of the graph",
            "hint: see the current facts with: git gasp fact list (--json for every field)",
        ]
    code, _, err = run_cli(capsys, "show", "event_nope", "-C", str(repo))
    assert code == 2 and err.startswith("error: unknown node: event_nope\n")


def test_init_over_agent_files_says_which_it_kept_and_which_it_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "mine"
    (repo / "memory").mkdir(parents=True)
    (repo / "identity").mkdir()
    git(repo, "init", "-q")
    facts = b'{"id":"fact_1","ts_ms":1,"text":"t","derived_from":[],"supersedes":null}\n'
    (repo / "memory" / "facts.jsonl").write_bytes(facts)
    (repo / "identity" / "core.md").write_bytes(b"# Me\n")
    (repo / ".gitignore").write_bytes(b"node_modules\n")
    code, out, err = run_cli(capsys, "init", "--agent-id", "a", str(repo))
    assert (code, err) == (0, ""), err
    first, added, kept, left_out = out.splitlines()
    # was one line listing only what it wrote, the kept files unnamed
    assert first.startswith(f"initialized agent a in {repo}: created AGENT.md, ")
    assert "memory/facts.jsonl" not in first and "identity/" not in first
    assert added == "added lines to: .gitignore"
    assert kept == "kept as they were: identity/core.md, memory/facts.jsonl"
    assert left_out == (
        "not in the init commit (init commits only what it wrote): memory/facts.jsonl;"
        " commit them with: git add -- memory/facts.jsonl && git commit"
    )
    assert (repo / "memory" / "facts.jsonl").read_bytes() == facts
    # the identity there is the agent's: no placeholder IDENTITY.md beside it (there was one)
    assert sorted(p.name for p in (repo / "identity").iterdir()) == ["core.md"]
    assert git(repo, "ls-files", "identity").split() == ["identity/core.md"]
    assert run_cli(capsys, "check", str(repo))[0] == 0


def test_init_json_lists_what_it_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "mine"
    (repo / "journal").mkdir(parents=True)
    (repo / "journal" / "JOURNAL.md").write_bytes(b"# Journal\n\nmine\n")
    code, out, _ = run_cli(capsys, "init", "--agent-id", "a", str(repo), "--json")
    made = json.loads(out)
    assert code == 0 and made["kept"] == ["journal/JOURNAL.md"]
    assert made["kept_uncommitted"] == ["journal/JOURNAL.md"]
    assert "journal/JOURNAL.md" not in made["written"]
    code, out, _ = run_cli(capsys, "init", "--agent-id", "a", str(tmp_path / "new"), "--json")
    assert code == 0 and json.loads(out)["kept"] == []


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (("handoff",), "The agent repository to hand off, read only (DIR is written)"),
        (("adapt", "claude-code", "install"), "The agent repository the hooks record into"),
        (("adapt", "codex", "install"), "The agent repository the hooks record into"),
        (("import", "codex"), "The agent repository to write"),
    ],
)
def test_agent_repo_help_says_what_the_command_does_with_it(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...], said: str
) -> None:
    code, out, _ = run_cli(capsys, *command, "--help")
    # handoff and adapt install said "The agent repository to write": handoff only reads it
    assert code == 0 and f"-C, --repo PATH {said} (default: $GASP_AGENT_REPO" in " ".join(
        out.split()
    )


def test_usage_help_says_its_repository_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "usage", "--help")
    flat = " ".join(out.split())
    # was "The agent repository to write": usage only reads it
    assert code == 0 and "The agent repository to read" in flat and "to write" not in flat
    assert "else the current directory when it is one" in flat


def test_check_of_a_repository_that_is_no_agent_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    git(tmp_path, "init", "-q", str(plain))
    code, out, err = run_cli(capsys, "check", str(plain))
    assert code == 1 and "[FAIL] check 1" in out  # the report stays the reference's
    # was the seven checks' verdict alone, nothing saying why they all failed
    assert err.splitlines()[-1] == (
        f"hint: {plain} has no AGENT.md or state/: not an agent repository; check one"
        " (git gasp check PATH), or create one: git gasp init --agent-id ID"
    )
    repo = agent_repo(tmp_path, capsys)
    (repo / "state" / "events.jsonl").write_text("not json\n")
    code, _, err = run_cli(capsys, "check", str(repo))
    assert code == 1 and "not an agent repository" not in err


@pytest.mark.parametrize("guess", ["uninstall", "remove"])
def test_hooks_uninstall_names_the_option_that_does_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], guess: str
) -> None:
    git(tmp_path, "init", "-q", "code")
    code, out, err = run_cli(capsys, "hooks", guess, "-C", str(tmp_path / "code"))
    # was "No such command 'uninstall'. Did you mean 'install'?"
    assert (code, out) == (2, "")
    first, hint = err.splitlines()
    assert first == f"error: no command `git gasp hooks {guess}`"
    assert hint.startswith("hint: remove git-gasp's hooks with: git gasp hooks install --uninstall")
    code, _, err = run_cli(capsys, "hooks", "instal")
    assert code == 2 and "Did you mean 'install'?" in err  # click's own guess elsewhere


@pytest.mark.parametrize(
    "command",
    [
        ("hooks", "install"),
        ("hooks", "status"),
        ("hooks", "run"),
        ("validate",),
        ("runs",),
        ("sessions",),
        ("who",),
        ("notes", "list"),
    ],
)
def test_commands_of_any_repository_do_not_say_agent_repository(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    code, out, _ = run_cli(capsys, *command, "--help")
    flat = " ".join(out.split())
    # was "The agent repository": they read and judge code and bare repositories too
    assert code == 0 and "-C, --repo PATH The repository (a work tree or a bare one;" in flat


@pytest.mark.parametrize("close", [("close", "--outcome", "ok"), ("abandon",)])
def test_a_run_closed_on_a_detached_head_says_its_commit_is_on_no_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], close: tuple[str, ...]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    git(repo, "checkout", "-q", "--detach")
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    code, _, err = run_cli(capsys, "run", *close, "-C", str(repo))
    commit = git(repo, "rev-parse", "--short=12", "HEAD").strip()
    # was silent: git's "[detached HEAD …]" line is not shown, and a checkout loses the run
    assert code == 0 and err.splitlines() == [
        f"note: HEAD is detached: commit {commit} is on no branch; keep it with: "
        f"git switch -c BRANCH (or: git branch BRANCH {commit})"
    ]
    git(repo, "switch", "-q", "-c", "kept")
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    code, _, err = run_cli(capsys, "run", *close, "-C", str(repo))
    assert (code, err) == (0, "")  # on a branch: nothing to say


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_an_import_of_records_without_a_type_says_no_type_not_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], harness: str
) -> None:
    repo = agent_repo(tmp_path, capsys)
    wrong = tmp_path / "events.jsonl"  # e.g. an agent's own log named by mistake
    wrong.write_text('{"id":"e1","kind":"goal.created"}\n{"id":"e2","kind":"x"}\n')
    code, out, err = run_cli(capsys, "import", harness, "-C", str(repo), str(wrong))
    # was "2 records of types it does not know (None)"
    assert code == 1 and not out and "None" not in err
    assert "2 records of types it does not know (no type)" in err.splitlines()[0]


@pytest.mark.parametrize("verb", ["push", "pull", "fetch"])
def test_notes_push_or_pull_names_notes_sync(capsys: pytest.CaptureFixture[str], verb: str) -> None:
    code, out, err = run_cli(capsys, "notes", verb, "origin")
    # was "No such command 'push'." and a hint to read the help
    assert (code, out) == (2, "") and err.splitlines() == [
        f"error: no command `git gasp notes {verb}`",
        "hint: notes travel both ways with: git gasp notes sync [REMOTE] (fetch, merge, push)",
    ]


@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_adapt_install_without_a_harness_names_the_two_commands(
    capsys: pytest.CaptureFixture[str], verb: str
) -> None:
    code, out, err = run_cli(capsys, "adapt", verb)
    # was "No such command 'install'." and a hint to read the help
    assert (code, out) == (2, "") and err.splitlines() == [
        f"error: no command `git gasp adapt {verb}`",
        f"hint: name the harness: git gasp adapt claude-code {verb}"
        f" (or: git gasp adapt codex {verb})",
    ]


def test_fact_add_refusals_carry_a_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = agent_repo(tmp_path, capsys)
    code, out, err = run_cli(capsys, "fact", "add", "-C", str(repo), "  ")
    # both were the error line alone
    assert (code, out) == (2, "") and err.splitlines() == [
        "error: a fact needs text",
        'hint: e.g. git gasp fact add "TEXT"',
    ]
    code, out, err = run_cli(capsys, "fact", "add", "-C", str(repo), "x", "--derived-from", "n0")
    assert (code, out) == (2, "") and err.splitlines() == [
        "error: --derived-from n0: no event, node or fact has that id",
        "hint: list them: git gasp nodes, git gasp fact list",
    ]


def test_nodes_of_a_kind_no_node_has_says_so_with_a_guess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    recorded_goal(repo, capsys)
    code, out, err = run_cli(capsys, "nodes", "-C", str(repo), "--kind", "gaol")
    # was "no nodes match" alone: a typo read as an empty list
    assert (code, out) == (0, "")
    assert err == "no nodes match: no node has kind gaol (did you mean goal?)\n"
    code, out, err = run_cli(capsys, "nodes", "-C", str(repo), "--kind", "patch")
    assert err == "no nodes match: no node has kind patch (the kinds here: goal)\n"
    code, out, err = run_cli(capsys, "nodes", "-C", str(repo), "--kind", "goal", "--grep", "zz")
    assert err == "no nodes match\n"  # the kind is there: the other filter left nothing


def test_a_close_whose_history_lacks_the_manifest_says_a_clone_is_no_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", "--agent-id", "a", "--no-commit", str(repo))[0] == 0
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    code, _, err = run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "ok")
    # was silent: the root commit held the log, and a restore of it found no AGENT.md
    assert code == 0 and git(repo, "ls-files", "AGENT.md") == ""
    (line,) = err.splitlines()
    assert line.startswith(
        "warning: AGENT.md, .gitattributes not committed: a clone of this history is no agent"
        " repository; commit the layout: git add -A -- AGENT.md identity skills .agent"
    )
    adding = line.partition("commit the layout: ")[2].split(" && ")[0].split()
    git(repo, *adding[1:])  # the command it names works
    git(repo, "commit", "-q", "-m", "agent layout")
    assert git(repo, "status", "--porcelain") == ""
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    code, _, err = run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "ok")
    assert (code, err) == (0, "")
    code, _, _ = run_cli(capsys, "restore", str(repo), str(tmp_path / "clone"))
    assert code == 0


def test_init_commits_its_layout_though_an_ignore_rule_matches_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "docs-ignored"
    git(tmp_path, "init", "-q", str(repo))
    (repo / ".gitignore").write_text("*.md\n")
    code, out, err = run_cli(capsys, "init", "--agent-id", "a", str(repo))
    # was exit 2, "The following paths are ignored…", the layout written and half staged
    assert (code, err) == (0, ""), err
    assert out.splitlines()[-1] == (
        "committed though an ignore rule matches them (a clone needs them): identity/IDENTITY.md,"
        " AGENT.md, skills/README.md, journal/JOURNAL.md, memory/active_memory.md"
    )
    assert git(repo, "status", "--porcelain") == ""
    assert run_cli(capsys, "restore", str(repo), str(tmp_path / "clone"))[0] == 0
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    assert run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "ok")[0] == 0


def test_identity_verify_of_a_changed_identity_names_the_ways_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    with open(repo / "identity" / "IDENTITY.md", "a") as fh:
        fh.write("more\n")
    code, out, err = run_cli(capsys, "identity", "verify", "-C", str(repo))
    # was the FAIL line and the two hashes, nothing naming a command that resolves it
    assert code == 1 and out.startswith("FAIL identity bytes do not match the manifest")
    hint = (
        "hint: identity/ does not match AGENT.md; a person approves it with: git add identity/"
        " && git gasp identity commit --approved-by NAME --reason TEXT"
        " (or undo it: git checkout HEAD -- identity/)"
    )
    assert err.splitlines() == [hint]
    code, _, err = run_cli(capsys, "check", str(repo))
    assert code == 1 and err.splitlines() == ["not conformant: check 6 failed", hint]
    git(repo, "add", "identity/")
    argv = ["identity", "commit", "-C", str(repo), "--approved-by", "alice", "--reason", "r"]
    assert run_cli(capsys, *argv)[0] == 0
    code, _, err = run_cli(capsys, "identity", "verify", "-C", str(repo))
    assert (code, err) == (0, "")


@pytest.mark.parametrize("command", [("usage",), ("import", "codex"), ("handoff", "--to", "codex")])
def test_a_bare_agent_repository_is_named_bare_not_offered_an_init(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    code, out, err = run_cli(capsys, *command, "-C", str(bare))
    # was "not an agent repository (no AGENT.md)" with "create it with: git gasp init …"
    assert (code, out) == (2, "")
    first, hint = err.splitlines()
    assert first == f"error: {bare}: a bare repository: no work tree holds the agent's files"
    assert hint.startswith(
        f"hint: restore one from it and run the command there: git gasp restore {bare} DIR"
    )


def test_a_refused_commit_or_push_names_the_command_that_judges_it_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(server))
    assert run_cli(capsys, "hooks", "install", "-C", str(repo))[0] == 0
    assert run_cli(capsys, "hooks", "install", "--server", "-C", str(server))[0] == 0
    with open(repo / "state" / "events.jsonl", "a") as fh:
        fh.write('{"x": 1}\n')
    git(repo, "add", "state/events.jsonl")
    proc = subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", "bad"], capture_output=True, text=True
    )
    # was "hint: git-gasp-hooks(1) lists the rules": a page, no command
    assert proc.returncode == 1 and proc.stderr.splitlines()[-1] == (
        "hint: judge it again with: git gasp validate --staged --json;"
        " git-gasp-hooks(1) lists the rules"
    )
    code, out, _ = run_cli(capsys, "validate", "--staged", "--json", "-C", str(repo))
    assert code == 1 and json.loads(out)["violations"][0]["path"] == "state/events.jsonl"
    git(repo, "commit", "-q", "--no-verify", "-m", "bad")
    git(repo, "remote", "add", "origin", str(server))
    proc = subprocess.run(
        ["git", "-C", str(repo), "push", "--no-verify", "origin", "HEAD"],
        capture_output=True,
        text=True,
    )
    said = [line.removeprefix("remote: ").rstrip() for line in proc.stderr.splitlines()]
    assert (
        proc.returncode == 1
        and (
            "hint: judge it again with: git gasp validate --all REMOTE/BRANCH..HEAD;"
            " git-gasp-hooks(1) lists the rules"
        )
        in said
    )
