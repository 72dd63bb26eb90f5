"""The one error handler every entry point runs under.

It turns every outcome into a documented exit code (see :mod:`git_gasp.errors`)
and makes sure no traceback reaches a user: an unexpected exception is logged
to a file whose path is printed, and the command exits 3.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import traceback
from collections.abc import Iterator

import click

from git_gasp import __version__, output
from git_gasp.errors import INTERRUPTED, OK, UNEXPECTED, USAGE, GaspError


class Result:
    code: int = OK


def crash_log_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "git-gasp", "crash.log")


def _log_crash() -> str:
    text = f"git-gasp {__version__}\n{traceback.format_exc()}"
    for path in (crash_log_path(), os.path.join(tempfile.gettempdir(), "git-gasp-crash.log")):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            return path
        except OSError:
            continue
    return "(no writable location for a crash log)"


@contextlib.contextmanager
def handle_errors() -> Iterator[Result]:
    result = Result()
    try:
        yield result
        if not isinstance(result.code, int):
            result.code = OK
    except GaspError as exc:
        from git_gasp.git.process import GitError

        message, hint = exc.message, exc.hint
        if isinstance(exc, GitError):  # git's own stderr: one line, a hint where we know one
            message = exc.reason()
            if "not a git repository" in message:  # whatever the command expected
                hint = "run it inside a git repository, or pass -C PATH"
        output.diag(f"error: {message}")
        if hint:
            output.diag(f"hint: {hint}")
        result.code = exc.exit_code
    except click.exceptions.Abort:
        output.diag("interrupted")
        result.code = INTERRUPTED
    except _NO_ARGS as exc:  # `git gasp`, `git gasp record`: the help, not an "error:" line
        output.diag(exc.format_message())
        result.code = USAGE
    except click.UsageError as exc:  # the documented format: error + hint, exit 2
        output.diag(f"error: {exc.format_message()}")
        command = exc.ctx.command_path if exc.ctx is not None else "git-gasp"
        output.diag(f"hint: see `{command.replace('git-gasp', 'git gasp', 1)} -h`")
        result.code = USAGE
    except click.ClickException as exc:
        output.diag(f"error: {exc.format_message()}")
        result.code = exc.exit_code if exc.exit_code else USAGE
    except KeyboardInterrupt:
        output.diag("interrupted")
        result.code = INTERRUPTED
    except BrokenPipeError:
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        result.code = OK
    except OSError as exc:
        if exc.errno not in _ENVIRONMENT:
            result.code = _crashed()
        else:  # the machine's state, not a bug: say which file and what
            where = f"{exc.filename}: " if exc.filename else ""
            verb = "cannot write" if exc.errno in _FULL else "cannot use it"
            output.diag(f"error: {where}{verb}: {exc.strerror} (os error {exc.errno})")
            output.diag(f"hint: {_ENVIRONMENT[exc.errno]}, then run the command again")
            result.code = USAGE
    except Exception:  # the last line of defence: never a traceback
        result.code = _crashed()


# click >= 8.2 raises this for a group called without its command
_NO_ARGS: type[click.UsageError] = getattr(
    click.exceptions, "NoArgsIsHelpError", type("_Never", (click.UsageError,), {})
)


def _crashed() -> int:
    path = _log_crash()
    output.diag(f"error: unexpected internal error; details written to {path}")
    output.diag("hint: please report it with that file attached")
    return UNEXPECTED


# What a write can meet that is the machine's state, not a bug, with what to do.
_FULL = {
    errno.ENOSPC: "free some disk space",
    errno.EDQUOT: "free some space within your disk quota",
    errno.EFBIG: "raise the file-size limit (ulimit -f)",
    errno.EROFS: "make the file system writable",
}
# ... and what reading or writing a path can meet: how the files are laid out
_ENVIRONMENT = {
    **_FULL,
    errno.EACCES: "check the permissions of that path (and of its directories)",
    errno.EPERM: "check the permissions of that path (and of its directories)",
    errno.ENOTDIR: "a file stands where a directory should be: move it aside",
    errno.EISDIR: "a directory stands where a file should be: move it aside",
    errno.ENAMETOOLONG: "use a shorter path",
    errno.ELOOP: "a symbolic link there loops: fix or remove it",
    errno.EEXIST: "something else already stands there: choose another path or move it aside",
}
