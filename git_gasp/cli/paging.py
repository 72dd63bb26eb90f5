"""The pager and colour of the reading commands, as git has them.

``--no-pager`` (on ``git gasp`` or the command) writes straight to the
terminal; otherwise, when stdout is a terminal, the output goes through the
pager git would use (``GIT_PAGER``, ``core.pager``, ``PAGER``, ``less``;
``cat`` or empty: none). ``--color=WHEN`` (``auto``, ``always``, ``never``)
decides colour; without it ``NO_COLOR`` (set and not empty) turns colour off
and ``color.ui`` is read as git reads it (``auto``: on a terminal).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click

from git_gasp.git import programs

F = TypeVar("F", bound=Callable[..., Any])

WHEN = click.Choice(["auto", "always", "never"])
COLOR_HELP = "Colour the output: auto (on a terminal, as color.ui says), always or never."
NO_PAGER_HELP = "Do not send the output through the pager."


def options(command: F) -> F:
    """``--color WHEN`` and ``--no-pager`` on a reading command."""
    command = click.option("--no-pager", "no_pager", is_flag=True, help=NO_PAGER_HELP)(command)
    return click.option(
        "--color", "color", type=WHEN, default=None, metavar="WHEN", help=COLOR_HELP
    )(command)


def _top() -> dict[str, Any]:
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return dict(obj) if isinstance(obj, dict) else {}


def wants_color(root: str, color: str | None, terminal: bool) -> bool:
    when = color or _top().get("color") or None
    if when == "always":
        return True
    if when == "never":
        return False
    if when is None and os.environ.get("NO_COLOR"):
        return False
    if when == "auto":
        return terminal and os.environ.get("TERM") != "dumb"
    return programs.color_wanted(root, terminal)


@contextlib.contextmanager
def screen(root: str, color: str | None, no_pager: bool) -> Iterator[bool]:
    """Page the block's output as git would; yields whether to colour it."""
    terminal = sys.stdout.isatty()
    styled = wants_color(root, color, terminal)
    pager = None
    if terminal and not (no_pager or _top().get("no_pager")):
        pager = programs.pager_command(root)
    if pager is None:
        yield styled
        return
    with programs.paged(pager):
        yield styled
