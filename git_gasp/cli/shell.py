"""The one error handler every entry point runs under.

It turns every outcome into a documented exit code (see :mod:`git_gasp.errors`)
and makes sure no traceback reaches a user: an unexpected exception is logged
to a file whose path is printed, and the command exits 3. The click-free part
(what the hooks' entry shares) is :mod:`git_gasp.outcome`; this module adds
click's own exceptions on top of it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import click

from git_gasp import output
from git_gasp.errors import INTERRUPTED, USAGE
from git_gasp.outcome import Result, crash_log_path, handled

__all__ = ["Result", "crash_log_path", "handle_errors"]


def _one_line(message: str) -> str:
    """click's message on one line (a choice's values come one per line)."""
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


@contextlib.contextmanager
def handle_errors(command_of: Callable[[], str] | None = None) -> Iterator[Result]:
    """``command_of`` names the command the arguments were for, for an
    error click raises before it has a context (an option missing its value)."""
    with handled() as result:
        try:
            yield result
        except click.exceptions.Abort:
            output.diag("interrupted")
            result.code = INTERRUPTED
        except _NO_ARGS as exc:  # `git gasp`, `git gasp record`: the help, not an "error:" line
            output.diag(exc.format_message())
            result.code = USAGE
        except click.UsageError as exc:  # the documented format: error + hint, exit 2
            output.diag(f"error: {_one_line(exc.format_message())}")
            command = exc.ctx.command_path if exc.ctx is not None else None
            if command is None:
                command = command_of() if command_of is not None else "git-gasp"
            output.diag(f"hint: see `{command.replace('git-gasp', 'git gasp', 1)} -h`")
            result.code = USAGE
        except click.ClickException as exc:
            output.diag(f"error: {_one_line(exc.format_message())}")
            result.code = exc.exit_code if exc.exit_code else USAGE


# click >= 8.2 raises this for a group called without its command
_NO_ARGS: type[click.UsageError] = getattr(
    click.exceptions, "NoArgsIsHelpError", type("_Never", (click.UsageError,), {})
)
