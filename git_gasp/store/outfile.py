"""Files a command writes where its user says (``fold --graph-out``,
``restore``/``status --context``).

* Never a file of a repository: a path into a git directory (``.git``, a
  linked worktree's, the common one), a file git tracks in the repository
  that holds the target, or one of an agent's own names (``state/``,
  ``memory/``, ``journal/``, ``identity/``, ``skills/``, ``snapshots/``,
  ``.agent/``, ``transcripts/``, ``AGENT.md``, ``IDENTITY.md``) at the top
  of that repository or of the agent being read, whatever their case (a
  case-insensitive file system reads ``agent.md`` as ``AGENT.md``). When
  git cannot say (a repository it refuses to read), the write is refused.
* Its directory must exist (also for the target of a symbolic link).
* ``/dev/stdout``, ``/dev/stderr`` and ``/dev/fd/N`` are the command's own
  descriptors: written to as they are (appending where the shell opened
  them so), never reopened or renamed over.
* A regular file (or a new one) is replaced atomically, through any link
  (the link stays; its target gets the text), keeping an existing file's
  mode (and owner, when run as root); anything else that exists (a FIFO, a
  terminal) is opened and written to.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys

from git_gasp import git
from git_gasp.errors import USAGE, GaspError
from git_gasp.store import writer
from git_gasp.store.worktree import inside, os_error

#: the top-level names of an agent's own files (compared case-folded)
OWN = frozenset(
    name.casefold()
    for name in (
        ".git",
        ".agent",
        "state",
        "memory",
        "journal",
        "identity",
        "skills",
        "snapshots",
        "transcripts",
        "AGENT.md",
        "IDENTITY.md",
    )
)
_DESCRIPTOR = re.compile(r"/(?:dev|proc/self)/fd/(\d+)")
_STANDARD = {"/dev/stdout": 1, "/dev/stderr": 2}


def _refused(path: str, what: str) -> GaspError:
    return GaspError(
        f"{path}: is {what}; not overwritten",
        "write it outside the repository's files (a new file, or a path outside it)",
        USAGE,
    )


def descriptor(path: str) -> int | None:
    """The file descriptor ``path`` names (``/dev/stdout``, ``/dev/fd/3``), if any."""
    if path in _STANDARD:
        return _STANDARD[path]
    match = _DESCRIPTOR.fullmatch(path)
    return int(match.group(1)) if match else None


def check_target(path: str, root: str | None) -> None:
    """Refuse ``path`` (see the module doc); ``root`` is the agent being read,
    when there is one. Checked before any work."""
    if not path.strip():
        raise GaspError("the output file name is empty", "name a file, or - for stdout", USAGE)
    if descriptor(path) is not None:
        return
    if path.endswith(("/", os.sep)):
        raise GaspError(f"{path}: names a directory", "name a file in it", USAGE)
    real = os.path.realpath(path)
    parent = os.path.dirname(real)
    if not os.path.isdir(parent):
        raise GaspError(
            f"{path}: cannot write: no such directory {parent}",
            "name a file in an existing directory",
            USAGE,
        )
    if os.path.isdir(real):
        raise GaspError(f"{path}: is a directory", "name a file in it", USAGE)
    if any(part.casefold() == ".git" for part in real.split(os.sep)):
        raise _refused(path, "inside a git directory")
    if root is not None:
        _own_name(path, real, os.path.realpath(root), "the agent's own")
    _in_repository(path, real, parent)


def check_target_in_clone(path: str, dest: str) -> None:
    """:func:`check_target` for a restore, before the clone into ``dest``
    exists: a path inside the clone to be is judged by its name (an agent's
    own names are refused; what git tracks there is judged when it is
    written), any other path whole."""
    target, top = os.path.abspath(path), os.path.abspath(dest)
    if target != top and inside(top, target):
        rel = os.path.relpath(target, top).replace(os.sep, "/")
        if rel.split("/", 1)[0].casefold() in OWN:
            raise _refused(path, f"the restored agent's own {rel}")
        return
    check_target(path, None)


def _own_name(path: str, real: str, top: str, whose: str) -> None:
    if real != top and inside(top, real):
        rel = os.path.relpath(real, top).replace(os.sep, "/")
        if rel.split("/", 1)[0].casefold() in OWN:
            raise _refused(path, f"{whose} {rel}")


def _in_repository(path: str, real: str, parent: str) -> None:
    """Refuse a target in a git directory, tracked, or one of an agent's
    names at the top of the repository that holds it."""
    # git finds the repository from the path alone: GIT_DIR and the like
    # (set under `git --git-dir=... gasp`, in hooks) would name another one
    env = git.scrubbed_env()
    directory = parent
    while True:  # the repository holding the target, then each enclosing one
        args = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"]
        done = git.attempt(directory, args, env=env)
        if done.code != 0:
            error = done.err.decode("utf-8", "replace").strip()
            if "not a git repository" in error:
                return  # nothing (more) of git's to protect here
            fatal = [ln for ln in error.splitlines() if ln.startswith("fatal:")]
            why = (fatal or error.splitlines() or [f"git exited {done.code}"])[0]
            raise GaspError(
                f"{path}: cannot tell whether git keeps this file: {why}",
                "write it outside the repository",
                USAGE,
            )
        lines = done.out.decode("utf-8", "surrogateescape").splitlines()
        if len(lines) < 3:
            raise _refused(path, "in a repository git describes oddly")
        top = os.path.realpath(lines[0])
        for git_dir in (lines[1], os.path.join(directory, lines[2])):
            if inside(os.path.realpath(git_dir), real):
                raise _refused(path, "inside a git directory")
        _own_name(path, real, top, "an agent's own")
        if os.path.lexists(real) and inside(top, real):
            rel = os.path.relpath(real, top).replace(os.sep, "/")
            args = ["ls-files", "-z", "--", f":(literal,icase){rel}"]
            listed = git.attempt(top, args, env=env)
            if listed.code != 0:
                raise GaspError(
                    f"{path}: cannot tell whether git tracks it: "
                    f"{listed.err.decode('utf-8', 'replace').strip()}",
                    "write it outside the repository",
                    USAGE,
                )
            if listed.out.strip(b"\0"):
                raise _refused(path, f"a file git tracks ({rel})")
        outer = os.path.dirname(top)
        if outer == top:
            return
        directory = outer


def write(path: str, data: bytes, root: str | None) -> None:
    """Write ``data`` to ``path`` (see the module doc); a GaspError (exit 2)
    naming the path when it cannot."""
    check_target(path, root)
    try:
        fd = descriptor(path)
        if fd is not None:
            sys.stdout.flush()
            sys.stderr.flush()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            return
        try:
            st: os.stat_result | None = os.stat(path)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(path, "wb") as fh:  # a FIFO or terminal: written into
                fh.write(data)
            return
        target = os.path.realpath(path)  # a link stays a link; its target is replaced
        writer.write_atomically(target, data)
        if st is not None:
            os.chmod(target, stat.S_IMODE(st.st_mode))
            if os.geteuid() == 0:
                with contextlib.suppress(OSError):
                    os.chown(target, st.st_uid, st.st_gid)
    except OSError as exc:
        raise GaspError(f"{path}: cannot write: {os_error(exc)}", None, USAGE) from None
