"""Every outcome as a documented exit code, with no click: the part of the one
error handler that the hooks' entry shares with the command line.

:func:`handled` turns a :class:`~git_gasp.errors.GaspError` into its one-line
``error:``/``hint:`` pair and its exit code, an interrupt into 130, a closed
pipe into 0, an :class:`OSError` that is the machine's state into a line
naming the file, and anything else into a crash log whose path is printed
(exit 3): never a traceback. ``git_gasp.cli.shell`` adds click's own
exceptions on top of it.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from collections.abc import Iterator

from git_gasp import __version__, output
from git_gasp.errors import INTERRUPTED, OK, UNEXPECTED, USAGE, GaspError


class Result:
    code: int = OK


def tolerant_streams() -> None:
    """What stdout or stderr cannot encode (PYTHONIOENCODING=ascii, a C locale)
    is written as escapes, never a crash."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")


def crash_log_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "git-gasp", "crash.log")


def _log_crash() -> str:
    import tempfile  # only when something crashed: a hook's start-up pays nothing
    import traceback

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


def _gasp_error(exc: GaspError) -> int:
    from git_gasp.git.process import GitError

    message, hint = exc.message, exc.hint
    if isinstance(exc, GitError):  # git's own stderr: one line, a hint where we know one
        message = exc.reason()
        if "not a git repository" in message:  # whatever the command expected
            hint = "run it inside a git repository, or pass -C PATH"
    output.diag(f"error: {message}")
    if hint:
        output.diag(f"hint: {hint}")
    return exc.exit_code


@contextlib.contextmanager
def handled() -> Iterator[Result]:
    result = Result()
    try:
        yield result
        if not isinstance(result.code, int):
            result.code = OK
    except GaspError as exc:
        result.code = _gasp_error(exc)
    except KeyboardInterrupt:
        output.diag("interrupted")
        result.code = INTERRUPTED
    except BrokenPipeError:
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        result.code = OK
    except OSError as exc:
        if exc.errno not in _ENVIRONMENT:
            result.code = crashed()
        else:  # the machine's state, not a bug: say which file and what
            where = f"{exc.filename}: " if exc.filename else ""
            verb = "cannot write" if exc.errno in _FULL else "cannot use it"
            output.diag(f"error: {where}{verb}: {exc.strerror} (os error {exc.errno})")
            output.diag(f"hint: {_ENVIRONMENT[exc.errno]}, then run the command again")
            result.code = USAGE
    except Exception:  # the last line of defence: never a traceback
        result.code = crashed()


def crashed() -> int:
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
