"""The notes read commands agree after a pull (issue 15), with real git:
clone B closes a run with a session and pushes; clone A pulls; ``notes
show``, ``notes list`` and ``notes verify`` see the note ``sessions`` and
``who`` see, before any ``notes sync``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import git, run_cli

REF = "refs/notes/agent-sessions"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_notes_show_list_and_verify_see_a_pulled_note(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = tmp_path / "seed"
    shutil.copytree(template, seed, symlinks=True)
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    git(seed, "push", "-q", str(server), "main", REF)
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        git(tmp_path, "clone", "-q", str(server), str(clone))
        assert run_cli(capsys, "notes", "setup", "-C", str(clone))[0] == 0
        git(clone, "fetch", "-q")
        git(clone, "update-ref", REF, "refs/notes/remotes/origin/agent-sessions")
    assert run_cli(capsys, "run", "start", "--task", "t", "-C", str(b))[0] == 0
    code, _, err = run_cli(
        capsys, "run", "close", "--outcome", "done", "--session", "claude:ses_b", "-C", str(b)
    )
    assert code == 0, err
    git(b, "push", "-q", "origin", "main", REF)
    git(a, "pull", "-q", "--ff-only")
    head = git(a, "rev-parse", "HEAD").strip()
    assert head == git(b, "rev-parse", "HEAD").strip()

    sessions = _json(capsys, "sessions", "HEAD^!", "-C", str(a))
    assert "claude:ses_b" in json.dumps(sessions)
    shown = _json(capsys, "notes", "show", "HEAD", "-C", str(a))
    assert {r["session"] for r in shown["records"]} == {"claude:ses_b"}  # type: ignore[index,union-attr]
    code, out, _ = run_cli(capsys, "notes", "show", "HEAD", "-C", str(a))
    assert "no note" not in out and "claude:ses_b" in out
    listed = _json(capsys, "notes", "list", "HEAD^!", "-C", str(a))
    assert [c["commit"] for c in listed["commits"]] == [head]  # type: ignore[index,union-attr]
    verified = _json(capsys, "notes", "verify", "HEAD^!", "-C", str(a))
    assert [n["commit"] for n in verified["notes"]] == [head]  # type: ignore[index,union-attr]
