"""Files a command writes where its user says (``fold --graph-out``,
``restore``/``status --context``).

* Never one of the repository's own files: a path that resolves into the
  git directory, the agent's directories (``state/``, ``memory/``,
  ``journal/``, ``identity/``, ``skills/``, ``snapshots/``, ``.agent/``,
  ``transcripts/``), ``AGENT.md``, or any file git tracks is refused
  (``--context state/events.jsonl`` would replace the log).
* A regular file (or a new one) is replaced atomically, through any symbolic
  link (the link stays and its target gets the text), keeping an existing
  file's mode; a new one gets the usual mode (umask).
* Anything else that exists (``/dev/stdout``, a FIFO, a terminal) is opened
  and written to, never replaced by a rename.
"""

from __future__ import annotations

import os
import stat

from git_gasp import gitrepo, store
from git_gasp.errors import USAGE, GaspError
from git_gasp.worktree import inside, os_error

#: the top-level names of the repository's own files
_OWN = frozenset(
    {
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
    }
)


def check_target(path: str, root: str | None) -> None:
    """Refuse ``path`` when its directory does not exist or it is one of the
    files of the repository at ``root``; checked before any work."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise GaspError(
            f"{path}: cannot write: no such directory {parent}",
            "name a file in an existing directory",
            USAGE,
        )
    if root is None:
        return
    real, base = os.path.realpath(path), os.path.realpath(root)
    if real == base or not inside(base, real):
        return
    rel = os.path.relpath(real, base).replace(os.sep, "/")
    own = rel.split("/", 1)[0] in _OWN
    if own or (os.path.lexists(real) and _tracked(root, rel)):
        raise GaspError(
            f"{path}: is the repository's own {rel}; not overwritten",
            "write it outside the agent's files (a new file, or a path outside the repository)",
            USAGE,
        )


def _tracked(root: str, rel: str) -> bool:
    try:
        return bool(gitrepo.tracked(root, [f":(literal){rel}"]))
    except gitrepo.GitError:
        return False  # not a repository (a plain directory): nothing is tracked


def write(path: str, data: bytes, root: str | None) -> None:
    """Write ``data`` to ``path`` (see the module doc); a GaspError (exit 2)
    naming the path when it cannot."""
    check_target(path, root)
    try:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            with open(path, "wb") as fh:  # a device, FIFO or terminal: written into
                fh.write(data)
            return
        target = os.path.realpath(path)  # a link stays a link; its target is replaced
        store.write_atomically(target, data)
        if mode is not None:
            os.chmod(target, stat.S_IMODE(mode))
    except OSError as exc:
        raise GaspError(f"{path}: cannot write: {os_error(exc)}", None, USAGE) from None
