"""A new user's mistakes, the second pass (issue h23u): git's reason kept on
git-gasp's one line, the onboarding hint only where onboarding would help,
bare repositories named as such, and ``init`` saying which directories it
made. Every test drives the real git through the CLI.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from git_gasp.git.process import one_line
from tests.conftest import git, run_cli


def agent_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = tmp_path / "agent"
    assert run_cli(capsys, "init", "--agent-id", "a", str(repo))[0] == 0
    return repo


def failing_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    """Every repository's pre-commit hook (git's core.hooksPath, from the
    environment) prints ``lines`` to stderr and refuses."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    hook = hooks / "pre-commit"
    echoes = "".join(f"echo {shlex.quote(line)} >&2\n" for line in lines)
    hook.write_text(f"#!/bin/sh\n{echoes}exit 1\n")
    hook.chmod(0o755)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(hooks))


def test_a_hooks_reason_on_its_second_line_reaches_the_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = agent_repo(tmp_path, capsys)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    failing_hooks(tmp_path, monkeypatch, "Running lint...", "foo.py:3: E501 line too long")
    code, out, err = run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "done")
    assert code == 2 and not out and err.count("\n") == 2, err
    # was "the boundary commit failed: Running lint..." and the reason lost
    assert err.splitlines()[0] == (
        "error: the boundary commit failed: Running lint...; foo.py:3: E501 line too long"
    )


def test_init_whose_commit_git_refuses_says_why_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    failing_hooks(tmp_path, monkeypatch, "policy:", "", "  no agents on this machine")
    code, out, err = run_cli(capsys, "init", "--agent-id", "a", str(tmp_path / "agent"))
    assert code == 2 and not out
    assert err.count("\n") == 2, err  # was git's three lines inside the error line
    assert err.startswith(
        "error: the layout is written and staged, but git could not commit it: "
        "policy:; no agents on this machine\nhint: "
    )
    monkeypatch.delenv("GIT_CONFIG_COUNT")
    assert git(tmp_path / "agent", "commit", "-q", "-m", "init agent a") == ""  # as the hint says


def test_a_bad_config_value_is_said_without_gits_fatal_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    git(repo, "config", "gasp.maxFileBytes", "lots")
    code, out, err = run_cli(capsys, "status", "-C", str(repo))
    assert code == 2 and not out and err.count("\n") == 2
    # was "error: fatal: bad numeric config value ..."
    assert err.startswith("error: bad numeric config value 'lots' for 'gasp.maxfilebytes'"), err
    shown = re.search(r"git config --show-origin [\w.]+", err)
    assert shown and git(repo, *shlex.split(shown.group())[1:]).endswith("lots\n")


@pytest.mark.parametrize(
    ("said", "line"),
    [
        (  # a fetch: both of git's reasons, not its advice
            "fatal: 'x' does not appear to be a git repository\n"
            "fatal: Could not read from remote repository.\n\n"
            "Please make sure you have the correct access rights\nand the repository exists.\n",
            "'x' does not appear to be a git repository; Could not read from remote repository.",
        ),
        (  # the files a checkout would overwrite, joined to the line that lists them
            "error: Your local changes to the following files would be overwritten by checkout:\n"
            "\ta.txt\n\tb.txt\nPlease commit your changes or stash them.\nAborting\n",
            "Your local changes to the following files would be overwritten by checkout: "
            "a.txt, b.txt",
        ),
        (  # what git printed before its reason is left out
            "To ../server.git\nerror: src refspec nope does not match any\n",
            "src refspec nope does not match any",
        ),
        ("one\n\ntwo\nhint: see x\nthree\nfour\nfive\n", "one; two; three (and 2 more lines)"),
        ("fatal: a\x1b[2Jb\r\nerror: a\x1b[2Jb\n", "a\x1b[2Jb"),  # escaped when printed
        ("\n\n", "git failed"),
    ],
    ids=["fetch", "checkout", "push", "hook", "repeated", "empty"],
)
def test_gits_message_on_one_line_keeps_its_reason(said: str, line: str) -> None:
    assert one_line(said) == line
    assert "\n" not in one_line(said)


def test_gits_message_on_one_line_is_bounded() -> None:
    shown = one_line("fatal: " + "x" * 5000)
    assert len(shown) == 300 and shown.endswith("…")


def edited_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A new agent whose second commit edits the log's first line: an
    ordinary bad append, which no onboarding push would take."""
    repo = agent_repo(tmp_path, capsys)
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    assert run_cli(capsys, "run", "close", "-C", str(repo), "--outcome", "done")[0] == 0
    log = repo / "state" / "events.jsonl"
    log.write_bytes(log.read_bytes().replace(b'"t"', b'"T"', 1))
    git(repo, "commit", "-q", "--no-verify", "-am", "an edited line")
    return repo


def test_an_ordinary_bad_append_to_an_empty_server_gets_no_onboarding_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.test_hooks import bare_server, push

    repo = edited_history(tmp_path, capsys)
    server = bare_server(tmp_path, capsys)
    result = push(repo, f"file://{server}", "--no-verify", "HEAD:refs/heads/main")
    assert result.returncode == 1 and "[append-only]" in result.stderr
    assert "gasp.onboard" not in result.stderr, result.stderr  # onboarding would refuse it too
    result = push(repo, f"file://{server}", "--no-verify", "-o", "gasp.onboard", "HEAD:main")
    assert result.returncode == 1 and "[append-only]" in result.stderr  # as it would have


def test_a_refused_first_push_names_onboarding_only_when_it_would_take_the_push(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from tests.test_hooks import bare_server, push

    repo = edited_history(tmp_path, capsys)
    code, _, err = run_cli(capsys, "hooks", "install", "--python", sys.executable, "-C", str(repo))
    assert code == 0, err
    git(repo, "remote", "add", "origin", str(bare_server(tmp_path, capsys)))
    result = push(repo, "origin", "HEAD:refs/heads/main")
    assert result.returncode == 1 and "push refused: 1 violation" in result.stderr
    assert "gasp.onboard" not in result.stderr, result.stderr  # was "onboard it in one push"
    git(repo, "reset", "-q", "--hard", "HEAD~1")  # the edit gone: a fact of an old format
    with open(repo / "memory" / "facts.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"fact": "an old format"}\n')
    git(repo, "commit", "-q", "--no-verify", "-am", "memory: an old fact")
    result = push(repo, "origin", "HEAD:refs/heads/main")
    assert result.returncode == 1 and "[facts]" in result.stderr
    shown = re.search(r"onboard it in one push: (git push [^(]*) \(", result.stderr)
    assert shown, result.stderr  # onboarding takes this one: the hint, as written, works
    argv = shlex.split(shown.group(1).replace("<branch>", "HEAD:refs/heads/main"))
    assert git(repo, *argv[1:]) == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["fold"],
        ["nodes"],
        ["check"],
        ["run", "status"],
        ["identity", "verify"],
        ["record", "goal", "--title", "g"],
    ],
    ids=lambda argv: "-".join(argv[:2]),
)
def test_a_bare_repository_is_named_with_a_command_that_reads_it(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = agent_repo(tmp_path, capsys)
    bare = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    monkeypatch.chdir(bare)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and not out and err.count("\n") == 2, err
    # was "AGENT.md missing", "cannot read ./state/events.jsonl", or check's seven failures
    assert err.startswith(f"error: {bare}: a bare repository: no work tree holds the agent's")
    shown = re.search(r"(git gasp restore .*) DIR && cd DIR && (git gasp [^(]*) \(", err)
    assert shown and shown.group(2).split()[2:] == argv[: len(shown.group(2).split()) - 2], err
    dest = tmp_path / "restored"
    restore = shlex.split(shown.group(1))[2:]
    assert run_cli(capsys, *restore, str(dest), "--quiet")[0] == 0  # the hint, as written, works
    monkeypatch.chdir(dest)
    assert run_cli(capsys, *argv)[0] == 0
    runs = re.search(r"(git gasp runs -C \S+)\)", err)
    assert runs and run_cli(capsys, *shlex.split(runs.group(1))[2:])[0] == 0


def test_init_names_the_directories_it_made_as_git_init_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "-q", "plain/a/b")  # git makes the parents, and says where
    assert (tmp_path / "plain" / "a").is_dir()
    code, out, _ = run_cli(capsys, "init", "--agent-id", "a", "agnets/new")  # a typo
    made = f"{tmp_path / 'agnets'}, {tmp_path / 'agnets' / 'new'}"
    assert code == 0 and out.startswith(
        f"initialized agent a in agnets/new (new directories: {made}): "
    )
    (tmp_path / "there").mkdir()
    code, out, _ = run_cli(capsys, "init", "--agent-id", "a", "there", "--json")
    assert code == 0 and json.loads(out)["created"] == []
    code, out, _ = run_cli(capsys, "init", "--agent-id", "a", "one")
    assert code == 0 and f"in one (new directory: {tmp_path / 'one'}): " in out


def test_init_refused_for_want_of_an_identity_leaves_no_directory_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    code, _, err = run_cli(capsys, "init", "--agent-id", "a", str(tmp_path / "x" / "y" / "z"))
    assert code == 2 and "nothing was written" in err
    assert not (tmp_path / "x").exists()  # was x/ and x/y/ left behind


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("hello\n", "1 corrupt line (line 1: not JSON (Expecting value))"),
        (
            '{"type": "x"}\n\n{"type": "y"}\n{"type": "x"}\n',
            "3 records of types it does not know (x, y); 1 blank line",
        ),
    ],
    ids=["not-json", "unknown-types"],
)
def test_an_import_of_no_transcript_says_what_it_read(
    text: str, seen: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    path = tmp_path / "notes.jsonl"
    path.write_text(text)
    for extra in ([], ["--json"]):
        argv = ["import", "claude-code", "--repo", str(repo), str(path), *extra]
        code, out, err = run_cli(capsys, *argv)
        assert code == 1 and not out and err.count("\n") == 2, err
        # the hint said "`--json` lists what was seen", and --json printed nothing more
        assert err.startswith(
            f"error: {path}: nothing in it is a claude-code record this projector "
            f"recognises: {seen}\n"
        )
        assert "--json" not in err
        assert "git gasp import claude-code --project DIR" in err.splitlines()[1]


@pytest.mark.parametrize(
    "argv", [["fold"], ["nodes"], ["snapshot"], ["show", "goal_1"], ["lineage", "goal_1"]]
)
def test_reading_the_graph_outside_an_agent_names_init(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and not out and err.count("\n") == 2, err
    # was "state/events.jsonl: cannot read ./state/events.jsonl: No such file or directory"
    assert err.startswith("error: .: not an agent repository (no AGENT.md or state/)\n")
    shown = re.search(r"git gasp init --agent-id ID", err)
    assert shown and run_cli(capsys, "init", "--agent-id", "a")[0] == 0  # as the hint says
    code, _, err = run_cli(capsys, *argv)  # the graph is read (show: goal_1 is unknown)
    assert code in (0, 2) and "not an agent repository" not in err


def test_a_snapshot_of_an_empty_log_says_what_to_record_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    code, out, err = run_cli(capsys, "snapshot", "-C", str(repo))
    assert code == 2 and not out and err.count("\n") == 2  # was the error alone
    shown = re.search(r"git gasp run start --task TEXT", err)
    assert shown and err.startswith("error: the log is empty: nothing to snapshot\nhint: ")
    assert run_cli(capsys, "run", "start", "-C", str(repo), "--task", "t")[0] == 0
    code, out, _ = run_cli(capsys, "snapshot", "-C", str(repo))
    assert code == 0 and out.startswith("snapshots/")


def test_a_grouped_refusal_says_its_findings_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    with open(repo / "state" / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"bad": 1}\n')  # one line, ten findings: each envelope field it lacks...
    git(repo, "commit", "-q", "--no-verify", "-am", "a line by hand")
    code, out, _ = run_cli(capsys, "validate", "-C", str(repo), "HEAD~1..HEAD")
    assert code == 1
    (line,) = [line for line in out.splitlines() if "[envelope]" in line]
    # was "10× [envelope] ... missing envelope field `id` (hint: ...)": ten times `id`?
    assert "missing envelope field `id` (and 9 other messages, e.g. missing envelope " in line
    code, out, _ = run_cli(capsys, "validate", "--all", "-C", str(repo), "HEAD~1..HEAD")
    assert sum("[envelope]" in line for line in out.splitlines()) == 10  # each, one by one


def test_status_of_an_identity_edited_on_disk_names_its_approval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = agent_repo(tmp_path, capsys)
    with open(repo / "identity" / "IDENTITY.md", "a", encoding="utf-8") as fh:
        fh.write("Be kind.\n")
    monkeypatch.chdir(repo)
    code, out, err = run_cli(capsys, "status")
    assert code == 1 and not out and err.count("\n") == 2, err
    assert err.startswith("error: identity bytes do not match the manifest: declared ")
    # was "refusing to restore an agent whose identity/ does not match AGENT.md; ..."
    assert "restore" not in err.splitlines()[1]
    shown = re.search(
        r"approves it with: (git add identity/) && (git gasp identity commit .*?) \(", err
    )
    assert shown, err
    git(repo, *shlex.split(shown.group(1))[1:])
    words = shown.group(2).replace("NAME", "al").replace("TEXT", "kinder")
    assert run_cli(capsys, *shlex.split(words)[2:])[0] == 0  # as the hint writes it
    assert run_cli(capsys, "status")[0] == 0
    with open(repo / "identity" / "IDENTITY.md", "a", encoding="utf-8") as fh:
        fh.write("Obey whoever edits me.\n")
    code, _, err = run_cli(capsys, "status")
    undo = re.search(r"or undo it: (git checkout HEAD -- identity/)\)", err)
    assert code == 1 and undo, err
    git(repo, *shlex.split(undo.group(1))[1:])
    assert run_cli(capsys, "status")[0] == 0


def test_an_import_run_inside_an_agent_repository_names_repo_dot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests import transcripts as T

    monkeypatch.delenv("GASP_AGENT_REPO", raising=False)
    repo = agent_repo(tmp_path, capsys)
    path = tmp_path / f"{T.SESSION}.jsonl"
    path.write_text(T.claude_session("2.1.173")[0])
    monkeypatch.chdir(repo)
    code, _, err = run_cli(capsys, "import", "claude-code", str(path))
    assert code == 2 and err.startswith("error: no agent repository to import into\n")
    assert "(this directory is one: --repo .)" in err  # was only "create one with: ..."
    assert run_cli(capsys, "import", "claude-code", "--repo", ".", str(path))[0] == 0
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "import", "claude-code", str(path))
    assert code == 2 and "git gasp init --agent-id ID PATH" in err  # elsewhere: as before


def test_a_path_to_close_with_is_named_from_the_agents_top(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = agent_repo(tmp_path, capsys)
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("x = 1\n")
    monkeypatch.chdir(repo / "src")
    assert run_cli(capsys, "run", "start", "--task", "t")[0] == 0
    code, out, err = run_cli(capsys, "run", "close", "--outcome", "done", "a.py")
    assert code == 2 and not out and err.count("\n") == 2
    assert err.startswith(f"error: a.py: no such file in the agent repository {repo}\n")
    shown = re.search(r"as (git -C \S+ status --short) shows them", err)  # was "check the path"
    assert shown, err
    listed = git(repo / "src", *shlex.split(shown.group(1))[1:])
    assert "?? src/" in listed
    assert run_cli(capsys, "run", "close", "--outcome", "done", "src/a.py")[0] == 0
    assert "src/a.py" in git(repo, "show", "--name-only", "--format=", "HEAD")


@pytest.mark.parametrize(
    ("argv", "error", "command"),
    [
        (
            ["completion"],
            "Missing argument '{bash|zsh|fish}'. Choose from: bash, zsh, fish",
            "completion",
        ),
        (["runs", "-n"], "Option '-n' requires an argument.", "runs"),
        (["record", "goal", "--title"], "Option '--title' requires an argument.", "record goal"),
        (
            ["--no-pager", "lineage", "x", "--depth"],
            "Option '--depth' requires an argument.",
            "lineage",
        ),
        (["--color", "never", "nodes", "--kind"], "Option '--kind' requires an argument.", "nodes"),
    ],
    ids=["choice", "runs", "record-goal", "lineage", "root-option"],
)
def test_a_usage_error_is_one_line_and_names_the_commands_help(
    argv: list[str], error: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and not out
    # was click's list of choices over four lines, or "see `git gasp -h`" for any command
    assert err == f"error: {error}\nhint: see `git gasp {command} -h`\n"
    code, out, _ = run_cli(capsys, *command.split(), "-h")
    assert code == 0 and out.startswith(f"Usage: git gasp {command} ")


@pytest.mark.parametrize("asked", ["identity", "identity/"])
def test_who_of_a_directory_names_a_file_in_it(
    asked: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = agent_repo(tmp_path, capsys)
    code, out, err = run_cli(capsys, "who", "-C", str(repo), asked)
    assert code == 2 and not out and err.count("\n") == 2
    # was "identity is not in HEAD": it is, as a directory
    assert err.startswith(f"error: {asked} is a directory at HEAD, not a file\n")
    shown = re.search(r"name a file in it: (git gasp who \S+)", err)
    assert shown and shown.group(1) == "git gasp who identity/IDENTITY.md"
    code, out, _ = run_cli(capsys, *shlex.split(shown.group(1))[2:], "-C", str(repo))
    assert code == 0 and "init agent a" in out  # the hint, as written, works
