"""Objects: look-ups in batches (``cat-file --batch-check``), blob contents
through one long-lived ``cat-file --batch``, sizes of committed files, and
searching a tree's contents."""

import contextlib
import os
import re
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, NamedTuple

from git_gasp.core.appendonly import Blob
from git_gasp.git.process import GitError, attempt, run, scrubbed_env
from git_gasp.git.refs import head, repo_info

if TYPE_CHECKING:  # both imported where used: a hook that reads no blob starts neither
    import subprocess


class ObjectInfo(NamedTuple):
    oid: str
    type: str  # "blob", "tree", "commit", ...
    size: int


def object_info(path: str, specs: Sequence[str]) -> list[ObjectInfo | None]:
    """For each ``<rev>:<path>`` (or ``:<path>`` for the index) spec, the
    object there, or None if absent; one ``cat-file --batch-check``."""
    if not specs:
        return []
    if any("\n" in s for s in specs):
        # one spec per line: a newline would shift every later answer
        raise GitError("a path name contains a newline; refusing to look it up")
    payload = "".join(f"{s}\n" for s in specs).encode("utf-8", "surrogateescape")
    out = run(path, ["cat-file", "--batch-check"], stdin=payload).decode("utf-8", "surrogateescape")
    result: list[ObjectInfo | None] = []
    for line in out.split("\n")[: len(specs)]:
        fields = line.split(" ")
        if len(fields) == 3 and fields[2].isdigit():
            result.append(ObjectInfo(fields[0], fields[1], int(fields[2])))
        else:
            result.append(None)  # "<spec> missing" or "ambiguous"
    return result


def blobs_at(path: str, specs: Sequence[str]) -> list[Blob | None]:
    """For each ``<commit>:<path>`` spec, the blob there, or None if absent.

    Raises GitError if a spec names something that is not a file.
    """
    return blobs_of(dict(zip(specs, object_info(path, specs), strict=True)), specs)


def blobs_of(found: Mapping[str, ObjectInfo | None], specs: Sequence[str]) -> list[Blob | None]:
    """:func:`blobs_at` from objects looked up already (``found``, by spec)."""
    result: list[Blob | None] = []
    for spec in specs:
        obj = found[spec]
        if obj is not None and obj.type != "blob":
            raise GitError(f"{spec} is not a file ({obj.type})")
        result.append(Blob(obj.oid, obj.size) if obj is not None else None)
    return result


class BlobReader:
    """Blob contents through one long-lived ``git cat-file --batch``."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._proc: subprocess.Popen[bytes] | None = None

    def _streams(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._proc is None:
            import subprocess

            self._proc = subprocess.Popen(
                ["git", "-C", self._path, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def read(self, oid: str) -> bytes:
        found = self.read_named(oid)
        if found is None:
            raise GitError(f"cannot read object {oid}: git has none")
        return found[2]

    def read_named(self, name: str) -> tuple[str, str, bytes] | None:
        """``(oid, type, bytes)`` of the object ``name`` names (an id, or
        ``<rev>:<path>``), or None when it names none; GitError when git
        stopped answering."""
        stdin, stdout = self._streams()
        stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        stdin.flush()
        header = stdout.readline().decode("utf-8", "replace").split(" ")
        if len(header) != 3 or not header[2].strip().isdigit():
            if header == [""]:
                raise GitError(f"cannot read object {name}: git stopped answering")
            return None  # "<name> missing" (or ambiguous)
        size = int(header[2])
        data = stdout.read(size)
        if len(data) != size or stdout.read(1) != b"\n":
            raise GitError(f"cannot read object {name}: git stopped answering")
        return header[0], header[1], data

    def read_many(self, oids: Sequence[str]) -> dict[str, bytes]:
        """Each of ``oids`` (not repeated), in one round trip: the requests are
        written from a second thread while the answers are read, so neither
        side waits for the other object by object."""
        todo = list(dict.fromkeys(oids))
        if not todo:
            return {}
        stdin, stdout = self._streams()
        payload = "".join(f"{oid}\n" for oid in todo).encode()
        failed: list[OSError] = []

        def write() -> None:
            try:
                stdin.write(payload)
                stdin.flush()
            except OSError as exc:  # git died: the reads below say so
                failed.append(exc)

        import threading

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        found: dict[str, bytes] = {}
        try:
            for oid in todo:
                header = stdout.readline().decode().split(" ")
                if len(header) != 3:
                    raise GitError(f"cannot read object {oid}: {' '.join(header).strip()}")
                found[oid] = stdout.read(int(header[2]))
                stdout.read(1)
        except BaseException:
            # answers left unread would block git, and with it the writer
            proc, self._proc = self._proc, None
            assert proc is not None and proc.stdin is not None
            proc.kill()
            writer.join()
            with contextlib.suppress(OSError):
                proc.stdin.close()
            stdout.close()
            proc.wait()
            raise
        writer.join()
        return found

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.close()
            self._proc.stdout.close()
            self._proc.wait()
            self._proc = None

    def __enter__(self) -> "BlobReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SEARCH_CAP = 64 << 20  # bytes copied for lines_holding; past it, the caller searches


class ReadAhead:
    """Objects named by ``<rev>:<path>`` specs, read by a second ``cat-file
    --batch`` in a thread while the caller does other work (the thread waits
    on git, so the caller keeps the interpreter); with ``needles``, the lines
    of each blob read that hold one (:func:`lines_holding`) next. :meth:`take`
    and :meth:`lines` wait for theirs; None when the object is missing, is no
    blob, or git failed: the caller then reads or searches it itself, so a
    read ahead changes no result, only when bytes arrive."""

    def __init__(self, path: str, specs: Sequence[str], needles: Sequence[str] = ()) -> None:
        self.specs = tuple(dict.fromkeys(s for s in specs if "\n" not in s))
        self._found: dict[str, tuple[str, bytes] | None] = {}
        self._lines: dict[str, tuple[str, set[int]]] = {}
        import threading

        self._done = threading.Condition()
        self._finished = self._searched = False
        self._thread = threading.Thread(target=self._run, args=(path, needles), daemon=True)
        self._thread.start()

    def _run(self, path: str, needles: Sequence[str]) -> None:
        read: list[tuple[str, str, bytes]] = []
        try:
            self._read(path, read)
        except Exception:  # what is not read ahead, the caller reads itself
            pass
        finally:
            with self._done:
                self._finished = True
                self._done.notify_all()
        try:
            if needles and read and sum(len(d) for _, _, d in read) <= _SEARCH_CAP:
                found = lines_holding([data for _, _, data in read], needles)
                self._lines = {s: (oid, n) for (s, oid, _), n in zip(read, found, strict=True)}
        except Exception:  # and what is not searched, it screens itself
            pass
        finally:
            with self._done:
                self._searched = True
                self._done.notify_all()

    def _read(self, path: str, read: list[tuple[str, str, bytes]]) -> None:
        with BlobReader(path) as reader:
            for spec in self.specs:
                found = reader.read_named(spec)  # GitError when git stopped answering
                got = (found[0], found[2]) if found is not None and found[1] == "blob" else None
                if got is not None:
                    read.append((spec, *got))
                with self._done:
                    self._found[spec] = got
                    self._done.notify_all()

    def take(self, spec: str, oid: str) -> bytes | None:
        """The blob at ``spec`` if it is ``oid`` (waiting for it), handed over once."""
        if spec not in self.specs:
            return None
        with self._done:
            self._done.wait_for(lambda: spec in self._found or self._finished)
            got = self._found.pop(spec, None)
        return got[1] if got is not None and got[0] == oid else None

    def lines(self, spec: str, oid: str) -> set[int] | None:
        """The lines of the blob at ``spec`` holding a needle, if it is ``oid``."""
        if spec not in self.specs:
            return None
        with self._done:
            self._done.wait_for(lambda: self._searched)
        got = self._lines.get(spec)
        return got[1] if got is not None and got[0] == oid else None

    def close(self) -> None:
        self._thread.join()
        self._found.clear()


def committed_size(root: str, rel: str) -> int:
    """The size of ``rel`` (relative to the work tree's ``root``) in HEAD; 0
    when it is not committed or there is no repository."""
    return committed_sizes(root, [rel])[0]


def committed_sizes(root: str, rels: Sequence[str]) -> list[int]:
    """:func:`committed_size` of each of ``rels``, in one lookup."""
    try:
        info = repo_info(root)
        tip = head(root)
        if tip is None:
            return [0] * len(rels)
        blobs = blobs_at(root, [f"{tip}:{info.prefix}{rel}" for rel in rels])
    except GitError:
        return [0] * len(rels)
    return [blob.size if blob is not None else 0 for blob in blobs]


def grep_tree(path: str, rev: str, needles: Sequence[str]) -> list[str]:
    """Paths of the files in tree ``rev`` holding any of ``needles`` (fixed
    strings): one ``git grep``."""
    if not needles:
        return []
    args = ["grep", "-l", "-z", "-F", *(x for n in needles for x in ("-e", n)), rev, "--"]
    got = attempt(path, args)
    if got.code == 1:
        return []
    if got.code != 0:
        raise GitError(got.err.decode("utf-8", "replace").strip() or "git grep failed")
    prefix = f"{rev}:"
    names = got.out.decode("utf-8", "surrogateescape").split("\0")
    return [n[len(prefix) :] if n.startswith(prefix) else n for n in names if n]


def lines_holding(contents: Sequence[bytes], needles: Sequence[str]) -> list[set[int]]:
    """For each of ``contents``, the indexes (from 0) of its lines, split on
    ``\\n``, that hold one of ``needles`` with ASCII letters in either case,
    byte for byte (``LC_ALL=C``): one ``git grep --no-index`` over copies in
    a private temporary folder (removed before it returns)."""
    import shutil
    import tempfile

    either = "|".join(re.sub(r"([\\.\[\]()*+?{}|^$])", r"\\\1", n) for n in needles)
    names = [str(n) for n in range(len(contents))]
    args = ["grep", "--no-index", "--no-color", "--text", "--ignore-case", "--extended-regexp"]
    args += ["--line-number", "--null", "--only-matching", "--no-column", "-e", either, "--"]
    folder = tempfile.mkdtemp(prefix="gasp-screen-")
    try:
        for name, data in zip(names, contents, strict=True):
            with open(os.path.join(folder, name), "wb") as fh:
                fh.write(data)
        env = {**scrubbed_env(), "LC_ALL": "C", "GIT_CEILING_DIRECTORIES": os.path.dirname(folder)}
        got = attempt(folder, [*args, *names], env=env)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if got.code not in (0, 1):
        raise GitError(got.err.decode("utf-8", "replace").strip() or "git grep failed")
    found: list[set[int]] = [set() for _ in contents]
    for record in got.out.split(b"\n") if got.code == 0 else ():
        if not record:
            continue
        parts = record.split(b"\0", 2)  # <file> NUL <line> NUL <what matched>
        if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
            raise GitError(f"git grep answered what was not asked: {record[:80]!r}")
        found[int(parts[0])].add(int(parts[1]) - 1)
    return found
