"""git_gasp.git.spawn: a short command's output without subprocess, as
``subprocess.run(..., capture_output=True)`` gives it (the hooks' git calls)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp import git
from git_gasp.git.spawn import capture

PY = sys.executable


def test_output_status_and_stderr_as_subprocess_gives_them() -> None:
    code = "import sys; sys.stdout.write('out'); sys.stderr.write('err'); sys.exit(3)"
    assert capture([PY, "-c", code]) == (3, b"out", b"err")
    done = subprocess.run([PY, "-c", code], capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"out", b"err")


def test_big_input_and_big_outputs_at_once_never_deadlock() -> None:
    """8 MB in while 8 MB goes out on each stream: either side alone fills a pipe."""
    code = (
        "import sys\n"
        "data = sys.stdin.buffer.read()\n"
        "for _ in range(8):\n"
        "    sys.stdout.buffer.write(data[: 1 << 20]); sys.stderr.buffer.write(data[: 1 << 20])\n"
    )
    data = os.urandom(8 << 20)
    code_, out, err = capture([PY, "-c", code], data)
    assert code_ == 0 and out == err == data[: 1 << 20] * 8


def test_a_child_that_stops_reading_its_input_still_answers() -> None:
    code = "import sys; sys.stdin.buffer.read(10); print('read ten')"
    status, out, _ = capture([PY, "-c", code], b"x" * (4 << 20))
    assert status == 0 and out.strip() == b"read ten"


def test_empty_input_is_an_immediate_end_of_file() -> None:
    code = "import sys; print(len(sys.stdin.buffer.read()))"
    assert capture([PY, "-c", code], b"")[:2] == (0, b"0\n")


def test_a_signal_that_ends_the_child_is_a_negative_status() -> None:
    assert capture([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"])[0] == -15


def test_the_child_gets_sigpipe_back_at_its_default() -> None:
    """Python ignores SIGPIPE; git must not inherit that (subprocess resets it too):
    the standard signals a child ignores on entry, as Linux shows them, are
    subprocess's. (glibc's posix_spawn leaves its own two internal real-time
    signals ignored, which a glibc program such as git installs again at start.)"""
    probe = ["grep", "^SigIgn:", "/proc/self/status"]
    status, out, _ = capture(probe)
    theirs = subprocess.run(probe, capture_output=True).stdout
    standard = (1 << 31) - 1  # signals 1-31
    ignored, expected = (int(o.split()[1], 16) & standard for o in (out, theirs))
    assert status == 0 and not ignored & (1 << (signal.SIGPIPE - 1))
    assert ignored == expected


def test_environment_given_is_the_whole_environment() -> None:
    code = "import os; print(sorted(k for k in os.environ if k.startswith('GASPTEST')))"
    out = capture([PY, "-c", code], env={**os.environ, "GASPTEST_A": "1"})[1]
    assert out == b"['GASPTEST_A']\n"


def test_an_inherited_descriptor_is_not_passed_on(tmp_path: Path) -> None:
    """subprocess closes every descriptor but 0-2 in its children; so does capture."""
    code = (
        "import os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDONLY); os.set_inheritable(fd, True)\n"
        "from git_gasp.git.spawn import capture\n"
        "probe = f'import os; os.fstat({fd})'\n"
        "print(capture([sys.executable, '-c', probe])[0])\n"
    )
    (tmp_path / "f").write_text("x")
    done = subprocess.run([PY, "-c", code, str(tmp_path / "f")], capture_output=True, text=True)
    assert done.stdout.strip() == "1", done.stderr  # os.fstat failed: the child had no such fd


def test_a_missing_program_is_an_oserror_and_git_says_how_to_fix_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(FileNotFoundError):
        capture(["no-such-program-gasp"])
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on it
    with pytest.raises(git.GitError) as raised:
        git.run(str(tmp_path), ["status"])
    assert "git failed to spawn" in raised.value.message
    assert raised.value.hint == "install git and put it on PATH"


def test_git_through_it_reads_stdin_and_reports_its_own_errors(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    oid = git.run(str(tmp_path), ["hash-object", "--stdin"], stdin=b"hello\n").strip()
    assert oid == b"ce013625030ba8dba906f756967f9e9ca394464a"
    with pytest.raises(git.GitError) as raised:
        git.run(str(tmp_path), ["rev-parse", "--verify", "no-such-ref"])
    assert raised.value.reason() == "Needed a single revision"
    assert git.attempt(str(tmp_path), ["rev-parse", "--verify", "-q", "nope"]).code == 1
