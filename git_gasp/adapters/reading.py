"""Reading one native transcript file (the I/O side): its bytes in capped
chunks (:func:`git_gasp.adapters.lines.capped`; a ``.zst`` decompressed
first), and the files an import found but could not read (:class:`Found`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import NamedTuple

from git_gasp.adapters.codexformat import whole_rollout
from git_gasp.adapters.lines import CHUNK, Source, capped
from git_gasp.errors import USAGE, GaspError

ZST_HINT = "install the zstandard package: pip install 'git-gasp[zstd]'"
NAME_HINT = "move it away, or name the transcripts: git gasp import claude-code|codex FILE..."
MISSING_HINT = (
    "name transcripts that exist (git gasp import claude-code|codex FILE...), "
    "or choose them with --session ID or --project DIR"
)


def read_source(path: str) -> Source:
    """A native file as text (``.zst`` decompressed, the TypeScript Codex
    CLI's ``.json`` rollout as its lines); bad bytes become U+FFFD
    and a leading byte order mark is dropped. Read chunk by chunk, with each
    line over :data:`~git_gasp.adapters.lines.LINE_CAP` bytes dropped as it
    goes and each run of blank lines kept as one (:func:`lines.capped`); a
    ``.zst`` is decompressed whole first."""
    if not os.path.isfile(path):  # a pipe would block the import, a device never end
        raise GaspError(f"{shown(path)}: not a regular file", NAME_HINT, USAGE)
    try:
        with open(path, "rb") as fh:
            chunks: Iterable[bytes] = iter(lambda: fh.read(CHUNK), b"")
            if path.endswith(".zst"):
                whole = _unzstd(path, fh.read())
                chunks = (whole[i : i + CHUNK] for i in range(0, len(whole), CHUNK))
            data, gaps, long = capped(chunks)
    except OSError as exc:
        why = f"{shown(path)}: cannot read: {exc.strerror}"
        raise GaspError(why, NAME_HINT, USAGE) from None
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    if path.endswith(".json"):  # one JSON document, read as the lines it holds
        text = whole_rollout(text) or text
    return Source(path, text, tuple(gaps), tuple(long))


def shown(path: str) -> str:
    """``path`` as a one-line message can show it (bad bytes and newlines escaped)."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text.replace("\n", "\\n").replace("\r", "\\r")


def _unzstd(path: str, data: bytes) -> bytes:
    """The frames of a ``.zst`` file, decompressed; a damaged or truncated
    one is a one-line error."""
    name = shown(path)
    hint = f"check it with: zstd -t {name} (the .jsonl it decompresses to imports as it is)"
    try:  # Python 3.14 has it in the standard library
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        pass
    else:
        try:
            return bytes(zstd.decompress(data))
        except zstd.ZstdError as exc:
            raise GaspError(f"{name}: not a whole zstd file: {exc}", hint, USAGE) from None
    try:
        import zstandard
    except ImportError:
        raise GaspError(f"{name}: reading .zst needs zstd support", ZST_HINT, USAGE) from None
    out: list[bytes] = []
    while data:  # frame after frame, as the zstd tool reads them
        reader = zstandard.ZstdDecompressor().decompressobj()
        try:
            out.append(reader.decompress(data))
        except zstandard.ZstdError as exc:
            raise GaspError(f"{name}: not a zstd file: {exc}", hint, USAGE) from None
        if not reader.eof:
            raise GaspError(f"{name}: the zstd stream is truncated", hint, USAGE)
        data = reader.unused_data
    return b"".join(out)


class Skipped(NamedTuple):
    """A file found under a directory that could not be read, and why."""

    path: str  # as a one-line message can show it
    reason: str


class Found:
    """The files an import reads. One found under a directory (or in the
    agent's own location) that cannot be read is skipped, its reason kept,
    and the rest imported; a file named on the command line is never
    skipped, and with ``strict`` none is: reading it stays an error."""

    def __init__(self, strict: bool = False, named: bool = True) -> None:
        self.strict = strict
        self.naming = named  # False: the paths come from the agent's own location
        self.named: set[str] = set()  # the files named (absolute paths)
        self.skipped: list[Skipped] = []

    def read(self, path: str) -> Source | None:
        """``path``'s source, or None when it is skipped."""
        if self.strict or path in self.named:
            return read_source(path)
        try:
            return read_source(path)
        except GaspError as exc:
            self.skip(path, exc.message.removeprefix(f"{shown(path)}: "))
            return None

    def skip(self, path: str, reason: str) -> None:
        if self.strict or path in self.named:
            raise GaspError(f"{shown(path)}: {reason}", NAME_HINT, USAGE)
        self.skipped.append(Skipped(shown(path), reason))
