"""Sessions on commits: the prepare-commit-msg hook, transcripts, `sessions` and `who`.

Pure functions on literal messages first, then temp repositories driven through
the CLI and real git (hooks installed with `git gasp hooks install`, one run of
the pre-commit framework), asserted through the log, the notes and git itself.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from git_gasp.agent.api import Agent
from git_gasp.check.conformance import run_all
from git_gasp.core.log import parse_log
from git_gasp.core.notes import NoteRecord, parse_note
from git_gasp.hooks import sessiontrailer as sessionhooks
from git_gasp.sessions.query import commit_sessions, is_squash
from git_gasp.sessions.transcripts import ARTIFACT_KIND
from git_gasp.sessions.who import line_ranges, parse_blame, parse_target

from .conftest import git
from .conftest import run_cli as main

ROOT = Path(__file__).resolve().parent.parent
LOG = "state/events.jsonl"
TRANSCRIPT = b'{"role":"user","text":"fix the retry skill"}\n{"role":"assistant","text":"done"}\n'


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def runs_of(repo: Path) -> list[dict[str, object]]:
    out = git(repo, "log", "--format=%H%x00%(trailers:key=Run-Id,valueonly,separator=)")
    return [{"commit": c, "run_id": r} for c, r in (ln.split("\0") for ln in out.splitlines()) if r]


def message(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "log", "-1", "--format=%B", rev)


# -- session_message and the hook's decisions (pure) -----------------------------------


def test_session_message_adds_once_to_the_final_block() -> None:
    msg = "fix retry\n\nbody text\n\nSigned-off-by: A <a@example.invalid>\n"
    once = sessionhooks.session_message(msg, ["claude:ses_1"])
    assert once == msg + "Agent-Session: claude:ses_1\n"
    assert sessionhooks.session_message(once, ["claude:ses_1"]) == once
    assert sessionhooks.session_message("subject\n", ["a:b", "a:b"]) == (
        "subject\n\nAgent-Session: a:b\n"
    )
    both = sessionhooks.session_message(once, ["codex:cli:7f3a#turn-2"])
    assert both.endswith("Agent-Session: claude:ses_1\nAgent-Session: codex:cli:7f3a#turn-2\n")


def test_session_message_refuses_urls_and_bad_refs() -> None:
    for bad in ("https://claude.ai/code/session_1", "claude", "claude: x", "claude:"):
        with pytest.raises(ValueError, match="not an Agent-Session reference"):
            sessionhooks.session_message("subject\n", [bad])


def test_session_message_keeps_crlf_and_comments() -> None:
    msg = "subject\r\n\r\nRun-Id: r1\r\n# a comment\r\n"
    assert sessionhooks.session_message(msg, ["a:b"]) == (
        "subject\r\n\r\nRun-Id: r1\r\nAgent-Session: a:b\r\n# a comment\r\n"
    )


def test_has_content() -> None:
    assert not sessionhooks.has_content("\n# Please enter the commit message\n#\n")
    assert not sessionhooks.has_content("")
    assert sessionhooks.has_content("subject\n# comment\n")
    scissors = "\n# ------------------------ >8 ------------------------\ndiff --git a b\n"
    assert not sessionhooks.has_content(scissors)


# -- prepare_commit_msg, called directly ------------------------------------------------


class Spawns:
    """Counts the processes started (``git <verb>`` as ``verb``), through
    ``subprocess.Popen``, which ``subprocess.run`` uses too, and through
    ``os.posix_spawnp``, which the short git commands use (git/spawn.py)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.verbs: list[str] = []
        real, real_spawn = subprocess.Popen, os.posix_spawnp

        def note(cmd: list[str]) -> None:
            self.verbs.append(cmd[3] if cmd[:2] == ["git", "-C"] else cmd[0])

        def popen(cmd: list[str], *args: object, **kwargs: object) -> object:
            note(cmd)
            return real(cmd, *args, **kwargs)  # type: ignore[call-overload]

        def spawn(path: str, argv: list[str], *args: Any, **kwargs: Any) -> int:
            note(argv)
            return real_spawn(path, argv, *args, **kwargs)

        monkeypatch.setattr(subprocess, "Popen", popen)
        monkeypatch.setattr(os, "posix_spawnp", spawn)

    @property
    def count(self) -> int:
        return len(self.verbs)


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    repo = tmp_path / "plain"
    repo.mkdir()
    git(repo, "init", "-q")
    return repo


def run_hook(repo: Path, text: bytes, env: dict[str, str], *args: str) -> bytes:
    path = repo / ".git" / "COMMIT_EDITMSG"
    path.write_bytes(text)
    sessionhooks.prepare_commit_msg(str(repo), str(path), list(args), env)
    return path.read_bytes()


def test_hook_from_the_environment_starts_no_git(
    plain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawns = Spawns(monkeypatch)
    body = b"subject \xff\r\n\r\nbody\r\n"  # not UTF-8, CRLF: kept byte for byte
    got = run_hook(plain, body, {"AGENT_SESSION": " claude:ses_1 "}, "message")
    assert got == body + b"\r\nAgent-Session: claude:ses_1\r\n"
    assert spawns.count == 0


def test_hook_reads_git_config_once_and_does_nothing_when_unset(
    plain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawns = Spawns(monkeypatch)
    assert run_hook(plain, b"subject\n", {}, "message") == b"subject\n"
    assert spawns.count == 1, spawns.verbs
    git(plain, "config", "gasp.session", "codex:cli:7f3a")
    before = spawns.count
    assert run_hook(plain, b"subject\n", {"AGENT_SESSION": ""}) == (
        b"subject\n\nAgent-Session: codex:cli:7f3a\n"
    )
    assert spawns.verbs[before:] == ["config"]


def test_hook_warns_on_an_invalid_session_and_adds_nothing(
    plain: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"AGENT_SESSION": "https://claude.ai/code/session_01"}
    assert run_hook(plain, b"subject\n", env, "message") == b"subject\n"
    err = capsys.readouterr().err
    assert "$AGENT_SESSION 'https://claude.ai/code/session_01' is not an Agent-Session" in err


@pytest.mark.parametrize(
    ("text", "args"),
    [
        (b"\n# Please enter the commit message for your changes.\n", ()),  # editor: empty
        (b"template text\n", ("template",)),  # an unedited template must still abort
    ],
)
def test_hook_leaves_messages_git_must_be_able_to_abort(
    plain: Path, text: bytes, args: tuple[str, ...]
) -> None:
    assert run_hook(plain, text, {"AGENT_SESSION": "claude:ses_1"}, *args) == text


def test_hook_leaves_replayed_commits_alone(plain: Path) -> None:
    (plain / ".git" / "rebase-merge").mkdir()
    assert run_hook(plain, b"picked\n", {"AGENT_SESSION": "a:b"}, "message") == b"picked\n"


# -- the hook in real commits -----------------------------------------------------------


def commit(repo: Path, *args: str, session: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AGENT_SESSION"}
    if session is not None:
        env["AGENT_SESSION"] = session
    return subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", *args], capture_output=True, text=True, env=env
    )


@pytest.fixture
def hooked(work: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(work))
    assert code == 0, err
    return work


def sessions_in(repo: Path, rev: str = "HEAD") -> list[str]:
    out = git(repo, "log", "-1", "--format=%(trailers:key=Agent-Session,valueonly)", rev)
    return out.split()


def test_native_hook_adds_the_trailer_once(hooked: Path) -> None:
    (hooked / "notes.txt").write_text("one\n")
    git(hooked, "add", "notes.txt")
    done = commit(hooked, "-m", "add notes", session="claude:ses_1")
    assert done.returncode == 0, done.stderr
    assert message(hooked) == "add notes\n\nAgent-Session: claude:ses_1\n\n"
    amended = commit(hooked, "--amend", "--no-edit", session="claude:ses_1")
    assert amended.returncode == 0, amended.stderr
    assert sessions_in(hooked) == ["claude:ses_1"]
    again = commit(hooked, "--amend", "-m", message(hooked).rstrip(), session="claude:ses_1")
    assert again.returncode == 0, again.stderr
    assert sessions_in(hooked) == ["claude:ses_1"]


def test_native_hook_reads_git_config_and_does_nothing_unset(hooked: Path) -> None:
    (hooked / "a.txt").write_text("a\n")
    git(hooked, "add", "a.txt")
    assert commit(hooked, "-m", "plain").returncode == 0
    assert message(hooked) == "plain\n\n"
    git(hooked, "config", "gasp.session", "codex:cli:7f3a")
    (hooked / "b.txt").write_text("b\n")
    git(hooked, "add", "b.txt")
    assert commit(hooked, "-m", "configured").returncode == 0
    assert sessions_in(hooked) == ["codex:cli:7f3a"]
    (hooked / "c.txt").write_text("c\n")
    git(hooked, "add", "c.txt")
    assert commit(hooked, "-m", "env wins", session="claude:ses_9").returncode == 0
    assert sessions_in(hooked) == ["claude:ses_9"]


def test_native_hook_with_a_bad_session_commits_without_it(hooked: Path) -> None:
    (hooked / "a.txt").write_text("a\n")
    git(hooked, "add", "a.txt")
    done = commit(hooked, "-m", "bad env", session="https://example.invalid/s/1")
    assert done.returncode == 0, done.stderr
    assert "is not an Agent-Session reference" in done.stderr
    assert sessions_in(hooked) == []


TOKEN = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"


def test_a_credential_never_becomes_a_session_trailer(
    hooked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (hooked / "a.txt").write_text("a\n")
    git(hooked, "add", "a.txt")
    done = commit(hooked, "-m", "pasted a token", session=f"claude:{TOKEN}")
    assert done.returncode == 0, done.stderr
    assert "$AGENT_SESSION looks like it holds a GitHub token (ghp_…)" in done.stderr
    assert TOKEN not in done.stderr and sessions_in(hooked) == []
    # written by hand, commit-msg refuses it (and pre-push and pre-receive judge alike)
    (hooked / "b.txt").write_text("b\n")
    git(hooked, "add", "b.txt")
    for key in ("Agent-Session", "Claude-Session"):
        done = commit(hooked, "-m", f"by hand\n\n{key}: claude:{TOKEN}")
        assert done.returncode == 1
        assert f"[trailer] {key} looks like it holds a GitHub token" in done.stderr
    assert main(capsys, "run", "start", "--task", "t", "-C", str(hooked))[0] == 0
    code, _, err = main(
        capsys, "run", "close", "--outcome", "ok", "--session", f"claude:{TOKEN}", "-C", str(hooked)
    )
    assert code == 2 and "--session looks like it holds a GitHub token" in err


def test_who_in_a_shallow_clone_says_where_history_is_cut(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{work}", str(shallow))
    code, out, err = main(capsys, "who", "AGENT.md", "-C", str(shallow))
    assert code == 0, err
    assert "history cut here (a shallow clone)" in out and "run " not in out
    code, out, _ = main(capsys, "who", "AGENT.md", "-C", str(shallow), "--json")
    assert [c["shallow_boundary"] for c in json.loads(out)["commits"]] == [True]
    code, out, _ = main(capsys, "who", "AGENT.md", "-C", str(work), "--json")
    assert {c["shallow_boundary"] for c in json.loads(out)["commits"]} == {False}


def test_native_hook_does_not_stamp_a_rebase(hooked: Path) -> None:
    base = git(hooked, "rev-parse", "HEAD").strip()
    git(hooked, "checkout", "-q", "-b", "side")
    (hooked / "side.txt").write_text("side\n")
    git(hooked, "add", "side.txt")
    assert commit(hooked, "-m", "side work").returncode == 0
    git(hooked, "checkout", "-q", "-")
    (hooked / "main.txt").write_text("main\n")
    git(hooked, "add", "main.txt")
    assert commit(hooked, "-m", "main work").returncode == 0
    git(hooked, "checkout", "-q", "side")
    env = {**os.environ, "AGENT_SESSION": "claude:ses_1"}
    rebased = subprocess.run(
        ["git", "-C", str(hooked), "rebase", "-q", "main"], capture_output=True, text=True, env=env
    )
    assert rebased.returncode == 0, rebased.stderr
    assert git(hooked, "rev-parse", "HEAD~2").strip() == base
    assert sessions_in(hooked) == []


# with tests/test_precommit_framework.py: one worker, one environment for the hooks
@pytest.mark.xdist_group("pre-commit-framework")
def test_pre_commit_framework_hook(
    work: Path, precommit_hooks: tuple[Path, dict[str, str]]
) -> None:
    """`gasp-session-trailer` from .pre-commit-hooks.yaml, in a real commit."""
    hooks, shared = precommit_hooks
    env = {k: v for k, v in shared.items() if not k.startswith("AGENT_SESSION")}
    rev = git(hooks, "rev-parse", "HEAD").strip()
    (work / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hooks}\n  rev: {rev}\n  hooks:\n  - id: gasp-session-trailer\n"
    )

    def run(*cmd: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            cmd, cwd=work, env={**env, **extra}, capture_output=True, text=True, timeout=600
        )

    installed = run("pre-commit", "install", "--hook-type", "prepare-commit-msg")
    assert installed.returncode == 0, installed.stderr
    git(work, "add", ".pre-commit-config.yaml")
    done = run("git", "commit", "-q", "-m", "config", AGENT_SESSION="claude:ses_pc")
    assert done.returncode == 0, done.stdout + done.stderr
    assert message(work) == "config\n\nAgent-Session: claude:ses_pc\n\n"
    amended = run("git", "commit", "-q", "--amend", "--no-edit", AGENT_SESSION="claude:ses_pc")
    assert amended.returncode == 0, amended.stdout + amended.stderr
    assert sessions_in(work) == ["claude:ses_pc"]


# -- transcript add ---------------------------------------------------------------------


def transcript_file(tmp_path: Path, data: bytes = TRANSCRIPT) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    return path


def note_of(repo: Path, commit: str) -> bytes:
    from git_gasp.sessions import notes as sessionnotes

    note = sessionnotes.read_note(str(repo), commit)
    assert note is not None
    return note


def test_transcript_add_on_a_closed_run(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boundary = runs_of(work)[0]
    run_id, commit_id = str(boundary["run_id"]), str(boundary["commit"])
    source = transcript_file(tmp_path)
    code, out, err = main(capsys, "transcript", "add", run_id, str(source), "-C", str(work))
    assert code == 0, err
    added = json.loads(
        main(capsys, "transcript", "add", run_id, str(source), "-C", str(work), "--json")[1]
    )
    stored = work / "transcripts" / f"{run_id}.jsonl.gz"
    data = stored.read_bytes()
    # deterministic gzip: no file name (FLG 0), mtime 0, and it holds the transcript
    assert data[3] == 0 and data[4:8] == b"\0\0\0\0"
    assert gzip.decompress(data) == TRANSCRIPT
    assert added["digest"] == sha256(data) and added["bytes"] == len(data)
    assert added["raw_digest"] == sha256(TRANSCRIPT) and added["raw_bytes"] == len(TRANSCRIPT)
    assert added["written"] is False and added["event"] is None  # the second add: a no-op
    assert "/transcripts" in (work / ".gitignore").read_text().splitlines()
    assert git(work, "check-ignore", f"transcripts/{run_id}.jsonl.gz").strip()
    assert "transcripts" not in git(work, "status", "--porcelain", "--untracked-files=all")
    # the run's events record it, once, and the log is still conformant
    with Agent.open(str(work), worker="test") as agent:
        arts = [a for a in agent.graph.nodes[run_id].artifacts if a.kind == ARTIFACT_KIND]
        events = [e for e in agent.run_events(run_id) if e.kind == "artifact.attached"]
    assert [a.hash for a in arts] == [added["digest"]]
    assert arts[0].uri == f"file://transcripts/{run_id}.jsonl.gz"
    assert len(events) == 1
    assert [r.failures for r in run_all(str(work))] == [()] * 7
    assert f"noted on commit {commit_id[:12]}" in out
    # the boundary commit's note: a reference and a digest, never transcript bytes
    note = note_of(work, commit_id)
    records, problems = parse_note(note)
    assert not problems
    assert (
        NoteRecord(
            "demo-agent:demo:session-2",
            "transcript",
            added["digest"],
            len(data),
            run=run_id,
            path=f"transcripts/{run_id}.jsonl.gz",
        )
        in records
    )
    assert b"fix the retry skill" not in note and data not in note
    # `git gasp notes verify` recomputes the same digest from the stored file
    code, out, err = main(capsys, "notes", "verify", "-C", str(work), "--json")
    assert code == 0, err
    counts = json.loads(out)["counts"]
    # the transcript record, and the run records run close wrote on the demo's commits
    assert counts["match"] == 3 and counts["mismatch"] == counts["missing"] == 0


def test_transcript_add_refuses_a_different_transcript_and_bad_input(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = str(runs_of(work)[0]["run_id"])
    first = transcript_file(tmp_path)
    assert main(capsys, "transcript", "add", run_id, str(first), "-C", str(work))[0] == 0
    before = (work / LOG).read_bytes()
    other = tmp_path / "other.jsonl"
    other.write_bytes(b'{"role":"user"}\n')
    code, _, err = main(capsys, "transcript", "add", run_id, str(other), "-C", str(work))
    assert code == 1 and "already holds a different transcript" in err
    code, _, err = main(capsys, "transcript", "add", "run_nope", str(first), "-C", str(work))
    assert code == 2 and "run_nope is not a node of the log" in err
    with Agent.open(str(work), worker="test") as agent:
        goal = next(n.id for n in agent.graph.nodes.values() if n.kind == "goal")
    code, _, err = main(capsys, "transcript", "add", goal, str(first), "-C", str(work))
    assert code == 2 and "is not a run" in err
    missing = tmp_path / "missing.jsonl"
    code, _, err = main(capsys, "transcript", "add", run_id, str(missing), "-C", str(work))
    assert code == 2 and "not a readable file" in err
    code, _, err = main(capsys, "transcript", "add", run_id, str(tmp_path), "-C", str(work))
    assert code == 2
    assert (work / LOG).read_bytes() == before


def test_transcript_add_on_an_open_run_then_close(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = main(capsys, "run", "start", "--task", "t", "-C", str(work), "--json")
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    source = transcript_file(tmp_path)
    code, out, err = main(
        capsys, "transcript", "add", run_id, str(source), "-C", str(work), "--json"
    )
    assert code == 0, err
    added = json.loads(out)
    assert added["commit"] is None and "no boundary commit yet" in added["note_skipped"]
    event = next(e for e in parse_log((work / LOG).read_bytes()).events if e.id == added["event"])
    assert event.kind == "artifact.attached" and event.correlation_id == run_id
    code, _, err = main(capsys, "run", "close", "--outcome", "done", "-C", str(work))
    assert code == 0, err
    assert [r.failures for r in run_all(str(work))] == [()] * 7
    assert "transcripts" not in git(work, "show", "--stat", "--format=", "HEAD")


def test_transcript_add_without_a_session_skips_the_note(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = main(capsys, "run", "start", "--task", "t", "-C", str(work), "--json")
    run_id = json.loads(out)["run_id"]
    assert main(capsys, "run", "close", "--outcome", "done", "-C", str(work))[0] == 0
    source = transcript_file(tmp_path)
    code, _, err = main(capsys, "transcript", "add", run_id, str(source), "-C", str(work))
    assert code == 0, err
    assert "has no Agent-Session trailer" in err
    assert git(work, "notes", "--ref", "agent-sessions", "list", "HEAD", check=False) == ""


def test_transcript_add_can_be_committed_when_opted_in(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(work, "config", "gasp.commitTranscripts", "true")
    before = (work / ".gitignore").read_bytes()
    run_id = str(runs_of(work)[0]["run_id"])
    source = transcript_file(tmp_path)
    assert main(capsys, "transcript", "add", run_id, str(source), "-C", str(work))[0] == 0
    assert (work / ".gitignore").read_bytes() == before
    status = git(work, "status", "--porcelain", "--untracked-files=all")
    assert f"?? transcripts/{run_id}.jsonl.gz" in status


# -- sessions ---------------------------------------------------------------------------


def test_commit_sessions_reads_trailers_aliases_squashes_and_notes() -> None:
    msg = (
        "subject\n\nThe body mentions\nAgent-Session: forged:x\n\n"
        "Claude-Session: https://claude.ai/code/session_01\n"
        "Copilot-Session: 3f2a\n"
        "Agent-Logs-Url: https://github.com/o/r/sessions/9b1\n"
        "Agent-Session: claude:ses_1\nRun-Id: run_1\n"
    )
    note = b'{"kind":"session","session":"codex:cli:7","v":1}\n'
    found = commit_sessions("c" * 40, msg, note)
    assert not found.squash
    assert [(lk.session, lk.source, lk.key) for lk in found.links] == [
        ("claude:session_01", "alias", "Claude-Session"),
        ("copilot:3f2a", "alias", "Copilot-Session"),
        ("copilot:9b1", "alias", "Agent-Logs-Url"),
        ("claude:ses_1", "trailer", "Agent-Session"),
        ("codex:cli:7", "note", None),
    ]
    assert found.runs == ("run_1",)


def test_squash_commits_are_scanned_and_marked() -> None:
    github = "feature (#12)\n\n* one\n\nAgent-Session: a:1\n\n* two\n\nAgent-Session: b:2\n"
    merge = (
        "Squashed commit of the following:\n\ncommit 0123\nAuthor: A\n\n"
        "    one\n\n    Agent-Session: a:1\n"
    )
    assert is_squash(github) and is_squash(merge)
    assert not is_squash("subject\n\nAgent-Session: a:1\n")
    assert not is_squash("subject\n\nsee Agent-Session: a:1 in prose\n\nbody\n")
    found = commit_sessions("c" * 40, github, None)
    assert [(lk.session, lk.source) for lk in found.links] == [
        ("b:2", "trailer"),
        ("a:1", "squash-body"),
    ]
    assert [lk.source for lk in commit_sessions("c" * 40, merge, None).links] == ["squash-body"]


def add_commit(repo: Path, name: str, msg: str) -> str:
    (repo / name).write_text(name + "\n")
    git(repo, "add", name)
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-F", "-"], input=msg, text=True, check=True
    )
    return git(repo, "rev-parse", "HEAD").strip()


def test_sessions_over_a_range(
    plain: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_gasp.sessions import notes as sessionnotes

    first = add_commit(plain, "a", "one\n\nAgent-Session: claude:ses_1\n")
    add_commit(plain, "b", "two\n\nClaude-Session: https://claude.ai/code/session_02\n")
    git(plain, "checkout", "-q", "-b", "feature")
    add_commit(plain, "c", "three\n\nAgent-Session: codex:cli:3\n")
    git(plain, "checkout", "-q", "main")
    git(plain, "merge", "-q", "--squash", "feature")
    subprocess.run(["git", "-C", str(plain), "commit", "-q", "--no-edit"], check=True)
    plain_commit = add_commit(plain, "d", "four\n\nmentions Agent-Session: x:y\n")
    sessionnotes.add_records(str(plain), first, [NoteRecord("claude:ses_1", "session")])
    sessionnotes.add_records(str(plain), plain_commit, [NoteRecord("codex:cli:4", "session")])
    spawns = Spawns(monkeypatch)
    code, out, err = main(capsys, "sessions", "-C", str(plain), "--json")
    assert code == 0, err
    assert spawns.verbs.count("log") == 1, spawns.verbs  # one git log for the range
    assert spawns.count <= 6, spawns.verbs  # and a few for the notes, none per commit
    doc = json.loads(out)
    assert doc["format"] == "git-gasp.sessions/1" and doc["range"] == "HEAD"
    by_subject = {c["subject"]: c for c in doc["commits"]}
    assert by_subject["four"]["links"] == [
        {"session": "codex:cli:4", "source": "note", "kind": "session"}
    ]
    assert by_subject["one"]["sessions"] == ["claude:ses_1"]
    assert [lk["source"] for lk in by_subject["one"]["links"]] == ["trailer", "note"]
    assert by_subject["two"]["links"] == [
        {"session": "claude:session_02", "source": "alias", "key": "Claude-Session"}
    ]
    squash = by_subject["Squashed commit of the following:"]
    assert squash["squash"] is True
    assert squash["links"] == [
        {"session": "codex:cli:3", "source": "squash-body", "key": "Agent-Session"}
    ]
    code, out, _ = main(capsys, "sessions", "HEAD~1..HEAD", "-C", str(plain))
    assert code == 0
    assert out == f"{plain_commit[:12]}  four  codex:cli:4 (note session)\n"
    code, out, _ = main(capsys, "sessions", "-C", str(plain))
    assert "claude:ses_1 (trailer, note session)  " not in out
    assert f"{first[:12]}  one  claude:ses_1 (trailer, note session)" in out
    assert "codex:cli:3 (squash body Agent-Session, unverified)" in out
    code, _, err = main(capsys, "sessions", "no-such-rev", "-C", str(plain))
    assert code == 2 and "error:" in err


def test_sessions_in_an_empty_repository(plain: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = main(capsys, "sessions", "-C", str(plain))
    assert code == 0 and out == "" and "no commits" in err


# -- who --------------------------------------------------------------------------------


def test_parse_target_blame_and_ranges() -> None:
    assert parse_target("state/events.jsonl:12") == ("state/events.jsonl", 12)
    assert parse_target("a:b") == ("a:b", None)
    assert parse_target("README.md") == ("README.md", None)
    sha = "a" * 40
    out = (f"{sha} 1 1 2\nauthor A\nfilename x.txt\n\tfirst\n{sha} 2 2\n\tsecond\n").encode()
    assert [(b.commit, b.line, b.text, b.filename) for b in parse_blame(out)] == [
        (sha, 1, "first", "x.txt"),
        (sha, 2, "second", "x.txt"),
    ]
    assert line_ranges([5, 1, 2, 3, 7]) == ((1, 3), (5, 5), (7, 7))


def test_who_names_the_event_run_and_session_of_a_log_line(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    boundary = runs_of(work)[0]  # the newest run
    events = parse_log((work / LOG).read_bytes()).events
    number = next(i for i, e in enumerate(events, 1) if e.correlation_id == boundary["run_id"])
    monkeypatch.chdir(work)
    code, out, err = main(capsys, "who", f"{LOG}:{number}", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["format"] == "git-gasp.who/1" and doc["line"] == number
    [found] = doc["commits"]
    assert found["commit"] == boundary["commit"]
    assert found["runs"] == [boundary["run_id"]]
    assert found["sessions"] == ["demo-agent:demo:session-2"]
    assert found["lines"] == [[number, number]]
    event = events[number - 1]
    assert doc["event"] == {"id": event.id, "kind": event.kind, "run": boundary["run_id"]}
    code, out, _ = main(capsys, "who", f"{LOG}:{number}")
    assert f"event {event.id}  {event.kind}  run {boundary['run_id']}" in out
    assert "demo-agent:demo:session-2 (trailer, note run, note session)" in out


def test_who_on_a_journal_line_and_a_whole_file(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = runs_of(work)
    journal = (work / "journal" / "JOURNAL.md").read_text().splitlines()
    number = max(i for i, line in enumerate(journal, 1) if runs[0]["run_id"] in line)
    code, out, err = main(capsys, "who", f"journal/JOURNAL.md:{number}", "-C", str(work), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["event"] is None
    assert [c["runs"] for c in doc["commits"]] == [[runs[0]["run_id"]]]
    code, out, err = main(capsys, "who", LOG, "-C", str(work), "--json")
    assert code == 0, err
    doc = json.loads(out)
    covered = [n for c in doc["commits"] for a, b in c["lines"] for n in range(a, b + 1)]
    assert sorted(covered) == list(range(1, len((work / LOG).read_bytes().splitlines()) + 1))
    assert {r for c in doc["commits"] for r in c["runs"]} == {r["run_id"] for r in runs}


def test_who_errors(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = main(capsys, "who", "nope.txt", "-C", str(work))
    assert code == 2 and "nope.txt is not in HEAD" in err
    lines = len((work / LOG).read_bytes().splitlines())
    code, _, err = main(capsys, "who", f"{LOG}:{lines + 1}", "-C", str(work))
    assert code == 2 and f"out of range, the file has {lines} lines at HEAD" in err
    code, _, err = main(capsys, "who", f"{LOG}:0", "-C", str(work))
    assert code == 2 and "numbered from 1" in err


@pytest.fixture(autouse=True)
def _no_agent_session(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("AGENT_SESSION", raising=False)
    yield
