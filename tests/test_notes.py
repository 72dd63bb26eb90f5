"""Session notes under refs/notes/agent-sessions with real git: add, show, list,
verify; rewrites (amend, rebase, cherry-pick, squash) keep them; two clones sync
to the union; the server hook judges notes pushes."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp import git as gitrepo
from git_gasp.core import notes as notefmt
from git_gasp.core.notes import NoteRecord, check_note, parse_note
from git_gasp.sessions import notes as sessionnotes
from git_gasp.sessions import pushnotes as notehooks
from git_gasp.sessions import sync as notesync

from .conftest import commit_all, git
from .conftest import run_cli as main

REF = "refs/notes/agent-sessions"
SECRET = "the user said: deploy on friday"


def main_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = main(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def note_of(repo: Path, rev: str = "HEAD") -> bytes | None:
    return sessionnotes.read_note(str(repo), rev)


def records_of(repo: Path, rev: str = "HEAD") -> set[NoteRecord]:
    note = note_of(repo, rev)
    assert note is not None, f"no note on {rev}"
    records, problems = parse_note(note)
    assert not problems, problems
    return set(records)


def add(repo: Path, rev: str, session: str, *extra: str) -> None:
    """``git gasp notes add`` in this process, as :func:`main` runs the other
    commands here (tests/test_precommit_framework.py runs it as a process)."""
    from git_gasp.cli import root as cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["notes", "add", rev, "--session", session, *extra, "-C", str(repo)])
    assert code == 0, err.getvalue()
    assert "Traceback" not in out.getvalue() + err.getvalue()


def rev(repo: Path, name: str = "HEAD") -> str:
    return git(repo, "rev-parse", name).strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    (path / "README").write_text("hello\n")
    commit_all(path, "first")
    return path


@pytest.fixture
def agent(template: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "agent"
    shutil.copytree(template, dest, symlinks=True)
    return dest


def install_hooks(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(repo))
    assert code == 0, err


def make_agent(repo: Path) -> None:
    """Turn the plain ``repo`` into an agent repository (its files committed)."""
    from git_gasp.agent import init_repo

    init_repo(str(repo), "notes")
    commit_all(repo, "agent")


def real_run(repo: Path, run_id: str, *paths: str) -> str:
    """A real run ``run_id`` of the agent ``repo``, closed ``promoted`` with
    ``paths``: its boundary commit (``Run-Id``, ``Goal: -``, ``Outcome``)."""
    from git_gasp.agent import Agent, close_run

    with Agent.open(str(repo), worker="w") as agent:
        agent.start_run("a real run", run_id=run_id)
        closed = close_run(agent, "promoted", paths=paths)
    assert closed.commit is not None
    return closed.commit


# -- pure parts -----------------------------------------------------------------------


def test_notes_ref_is_the_formats() -> None:
    assert sessionnotes.NOTES_REF == notefmt.NOTES_REF == REF


def test_run_range_reads_correlation_ids() -> None:
    lines = [
        {"id": "e1", "correlation_id": None},
        {"id": "e2", "correlation_id": "run_a"},
        {"id": "e3", "correlation_id": "run_b", "payload": {"note": "run_a"}},
        {"id": "e4", "correlation_id": "run_a"},
    ]
    log = b"".join(json.dumps(x).encode() + b"\n" for x in lines) + b'{"torn": "run_a'
    assert sessionnotes.run_range(log, "run_a") == ("e2", "e4")
    assert sessionnotes.run_range(log, "run_c") is None


def _split_range(log: bytes, run_id: str) -> tuple[str, str] | None:
    """run_range as it was: every line parsed (the reference for the search)."""
    ids = []
    for line in log.split(b"\n"):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("correlation_id") == run_id:
            if isinstance(obj.get("id"), str) and obj["id"]:
                ids.append(obj["id"])
    return (ids[0], ids[-1]) if ids else None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "e1", "e2", "run_a"]),
            st.sampled_from([None, "run_a", "run_b", "run_aa"]),
            st.sampled_from(["", "run_a", '"run_a"', "x"]),
            st.booleans(),
        ),
        max_size=8,
    ),
    st.sampled_from(["", "\n", '{"torn": "run_a', '"run_a"']),
)
def test_run_range_finds_what_parsing_every_line_finds(
    rows: list[tuple[str, str | None, str, bool]], tail: str
) -> None:
    lines = []
    for ident, corr, note, good in rows:
        text = json.dumps({"id": ident, "correlation_id": corr, "payload": {"n": note}})
        lines.append(text if good else text[:-3])  # a line that does not parse
    log = ("\n".join(lines) + tail).encode()
    for run_id in ("run_a", "run_b", "e1"):
        assert sessionnotes.run_range(log, run_id) == _split_range(log, run_id)


def test_links_of_messages() -> None:
    a, b = "a" * 40, "b" * 40
    assert not notehooks.links("fix a bug\n\nSigned-off-by: Me <me@example.com>\n")
    assert not notehooks.links("agent work\n\nAgent-Session: claude:s1\n")
    picked = notehooks.links(f"fix\n\n(cherry picked from commit {a})\n")
    assert picked.picked == (a,) and not picked.squashed
    squash = (
        f"Squashed commit of the following:\n\ncommit {a}\nAuthor: A <a@x>\n\n"
        f"    one\n\n    Run-Id: run_1\n    Agent-Session: claude:s1\n\ncommit {b}\n"
        "Author: A <a@x>\n\n    two\n\n    Claude-Session: s2\n"
    )
    found = notehooks.links(squash)
    assert found.squashed == (a, b)
    assert (found.runs, found.squashed_runs) == ((), ("run_1",))
    assert found.sessions == ("claude:s1", "claude:s2")
    assert notehooks.links("run r: ok\n\nRun-Id: run_9\n").runs == ("run_9",)
    # a Run-Id outside the final trailer block quotes a run; no commit list, no squash
    assert not notehooks.links("r\n\nRun-Id: run_9\nsee above\n\nFixes #1\n")
    assert not notehooks.links("Squashed commit of the following:\n\n    Run-Id: run_9\n")


def test_rewrite_pairs() -> None:
    a, b, c = "a" * 40, "b" * 40, "c" * 64
    lines = [f"{a} {b}", f"{a} {c} extra", "", "garbage", f"{a}"]
    assert notehooks.rewrite_pairs(lines) == [(a, b), (a, c)]


@pytest.mark.parametrize(
    "text, outcome",
    [
        (" ! [rejected]        refs/notes/agent-sessions -> refs/notes/agent-sessions "
         "(fetch first)", "retry"),
        (" ! [rejected]  refs/notes/agent-sessions (non-fast-forward)", "retry"),
        (" ! [remote rejected] refs/notes/agent-sessions (cannot lock ref "
         "'refs/notes/agent-sessions': is at 1 but expected 2)", "retry"),
        (" ! [remote rejected] refs/notes/agent-sessions (failed to update ref)", "retry"),
        (" ! [remote rejected] refs/notes/agent-sessions (pre-receive hook declined)",
         "declined"),
        (" ! [remote rejected] refs/notes/agent-sessions (unpacker error)", "declined"),
        ("fatal: unable to access 'https://example.invalid/': Could not resolve host", "failed"),
    ],
)  # fmt: skip
def test_push_outcome(text: str, outcome: str) -> None:
    assert notesync.push_outcome(1, text) == outcome
    assert notesync.push_outcome(0, text) == "ok"


# -- add, show, list --------------------------------------------------------------------


def test_add_show_list(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inside = repo / "transcripts" / "run_1.jsonl.gz"
    inside.parent.mkdir()
    inside.write_bytes(gzip.compress((SECRET + "\n").encode()))
    outside = tmp_path / "raw.jsonl"
    outside.write_text(SECRET + "\n")
    commit = rev(repo)
    code, out, err = main(
        capsys,
        *("notes", "add", "HEAD", "--session", "claude:ses_1", "-C", str(repo)),
        *("--transcript", str(inside), "--transcript", str(outside)),
    )
    assert code == 0, err
    assert f"noted {commit[:12]}: 3 new records" in out
    digest = "sha256:" + hashlib.sha256(inside.read_bytes()).hexdigest()
    assert records_of(repo) == {
        NoteRecord("claude:ses_1", "session"),
        NoteRecord(
            "claude:ses_1",
            "transcript",
            digest=digest,
            bytes=inside.stat().st_size,
            path="transcripts/run_1.jsonl.gz",
        ),
        NoteRecord(
            "claude:ses_1",
            "transcript",
            digest="sha256:" + hashlib.sha256(outside.read_bytes()).hexdigest(),
            bytes=outside.stat().st_size,
        ),
    }
    shown = main_json(capsys, "notes", "show", "-C", str(repo))
    assert shown["commit"] == commit and not shown["problems"]
    assert {r["kind"] for r in shown["records"]} == {"session", "transcript"}
    code, out, _ = main(capsys, "notes", "show", commit, "-C", str(repo))
    assert code == 0 and "transcripts/run_1.jsonl.gz" in out and digest in out
    listed = main_json(capsys, "notes", "list", "-C", str(repo))
    assert listed["commits"] == [
        {"commit": commit, "records": 3, "sessions": ["claude:ses_1"], "runs": []}
    ]
    # the notes commit: a real identity and a conventional message
    info = git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", REF).strip()
    assert info == (
        f"Test Author <author@example.invalid>|Test Committer <committer@example.invalid>"
        f"|gasp: notes for {commit[:12]}"
    )
    # adding the same records again writes nothing
    tip = rev(repo, REF)
    code, out, _ = main(
        capsys, "notes", "add", "HEAD", "--session", "claude:ses_1", "-C", str(repo)
    )
    assert code == 0 and "0 new records, 3 in all" in out
    assert rev(repo, REF) == tip


def test_a_note_never_holds_transcript_bytes(repo: Path) -> None:
    transcript = repo / "transcripts" / "run_1.jsonl"
    transcript.parent.mkdir()
    transcript.write_text(SECRET + "\n")
    add(repo, "HEAD", "claude:ses_1", "--transcript", str(transcript), "--run", "run_1")
    note = note_of(repo)
    assert note is not None and SECRET.encode() not in note
    # nothing anywhere in the notes history carries it either
    everything = git(repo, "log", "-p", "--format=%B", REF)
    assert SECRET not in everything and "run_1" in everything


def test_show_and_list_without_notes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = main(capsys, "notes", "show", "-C", str(repo))
    assert code == 0 and out.startswith("no note on")
    assert main_json(capsys, "notes", "show", "-C", str(repo))["note"] is None
    assert main_json(capsys, "notes", "list", "-C", str(repo))["commits"] == []
    code, _, err = main(capsys, "notes", "list", "nosuch..HEAD", "-C", str(repo))
    assert code == 2 and "error:" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--session", "https://claude.ai/code/session_1"], "looks like a URL"),
        (["--session", "just-a-name"], "not an Agent-Session reference"),
        (["--session", "claude:s1", "--run", "https://ci.example/run/1"], "looks like a URL"),
        (["--session", "claude:s1", "--run", "line one\nline two"], "not content"),
        (["--session", "claude:s1", "--run", "x" * 300], "over 256"),
    ],
)
def test_add_refuses_content_and_urls(
    repo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = main(capsys, "notes", "add", "HEAD", *args, "-C", str(repo))
    assert code == 1, err
    assert err.startswith("error: note refused") and message in err and "hint:" in err
    assert note_of(repo) is None


def test_add_refuses_a_note_over_the_cap(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = []
    for n in range(notefmt.MAX_LINES):
        path = repo / "t" / f"{n}.jsonl"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"{n}\n")
        files += ["--transcript", str(path)]
    code, _, err = main(
        capsys, "notes", "add", "HEAD", "--session", "claude:s1", *files, "-C", str(repo)
    )
    assert code == 1 and "at most 64 lines" in err
    assert note_of(repo) is None
    # and a union that would cross it is refused too, leaving the note as it was
    code, _, err = main(
        capsys, "notes", "add", "HEAD", "--session", "claude:s1", *files[:60], "-C", str(repo)
    )
    assert code == 0, err
    before = note_of(repo)
    code, _, err = main(
        capsys, "notes", "add", "HEAD", "--session", "claude:s1", *files[60:], "-C", str(repo)
    )
    assert code == 1 and "over 64" in err
    assert note_of(repo) == before


def test_add_needs_an_identity(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    monkeypatch.setenv("EMAIL", "")
    git(repo, "config", "user.useConfigOnly", "true")
    code, _, err = main(capsys, "notes", "add", "HEAD", "--session", "claude:s1", "-C", str(repo))
    assert code == 2 and "no identity" in err and "git config user.email" in err
    assert note_of(repo) is None


def test_add_to_something_that_is_not_a_commit(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = main(capsys, "notes", "add", "nosuch", "--session", "claude:s1", "-C", str(repo))
    assert code == 2 and "nosuch: not a commit" in err


def test_concurrent_writers_lose_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that loses the compare-and-swap re-reads and retries."""
    real = gitrepo.write_notes
    raced = []

    def racing(path: str, ref: str, notes: Any, message: str, old: str | None, *ident: Any) -> str:
        if not raced:
            raced.append(1)
            sessionnotes.add_records(path, "HEAD", [NoteRecord("codex:other", "session")])
        return real(path, ref, notes, message, old, *ident)

    monkeypatch.setattr(gitrepo, "write_notes", racing)
    sessionnotes.add_records(str(repo), "HEAD", [NoteRecord("claude:s1", "session")])
    assert {r.session for r in records_of(repo)} == {"claude:s1", "codex:other"}


def test_a_note_written_into_a_fanned_out_notes_tree_replaces_the_one_there(
    repo: Path,
) -> None:
    """git notes fans a tree of many notes out into ab/cdef... paths; a note
    write_notes (git fast-import) sets on a commit noted there replaces that
    note at its path, never adds a second one at another fanout."""

    def fed(*args: str, text: str) -> str:
        cmd = ["git", "-C", str(repo), *args]
        done = subprocess.run(cmd, input=text.encode(), capture_output=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode()

    stream = "".join(
        f"commit refs/heads/many\ncommitter a <a@a> {1700000000 + i} +0000\ndata 2\n{i % 10}\n\n"
        for i in range(300)
    )
    fed("fast-import", "--quiet", "--date-format=raw", text=stream)
    commits = git(repo, "rev-list", "refs/heads/many").split()
    git(repo, "notes", "--ref", "x", "add", "-m", "first", commits[0])
    copies = "".join(f"{commits[0]} {c}\n" for c in commits[1:])
    fed("notes", "--ref", "x", "copy", "--stdin", text=copies)
    before = git(repo, "ls-tree", "-r", "--name-only", "refs/notes/x").split()
    assert len(before) == 300 and all("/" in p for p in before)  # fanned out
    old = git(repo, "rev-parse", "refs/notes/x").strip()
    gitrepo.write_notes(str(repo), "refs/notes/x", {commits[7]: b"replaced\n"}, "m", old)
    after = git(repo, "ls-tree", "-r", "--name-only", "refs/notes/x").split()
    assert len(after) == 300 and all("/" in p for p in after)
    assert sorted(p.replace("/", "") for p in after) == sorted(commits)
    assert git(repo, "notes", "--ref", "x", "show", commits[7]) == "replaced\n"
    assert git(repo, "notes", "--ref", "x", "show", commits[8]) == "first\n"
    assert git(repo, "log", "-1", "--format=%s%n%P", "refs/notes/x").split() == ["m", old]


# -- run records and verify --------------------------------------------------------------


def runs_of(repo: Path) -> list[tuple[str, str]]:
    out = git(repo, "log", "--format=%H %(trailers:key=Run-Id,valueonly,separator=%x2C)")
    return [tuple(line.split()) for line in out.splitlines() if len(line.split()) == 2]  # type: ignore[misc]


def test_run_records(agent: Path) -> None:
    (commit, run_id), _ = runs_of(agent)
    log = git(agent, "cat-file", "blob", f"{commit}:state/events.jsonl").encode()
    records = sessionnotes.run_records(
        str(agent), commit, run_id, ["claude:s1", "codex:s2", "claude:s1"], None, None,
        [("transcripts/x.jsonl.gz", "sha256:" + "0" * 64, 12)],
    )  # fmt: skip
    span = sessionnotes.run_range(log, run_id)
    assert span is not None
    events = [json.loads(line) for line in log.splitlines()]
    ids = [e["id"] for e in events if e.get("correlation_id") == run_id]
    assert span == (ids[0], ids[-1])
    assert ids[0] in {e["id"] for e in events if e["kind"] == "run.started"}
    digest = "sha256:" + hashlib.sha256(log).hexdigest()
    run = dict(run=run_id, events=f"{span[0]}..{span[1]}", log=digest)
    assert records == [
        NoteRecord("claude:s1", "session"),
        NoteRecord("claude:s1", "run", **run),
        NoteRecord("codex:s2", "session"),
        NoteRecord("codex:s2", "run", **run),
        NoteRecord(
            "claude:s1",
            "transcript",
            digest="sha256:" + "0" * 64,
            bytes=12,
            run=run_id,
            path="transcripts/x.jsonl.gz",
        ),
    ]
    given = sessionnotes.run_records(str(agent), commit, run_id, ["a:b"], ("x", "y"), digest, [])
    assert given[1].events == "x..y"
    assert sessionnotes.run_records(str(agent), commit, run_id, [], None, None, []) == []
    # bytes held by the caller: used when they are the committed blob, else the blob is
    held = sessionnotes.run_records(str(agent), commit, run_id, ["a:b"], None, None, [], log)
    assert held[1] == NoteRecord("a:b", "run", **run)
    for wrong in (log[:-1] + b"X", log + b"\n", b""):
        got = sessionnotes.run_records(str(agent), commit, run_id, ["a:b"], None, None, [], wrong)
        assert got[1] == NoteRecord("a:b", "run", **run)
    note = sessionnotes.add_records(str(agent), commit, records)
    assert not check_note(note)


def test_verify(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(agent, "update-ref", "-d", "refs/notes/agent-sessions")  # the demo's own run notes
    (commit, run_id), (older, older_run) = runs_of(agent)
    transcript = agent / "transcripts" / f"{run_id}.jsonl.gz"
    transcript.parent.mkdir(exist_ok=True)
    transcript.write_bytes(gzip.compress(b'{"role":"user"}\n'))
    add(agent, commit, "claude:s1", "--run", run_id, "--transcript", str(transcript))
    add(agent, older, "claude:s0", "--run", older_run)
    report = main_json(capsys, "notes", "verify", "-C", str(agent))
    assert report["ok"] and report["counts"] == {"match": 3, "mismatch": 0, "missing": 0, "n/a": 2}
    checks = {
        (n["commit"], c["what"]): c["status"]
        for n in report["notes"]
        for r in n["records"]
        for c in r["checks"]
    }
    assert checks == {
        (commit, "digest"): "match",
        (commit, "log"): "match",
        (commit, "events"): "match",
        (older, "log"): "match",
        (older, "events"): "match",
    }
    code, out, _ = main(capsys, "notes", "verify", f"{older}..HEAD", "-C", str(agent))
    assert code == 0 and out.strip().endswith("1 note: 2 match, 0 mismatch, 0 missing, 1 n/a")
    # a changed transcript is a mismatch (exit 1), a missing one is only reported
    transcript.write_bytes(gzip.compress(b'{"role":"user","edited":true}\n'))
    code, out, _ = main(capsys, "notes", "verify", "-C", str(agent))
    assert code == 1 and "transcript claude:s1" in out and "mismatch" in out
    transcript.unlink()
    code, out, _ = main(capsys, "notes", "verify", "-C", str(agent))
    assert code == 0 and "missing" in out
    # a record whose log digest is not the commit's log
    wrong = NoteRecord("claude:s9", "run", run=run_id, log="sha256:" + "1" * 64)
    sessionnotes.add_records(str(agent), commit, [wrong])
    code, out, _ = main(capsys, "notes", "verify", "-C", str(agent))
    assert code == 1 and "log mismatch" in out


def test_verify_reports_a_malformed_note(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(repo, "notes", "--ref", REF, "add", "-m", SECRET, "HEAD")
    code, out, _ = main(capsys, "notes", "verify", "-C", str(repo))
    assert code == 1 and "not a JSON object" in out


# -- setup, and rewrites -----------------------------------------------------------------


def test_setup(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(repo, "config", "notes.rewriteRef", "refs/notes/commits")
    code, _, err = main(capsys, "notes", "setup", "-C", str(repo))
    assert code == 0 and "no remote origin" in err
    git(repo, "remote", "add", "origin", str(tmp_path / "nowhere.git"))
    for _ in range(2):
        done = main_json(capsys, "notes", "setup", "-C", str(repo))
    assert done["remote"] == "origin"
    assert {s["action"] for s in done["settings"]} == {"kept"}
    assert git(repo, "config", "--get-all", "notes.rewriteRef").split() == [
        "refs/notes/commits",
        REF,
    ]
    assert git(repo, "config", "notes.rewriteMode").strip() == "cat_sort_uniq"
    assert git(repo, "config", "notes.agent-sessions.mergeStrategy").strip() == "cat_sort_uniq"
    assert git(repo, "config", "--get-all", "remote.origin.fetch").split() == [
        "+refs/heads/*:refs/remotes/origin/*",
        f"+{REF}:refs/notes/remotes/origin/agent-sessions",
    ]
    code, _, err = main(capsys, "notes", "setup", "upstream", "-C", str(repo))
    assert code == 2 and "upstream: no such remote" in err


def feature_branch(repo: Path) -> tuple[str, str]:
    """Two commits on branch `feature`, each with a note; main moves on too."""
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "a").write_text("a\n")
    a = commit_all(repo, "A")
    add(repo, a, "claude:a")
    (repo / "b").write_text("b\n")
    b = commit_all(repo, "B")
    add(repo, b, "claude:b")
    git(repo, "checkout", "-q", "main")
    (repo / "c").write_text("c\n")
    commit_all(repo, "C")
    git(repo, "checkout", "-q", "feature")
    return a, b


def rebase_squash(repo: Path) -> None:
    env = {
        **os.environ,
        "GIT_SEQUENCE_EDITOR": "sed -i -e '2s/^pick/squash/'",
        "GIT_EDITOR": "true",
    }
    proc = subprocess.run(
        ["git", "-C", str(repo), "rebase", "-q", "-i", "main"], env=env, capture_output=True
    )
    assert proc.returncode == 0, proc.stderr


def test_setup_keeps_notes_across_amend_and_rebase(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(capsys, "notes", "setup", "-C", str(repo))[0] == 0
    feature_branch(repo)
    git(repo, "commit", "-q", "--amend", "-m", "B, amended")
    assert records_of(repo) == {NoteRecord("claude:b", "session")}
    git(repo, "rebase", "-q", "main")
    assert records_of(repo, "HEAD~1") == {NoteRecord("claude:a", "session")}
    assert records_of(repo) == {NoteRecord("claude:b", "session")}
    rebase_squash(repo)  # squash A and B: git combines the notes with cat_sort_uniq
    assert git(repo, "rev-list", "--count", "main..HEAD").strip() == "1"
    assert {r.session for r in records_of(repo)} == {"claude:a", "claude:b"}


def test_without_setup_git_loses_notes(repo: Path) -> None:
    feature_branch(repo)
    git(repo, "commit", "-q", "--amend", "-m", "B, amended")
    assert note_of(repo) is None


def test_post_rewrite_carries_notes_without_setup(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_hooks(capsys, repo)
    feature_branch(repo)
    git(repo, "commit", "-q", "--amend", "-m", "B, amended")
    assert records_of(repo) == {NoteRecord("claude:b", "session")}
    message = git(repo, "log", "-1", "--format=%s", REF).strip()
    assert message == "gasp: notes carried over by amend (1 commit)"
    git(repo, "rebase", "-q", "main")
    assert records_of(repo, "HEAD~1") == {NoteRecord("claude:a", "session")}
    assert records_of(repo) == {NoteRecord("claude:b", "session")}
    rebase_squash(repo)
    assert {r.session for r in records_of(repo)} == {"claude:a", "claude:b"}


def test_post_rewrite_is_a_no_op_after_setup(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_hooks(capsys, repo)
    assert main(capsys, "notes", "setup", "-C", str(repo))[0] == 0
    feature_branch(repo)
    tip = rev(repo, REF)
    git(repo, "commit", "-q", "--amend", "-m", "B, amended")
    assert records_of(repo) == {NoteRecord("claude:b", "session")}
    # git copied the note (one notes commit of its own); the hook added none
    assert git(repo, "rev-list", "--count", f"{tip}..{REF}").strip() == "1"
    assert "gasp:" not in git(repo, "log", "-1", "--format=%s", REF)
    rebase_squash(repo)
    note = note_of(repo)
    assert note is not None and not check_note(note)
    assert note.count(b"claude:a") == note.count(b"claude:b") == 1


def test_post_rewrite_repairs_a_concatenated_note(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rewriteRef without cat_sort_uniq concatenates a squash's notes; the hook sorts them."""
    install_hooks(capsys, repo)
    git(repo, "config", "notes.rewriteRef", REF)
    feature_branch(repo)
    rebase_squash(repo)
    note = note_of(repo)
    assert note is not None and not check_note(note), note
    assert {r.session for r in records_of(repo)} == {"claude:a", "claude:b"}


def test_cherry_pick_and_squash_merge_are_reattached(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_hooks(capsys, repo)
    a, _ = feature_branch(repo)
    git(repo, "checkout", "-q", "main")
    git(repo, "cherry-pick", "-x", a)
    assert records_of(repo) == {NoteRecord("claude:a", "session")}
    assert git(repo, "log", "-1", "--format=%s", REF).startswith("gasp: notes re-attached")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "merge", "-q", "--squash", "feature")
    git(repo, "commit", "-q", "--no-edit")
    assert records_of(repo) == {
        NoteRecord("claude:a", "session"),
        NoteRecord("claude:b", "session"),
    }


def test_run_trailers_reattach_a_squash_and_a_plain_cherry_pick(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_agent(repo)
    install_hooks(capsys, repo)
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "a").write_text("a\n")
    run_commit = real_run(repo, "run_7", "a")  # run run_7: promoted, Run-Id: run_7
    sessionnotes.add_records(str(repo), run_commit, [NoteRecord("claude:s7", "run", run="run_7")])
    (repo / "b").write_text("b\n")
    commit_all(repo, "more work\n\nAgent-Session: codex:s8")
    git(repo, "checkout", "-q", "main")
    # a cherry-pick without -x: the Run-Id trailer finds the run's note
    git(repo, "cherry-pick", run_commit)
    assert records_of(repo) == {NoteRecord("claude:s7", "run", run="run_7")}
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    # a squash: the squashed commits' notes, and the sessions named in their messages
    git(repo, "merge", "-q", "--squash", "feature")
    git(repo, "commit", "-q", "--no-edit")
    assert records_of(repo) == {
        NoteRecord("claude:s7", "run", run="run_7"),
        NoteRecord("codex:s8", "session"),
    }


def count_git(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real_run, real_attempt = gitrepo.run, gitrepo.attempt

    def run(cwd: str, args: Any, *a: Any, **k: Any) -> bytes:
        calls.append(list(args))
        return real_run(cwd, args, *a, **k)

    def attempt(cwd: str, args: Any, *a: Any, **k: Any) -> gitrepo.Completed:
        calls.append(list(args))
        return real_attempt(cwd, args, *a, **k)

    # the namespace passes a replaced name on to the adapter's own modules
    monkeypatch.setattr(gitrepo, "run", run)
    monkeypatch.setattr(gitrepo, "attempt", attempt)
    return calls


def test_post_commit_fast_path(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    add(repo, "HEAD", "claude:s1")
    commit_all(repo, "ordinary\n\nAgent-Session: claude:s1\nSigned-off-by: Me <me@x.invalid>")
    calls = count_git(monkeypatch)
    notehooks.post_commit(str(repo), sys.stderr)
    assert calls == [["cat-file", "commit", "HEAD"]]
    assert capsys.readouterr().err == ""


def test_hooks_never_fail(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notehooks.post_commit(str(repo / "nowhere"), sys.stderr)
    add(repo, "HEAD", "claude:s1")

    def broken(*args: Any) -> dict[str, str]:
        raise gitrepo.GitError("fatal: the object database is on fire")

    monkeypatch.setattr(gitrepo, "notes_list", broken)
    notehooks.post_rewrite(str(repo), "amend", [f"{rev(repo)} {'b' * 40}"], sys.stderr)
    err = capsys.readouterr().err
    assert err.count("gasp: warning:") == 2 and "Traceback" not in err
    said = "post-rewrite could not carry session notes over: the object database is on fire\n"
    assert said in err  # git's reason, without its "fatal: "


# -- sync -------------------------------------------------------------------------------


def clones(tmp_path: Path, server: Path | None = None) -> tuple[Path, Path, Path]:
    if server is None:
        server = tmp_path / "server.git"
        git(tmp_path, "init", "-q", "--bare", str(server))
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q")
    commit_all(seed, "first")
    git(seed, "push", "-q", str(server), "main")
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(server), str(a))
    git(tmp_path, "clone", "-q", str(server), str(b))
    return server, a, b


def test_two_clones_sync_to_the_union(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server, a, b = clones(tmp_path)
    first = rev(a)
    for clone in (a, b):
        assert main(capsys, "notes", "setup", "-C", str(clone))[0] == 0
    add(a, first, "claude:from-a")
    add(b, first, "codex:from-b")
    (b / "x").write_text("x\n")
    second = commit_all(b, "second")
    add(b, second, "codex:second")
    git(b, "push", "-q", "origin", "main")

    done = main_json(capsys, "notes", "sync", "-C", str(a))
    assert (done["fetched"], done["merge"], done["pushed"], done["attempts"]) == (
        None,
        "none",
        True,
        1,
    )
    done = main_json(capsys, "notes", "sync", "-C", str(b))
    assert done["merge"] == "merged" and done["pushed"] and done["attempts"] == 1
    code, out, _ = main(capsys, "notes", "sync", "origin", "-C", str(a))
    assert code == 0 and "merge: fast-forward" in out and "up to date" in out
    git(a, "pull", "-q", "--ff-only")
    for clone in (a, b):
        assert {r.session for r in records_of(clone, first)} == {"claude:from-a", "codex:from-b"}
        assert records_of(clone, second) == {NoteRecord("codex:second", "session")}
    assert rev(a, REF) == rev(b, REF) == git(server, "rev-parse", REF).strip()
    # a plain `git fetch` now brings notes too (the refspec notes setup added)
    add(a, second, "claude:later")
    assert main(capsys, "notes", "sync", "-C", str(a))[0] == 0
    git(b, "fetch", "-q")
    assert rev(b, "refs/notes/remotes/origin/agent-sessions") == rev(a, REF)


def test_sync_retries_when_another_clone_pushes_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, a, b = clones(tmp_path)
    first = rev(a)
    add(a, first, "claude:from-a")
    add(b, first, "codex:from-b")
    real = gitrepo.attempt
    raced: list[str] = []

    def racing(cwd: str, args: Any, *rest: Any, **kw: Any) -> gitrepo.Completed:
        if args[0] == "push" and cwd == str(b) and not raced:
            raced.append("a")  # clone a pushes its notes between b's fetch and b's push
            notesync.sync(str(a), "origin", 0)
        return real(cwd, args, *rest, **kw)

    monkeypatch.setattr(gitrepo, "attempt", racing)
    code, out, err = main(capsys, "notes", "sync", "-C", str(b), "--json")
    assert code == 0, err
    assert (
        raced
        and "notes push rejected ([rejected] (fetch first)); fetching and merging again (1/5)"
        in err
    )
    done = json.loads(out)
    assert done["pushed"] and done["attempts"] == 2 and done["merge"] == "merged"
    assert {r.session for r in records_of(b, first)} == {"claude:from-a", "codex:from-b"}
    assert notesync.sync(str(a)).merge == "fast-forward"
    assert {r.session for r in records_of(a, first)} == {"claude:from-a", "codex:from-b"}


def test_sync_gives_up_after_its_retries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, a, b = clones(tmp_path)
    add(b, "HEAD", "codex:from-b")
    real = gitrepo.attempt
    n = [0]

    def racing(cwd: str, args: Any, *rest: Any, **kw: Any) -> gitrepo.Completed:
        if args[0] == "push" and cwd == str(b):
            n[0] += 1
            add(a, "HEAD", f"claude:a{n[0]}")
            notesync.sync(str(a), "origin", 0)
        return real(cwd, args, *rest, **kw)

    monkeypatch.setattr(gitrepo, "attempt", racing)
    code, _, err = main(capsys, "notes", "sync", "--retries", "1", "-C", str(b))
    assert code == 1 and "rejected 2 times" in err and "--retries" in err
    assert n[0] == 2
    # nothing was lost locally: b holds its own note and what it merged
    assert {"codex:from-b", "claude:a1"} <= {r.session for r in records_of(b)}


def test_sync_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, a, _ = clones(tmp_path)
    code, _, err = main(capsys, "notes", "sync", "upstream", "-C", str(a))
    assert code == 2 and "upstream: no such remote" in err
    code, out, _ = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 0 and "nothing to push" in out
    code, _, err = main(capsys, "notes", "sync", "--retries", "-1", "-C", str(a))
    assert code == 2


# -- pre-push: notes travel with the branch -----------------------------------------------


def push(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), "push", *args], capture_output=True, text=True)


def noted_commit(capsys: pytest.CaptureFixture[str], repo: Path, session: str = "") -> None:
    """Install the client hooks in ``repo``, note HEAD (``session``, unless
    empty), and commit on top: a push then has notes to send."""
    install_hooks(capsys, repo)
    if session:
        add(repo, "HEAD", session)
    (repo / "x").write_text("x\n")
    commit_all(repo, "second")


def test_pre_push_sends_the_notes_with_the_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, b = clones(tmp_path)
    install_hooks(capsys, a)
    (a / "x").write_text("x\n")
    commit_all(a, "second")
    add(a, "HEAD", "claude:s1", "--run", "run_1")
    done = push(a, "origin", "main")
    assert done.returncode == 0, done.stderr
    assert "gasp: session notes pushed to origin" in done.stderr
    assert git(server, "rev-parse", REF).strip() == rev(a, REF)
    assert rev(a, "refs/notes/remotes/origin/agent-sessions") == rev(a, REF)
    # nothing new: the tracking ref says the remote has them, no notes push
    (a / "y").write_text("y\n")
    commit_all(a, "third")
    done = push(a, "origin", "main")
    assert done.returncode == 0 and "session notes" not in done.stderr
    # another clone's notes are merged in, not overwritten
    add(b, rev(b), "codex:s2")
    assert main(capsys, "notes", "sync", "-C", str(b))[0] == 0
    add(a, "HEAD", "claude:s3")
    (a / "z").write_text("z\n")
    commit_all(a, "fourth")
    done = push(a, "origin", "main")
    assert done.returncode == 0 and "merge: merged" in done.stderr, done.stderr
    git(b, "fetch", "-q", "origin", f"+{REF}:{REF}")
    assert {r.session for r in records_of(b, rev(b))} == {"codex:s2"}
    assert {(r.session, r.run) for r in records_of(b, rev(a, "HEAD~2"))} == {
        ("claude:s1", None),
        ("claude:s1", "run_1"),
    }
    assert records_of(b, rev(a, "HEAD~1")) == {NoteRecord("claude:s3", "session")}


def test_pre_push_leaves_notes_alone_when_told_or_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, _ = clones(tmp_path)
    install_hooks(capsys, a)
    add(a, "HEAD", "claude:s1")
    git(a, "config", "gasp.pushNotes", "false")
    (a / "x").write_text("x\n")
    commit_all(a, "second")
    assert push(a, "origin", "main").returncode == 0
    assert push(a, str(server), "HEAD:refs/heads/other").returncode == 0  # by URL
    git(a, "config", "--unset", "gasp.pushNotes")
    assert push(a, "origin", ":refs/heads/other").returncode == 0  # a deletion
    assert git(server, "for-each-ref", "refs/notes").strip() == ""
    # a notes push that fails is a warning: the branch still goes
    git(a, "config", "gasp.pushNotes", "maybe")
    (a / "y").write_text("y\n")
    commit_all(a, "third")
    done = push(a, "origin", "main")
    assert done.returncode == 0, done.stderr
    assert "gasp: warning: session notes not pushed to origin: bad boolean" in done.stderr
    assert "fix it with: git config gasp.pushNotes <bool>" in done.stderr
    assert git(server, "rev-parse", "main").strip() == rev(a)
    # one remote kept out (a public mirror), whatever gasp.pushNotes says
    git(a, "config", "gasp.pushNotes", "true")
    git(a, "config", "remote.origin.gaspPushNotes", "false")
    (a / "z").write_text("z\n")
    commit_all(a, "fourth")
    assert push(a, "origin", "main").returncode == 0
    assert git(server, "for-each-ref", "refs/notes").strip() == ""
    git(a, "config", "remote.origin.gaspPushNotes", "true")
    git(a, "config", "gasp.pushNotes", "false")
    (a / "w").write_text("w\n")
    commit_all(a, "fifth")
    assert push(a, "origin", "main").returncode == 0
    assert git(server, "for-each-ref", "refs/notes").strip() != ""


def test_pre_push_leaves_an_explicit_notes_push_to_git(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, _ = clones(tmp_path)
    noted_commit(capsys, a, "claude:s1")
    done = push(a, "origin", "main", REF)  # git's own push of the ref must not race ours
    assert done.returncode == 0, done.stderr
    assert "gasp: session notes" not in done.stderr
    assert git(server, "rev-parse", REF).strip() == rev(a, REF)
    add(a, "HEAD", "claude:s2")
    done = push(a, "--mirror", "origin")
    assert done.returncode == 0, done.stderr
    assert git(server, "rev-parse", REF).strip() == rev(a, REF)


def test_pre_push_survives_a_stderr_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, _ = clones(tmp_path)
    noted_commit(capsys, a, "claude:s1")
    with open("/dev/full", "w") as full:
        done = subprocess.run(["git", "-C", str(a), "push", "origin", "main"], stderr=full)
    assert done.returncode == 0
    assert git(server, "rev-parse", "main").strip() == rev(a)
    assert git(server, "rev-parse", REF).strip() == rev(a, REF)


def test_pre_push_waits_for_a_notes_merge_in_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, b = clones(tmp_path)
    install_hooks(capsys, a)
    first = rev(a)
    git(a, "notes", "--ref", REF, "add", "-m", "mine", first)
    git(b, "notes", "--ref", REF, "add", "-m", "theirs", first)
    git(b, "push", "-q", "origin", REF)
    git(a, "fetch", "-q", "origin", f"+{REF}:refs/notes/remotes/origin/agent-sessions")
    merging = subprocess.run(
        ["git", "-C", str(a), "notes", "--ref", REF, "merge", "-s", "manual",
         "refs/notes/remotes/origin/agent-sessions"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert merging.returncode != 0  # a conflict, left for the user to resolve
    before = rev(a, REF)
    (a / "x").write_text("x\n")
    commit_all(a, "second")
    done = push(a, "origin", "main")
    assert done.returncode == 0, done.stderr
    assert "a notes merge into refs/notes/agent-sessions is in progress" in done.stderr
    assert rev(a, REF) == before  # the user's merge is untouched
    assert git(server, "rev-parse", REF).strip() == rev(b, REF)


def test_notes_are_fetched_from_where_they_are_pushed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, _ = clones(tmp_path)
    other = tmp_path / "other.git"
    git(tmp_path, "clone", "-q", "--bare", str(server), str(other))
    c = tmp_path / "c"
    git(tmp_path, "clone", "-q", str(other), str(c))
    add(c, "HEAD", "codex:on-other")
    git(c, "push", "-q", "origin", REF)
    git(a, "config", "remote.origin.pushurl", str(other))
    noted_commit(capsys, a, "claude:mine")
    done = push(a, "origin", "main")
    assert done.returncode == 0 and "merge: merged" in done.stderr, done.stderr
    pushed = git(other, "rev-parse", REF).strip()
    assert pushed == rev(a, REF)
    assert {r.session for r in records_of(a, "HEAD~1")} == {"codex:on-other", "claude:mine"}


def test_a_server_that_hides_the_notes_ref_is_not_retried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, _ = clones(tmp_path)
    git(server, "config", "receive.hideRefs", "refs/notes")
    noted_commit(capsys, a, "claude:s1")
    done = push(a, "origin", "main")
    assert done.returncode == 0, done.stderr
    warnings = [ln for ln in done.stderr.splitlines() if ln.startswith("gasp:")]
    assert len(warnings) == 1 and "origin refused the notes push" in warnings[0]
    assert "git config gasp.pushNotes false" in warnings[0]
    assert "rejected" not in done.stderr.replace("[remote rejected]", "")


# -- the server hook ---------------------------------------------------------------------


def hooked_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    server = tmp_path / "hooked.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    code, _, err = main(
        capsys, "hooks", "install", "--server", "--python", sys.executable, "-C", str(server)
    )
    assert code == 0, err
    return server


def test_pre_receive_judges_notes_pushes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = hooked_server(tmp_path, capsys)
    _, a, _ = clones(tmp_path, server)
    add(a, "HEAD", "claude:s1", "--run", "run_1")
    proc = subprocess.run(
        ["git", "-C", str(a), "push", "origin", REF], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert git(server, "rev-parse", REF).strip() == rev(a, REF)
    # a note carrying content is refused, and sync does not retry a hook's refusal
    good = rev(a, REF)
    git(a, "notes", "--ref", REF, "add", "-f", "-m", SECRET, "HEAD")
    proc = subprocess.run(
        ["git", "-C", str(a), "push", "origin", REF], capture_output=True, text=True
    )
    assert proc.returncode != 0 and "pre-receive hook declined" in proc.stderr
    assert "not a JSON object" in proc.stderr
    # sync judges the notes as the server does, before they leave
    code, _, err = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 1 and "1 note the remote would refuse: note for " in err
    assert "not a JSON object" in err
    assert git(server, "rev-parse", REF).strip() == good
    # its hint, followed, clears the way: the server judges every notes commit,
    # so the history that held the note is squashed before the push
    undo = err.split("hint: undo your change to it: ")[1].split(" (the remote's version")[0]
    assert undo.startswith("git notes --ref agent-sessions add -f -C ")
    assert undo.endswith(" " + rev(a))  # the full id of the commit the note is on
    git(a, *undo.split()[1:])
    assert note_of(a) == git(server, "notes", "--ref", REF, "show", "HEAD").encode()
    code, out, err = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 0, err
    assert "squashed into one commit" in err + out
    assert git(server, "rev-parse", REF).strip() == rev(a, REF)
    history = git(server, "log", "-p", REF)
    assert SECRET not in history and "claude:s1" in history


def test_pre_push_keeps_a_refused_note_local_and_sends_the_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = hooked_server(tmp_path, capsys)
    _, a, _ = clones(tmp_path, server)
    git(a, "notes", "--ref", REF, "add", "-m", SECRET, "HEAD")
    noted_commit(capsys, a)
    done = push(a, "origin", "main")
    assert done.returncode == 0, done.stderr
    assert "session notes not pushed to origin: 1 note the remote would refuse" in done.stderr
    assert "not a JSON object" in done.stderr
    assert git(server, "rev-parse", "main").strip() == rev(a)
    assert git(server, "for-each-ref", "refs/notes").strip() == ""


def test_a_refused_push_sends_no_notes(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = tmp_path / "plain.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    git(agent, "remote", "add", "origin", str(server))
    install_hooks(capsys, agent)
    log = agent / "state" / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))  # drops a committed line
    git(agent, "commit", "-q", "--no-verify", "-am", "truncated")
    add(agent, "HEAD", "claude:s1")
    done = push(agent, "origin", "HEAD:refs/heads/main")
    assert done.returncode != 0 and "push refused" in done.stderr
    assert git(server, "for-each-ref").strip() == ""


def test_a_server_hook_that_declines_notes_is_quoted_not_retried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, _ = clones(tmp_path)
    hook = server / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'notes are kept elsewhere (see CONTRIBUTING)'\nexit 1\n")
    hook.chmod(0o755)
    add(a, "HEAD", "claude:s1")
    code, _, err = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 1 and "again" not in err
    why = "[remote rejected] (pre-receive hook declined)"
    assert f"error: origin refused the notes push: {why}" in err
    assert "remote: notes are kept elsewhere (see CONTRIBUTING)" in err
    assert "git config gasp.pushNotes false" in err


def test_a_refused_note_is_named_when_the_remote_has_no_notes_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, a, _ = clones(tmp_path)  # a server without the hook keeps what it gets
    first = rev(a)
    git(a, "notes", "--ref", REF, "add", "-m", SECRET, first)
    (a / "x").write_text("x\n")
    commit_all(a, "second")
    add(a, "HEAD", "claude:s1")
    code, out, err = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 1 and "1 note the remote would refuse: note for " in err, err
    assert "squashed" not in out + err
    assert f"hint: undo your change to it: git notes --ref agent-sessions remove {first}" in err
    assert git(server, "for-each-ref", "refs/notes").strip() == ""
    git(a, "notes", "--ref", REF, "remove", first)
    code, out, err = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 0, err
    assert SECRET not in git(server, "log", "-p", REF)


def test_fetched_notes_are_read_only_while_unmerged_and_only_from_remotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, a, b = clones(tmp_path)
    first = rev(a)
    assert main(capsys, "notes", "setup", "-C", str(b))[0] == 0
    add(a, first, "claude:from-a")
    assert main(capsys, "notes", "sync", "-C", str(a))[0] == 0
    add(b, first, "codex:from-b")
    git(b, "fetch", "-q")  # the refspec notes setup added: into the tracking ref only
    assert records_of(b, first) == {NoteRecord("codex:from-b", "session")}

    def sessions_of_first() -> set[str]:
        found = main_json(capsys, "sessions", "-C", str(b))
        (commit,) = [c for c in found["commits"] if c["commit"] == first]
        return set(commit["sessions"])

    assert sessions_of_first() == {"claude:from-a", "codex:from-b"}
    # once merged, the local notes decide: a record removed since stays removed
    git(b, "notes", "--ref", REF, "merge", "-q", "refs/notes/remotes/origin/agent-sessions")
    note = (note_of(b, first) or b"").decode()
    kept = "".join(line + "\n" for line in note.splitlines() if "from-a" not in line)
    git(b, "notes", "--ref", REF, "add", "-f", "-m", kept.rstrip("\n"), first)
    assert sessions_of_first() == {"codex:from-b"}
    # a tracking ref of no configured remote, or one that is no notes history, is not read
    git(b, "update-ref", "refs/notes/remotes/gone/agent-sessions", rev(a, REF))
    tree_blob = subprocess.run(
        ["git", "-C", str(b), "hash-object", "-w", "--stdin"],
        input="not notes\n", capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    git(b, "remote", "add", "odd", str(tmp_path / "nowhere.git"))
    git(b, "update-ref", "refs/notes/remotes/odd/agent-sessions", tree_blob)
    assert sessions_of_first() == {"codex:from-b"}


# -- what the notes ref may carry besides notes ------------------------------------------

TOKEN = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"


def notes_commit(repo: Path, message: str, *extra_parent_of: str) -> str:
    """A commit on the notes ref with ``message`` and the ref's own tree."""
    tip = rev(repo, REF)
    done = subprocess.run(
        ["git", "-C", str(repo), "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-F", "-"],
        input=message,
        capture_output=True,
        text=True,
        check=True,
    )
    new = done.stdout.strip()
    git(repo, "update-ref", REF, new)
    return new


def test_notes_messages_are_judged_and_sync_squashes_them_away(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = "tree " + "a" * 40 + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\n"

    def judged(message: str, header: str = head) -> list[str]:
        return notefmt.check_notes_commit((header + message).encode())

    assert judged("Notes added by 'git notes add'\n") == []
    assert "holds a GitHub token" in judged(f"x\n\nkey {TOKEN}\n")[0]
    assert "line 7 of its commit object" in judged(f"x\n\nkey {TOKEN}\n")[0]
    assert "16385 bytes" in judged("x" * 16385)[0]
    # git notes merge lists each conflict: in a merge, lines naming notes it
    # changed are not content; anywhere else, or naming other notes, they are
    names = [f"{i:040x}" for i in range(1000)]
    conflicts = "".join(f"\t{n}\n" for n in names)
    merge = head.replace("\nauthor", "\nparent " + "b" * 40 + "\nparent " + "c" * 40 + "\nauthor")
    merged = f"notes: Merged notes\n\nConflicts:\n{conflicts}"
    changed = frozenset(names)
    assert notefmt.check_notes_commit((merge + merged).encode(), changed) == []
    assert "bytes (at most 16384)" in notefmt.check_notes_commit((merge + merged).encode())[0]
    not_a_merge = notefmt.check_notes_commit((head + merged).encode(), changed)
    assert "bytes (at most 16384)" in not_a_merge[0]
    # content outside the message: an ident, an extra header, a NUL
    assert "GitHub token" in judged("ok\n", head.replace("author A", f"author {TOKEN}"))[0]
    assert "header `x-payload`" in judged("ok\n", head.replace("\n\n", "\nx-payload AAAA\n\n"))[0]
    assert "NUL byte" in judged("ok\0" + "A" * 100)[0]
    server = hooked_server(tmp_path, capsys)
    _, a, _ = clones(tmp_path, server)
    add(a, "HEAD", "claude:s1")
    assert push(a, "origin", REF).returncode == 0
    good = rev(a, REF)
    # a transcript line with a credential in a notes commit's message
    notes_commit(a, f"notes\n\nuser: my key is {TOKEN}\n")
    done = push(a, "origin", REF)
    assert done.returncode != 0 and "pre-receive hook declined" in done.stderr
    assert "of its commit object looks like it holds a GitHub token" in done.stderr
    notes_commit(a, "transcript\n" * 2000)  # content, if no credential
    done = push(a, "origin", REF)
    assert done.returncode != 0 and "its message is 22000 bytes" in done.stderr
    assert git(server, "rev-parse", REF).strip() == good
    # sync replaces the unpushed history by one commit of its own
    code, out, err = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 0, err
    assert "squashed into one commit" in out + err
    assert git(server, "rev-parse", REF).strip() == rev(a, REF)
    history = git(server, "log", "--format=%B", REF)
    assert TOKEN not in history and "transcript" not in history
    assert records_of(a) == {NoteRecord("claude:s1", "session")}


def test_the_server_keeps_the_notes_ref_from_being_rewritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = hooked_server(tmp_path, capsys)
    _, a, _ = clones(tmp_path, server)
    add(a, "HEAD", "claude:s1")
    first = rev(a, REF)
    add(a, "HEAD", "claude:s2")
    assert push(a, "origin", REF).returncode == 0
    pushed = rev(a, REF)
    done = push(a, "-f", "origin", f"{first}:{REF}")
    assert done.returncode != 0
    assert f"forced update of {REF} would drop the session notes" in done.stderr
    assert "git config gasp.allowNotesRewrite true" in done.stderr
    done = push(a, "origin", f":{REF}")
    assert done.returncode != 0 and f"deletion of {REF} would drop" in done.stderr
    assert git(server, "rev-parse", REF).strip() == pushed
    git(server, "config", "gasp.allowNotesRewrite", "true")
    assert push(a, "-f", "origin", f"{first}:{REF}").returncode == 0
    assert push(a, "origin", f":{REF}").returncode == 0


def test_a_note_on_something_other_than_a_commit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = hooked_server(tmp_path, capsys)
    _, a, _ = clones(tmp_path, server)
    git(a, "push", "-q", "origin", "main")
    blob = git(a, "rev-parse", "HEAD^{tree}").strip()  # an object the server has
    record = '{"kind":"session","session":"claude:x","v":1}'
    git(a, "notes", "--ref", REF, "add", "-m", record, blob)
    done = push(a, "origin", REF)
    assert done.returncode != 0
    assert f"note for {blob[:12]}: annotates a " in done.stderr
    assert "not a commit" in done.stderr


def test_post_commit_links_only_what_git_squashed_or_the_trailers_name(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_agent(repo)
    install_hooks(capsys, repo)
    old = real_run(repo, "run_X")
    sessionnotes.add_records(str(repo), old, [NoteRecord("claude:s1", "run", run="run_X")])
    (repo / "two").write_text("2\n")
    # a hand-typed "squash" naming a commit already in the history
    commit_all(
        repo,
        f"Squashed commit of the following:\n\ncommit {old}\n\n    Agent-Session: evil:forged\n",
    )
    assert note_of(repo) is None
    # a Run-Id quoted mid-message is no trailer
    (repo / "three").write_text("3\n")
    commit_all(repo, "Refactor\n\nRun-Id: run_X\n(see ticket)\n\nFixes #1\n")
    assert note_of(repo) is None
    # in the final trailer block it is one (a cherry-picked boundary commit)
    (repo / "four").write_text("4\n")
    commit_all(repo, "run run_X: promoted\n\nRun-Id: run_X\nGoal: -\nOutcome: promoted\n")
    assert records_of(repo) == records_of(repo, old)
    assert NoteRecord("claude:s1", "run", run="run_X") in records_of(repo)


def test_setup_keeps_a_rewrite_mode_of_your_own(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(repo, "config", "notes.rewriteMode", "ignore")
    done = main_json(capsys, "notes", "setup", "-C", str(repo))
    mode = next(s for s in done["settings"] if s["key"] == "notes.rewriteMode")
    assert (mode["value"], mode["action"]) == ("ignore", "kept")
    assert git(repo, "config", "notes.rewriteMode").strip() == "ignore"
    # the post-rewrite hook still carries the notes over
    install_hooks(capsys, repo)
    add(repo, "HEAD", "claude:s1")
    git(repo, "commit", "-q", "--amend", "-m", "amended")
    assert records_of(repo) == {NoteRecord("claude:s1", "session")}


def test_sync_names_every_stray_file_and_drops_them_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, a, _ = clones(tmp_path)
    add(a, "HEAD", "claude:s1")
    env = {**os.environ, "GIT_INDEX_FILE": str(tmp_path / "idx")}
    subprocess.run(["git", "-C", str(a), "read-tree", REF], env=env, check=True)
    names = ("README", "sub dir/x", "new\nline", "-x", "it's")
    for name in names:
        blob = (
            subprocess.run(
                ["git", "-C", str(a), "hash-object", "-w", "--stdin"],
                input=b"junk\n",
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        subprocess.run(
            ["git", "-C", str(a), "update-index", "-z", "--add", "--index-info"],
            input=f"100644 {blob}\t{name}\0".encode(),
            env=env,
            check=True,
        )
    tree = subprocess.run(
        ["git", "-C", str(a), "write-tree"], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    new = git(a, "commit-tree", tree, "-p", REF, "-m", "junk").strip()
    git(a, "update-ref", REF, new)
    code, _, err = main(capsys, "notes", "sync", "-C", str(a))
    assert code == 1
    assert "5 files in the notes tree are not notes" in err and "-x, README, it's" in err
    assert "hint: drop them from the local notes and sync: git gasp notes sync --drop-strays" in err
    code, _, err = main(capsys, "notes", "sync", "--drop-strays", "-C", str(a))
    assert code == 0, err
    assert err.count("from the notes (not a note)") == 5 and "squashed into one commit" in err
    names_left = [name for name, _ in gitrepo.tree_files(str(a), REF, [])]
    assert names_left == [rev(a)]  # only the note is left
    assert records_of(a) == {NoteRecord("claude:s1", "session")}


def hash_object(repo: Path, data: bytes) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
        input=data,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


def test_the_notes_ref_names_a_commit_whatever_brought_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A blob as the notes ref, or a notes commit the server already has
    under another ref, is judged like any other notes push; a clone never
    merges a remote notes ref that is not a commit."""
    server = hooked_server(tmp_path, capsys)
    _, a, b = clones(tmp_path, server)
    blob = hash_object(a, b"x\n")
    done = push(a, "origin", f"{blob}:{REF}")
    assert done.returncode != 0 and "the ref must name a commit, not a blob" in done.stderr
    add(a, "HEAD", "claude:s1")
    assert push(a, "origin", REF).returncode == 0
    parked = notes_commit(a, f"notes\n\nkey {TOKEN}\n")
    assert push(a, "origin", f"{parked}:refs/heads/parked").returncode == 0
    done = push(a, "origin", f"{parked}:{REF}")
    assert done.returncode != 0 and "looks like it holds a GitHub token" in done.stderr
    # a server without the hook that holds a blob there: sync refuses to merge it
    plain = tmp_path / "plain.git"
    git(tmp_path, "init", "-q", "--bare", str(plain))
    git(plain, "update-ref", REF, hash_object(plain, b"y\n"))
    git(b, "remote", "add", "plain", str(plain))
    code, _, err = main(capsys, "notes", "sync", "plain", "-C", str(b))
    assert code == 2 and f"plain's {REF} is a blob, not a commit" in err


def test_a_gitlink_at_a_notes_path_is_refused_and_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = hooked_server(tmp_path, capsys)
    _, a, _ = clones(tmp_path, server)
    add(a, "HEAD", "claude:s1")
    noted = rev(a)
    tip = rev(a, REF)
    entries = git(a, "ls-tree", "-z", tip).rstrip("\0").split("\0")
    odd = "160000 commit " + "ab" * 20 + "\t" + "cd" * 20
    tree = (
        subprocess.run(
            ["git", "-C", str(a), "mktree", "-z"],
            input=("\0".join([*entries, odd]) + "\0").encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    git(a, "update-ref", REF, git(a, "commit-tree", tree, "-p", tip, "-m", "odd").strip())
    done = push(a, "origin", REF)
    assert done.returncode != 0 and "is a 160000 entry, not a note file" in done.stderr
    # a notes merge in progress keeps --drop-strays from moving the ref
    (a / ".git" / "NOTES_MERGE_PARTIAL").write_text(tip + "\n")
    code, _, err = main(capsys, "notes", "sync", "--drop-strays", "-C", str(a))
    assert code == 2 and "a notes merge into" in err
    (a / ".git" / "NOTES_MERGE_PARTIAL").unlink()
    code, _, err = main(capsys, "notes", "sync", "--drop-strays", "-C", str(a))
    assert code == 0, err
    assert [n for n, _ in gitrepo.tree_files(str(a), REF, [])] == [noted]
    assert git(a, "ls-tree", "-r", REF).count("\n") == 1
