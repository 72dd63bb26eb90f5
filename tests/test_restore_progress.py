"""Issue 17 item 4: restore over a URL says what it does on a terminal (git's
clone progress, then a line per phase), ends with where it restored and what to
try next, is silent with --quiet, and never puts progress on stdout."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import committed_repo, fixture_files

PHASES = ("restore: verifying identity", "restore: folding ", "restore: loading skills")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return committed_repo(tmp_path / "source", fixture_files())


def _restore(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """``git gasp restore ARGS`` with stderr on a terminal (a pty) and stdout a pipe."""
    main, side = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "git_gasp", "restore", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=side,
        stdin=subprocess.DEVNULL,
    )
    os.close(side)
    err = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        err += chunk
    out = proc.stdout.read() if proc.stdout else b""
    code = proc.wait()
    os.close(main)
    return code, out.decode(), err.decode("utf-8", "replace").replace("\r\n", "\n")


def test_on_a_terminal_it_shows_the_clone_then_each_phase(source: Path, tmp_path: Path) -> None:
    dest = tmp_path / "agent"
    code, out, err = _restore([f"file://{source}", str(dest)], tmp_path)
    assert code == 0, err
    assert "Receiving objects" in err or "Cloning into" in err  # git's own progress
    at = [err.index(p) for p in PHASES]
    assert at == sorted(at), err
    events = len((source / "state" / "events.jsonl").read_bytes().splitlines())
    assert f"restore: folding {events} events\n" in err
    assert "Traceback" not in err
    lines = out.splitlines()
    assert f"restored into {dest}" in lines
    assert any("git gasp status" in line and str(dest) in line for line in lines)
    assert not any(p in out for p in PHASES)


def test_quiet_says_nothing_but_the_report(source: Path, tmp_path: Path) -> None:
    code, out, err = _restore([f"file://{source}", str(tmp_path / "q"), "--quiet"], tmp_path)
    assert code == 0, err
    assert err.strip() == ""
    assert "restored into" not in out and "next:" not in out
    assert out.strip()  # the report itself stays


def test_json_keeps_stdout_a_document(source: Path, tmp_path: Path) -> None:
    code, out, err = _restore([f"file://{source}", str(tmp_path / "j"), "--json"], tmp_path)
    assert code == 0, err
    json.loads(out)  # nothing else on stdout
    assert "restore: verifying identity" in err


def test_a_failing_clone_with_progress_is_one_error_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.git"
    code, out, err = _restore([f"file://{missing}", str(tmp_path / "x")], tmp_path)
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: clone failed: ")
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / "x").exists()


def test_off_a_terminal_there_is_no_progress(source: Path, tmp_path: Path) -> None:
    dest = tmp_path / "p"
    done = subprocess.run(
        [sys.executable, "-m", "git_gasp", "restore", f"file://{source}", str(dest)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert f"restored into {dest}" in done.stdout
