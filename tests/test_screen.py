"""The terminal: the git pager and colour as git has them, shell completion,
and usage lines that say ``git gasp``. Pager and colour are tested on real
terminals (``script`` gives the command a pty)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp.output import paint

from .conftest import git, run_cli

SGR = "\x1b["


def _env(**extra: str) -> dict[str, str]:
    bindir = os.path.dirname(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PAGER", "LESS")}
    env.update(PATH=bindir + os.pathsep + os.environ.get("PATH", ""), TERM="xterm", **extra)
    return env


def on_a_terminal(repo: Path, *args: str, **env: str) -> str:
    """``git gasp ARGS`` with stdout on a pty; what the terminal showed."""
    command = shlex.join(["git", "gasp", *args])
    proc = subprocess.run(
        ["script", "-qec", command, "/dev/null"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=_env(**env),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.replace("\r\n", "\n")


def in_a_pipe(repo: Path, *args: str, **env: str) -> str:
    proc = subprocess.run(
        ["git", "gasp", *args], cwd=repo, capture_output=True, text=True, env=_env(**env)
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def demo(template: Path, tmp_path: Path) -> Path:
    repo = tmp_path / "demo"
    shutil.copytree(template, repo, symlinks=True)
    return repo


MARK = "sed s/^/PAGED:/"


def test_the_pager_runs_on_a_terminal_only(demo: Path) -> None:
    for command in (("runs",), ("nodes",), ("show", _patch(demo))):
        shown = on_a_terminal(demo, *command, GIT_PAGER=MARK)
        lines = [line for line in shown.splitlines() if line]
        assert lines and all(line.startswith("PAGED:") for line in lines), shown
        assert "PAGED:" not in in_a_pipe(demo, *command, GIT_PAGER=MARK)
        assert "PAGED:" not in on_a_terminal(demo, *command, "--no-pager", GIT_PAGER=MARK)
        assert "PAGED:" not in on_a_terminal(demo, "--no-pager", *command, GIT_PAGER=MARK)


def test_the_pager_is_chosen_as_git_chooses_it(demo: Path) -> None:
    git(demo, "config", "core.pager", "sed s/^/CORE:/")
    assert "CORE:" in on_a_terminal(demo, "runs")
    assert "PAGED:" in on_a_terminal(demo, "runs", GIT_PAGER=MARK)  # GIT_PAGER wins
    git(demo, "config", "--unset", "core.pager")
    assert "ENV:" in on_a_terminal(demo, "runs", PAGER="sed s/^/ENV:/")
    shown = on_a_terminal(demo, "runs", GIT_PAGER="cat")  # cat: no pager at all
    assert "promoted" in shown and "PAGED:" not in shown
    shown = on_a_terminal(demo, "runs", GIT_PAGER='echo "LESS=$LESS LV=$LV"; cat >/dev/null')
    assert "LESS=FRX LV=-c" in shown
    shown = on_a_terminal(demo, "runs", GIT_PAGER='echo "LESS=$LESS"; cat >/dev/null', LESS="S")
    assert "LESS=S" in shown


def test_a_pager_that_quits_early_ends_quietly(demo: Path) -> None:
    shown = on_a_terminal(demo, "nodes", GIT_PAGER="head -n 1")
    assert "Traceback" not in shown and "error" not in shown.lower()


def test_colour(demo: Path) -> None:
    assert SGR in on_a_terminal(demo, "runs", GIT_PAGER="cat")
    assert SGR not in in_a_pipe(demo, "runs")
    assert SGR in in_a_pipe(demo, "runs", "--color=always")
    assert SGR in in_a_pipe(demo, "--color", "always", "nodes")
    assert SGR not in on_a_terminal(demo, "runs", "--color=never", GIT_PAGER="cat")
    assert SGR not in on_a_terminal(demo, "runs", GIT_PAGER="cat", NO_COLOR="1")
    assert SGR in on_a_terminal(demo, "runs", "--color=always", GIT_PAGER="cat", NO_COLOR="1")
    git(demo, "config", "color.ui", "never")
    assert SGR not in on_a_terminal(demo, "show", _patch(demo), GIT_PAGER="cat")
    git(demo, "config", "color.ui", "always")
    assert SGR in in_a_pipe(demo, "nodes")
    promoted = in_a_pipe(demo, "nodes", "--kind", "patch", "--status", "Promoted")
    assert "\x1b[32mPromoted" in promoted  # green


def test_painted_text_is_still_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    from git_gasp import output

    output.data("a " + paint("\x1b]0;title\x07", "bad") + " b", True)
    output.data(paint("x\ry", "good") + " " + paint("z", "nope"), False)
    out = capsys.readouterr().out
    assert out == "a \x1b[31m\\x1b]0;title\\x07\x1b[m b\nx\\ry z\n"


def _patch(repo: Path) -> str:
    out = in_a_pipe(repo, "nodes", "--kind", "patch", "--json")
    import json

    return str(json.loads(out)["nodes"][0]["id"])


# --- completion and usage lines ---------------------------------------------------


def test_completion_scripts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "completion", "bash")
    assert code == 0 and "_GIT_GASP_COMPLETE=bash_complete" in out and "_git_gasp()" in out
    for shell, marker in (("zsh", "#compdef git-gasp"), ("fish", "complete --no-files")):
        code, out, _ = run_cli(capsys, "completion", shell)
        assert code == 0 and marker in out
    code, _, err = run_cli(capsys, "completion", "tcsh")
    assert code == 2 and "hint: see `git gasp completion -h`" in err


@pytest.mark.parametrize(
    ("words", "want"),
    [
        ('COMP_WORDS=(git-gasp lin); COMP_CWORD=1; _git_gasp_completion git-gasp', "lineage"),
        ('COMP_WORDS=(git-gasp lineage --max); COMP_CWORD=2; _git_gasp_completion git-gasp',
         "--max-nodes"),
        ('words=(git gasp rep); cword=2; _git_gasp', "report"),  # as git's completion calls it
    ],
)  # fmt: skip
def test_bash_completes(capsys: pytest.CaptureFixture[str], words: str, want: str) -> None:
    _, script, _ = run_cli(capsys, "completion", "bash")
    program = f'{script}\n{words}\nprintf "%s\\n" "${{COMPREPLY[@]}}"\n'
    proc = subprocess.run(["bash", "-c", program], capture_output=True, text=True, env=_env())
    assert proc.returncode == 0, proc.stderr
    assert want in proc.stdout.split(), proc.stdout


def test_usage_lines_say_git_gasp(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "lineage", "-h")
    assert code == 0 and out.startswith("Usage: git gasp lineage [OPTIONS] NODE")
    code, _, err = run_cli(capsys, "runs", "--bogus")
    assert code == 2 and "hint: see `git gasp runs -h`" in err


def test_a_count_as_git_log_takes_it() -> None:
    from git_gasp.cli.root import counts_as_git_has_them as counts

    assert counts(["runs", "-3"]) == ["runs", "--max-count=3"]
    assert counts(["--no-pager", "runs", "HEAD~5..", "-1", "--json"]) == [
        "--no-pager", "runs", "HEAD~5..", "--max-count=1", "--json"
    ]  # fmt: skip
    assert counts(["runs", "--goal", "-1"]) == ["runs", "--goal", "-1"]  # a value stays
    assert counts(["runs", "--", "-1"]) == ["runs", "--", "-1"]
    assert counts(["show", "-1"]) == ["show", "-1"]  # no -n there
    assert counts(["-h"]) == ["-h"]


# --- sessions: the same filters, pager and colour as runs; who's wording ----------------


def test_sessions_filters(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    repo = str(demo)
    _, out, _ = run_cli(capsys, "sessions", "-C", repo, "--json")
    every = json.loads(out)["commits"]
    assert len(every) == 3
    _, out, _ = run_cli(capsys, "sessions", "-C", repo, "-1", "--json")
    assert [c["commit"] for c in json.loads(out)["commits"]] == [every[0]["commit"]]
    _, out, _ = run_cli(capsys, "sessions", "-C", repo, "--outcome", "PROMOTED", "--json")
    (promoted,) = json.loads(out)["commits"]
    assert promoted["subject"].endswith(": promoted")
    _, out, _ = run_cli(capsys, "sessions", "-C", repo, "--goal", "latency", "--json")
    (latency,) = json.loads(out)["commits"]  # the run for "Cut retry latency", by its title
    assert latency["subject"].endswith(": rejected")
    code, out, err = run_cli(capsys, "sessions", "-C", repo, "--until", "2000-01-01")
    assert (code, out) == (0, "") and "no commits" in err
    assert "PAGED:" in on_a_terminal(demo, "sessions", GIT_PAGER=MARK)
    assert SGR in in_a_pipe(demo, "sessions", "--color=always")
    assert SGR not in in_a_pipe(demo, "sessions")


def test_who_says_line_for_one_line(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (demo / "notes.txt").write_text("one line\n")
    git(demo, "add", "notes.txt")
    git(demo, "commit", "-q", "--no-verify", "-m", "a note")
    (demo / "notes.txt").write_text("one line\nand two\nand three\n")
    git(demo, "commit", "-q", "--no-verify", "-am", "more")
    code, out, _ = run_cli(capsys, "who", "notes.txt", "-C", str(demo))
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert sorted(line.split()[1:3] for line in lines) == [["line", "1"], ["lines", "2-3"]]


def test_status_pages_and_colours(demo: Path) -> None:
    shown = on_a_terminal(demo, "status", GIT_PAGER=MARK)
    assert "PAGED:agent:" in shown and f"{SGR}32mverified" in shown
    plain = in_a_pipe(demo, "status")
    assert SGR not in plain and "identity:        verified" in plain
    assert f"{SGR}32mverified" in in_a_pipe(demo, "status", "--color=always")
