"""The command line: outputs, exit codes, and bad input without tracebacks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp.cli import root as cli

from .conftest import git, log_lines, log_path, write_lines

DANGLING = (
    '{"id":"event_m1","schema_version":1,"ts_ms":1,"actor":{"kind":"system","id":"s"},'
    '"kind":"state.ops_applied","payload":[{"MarkStale":{"id":"goal_old","reason":"x"}}],'
    '"causation_id":null,"correlation_id":null}'
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_check_fixture_passes_in_the_reference_format(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "check", "--fixture", str(fixture_repo))
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "[PASS] check 1 — envelope round-trip"
    assert "       note: identity hash verified against identity bytes" in lines
    assert lines[-1] == "conformant: all checks passed"


def test_check_json_report(fixture_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_lines(fixture_repo, [*log_lines(fixture_repo), DANGLING.replace("event_m1", "event_99")])
    code, out, _ = run(capsys, "check", "--json", str(fixture_repo))
    report = json.loads(out)
    assert code == 0 and report["conformant"] is True
    assert report["format"] == "git-gasp.check/1"
    assert [c["number"] for c in report["checks"]] == [1, 2, 3, 4, 5, 6, 7]
    assert set(report["checks"][0]) == {"number", "name", "passed", "failures", "notes"}
    assert "MarkStale at batch index 0 skipped" in report["checks"][1]["notes"][0]


def test_fold_summary_and_graph_out(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "fold", str(fixture_repo), "--json", "--graph-out", str(tmp_path / "g.json")
    )
    summary = json.loads(out)
    assert code == 0
    assert (summary["events"], summary["nodes"], summary["relations"], summary["version"]) == (
        10,
        4,
        3,
        8,
    )
    assert summary["node_kinds"] == {"decision": 1, "eval": 1, "goal": 1, "patch": 1}
    first = (tmp_path / "g.json").read_text()
    run(capsys, "fold", str(fixture_repo), "--graph-out", str(tmp_path / "g2.json"))
    assert first == (tmp_path / "g2.json").read_text()
    graph = json.loads(first)
    assert list(graph) == ["nodes", "relations", "version"]
    assert graph["nodes"]["patch_9"]["props"]["status"] == "Promoted"
    code, out, _ = run(capsys, "fold", str(fixture_repo), "--at", "event_05")
    assert code == 0 and "version:        3" in out


def test_fold_bad_input(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "fold", str(fixture_repo), "--at", "event_nope")
    assert code == 2 and "error: unknown event id: event_nope" in err
    code, _, err = run(capsys, "fold", str(fixture_repo), "--at", "event_5")
    assert code == 2 and "hint: did you mean event_05" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "fold", str(empty))
    assert code == 2 and f"error: {empty}: not an agent repository (no AGENT.md or state/)" in err
    assert "hint: " in err and "git gasp init --agent-id ID" in err
    (empty / "state").mkdir()  # a state/ without its log
    code, _, err = run(capsys, "fold", str(empty))
    assert code == 2 and "error: state/events.jsonl: cannot read" in err and "hint:" in err
    code, _, err = run(capsys, "fold", str(tmp_path / "missing"))
    assert code == 2 and "no such directory" in err
    code, out, _ = run(capsys, "check", "-C", str(fixture_repo))
    assert code == 0 and "conformant: all checks passed" in out
    code, _, err = run(capsys, "fold", str(fixture_repo), "-C", str(tmp_path))
    assert code == 2 and "two repositories" in err
    for args in (["runs"], ["status"], ["run", "status"], ["check"], ["fold"]):
        code, _, err = run(capsys, *args, "-C", str(tmp_path / "missing"))
        assert code == 2 and "'-C' / '--repo'" in err and "does not exist" in err, err


def test_torn_final_line_is_named(fixture_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = log_path(fixture_repo).read_text()
    log_path(fixture_repo).write_text(text + '{"id":"event_11","schema_version":1,"ts_')
    code, _, err = run(capsys, "fold", str(fixture_repo))
    assert code == 1
    assert "state/events.jsonl:11: corrupt event:" in err
    assert "torn final line — likely a crash mid-append" in err
    assert "hint: run `git gasp repair`" in err


def test_strict_fold_stops_on_a_dangling_op(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_lines(fixture_repo, [*log_lines(fixture_repo), DANGLING])
    code, out, _ = run(capsys, "fold", str(fixture_repo))
    assert code == 0 and "skipped ops:    1" in out
    code, _, err = run(capsys, "fold", "--strict", str(fixture_repo))
    assert code == 1 and "fold failed at event event_m1: node not found: goal_old" in err


def test_check_fails_closed_on_unreadable_inputs(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_path(fixture_repo).write_bytes(log_path(fixture_repo).read_bytes() + b"\xff\n")
    code, out, err = run(capsys, "check", str(fixture_repo))
    assert code == 1
    assert "stream did not contain valid UTF-8" in out
    assert out.count("log unavailable (see check 1)") == 5
    assert "conformant" not in out  # stdout is the reference checker's, line for line
    assert err.startswith("not conformant: check 1") and err.endswith(" failed\n"), err
    plain = tmp_path / "plain"
    shutil.copytree(fixture_repo, plain, ignore=shutil.ignore_patterns(".git"))
    code, out, _ = run(capsys, "check", str(plain))
    assert code == 1 and "not a git repository" in out


def test_fixture_refuses_a_non_empty_directory(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "fixture", str(fixture_repo))
    assert code == 2 and "already exists" in err


def test_fixture_is_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "fixture", str(tmp_path / "a"))[0] == 0
    assert run(capsys, "fixture", str(tmp_path / "b"))[0] == 0
    assert git(tmp_path / "a", "rev-parse", "HEAD") == git(tmp_path / "b", "rev-parse", "HEAD")
    assert (tmp_path / "a" / ".agent" / "config.toml").is_file()


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "--fixtrue")
    assert code == 2
    assert err == (
        "error: No such option '--fixtrue'. Did you mean '--fixture'?\n"
        "hint: see `git gasp check -h`\n"
    )
    assert run(capsys, "check", "a", "b")[0] == 2
    assert run(capsys, "frobnicate")[0] == 2


def test_internal_error_exits_3_with_a_crash_log(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError("synthetic failure")

    monkeypatch.setattr("git_gasp.check.conformance.run_all", boom)
    code, _, err = run(capsys, "check", str(fixture_repo))
    assert code == 3
    assert "unexpected internal error; details written to" in err
    crash = Path(err.split("details written to ")[1].split("\n")[0])
    assert "synthetic failure" in crash.read_text()


def test_a_full_disk_is_one_line_not_an_internal_error(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    def full(*args: object, **kwargs: object) -> object:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "snapshots/x/graph.json")

    monkeypatch.setattr("git_gasp.check.conformance.run_all", full)
    code, _, err = run(capsys, "check", str(fixture_repo))
    assert code == 2
    assert err.splitlines() == [
        "error: snapshots/x/graph.json: cannot write: No space left on device (os error 28)",
        "hint: free some disk space, then run the command again",
    ]


def test_python_dash_m_and_the_git_subcommand(fixture_repo: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "git_gasp", "check", str(fixture_repo)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "conformant: all checks passed" in proc.stdout
    exe = shutil.which("git-gasp")
    assert exe is not None, "git-gasp must be on PATH once installed"
    proc = subprocess.run(
        ["git", "gasp", "fold", str(fixture_repo)], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "nodes:          4" in proc.stdout


def test_git_failures_read_as_one_line_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(plain)
    for argv in (["hooks", "install"], ["who", "foo:1"], ["notes", "sync"]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.splitlines() == [
            "error: not a git repository (or any of the parent directories): .git",
            "hint: run it inside a git repository, or pass -C PATH",
        ], argv
    code, _, err = run(capsys, "restore", f"file://{tmp_path}/nowhere", str(tmp_path / "x"))
    assert code == 2 and len(err.splitlines()) == 2 and "fatal" not in err, err
    assert err.startswith("error: clone failed: ") and "hint: check the URL" in err


def test_a_bad_range_and_a_restored_clone_get_hints_that_work(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    shutil.copytree(template, repo, symlinks=True)
    code, _, err = run(capsys, "runs", "nope..HEAD", "-C", str(repo))
    assert code == 2 and err.splitlines() == [
        "error: bad revision 'nope..HEAD'",
        "hint: pass a range git log accepts, e.g. main~5..main or a branch name",
    ]
    git(repo, "config", "core.hooksPath", "/dev/null")  # as git gasp restore leaves a clone
    code, _, err = run(capsys, "hooks", "install", "-C", str(repo))
    assert code == 2 and "hooks are turned off in this clone" in err
    hint = err.split("hint: to run git-gasp's hooks here: ")[1].split(", then")[0]
    assert hint == "git config --unset core.hooksPath"
    git(repo, *hint.split()[1:])
    code, _, err = run(capsys, "hooks", "install", "-C", str(repo))
    assert code == 0, err


def test_a_snapshot_of_a_torn_log_says_how_to_repair_it(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    shutil.copytree(template, repo, symlinks=True)
    with open(repo / "state" / "events.jsonl", "ab") as fh:
        fh.write(b'{"id":"event_torn","schema')  # a crash mid-append
    code, _, err = run(capsys, "snapshot", "-C", str(repo))
    assert code == 1, err
    lines = err.splitlines()
    assert lines[0].startswith("error: state/events.jsonl:") and len(lines) == 2
    assert "git gasp repair" in lines[1]
    assert run(capsys, "repair", "-C", str(repo))[0] == 0
    assert run(capsys, "snapshot", "-C", str(repo))[0] == 0


@pytest.mark.parametrize(
    "argv, fmt",
    [
        (["identity", "verify"], "git-gasp.identity-verify/1"),
        (["skill", "list"], "git-gasp.skills/1"),
        (["skill", "check"], "git-gasp.skill-check/1"),
        (["fact", "list"], "git-gasp.facts/1"),
        (["run", "status"], "git-gasp.run-status/1"),
        (["lineage", "goal_retry"], "git-gasp.lineage/1"),
    ],
)
def test_reading_commands_name_their_json_format(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], fmt: str
) -> None:
    code, out, err = run(capsys, *argv, "-C", str(fixture_repo), "--json")
    assert code == 0, err
    assert json.loads(out)["format"] == fmt


def test_mistyped_targets_are_usage_errors(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "agent"
    shutil.copytree(template, repo, symlinks=True)
    code, _, err = run(capsys, "validate", "--staged", "HEAD", "-C", str(repo))
    assert code == 2 and "--staged judges the index; it takes no REV-RANGE" in err
    missing = tmp_path / "no" / "such" / "context.md"
    code, _, err = run(capsys, "status", "-C", str(repo), "--context", str(missing))
    assert code == 2 and "no such directory" in err
    assert not (tmp_path / "no").exists()  # nothing created


def test_restore_checks_its_context_path_before_cloning(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "restored"
    missing = tmp_path / "no" / "context.md"
    code, _, err = run(capsys, "restore", str(template), str(dest), "--context", str(missing))
    assert code == 2 and "no such directory" in err
    assert not dest.exists()  # nothing cloned


def test_control_characters_never_reach_the_terminal(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from git_gasp import output

    assert output.visible("a\x1b[2Jb\rc\td\ne\x9b\ud800") == "a\\x1b[2Jb\\rc\td\ne\\x9b\\ud800"
    output.data_json({"t": "\x1b]0;owned\x07\x9b\ud800", "x": float("nan")})
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out and "NaN" not in out
    assert json.loads(out) == {"t": "\x1b]0;owned\x07\x9b\ud800", "x": "nan"}
    # a hostile commit subject, through `runs` (a run's Outcome trailer)
    git(fixture_repo, "commit", "-q", "--allow-empty", "-m",
        "x\n\nRun-Id: run_1\nGoal: g\nOutcome: \x1b[2Jpwned")  # fmt: skip
    code, out, err = run(capsys, "runs", "-C", str(fixture_repo))
    assert code == 0, err
    assert "\x1b" not in out and "\\x1b[2Jpwned" in out


def test_a_graph_printed_as_json_stays_valid_json(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    code, _, err = run(capsys, "record", "goal", "--title", "del\x7f nel\x85 esc\x1b", "-C",
                       str(fixture_repo))  # fmt: skip
    assert code == 0, err
    code, out, err = run(capsys, "fold", "--graph-out", "-", str(fixture_repo))
    assert code == 0, err
    titles = [n["props"].get("title") for n in json.loads(out)["nodes"].values()]
    assert "del\x7f nel\x85 esc\x1b" in titles and "\x1b" not in out


# -- files, streams and paths a user names ----------------------------------------------


def test_output_files_never_replace_the_repositorys_own(
    fixture_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--graph-out and --context refuse the agent's files (the log would be
    replaced), write through a link (which stays a link) and into what is
    not a regular file, and keep an existing file's mode."""
    import os
    import stat

    repo = str(fixture_repo)
    log = fixture_repo / "state" / "events.jsonl"
    before = {p: p.read_bytes() for p in (log, fixture_repo / "AGENT.md")}
    (fixture_repo / "notes.txt").write_text("tracked\n")
    git(fixture_repo, "add", "notes.txt")
    for argv in (
        ("status", "-C", repo, "--context", str(log)),
        ("fold", repo, "--graph-out", str(fixture_repo / "AGENT.md")),
        ("fold", repo, "--graph-out", str(fixture_repo / ".git" / "config")),
        ("status", "-C", repo, "--context", str(fixture_repo / "notes.txt")),
        ("status", "-C", repo, "--context", str(fixture_repo / "state" / "new.md")),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "not overwritten" in err, (argv, err)
    assert {p: p.read_bytes() for p in before} == before
    # an agent in a subdirectory: the enclosing repository's files are protected too
    big = tmp_path / "big"
    shutil.copytree(fixture_repo, big, symlinks=True)
    agent = big / "agents" / "bot"
    shutil.copytree(fixture_repo, agent, ignore=shutil.ignore_patterns(".git"))
    for target in (big / ".git" / "config", big / "notes.txt", big / "agent.md", big / "STATE"):
        code, _, err = run(capsys, "fold", str(agent), "--graph-out", str(target))
        assert code == 2 and "not overwritten" in err, (target, err)
    # GIT_DIR names another repository: the target is judged where it lies
    other = tmp_path / "other"
    shutil.copytree(fixture_repo, other, symlinks=True)
    env = {**os.environ, "GIT_DIR": str(fixture_repo / ".git")}
    for target in (other / "notes.txt", other / ".git" / "config", other / "state" / "x.md"):
        done = subprocess.run(
            [sys.executable, "-m", "git_gasp", "fold", repo, "--graph-out", str(target)],
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 2 and "not overwritten" in done.stderr, (target, done.stderr)
    # a file an enclosing repository tracks, inside a nested one
    nested = big / "lib"
    nested.mkdir()
    (nested / "config.txt").write_text("outer's\n")
    git(big, "add", "lib/config.txt")
    git(nested, "init", "-q")
    code, _, err = run(capsys, "fold", repo, "--graph-out", str(nested / "config.txt"))
    assert code == 2 and "a file git tracks (lib/config.txt)" in err
    # the command's own descriptors are written to, as the shell opened them (>> appends)
    appended = tmp_path / "app.log"
    appended.write_text("PRIOR\n")
    with open(appended, "a") as fh:
        done = subprocess.run(
            [sys.executable, "-m", "git_gasp", "fold", repo, "--graph-out", "/dev/stdout"],
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 0, done.stderr
    assert appended.read_text().startswith('PRIOR\n{\n  "nodes"')
    for empty in ("", "  "):
        code, _, err = run(capsys, "fold", repo, "--graph-out", empty)
        assert code == 2 and "the output file name is empty" in err
    # a link keeps being a link; its target gets the graph, with its own mode
    target = tmp_path / "target.json"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert run(capsys, "fold", repo, "--graph-out", str(link))[0] == 0
    assert link.is_symlink() and json.loads(target.read_text())["version"] > 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    # a new file in the repository (not one of its own) is fine, with the usual mode
    assert run(capsys, "status", "-C", repo, "--context", str(fixture_repo / "ctx.md"))[0] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((fixture_repo / "ctx.md").stat().st_mode) == 0o666 & ~umask
    # what is not a regular file is written into, never replaced
    done = subprocess.run(
        [sys.executable, "-m", "git_gasp", "fold", repo, "--graph-out", "/dev/stdout"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and '"nodes"' in done.stdout
    assert Path("/dev/stdout").is_symlink() or not Path("/dev/stdout").is_file()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    assert run(capsys, "fold", repo, "--graph-out", str(fifo))[0] == 0
    assert b'"nodes"' in reader.communicate(timeout=30)[0]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize(
    ("number", "hint"),
    [
        ("EACCES", "check the permissions of that path"),
        ("EPERM", "check the permissions of that path"),
        ("ENOTDIR", "a file stands where a directory should be"),
        ("EISDIR", "a directory stands where a file should be"),
        ("ENAMETOOLONG", "use a shorter path"),
        ("EEXIST", "something else already stands there"),
    ],
)
def test_a_path_the_machine_refuses_is_one_line_not_an_internal_error(
    fixture_repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    number: str,
    hint: str,
) -> None:
    import errno
    import os

    code_of = getattr(errno, number)

    def refused(*args: object, **kwargs: object) -> object:
        raise OSError(code_of, os.strerror(code_of), "snapshots/x/graph.json")

    monkeypatch.setattr("git_gasp.check.conformance.run_all", refused)
    code, _, err = run(capsys, "check", str(fixture_repo))
    assert code == 2
    why = f"{os.strerror(code_of)} (os error {code_of})"
    lines = err.splitlines()
    assert lines[0] == f"error: snapshots/x/graph.json: cannot use it: {why}"
    assert lines[1].startswith(f"hint: {hint}") and len(lines) == 2


def test_a_stream_that_cannot_take_utf8_gets_escapes(fixture_repo: Path) -> None:
    import os

    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run(
        [sys.executable, "-m", "git_gasp", "check", str(fixture_repo)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "[PASS] check 1 \\u2014 envelope round-trip" in done.stdout


def test_an_interrupt_while_starting_is_quiet(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while Python imports the command line: exit 130, no traceback."""
    from git_gasp import entry

    class Interrupting:
        def find_spec(self, name: str, *args: object) -> None:
            if name == "git_gasp.cli.root":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "git_gasp.cli.root")
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    assert entry.main() == 130
    assert capsys.readouterr().err == "interrupted\n"


@pytest.mark.parametrize("command", ["init", "fixture", "demo", "restore"])
def test_an_empty_or_odd_directory_argument_is_refused(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = {"restore": ["restore", str(tmp_path / "nowhere.git"), ""]}.get(command, [command, ""])
    code, _, err = run(capsys, *argv)
    assert code == 2 and "is empty; name a directory" in err
    if command == "restore":
        return
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    code, _, err = run(capsys, command, str(dangling), *(["--agent-id", "a"] * (command == "init")))
    assert code == 2 and "Traceback" not in err
    assert "not a directory" in err or "already exists" in err
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()


def test_the_merge_driver_reads_only_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "hooks", "merge-driver", "/dev/zero", "/dev/zero", "/dev/zero")
    assert code == 2 and "/dev/zero: not a regular file" in err


def test_a_worker_id_that_cannot_be_saved_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only checkout: `run status` reads, it does not fail on the
    worker id it could not save."""
    from git_gasp.store import runmarker

    def read_only(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / ".agent" / "worker"))

    monkeypatch.setattr(runmarker, "write_atomically", read_only)
    assert runmarker.local_worker_id(str(tmp_path)).startswith("worker-")


def test_bytes_that_are_not_utf8_in_a_run_id_are_refused_not_a_crash(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(fixture_repo, "config", "user.name", "t")
    git(fixture_repo, "config", "user.email", "t@example.invalid")
    argv = ["notes", "add", "HEAD", "--session", "a:b", "-C", str(fixture_repo)]
    for run_id in ("\udcff\udcfe", "\ud800"):
        code, _, err = run(capsys, *argv, "--run", run_id)
        assert code in (1, 2) and "internal error" not in err, err


def test_a_group_without_its_command_prints_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in ([], ["record"], ["hooks"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        # usage lines say what users type (issue 18, item 9; it said git-gasp before)
        assert err.startswith("Usage: git gasp") and "error:" not in err
