"""The programs the read side runs besides git itself: the pager git would
start, asked of git (``git var GIT_PAGER``), and Graphviz's ``dot``.

The pager is chosen and run as git runs it: ``GIT_PAGER``, then
``core.pager``, then ``PAGER``, then ``less``; none when that is ``cat`` or
empty; through the shell, with ``LESS=FRX`` and ``LV=-c`` unless already
set. Whether to colour is asked of git too (``git config --get-colorbool
color.ui``), so ``color.ui`` and a dumb terminal count as they do for git.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator

from git_gasp.errors import USAGE, GaspError
from git_gasp.git import GitError, run

GRAPHVIZ_HINT = (
    "install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz), "
    "or print the source with --format dot (or --format mermaid) and render it elsewhere"
)


def pager_command(cwd: str) -> str | None:
    """The pager git would run in ``cwd``; None when git would not page."""
    try:
        command = run(cwd, ["var", "GIT_PAGER"]).decode("utf-8", "replace").strip()
    except GitError:  # no git config to ask: the environment, as git reads it
        command = os.environ.get("GIT_PAGER") or os.environ.get("PAGER") or "less"
    return None if command in ("", "cat") else command


def color_wanted(cwd: str, terminal: bool) -> bool:
    """git's answer for ``color.ui`` (auto: only on a terminal)."""
    args = ["config", "--get-colorbool", "color.ui", "true" if terminal else "false"]
    try:
        return run(cwd, args).decode().strip() == "true"
    except GitError:
        return terminal and os.environ.get("TERM") != "dumb"


@contextlib.contextmanager
def paged(command: str) -> Iterator[None]:
    """Send ``sys.stdout`` through ``command`` until the block ends; the pager
    is waited for, and a pager that quit early ends the output quietly."""
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    try:
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:  # no shell: write to the terminal as it is
        yield
        return
    assert proc.stdin is not None
    saved = sys.stdout
    sys.stdout.flush()
    sys.stdout = io.TextIOWrapper(proc.stdin, encoding="utf-8", errors="backslashreplace")
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.close()
        sys.stdout = saved
        proc.wait()


def render_dot(source: str, fmt: str = "svg") -> bytes:
    """``source`` rendered by Graphviz ``dot -T<fmt>``."""
    dot = shutil.which("dot")
    if dot is None:
        raise GaspError(
            "--format svg needs Graphviz's `dot`, which is not installed", GRAPHVIZ_HINT
        )
    proc = subprocess.run(
        [dot, f"-T{fmt}"], input=source.encode("utf-8"), capture_output=True, check=False
    )
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GaspError(
            f"dot failed: {reason[0] if reason else f'exit {proc.returncode}'}",
            "see the source with --format dot",
            USAGE,
        )
    return proc.stdout
