"""Notes refs (``git gasp notes``): listing them and writing one commit of
notes by a compare-and-swap ref update."""

from __future__ import annotations

import os
from collections.abc import Mapping

from git_gasp.git.process import attempt, run
from git_gasp.git.refs import resolve


def notes_list(path: str, ref: str) -> dict[str, str]:
    """Annotated object -> note blob for every note under ``ref`` (one
    ``git notes list``); empty when the ref does not exist."""
    if resolve(path, ref) is None:
        return {}
    out = run(path, ["notes", "--ref", ref, "list"]).decode()
    found = {}
    for line in out.split("\n"):
        if line:
            blob, _, obj = line.partition(" ")
            found[obj] = blob
    return found


def note_blob(path: str, ref: str, obj: str) -> str | None:
    """The blob of ``obj``'s note under ``ref``, or None."""
    got = attempt(path, ["notes", "--ref", ref, "list", obj])
    return got.out.decode().strip() or None if got.code == 0 else None


def write_notes(
    path: str, ref: str, notes: Mapping[str, bytes], message: str, old: str | None
) -> str:
    """One commit on notes ref ``ref`` setting each object's note to exactly
    the given bytes, with ``message``, moved from ``old`` (None: the ref must
    not exist) by a compare-and-swap ``update-ref``; GitError if it moved."""
    tmp = f"refs/notes/gasp-tmp-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        if old is not None:
            run(path, ["update-ref", "--no-deref", tmp, old, ""])
        for obj, data in notes.items():
            blob = run(path, ["hash-object", "-w", "--stdin"], stdin=data).decode().strip()
            run(path, ["notes", "--ref", tmp, "add", "-f", "-C", blob, obj])
        tree = run(path, ["rev-parse", "--verify", f"{tmp}^{{tree}}"]).decode().strip()
        parents = ["-p", old] if old is not None else []
        new = run(path, ["commit-tree", tree, *parents, "-m", message]).decode().strip()
        run(path, ["update-ref", "-m", message, ref, new, old or ""])
        return new
    finally:
        attempt(path, ["update-ref", "-d", tmp])
