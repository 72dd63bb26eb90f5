"""Notes refs (``git gasp notes``): listing them and writing one commit of
notes by a compare-and-swap ref update."""

from __future__ import annotations

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
    path: str,
    ref: str,
    notes: Mapping[str, bytes],
    message: str,
    old: str | None,
    ident: str | None = None,
) -> str:
    """One commit on notes ref ``ref`` setting each commit's note to exactly
    the given bytes (fast-import notes commits only), with ``message``, moved
    from ``old`` (None: the ref must not exist); GitError if it moved
    meanwhile. Returns the notes commit.

    One ``git fast-import``: its notemodify command keeps the notes tree's
    fanout as ``git notes`` does, whatever the fanout ``old`` has, and its
    ref update is a compare-and-swap of sorts: a new tip that does not contain
    the ref's value then is refused (no ``--force``), so a writer that moved
    it meanwhile, or created it, makes this fail (a ref moved back to an
    ancestor of ``old`` is moved forward again). ``ident`` is the
    committer (``git var GIT_COMMITTER_IDENT``'s line, read when None); the
    author is git's author identity, as ``commit-tree`` takes it.
    Fewer than ``fastimport.unpackLimit`` objects (100) are stored loose."""
    who = ident if ident is not None else run(path, ["var", "GIT_COMMITTER_IDENT"]).decode()
    author = run(path, ["var", "GIT_AUTHOR_IDENT"]).decode()  # as commit-tree takes it
    text = message if message.endswith("\n") else message + "\n"  # as commit-tree -m
    body = text.encode("utf-8")
    head = f"commit {ref}\nmark :1\nauthor {author.strip()}\ncommitter {who.strip()}\n"
    parts = [
        b"feature notes\nfeature done\n",
        f"{head}data {len(body)}\n".encode(),
        body,
        f"from {old}\n".encode() if old is not None else b"",
    ]
    for obj, data in notes.items():
        parts += [f"N inline {obj}\ndata {len(data)}\n".encode(), data, b"\n"]
    parts.append(b"\nget-mark :1\ndone\n")
    out = run(path, ["fast-import", "--quiet", "--date-format=raw"], stdin=b"".join(parts))
    return out.decode().strip()
