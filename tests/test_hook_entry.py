"""Issue 17 item 1: a hook is entered with no click and no command module, and the
shims and the pre-commit framework's entries reach that path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.hooks import dispatch
from git_gasp.hooks.install import shim
from git_gasp.sessions.pushnotes import links, may_link
from tests.conftest import commit_all, git, log_path

ROOT = Path(__file__).resolve().parent.parent

# Run the entry as the console script does, then list what it loaded.
PROBE = (
    "import sys; from git_gasp.entry import main; sys.argv = ['git-gasp', *sys.argv[1:]]; "
    "code = main(); "
    "bad = sorted(m for m in sys.modules if m == 'click' or m.startswith('git_gasp.cli')); "
    "print('loaded:', bad, file=sys.stderr); raise SystemExit(code)"
)


def _probe(repo: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", PROBE, *argv]
    return subprocess.run(cmd, cwd=repo, input=stdin, capture_output=True, text=True)


def _append_event(repo: Path) -> None:
    with log_path(repo).open("a", encoding="utf-8") as fh:
        fh.write(log_path(repo).read_text(encoding="utf-8").splitlines()[-1] + "\n")


def _every_hook(repo: Path) -> tuple[list[tuple[str, ...]], dict[str, str]]:
    """A call of every hook in ``repo`` (its name and arguments), and the
    stdin of those that read one."""
    head = git(repo, "rev-parse", "HEAD").strip()
    message = repo / ".git" / "COMMIT_EDITMSG"
    message.write_text("a change\n")
    zero = "0" * 40
    stdin = {
        "pre-push": f"refs/heads/main {head} refs/heads/main {zero}\n",
        "pre-receive": f"{zero} {head} refs/heads/main\n",
        "post-receive": f"{zero} {head} refs/heads/main\n",
    }
    calls = [
        ("pre-commit",),
        ("prepare-commit-msg", str(message), "message"),
        ("commit-msg", str(message)),
        ("post-commit",),
        ("post-rewrite", "amend"),
        ("pre-push", "origin", "file:///nowhere"),
        ("pre-receive",),
        ("post-receive",),
    ]
    return calls, stdin


def test_every_hook_runs_without_click_or_a_command_module(fixture_repo: Path) -> None:
    calls, stdin = _every_hook(fixture_repo)
    assert {c[0] for c in calls} == set(dispatch.HOOK_NAMES)
    for call in calls:
        done = _probe(fixture_repo, "hooks", "run", *call, stdin=stdin.get(call[0], ""))
        assert "Traceback" not in done.stderr, done.stderr
        assert "loaded: []" in done.stderr, (call, done.stderr)
        assert done.returncode == 0, (call, done.stderr)


def test_a_pre_commit_judging_one_change_loads_no_thread_pool(fixture_repo: Path) -> None:
    # the versions of an append-only file are hashed in threads only when there are
    # many; one staged event must not pay for the pool's imports (logging with them)
    _append_event(fixture_repo)
    git(fixture_repo, "add", "-A")
    probe = PROBE.replace("m == 'click'", "m in ('click', 'concurrent.futures', 'logging')")
    assert probe != PROBE
    cmd = [sys.executable, "-c", probe, "hooks", "run", "pre-commit"]
    done = subprocess.run(cmd, cwd=fixture_repo, capture_output=True, text=True)
    assert "loaded: []" in done.stderr, done.stderr


def test_a_rejection_through_the_fast_path_is_the_documented_one(fixture_repo: Path) -> None:
    lines = log_path(fixture_repo).read_text(encoding="utf-8").splitlines()
    log_path(fixture_repo).write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    git(fixture_repo, "add", "-A")
    done = _probe(fixture_repo, "hooks", "run", "pre-commit")
    assert done.returncode == 1
    assert "[append-only]" in done.stderr or "gasp:" in done.stderr
    assert "Traceback" not in done.stderr
    assert "loaded: []" in done.stderr


def test_usage_errors_on_the_fast_path_are_one_line_and_exit_2(fixture_repo: Path) -> None:
    done = _probe(fixture_repo, "hooks", "run", "commit-msg")
    assert done.returncode == 2
    assert "error: commit-msg needs the message file" in done.stderr
    assert "hint: see `git gasp hooks run -h`" in done.stderr
    assert "loaded: []" in done.stderr


def test_options_and_unknown_hooks_still_go_through_the_command_line(
    fixture_repo: Path,
) -> None:
    done = _probe(fixture_repo, "hooks", "run", "-C", str(fixture_repo), "pre-commit")
    assert done.returncode == 0, done.stderr
    assert "'click'" in done.stderr
    done = _probe(fixture_repo, "hooks", "run", "no-such-hook")
    assert done.returncode == 2
    assert "error:" in done.stderr and "Traceback" not in done.stderr


def test_an_internal_error_in_a_hook_is_a_crash_log_not_a_traceback(
    fixture_repo: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    code = (
        "import sys; import git_gasp.hooks.commithooks as c; "
        "c.pre_commit = lambda *a: 1 / 0; "
        "from git_gasp.hooks import dispatch; "
        "raise SystemExit(dispatch.main(['hooks', 'run', 'pre-commit']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=fixture_repo, env=env, capture_output=True, text=True
    )
    assert done.returncode == 3
    assert "unexpected internal error" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "cache" / "git-gasp" / "crash.log").exists()


@pytest.mark.parametrize("hook", dispatch.HOOK_NAMES)
def test_the_installed_shims_take_the_fast_path(hook: str) -> None:
    for python in (None, sys.executable):
        script = shim(hook, python)
        run = next(line for line in script.splitlines() if f"hooks run {hook}" in line)
        words = run.replace("exec ", "").split()
        argv = words[words.index("hooks") :]
        # git's own arguments take the place of "$@"
        argv = [a for a in argv if a not in {'"$@"', '"$input"', "<"}]
        assert dispatch.routes([*argv, "origin", "https://example.com/a.git"])
        assert dispatch.routes(argv)


def test_the_pre_commit_framework_entries_take_the_fast_path() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    entries = [line.split(":", 1)[1].split() for line in text.splitlines() if "  entry:" in line]
    assert len(entries) == 4
    for entry in entries:
        assert entry[0] == "git-gasp"
        # the framework passes the message file to commit-msg, filenames to none else
        assert dispatch.routes([*entry[1:], ".git/COMMIT_EDITMSG"])


def test_a_commit_through_the_installed_shims_judges_it(fixture_repo: Path) -> None:
    cmd = [sys.executable, "-m", "git_gasp", "hooks", "install", "--python", sys.executable]
    subprocess.run(cmd, cwd=fixture_repo, check=True, capture_output=True)
    _append_event(fixture_repo)  # a duplicated line: the pre-commit hook refuses it
    git(fixture_repo, "add", "-A")
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "dup"], cwd=fixture_repo, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "gasp:" in done.stderr and "Traceback" not in done.stderr
    git(fixture_repo, "reset", "-q", "--hard")
    commit_all(fixture_repo, "nothing")  # a clean tree commits through the hooks


def _counting_hooks(repo: Path, tmp_path: Path, *install: str) -> tuple[Path, dict[str, str]]:
    """The hooks installed (with ``install``'s options) with an interpreter
    that logs each hook it runs: the log, and an environment naming no session."""
    calls = tmp_path / "calls.log"
    wrapper = tmp_path / "python"
    # its arguments: -P -m git_gasp hooks run HOOK ...
    wrapper.write_text(f'#!/bin/sh\necho "$6" >> {calls}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    cmd = [sys.executable, "-m", "git_gasp", "hooks", "install", *install]
    subprocess.run([*cmd, "--python", str(wrapper)], cwd=repo, check=True, capture_output=True)
    return calls, {k: v for k, v in os.environ.items() if k != "AGENT_SESSION"}


def _ran(calls: Path) -> list[str]:
    ran = calls.read_text().split() if calls.exists() else []
    calls.unlink(missing_ok=True)
    return ran


def test_the_shims_start_no_python_when_the_hook_has_nothing_to_do(
    fixture_repo: Path, tmp_path: Path
) -> None:
    calls, env = _counting_hooks(fixture_repo, tmp_path)

    def commit(message: str, **extra: str) -> str:
        (fixture_repo / "notes.txt").write_text(message)
        git(fixture_repo, "add", "notes.txt")
        subprocess.run(
            ["git", "commit", "-q", "-m", message], cwd=fixture_repo, check=True, env=env | extra
        )
        return git(fixture_repo, "log", "-1", "--format=%B")

    _ran(calls)
    commit("plain work")
    assert _ran(calls) == ["pre-commit"]
    # a session named three ways: prepare-commit-msg runs and links it
    assert "Agent-Session: codex:s1" in commit("one", AGENT_SESSION="codex:s1")
    assert "prepare-commit-msg" in _ran(calls)
    git(fixture_repo, "config", "gasp.session", "codex:s2")
    assert "Agent-Session: codex:s2" in commit("two")
    git(fixture_repo, "config", "--unset", "gasp.session")
    active = fixture_repo / ".git" / "gasp" / "active-sessions"
    active.mkdir(parents=True)
    (active / ".codex-s3.json").write_text('{"ref": "codex:s3", "started": "1"}')
    assert "Agent-Session: codex:s3" in commit("three")
    assert _ran(calls).count("prepare-commit-msg") == 2
    (active / ".codex-s3.json").unlink()
    # post-commit: only a message with a marker starts it (here a Run-Id, in any case)
    commit("four\n\nRUN-ID: run_42")
    assert "post-commit" in _ran(calls)
    commit("five: nothing to re-attach")
    assert _ran(calls) == ["pre-commit"]


def test_prepare_commit_msg_starts_python_for_every_active_session_file(
    fixture_repo: Path, tmp_path: Path
) -> None:
    # the hook reads every name ending in .json (sessions/active.py), ".json" too
    calls, env = _counting_hooks(fixture_repo, tmp_path)
    active = fixture_repo / ".git" / "gasp" / "active-sessions"
    active.mkdir(parents=True)
    for name in ("codex-s1.json", ".codex-s2.json", "..json", ".json"):
        (active / name).write_text(json.dumps({"ref": f"codex:{name}", "started": "1"}))
        (fixture_repo / "notes.txt").write_text(name)
        git(fixture_repo, "add", "notes.txt")
        done = subprocess.run(["git", "commit", "-q", "-m", name], cwd=fixture_repo, env=env)
        assert done.returncode == 0
        assert f"Agent-Session: codex:{name}" in git(fixture_repo, "log", "-1", "--format=%B")
        assert "prepare-commit-msg" in _ran(calls)
        (active / name).unlink()


def test_post_receive_starts_python_only_when_a_bypass_is_pending(
    fixture_repo: Path, tmp_path: Path
) -> None:
    # pre-receive leaves an accepted bypass in gasp/bypass-pending/ for
    # post-receive to record (tests/test_bypass.py pushes real ones)
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    calls, env = _counting_hooks(server, tmp_path, "--server")
    _ran(calls)

    def push(message: str) -> None:
        (fixture_repo / "notes.txt").write_text(message)
        git(fixture_repo, "add", "notes.txt")
        git(fixture_repo, "commit", "-q", "--no-verify", "-m", message)
        done = subprocess.run(
            ["git", "push", "-q", str(server), "HEAD:refs/heads/main"],
            cwd=fixture_repo, env=env, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    push("first")
    assert _ran(calls) == ["pre-receive"]
    pending = server / "gasp" / "bypass-pending"
    pending.mkdir(parents=True)
    push("an empty directory: nothing pending")
    assert _ran(calls) == ["pre-receive"]
    (pending / "stale.json").write_text("{}")  # (a push that failed after pre-receive)
    push("a record pending")
    assert _ran(calls) == ["pre-receive", "post-receive"]


def test_the_shims_grep_ignores_grep_options(fixture_repo: Path, tmp_path: Path) -> None:
    # GNU grep before 3.6 prepends $GREP_OPTIONS to its arguments; with -x a
    # message holding a needle would not match and the hook would be skipped
    calls, env = _counting_hooks(fixture_repo, tmp_path)
    old = tmp_path / "old-grep"
    old.mkdir()
    real = shutil.which("grep")
    (old / "grep").write_text(f'#!/bin/sh\nexec {real} $GREP_OPTIONS "$@"\n')
    (old / "grep").chmod(0o755)
    env = env | {"PATH": f"{old}{os.pathsep}{env['PATH']}", "GREP_OPTIONS": "-x"}
    (fixture_repo / "notes.txt").write_text("work")
    git(fixture_repo, "add", "notes.txt")
    message = "work\n\nRun-Id: run_nowhere"
    done = subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=fixture_repo, env=env, capture_output=True
    )
    assert done.returncode == 1 and b"run-id" in done.stderr  # commit-msg judged it
    assert _ran(calls) == ["pre-commit", "commit-msg"]
    done = subprocess.run(
        ["git", "commit", "-q", "--no-verify", "-m", message], cwd=fixture_repo, env=env
    )
    assert done.returncode == 0 and "post-commit" in _ran(calls)


def test_the_shims_in_a_linked_worktree_at_an_odd_path(fixture_repo: Path, tmp_path: Path) -> None:
    # a linked worktree's COMMIT_EDITMSG, note and active sessions live in
    # .git/worktrees/<name>/, here under a path with a space and glob characters
    from git_gasp.agent.api import Agent

    calls, env = _counting_hooks(fixture_repo, tmp_path)
    tree = tmp_path / "linked [tree] *"
    git(fixture_repo, "worktree", "add", "-q", str(tree), "-b", "linked")
    with Agent.open(str(tree), worker="w") as agent:
        agent.record_observation(None, "progress", "in the linked tree")
    git(tree, "add", "state/events.jsonl")
    _ran(calls)
    done = subprocess.run(["git", "commit", "-q", "-m", "observed"], cwd=tree, env=env)
    assert done.returncode == 0 and _ran(calls) == ["pre-commit"]  # the note was found
    log = log_path(tree)
    started = json.loads(next(x for x in log.read_text().splitlines() if '"run.started"' in x))
    finished = {**started, "id": "ev_linked", "kind": "run.finished"}
    finished["payload"] = {"run_id": started["payload"]["run_id"], "outcome": "completed"}
    with log.open("a") as fh:
        fh.write(json.dumps(finished, separators=(",", ":")) + "\n")
    git(tree, "add", "state/events.jsonl")
    done = subprocess.run(["git", "commit", "-q", "-m", "no trailers"], cwd=tree, env=env)
    assert done.returncode == 1 and _ran(calls) == ["pre-commit", "commit-msg"]
    git(tree, "reset", "-q", "--hard")
    git_dir = Path(git(tree, "rev-parse", "--absolute-git-dir").strip())
    active = git_dir / "gasp" / "active-sessions"
    active.mkdir(parents=True)
    (active / "codex-l.json").write_text('{"ref": "codex:linked", "started": "1"}')
    (tree / "notes.txt").write_text("linked")
    git(tree, "add", "notes.txt")
    assert (
        subprocess.run(["git", "commit", "-q", "-m", "linked"], cwd=tree, env=env).returncode == 0
    )
    assert "Agent-Session: codex:linked" in git(tree, "log", "-1", "--format=%B")


def test_commit_msg_runs_whenever_the_staged_log_may_end_a_run(
    fixture_repo: Path, tmp_path: Path
) -> None:
    from git_gasp.agent.api import Agent

    calls, env = _counting_hooks(fixture_repo, tmp_path)
    hooks = fixture_repo / ".git" / "hooks"
    message = fixture_repo / ".git" / "COMMIT_EDITMSG"
    note = fixture_repo / ".git" / "gasp" / "no-run-end"

    def hook(name: str, *args: str) -> int:
        return subprocess.run([str(hooks / name), *args], cwd=fixture_repo, env=env).returncode

    with Agent.open(str(fixture_repo), worker="w") as agent:
        agent.record_observation(None, "progress", "half way")
    git(fixture_repo, "add", "state/events.jsonl")
    _ran(calls)
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "an observation"], cwd=fixture_repo, env=env
    )
    assert done.returncode == 0
    # pre-commit saw the index append no run.finished: commit-msg starts no Python
    assert _ran(calls) == ["pre-commit"] and note.is_file()
    # the same kind of change, but no note for these log versions: commit-msg judges it
    with Agent.open(str(fixture_repo), worker="w") as agent:
        agent.record_observation(None, "progress", "nearly there")
    git(fixture_repo, "add", "state/events.jsonl")
    message.write_text("more\n")
    assert hook("commit-msg", str(message)) == 0 and _ran(calls) == ["commit-msg"]
    git(fixture_repo, "reset", "-q", "--hard")
    # a run.finished appended: pre-commit leaves no note, commit-msg judges and refuses
    log = log_path(fixture_repo)
    started = json.loads(next(x for x in log.read_text().splitlines() if '"run.started"' in x))
    run = started["payload"]["run_id"]
    finished = {**started, "id": "ev_done", "kind": "run.finished"}
    finished["payload"] = {"run_id": run, "outcome": "completed"}
    with log.open("a") as fh:
        fh.write(json.dumps(finished, separators=(",", ":")) + "\n")
    git(fixture_repo, "add", "state/events.jsonl")
    hook("pre-commit")
    message.write_text("closing, no trailers\n")
    assert hook("commit-msg", str(message)) == 1
    assert _ran(calls) == ["pre-commit", "commit-msg"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Run-Id: run_1",
                "rUn-iD:run_2",
                "(cherry picked from commit " + "a" * 40 + ")",
                "Squashed commit of the following:",
                "commit " + "b" * 40,
                "Agent-Session: codex:s",
                "",
                "plain",
                "run-id",
            ]
        )
        | st.text(max_size=20)
    )
)
def test_a_message_that_links_anything_has_a_marker(lines: list[str]) -> None:
    message = "\n".join(lines)
    assert may_link(message) or not links(message)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Run-Id: run_1",
                "AGENT-SESSION: codex:s",
                "Agent-Session: https://x",
                "Claude-Session: abc",
                "Copilot-Session: abc",
                "Agent-Logs-Url: ghp_" + "a" * 36,
                "Goal: -",
                "",
                "plain",
            ]
        )
        | st.text(max_size=20)
    )
)
def test_a_message_the_commit_msg_hook_judges_has_a_needle(lines: list[str]) -> None:
    """With no run appended, commit-msg finds something only in a message
    holding one of NEEDLES, the shim's test."""
    from git_gasp.core.commitmessage import run_id_findings, trailer_findings
    from git_gasp.hooks.commitmsg import NEEDLES

    message = "\n".join(lines)
    folded = message.encode("utf-8", "surrogatepass").lower()
    if not any(n.encode() in folded for n in NEEDLES):
        assert trailer_findings(message, [], "m") == []
        assert run_id_findings(message, [], b"", "m") == []


def test_hooks_status_names_a_shim_an_older_git_gasp_wrote(fixture_repo: Path) -> None:
    cmd = [sys.executable, "-m", "git_gasp", "hooks", "install", "--python", sys.executable]
    subprocess.run(cmd, cwd=fixture_repo, check=True, capture_output=True)
    status = [sys.executable, "-m", "git_gasp", "hooks", "status", "--json"]

    def states() -> dict[str, str]:
        done = subprocess.run(status, cwd=fixture_repo, check=True, capture_output=True)
        found: dict[str, str] = json.loads(done.stdout)["hooks"]
        return found

    assert set(states().values()) == {"gasp"}
    # the post-commit shim as the first git-gasp wrote it: Python on every commit
    shim_path = fixture_repo / ".git" / "hooks" / "post-commit"
    text = shim_path.read_text()
    start = text.index("# nothing to re-attach")
    old = text[:start] + text[text.index("exec ", start) :]
    shim_path.write_text(old)
    assert states()["post-commit"] == "outdated"
    assert subprocess.run(cmd, cwd=fixture_repo, capture_output=True).returncode == 0
    assert states()["post-commit"] == "gasp"


# Modules a hook loaded that define a NamedTuple under `from __future__ import
# annotations`: typing compiles each such string annotation at import (about
# 3.5 ms over a pre-commit hook's 44 classes), so a hook's modules do without it.
STRING_FIELDS = PROBE.replace(
    "bad = sorted(m for m in sys.modules if m == 'click' or m.startswith('git_gasp.cli')); ",
    "src = lambda m: open(m.__file__, encoding='utf-8').read() "
    "if getattr(m, '__file__', None) else ''; "
    "bad = sorted(n for n, m in list(sys.modules.items()) if n.startswith('git_gasp') "
    "and '(NamedTuple)' in src(m) and 'from __future__ import annotations' in src(m)); "
    "bad += ['subprocess'] * ('subprocess' in sys.modules and sys.argv[3] == 'pre-commit'); ",
)


def test_no_hook_loads_a_named_tuple_with_string_annotations_nor_pre_commit_subprocess(
    fixture_repo: Path,
) -> None:
    assert STRING_FIELDS != PROBE  # the probe's check was replaced, not left as it was
    _append_event(fixture_repo)
    git(fixture_repo, "add", "-A")
    calls, stdin = _every_hook(fixture_repo)
    for call in calls:
        cmd = [sys.executable, "-c", STRING_FIELDS, "hooks", "run", *call]
        done = subprocess.run(
            cmd, cwd=fixture_repo, input=stdin.get(call[0], ""), capture_output=True, text=True
        )
        assert "loaded: []" in done.stderr, (call, done.stderr)
