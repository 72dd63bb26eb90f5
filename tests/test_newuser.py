"""A new user's mistakes (issue h22u): each error's hint names a command that
works as written. Every test drives the real git through the CLI.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import committed_repo, git, run_cli

INIT = re.compile(r"git gasp init --agent-id ID(?: (\S+))?")


def plain_repo(tmp_path: Path) -> Path:
    """A git repository with one commit and no agent in it."""
    return committed_repo(tmp_path / "plain", {"README.md": b"not an agent\n"})


def agent_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", "--agent-id", "a", str(repo))[0] == 0
    return repo


@pytest.mark.parametrize(
    "argv",
    [
        ["record", "goal", "--title", "g"],
        ["run", "status"],
        ["status"],
        ["import", "claude-code", "--repo", "{repo}", "{repo}/README.md"],
    ],
    ids=["record", "run-status", "status", "import-repo"],
)
def test_a_hint_to_create_an_agent_names_init_with_its_required_id(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = plain_repo(tmp_path)
    monkeypatch.chdir(repo)
    argv = [a.replace("{repo}", str(repo)) for a in argv]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and err.count("\n") == 2, err
    found = INIT.search(err)
    assert found, err  # `git gasp init` alone stops at "Missing option '--agent-id'"
    target = found.group(1) if found.group(1) not in (None, "DIR", "PATH") else str(repo)
    assert run_cli(capsys, "init", "--agent-id", "a", target)[0] == 0
    assert run_cli(capsys, *argv)[0] in (0, 1)  # the command now reaches the agent


def test_import_without_a_repository_names_init_with_its_required_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GASP_AGENT_REPO", raising=False)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "usage")
    assert code == 2
    assert "git gasp init --agent-id ID PATH" in err


def test_a_second_run_start_names_the_abandon_command_in_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "one")[0] == 0
    code, _, err = run_cli(capsys, "run", "start", "-C", str(repo), "--task", "two")
    assert code == 1
    shown = re.search(r"\(or: (git gasp run abandon [^)]*)\)", err)
    assert shown, err
    argv = shlex.split(shown.group(1).replace("TEXT", "gave-up"))[2:]
    assert run_cli(capsys, *argv, "-C", str(repo))[0] == 0  # the hint, as written, works
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "two")[0] == 0


def test_an_unknown_goal_names_record_goal_with_its_required_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    code, _, err = run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t", "--goal", "g1")
    assert code == 2
    assert "git gasp record goal --title TEXT" in err


def test_a_corrupt_line_in_the_log_names_the_command_that_lists_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    log = repo / "state" / "events.jsonl"
    line = len(log.read_bytes().splitlines()) + 1
    log.write_bytes(log.read_bytes() + b'{"not": json\n')
    before = log.read_bytes()
    for argv in (["fold", str(repo)], ["nodes", "-C", str(repo)]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 1 and not out
        assert err.startswith(f"error: state/events.jsonl:{line}: corrupt event")
        assert err.count("\n") == 2
        assert "`git gasp check`" in err
    code, out, _ = run_cli(capsys, "check", "--json", str(repo))
    assert code == 1
    assert f"line {line}: not JSON" in json.dumps(json.loads(out))
    assert log.read_bytes() == before  # nothing lost


def test_restoring_a_repository_that_is_no_agent_names_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = plain_repo(tmp_path).as_uri()
    dest = tmp_path / "restored"
    code, out, err = run_cli(capsys, "restore", url, str(dest))
    assert code == 2 and not out
    assert err.startswith(f"error: {url}: no AGENT.md at its top: not a GASP agent repository\n")
    assert "-C PATH" not in err  # restore has no -C
    assert "git gasp fixture DIR" in err
    assert not dest.exists()
    fixture = tmp_path / "fixture"
    assert run_cli(capsys, "fixture", str(fixture))[0] == 0  # the hint's command works
    assert run_cli(capsys, "restore", fixture.as_uri(), str(dest), "--quiet")[0] == 0


@pytest.mark.parametrize("command", ["usage", "validate"])
def test_a_bad_revision_range_names_a_range_that_works(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    code, _, err = run_cli(capsys, command, "-C", str(repo), "nope..HEAD")
    assert code == 2 and err.count("\n") == 2, err
    assert "nope" in err.splitlines()[0]
    assert "fatal:" not in err
    assert err.splitlines()[1].startswith("hint: pass a range git log accepts")


def imported_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """An agent with one imported Claude Code session; the model it used."""
    from tests import transcripts as T

    repo = agent_repo(tmp_path, capsys)
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_text(T.claude_session("2.1.173")[0])
    assert run_cli(capsys, "import", "claude-code", "--repo", str(repo), str(path))[0] == 0
    code, out, _ = run_cli(capsys, "usage", "--repo", str(repo), "--json")
    assert code == 0
    return repo, json.loads(out)["rows"][0]["model"]


@pytest.mark.parametrize(
    ("price", "why"),
    [
        ('"cheap"', '"cheap" is not a number'),
        ("[1]", "[1] is not a number"),
        ("true", "true is not a number"),
        ("1e400", "inf is not a price"),
        ("-1", "-1 is not a price"),
        ("NaN", "nan is not a price"),
    ],
)
def test_a_price_that_is_no_number_is_a_one_line_error_naming_it(
    price: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, model = imported_agent(tmp_path, capsys)
    table = tmp_path / "prices.json"
    table.write_text(f'{{"{model}": {{"input": {price}, "output": 15}}}}')
    for extra in ([], ["--json"]):
        code, out, err = run_cli(
            capsys, "usage", "--repo", str(repo), "--pricing", str(table), *extra
        )
        assert code == 2 and not out  # was exit 3 (a traceback in the crash log), or "$inf"
        assert err.startswith(f'error: {table}: "{model}".input: {why}\n'), err
        assert err.count("\n") == 2 and "man git-gasp-usage" in err
    table.write_text(f'{{"{model}": {{"input": 3, "output": 15}}}}')  # as the hint writes it
    code, out, _ = run_cli(capsys, "usage", "--repo", str(repo), "--pricing", str(table), "--json")
    assert code == 0 and json.loads(out)["rows"][0]["cost_estimate"] > 0


def test_importing_a_path_that_does_not_exist_says_to_name_one_that_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    missing = tmp_path / "gone.jsonl"
    for harness in ("claude-code", "codex"):
        code, _, err = run_cli(capsys, "import", harness, "--repo", str(repo), str(missing))
        assert code == 2 and err.startswith(f"error: {missing}: no such file or directory\n")
        assert "move it away" not in err  # there is nothing to move
        assert "--session ID" in err


@pytest.mark.parametrize(
    ("argv", "error", "hint"),
    [
        (
            ["eval", "--command", "pytest", "--status", "Passed", "--score", "nan"],
            "--score: must be a finite number",
            "give a finite number, e.g. 0.5",
        ),
        (["ops", "--json-ops", '"x"'], "--json-ops: must be a JSON array, not str", "array of ops"),
        (["ops", "--json-ops", "[1]"], "--json-ops[0]: must be a JSON object", "array of ops"),
        (
            ["goal", "--title", "g", "--payload-json", '{"summary": 3}'],
            "--payload-json key 'summary': must be a string, not int",
            'give a JSON string, e.g. "text"',
        ),
    ],
    ids=["score", "ops-str", "ops-item", "payload-str"],
)
def test_a_flag_of_the_wrong_type_gets_a_hint_about_that_flag(
    argv: list[str], error: str, hint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    log = repo / "state" / "events.jsonl"
    before = log.read_bytes()
    code, out, err = run_cli(capsys, "record", *argv, "-C", str(repo))
    assert code == 2 and not out and err.count("\n") == 2
    assert err.startswith(f"error: {error}")
    assert hint in err.splitlines()[1]
    assert "whose keys are the argument names" not in err  # was the hint for every value
    assert log.read_bytes() == before


def test_the_number_the_score_hint_shows_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    argv = ["record", "eval", "--command", "pytest", "--status", "Passed", "--score", "0.5"]
    assert run_cli(capsys, *argv, "-C", str(repo))[0] == 0


def test_the_human_gate_names_the_identity_commit_a_person_can_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = agent_repo(tmp_path, capsys)
    identity = repo / "identity" / "IDENTITY.md"
    identity.write_text(identity.read_text() + "Be careful.\n")
    git(repo, "add", "identity")
    monkeypatch.setenv("GASP_ACTOR_KIND", "agent")
    code, _, err = run_cli(capsys, "identity", "commit", "-C", str(repo), "--approved-by", "al")
    assert code == 2  # click: --reason is required, so the hint must name it
    code, _, err = run_cli(
        capsys, "identity", "commit", "-C", str(repo), "--approved-by", "al", "--reason", "r"
    )
    assert code == 1 and err.count("\n") == 2
    shown = re.search(r"(git gasp identity commit [^,\n]*)", err.splitlines()[1])
    assert shown and "--reason TEXT" in shown.group(1), err
    monkeypatch.delenv("GASP_ACTOR_KIND")  # the person runs what the hint names
    argv = shlex.split(shown.group(1).replace("NAME", "al").replace("TEXT", "r"))[2:]
    assert run_cli(capsys, *argv, "-C", str(repo))[0] == 0


def test_an_agents_approval_names_the_decision_a_person_can_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = agent_repo(tmp_path, capsys)
    monkeypatch.setenv("GASP_ACTOR_KIND", "agent")
    argv = ["record", "decision", "--status", "Approved", "--reason", "ok"]
    code, _, err = run_cli(capsys, *argv, "--decided-by", "user:al", "-C", str(repo))
    assert code == 1 and err.count("\n") == 2
    shown = re.search(r"or (git gasp record decision [^\n]*) run by them", err)
    assert shown, err
    monkeypatch.delenv("GASP_ACTOR_KIND")
    words = shown.group(1).replace("NAME", "al").replace("TEXT", "ok")
    assert run_cli(capsys, *shlex.split(words)[2:], "-C", str(repo))[0] == 0


@pytest.mark.parametrize("path", ["notes.txt", "./out/a.txt", "out"])
def test_closing_with_an_ignored_path_is_refused_before_the_run_is_finished(
    path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    with (repo / ".gitignore").open("a") as fh:
        fh.write("notes.txt\nout/\n")
    (repo / "notes.txt").write_text("scratch\n")
    (repo / "out").mkdir()
    (repo / "out" / "a.txt").write_text("built\n")
    (repo / "notes.txt.old").write_text("kept\n")  # not ignored: a name that only starts alike
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    log = repo / "state" / "events.jsonl"
    before = log.read_bytes()
    code, out, err = run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "done", path)
    assert code == 2 and not out
    # was git's "The following paths are ignored by one of your .gitignore files:",
    # after run.finished was appended (the run half closed)
    assert err.startswith(f"error: {path}: ignored by .gitignore") and err.count("\n") == 2
    assert f"git check-ignore -v {path}" in err
    assert log.read_bytes() == before
    argv = ["run", "close", "-C", str(repo), "--outcome", "done", "notes.txt.old", ".gitignore"]
    assert run_cli(capsys, *argv)[0] == 0
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == [
        ".gitignore",
        "journal/JOURNAL.md",
        "notes.txt.old",
        "state/events.jsonl",
    ]


def test_a_foreign_hook_refusing_the_boundary_commit_says_how_to_finish_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\necho "lint failed: foo.py" >&2\necho "more" >&2\nexit 1\n')
    hook.chmod(0o755)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    code, out, err = run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "all done")
    assert code == 2 and not out  # was "error: lint failed: foo.py" and no hint
    assert err.startswith("error: the boundary commit failed: lint failed: foo.py; more\nhint: ")
    assert err.count("\n") == 2 and "git gasp run status" in err
    code, out, _ = run_cli(capsys, "run", "status", "-C", str(repo))
    assert code == 0 and "finished with outcome 'all done'" in out
    shown = re.search(r"close it with: (git gasp run close .*)", out)
    assert shown and "TEXT" not in shown.group(1)  # another outcome would be refused
    hook.unlink()
    assert run_cli(capsys, *shlex.split(shown.group(1))[2:], "-C", str(repo))[0] == 0
    assert "Outcome: all done" in git(repo, "log", "-1", "--format=%B")


def test_a_boundary_commit_without_an_author_names_the_config_to_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = agent_repo(tmp_path, capsys)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    git(repo, "config", "user.useConfigOnly", "true")  # no identity guessed from the host
    code, _, err = run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "done")
    assert code == 2 and err.count("\n") == 2
    assert err.startswith(
        "error: the boundary commit failed: Author identity unknown "
        "(no email was given and auto-detection is disabled)\n"  # git's reason, its last line
    )
    assert 'git config user.name "NAME" && git config user.email EMAIL' in err
    git(repo, "config", "user.name", "A Person")
    git(repo, "config", "user.email", "person@example.invalid")
    assert run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "done")[0] == 0


@pytest.mark.parametrize(("command", "what"), [("runs", "runs"), ("sessions", "commits")])
def test_filters_that_match_nothing_are_named_not_taken_for_an_empty_history(
    command: str, what: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, command, "-C", str(work), "--goal", "no such", "-n", "3")
    assert code == 0 and not out
    # was "no runs in HEAD" / "no commits in HEAD" with two runs there
    assert err == f"no {what} in HEAD match --goal 'no such' --max-count 3\n"
    code, out, err = run_cli(capsys, command, "-C", str(work), "--outcome", "promoted")
    assert code == 0 and out and not err


def test_a_line_outside_the_file_names_the_lines_who_can_take(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = len(git(work, "show", "HEAD:AGENT.md").splitlines())
    for asked, hint in (("0", "the first line is AGENT.md:1"), ("999", f"AGENT.md:{lines}")):
        code, _, err = run_cli(capsys, "who", "-C", str(work), f"AGENT.md:{asked}")
        assert code == 2 and err.count("\n") == 2, err
        assert hint in err.splitlines()[1]
        shown = err.splitlines()[1].rpartition(" ")[2]
        assert run_cli(capsys, "who", "-C", str(work), shown)[0] == 0  # the line it names works


def test_client_hooks_in_a_bare_repository_name_the_server_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    code, out, err = run_cli(capsys, "hooks", "install", "-C", str(bare))
    assert code == 0 and "installed pre-commit" in out
    assert err.startswith("warning: a bare repository: its commit hooks never run")
    assert err.count("\n") == 1 and "git gasp hooks install --server" in err
    code, out, err = run_cli(capsys, "hooks", "install", "--server", "-C", str(bare))
    assert code == 0 and "installed pre-receive" in out and not err  # what the hint names
    work = agent_repo(tmp_path, capsys)
    code, _, err = run_cli(capsys, "hooks", "install", "-C", str(work))
    assert code == 0 and not err


def test_an_import_that_finds_no_session_says_where_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = agent_repo(tmp_path, capsys)
    (tmp_path / "claude" / "projects" / "-work").mkdir(parents=True)
    (tmp_path / "codex" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    code, _, err = run_cli(capsys, "import", "claude-code", "--repo", str(repo), "--session", "s1")
    projects = tmp_path / "claude" / "projects"
    assert code == 2 and f"found in {projects} for --session s1\n" in err, err
    code, _, err = run_cli(capsys, "import", "codex", "--repo", str(repo))
    assert code == 2 and f"found in {tmp_path / 'codex' / 'sessions'}\n" in err, err
    code, _, err = run_cli(capsys, "import", "claude-code", "--repo", str(repo), str(projects))
    assert code == 2 and "no claude-code sessions found\n" in err, err  # named: no default place
