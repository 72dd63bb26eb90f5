"""``AGENT.md`` and the identity hash (REFERENCE §9.2).

Only what the checker reads is interpreted here: the first fenced block of
the manifest and its first ``identity_hash:`` line.
"""

import hashlib
import re
from collections.abc import Iterable
from typing import NamedTuple

from git_gasp.core.log import RUST_WHITESPACE

#: The largest AGENT.md any command reads.
MAX_MANIFEST_BYTES = 1024 * 1024

_HEX64 = re.compile(r"[0-9a-f]{64}")
FENCE = "```"


class DeclaredHash(NamedTuple):
    raw: str | None  # the text after ``identity_hash:``, trimmed; None if absent
    value: str | None  # lowercased 64-hex digest, None if absent or malformed


def first_fenced_block(text: str) -> list[str] | None:
    """Lines inside the first fenced block (any line starting with ```)."""
    block: list[str] | None = None
    for line in text.split("\n"):
        line = line[:-1] if line.endswith("\r") else line
        if line.strip(RUST_WHITESPACE).startswith(FENCE):
            if block is not None:
                return block
            block = []
        elif block is not None:
            block.append(line)
    return block


def declared_identity_hash(text: str) -> DeclaredHash:
    """The ``identity_hash`` the manifest declares, as the checker reads it."""
    for line in first_fenced_block(text) or []:
        stripped = line.strip(RUST_WHITESPACE)
        if stripped.startswith("identity_hash:"):
            raw = stripped[len("identity_hash:") :].strip(RUST_WHITESPACE)
            lowered = raw.lower()
            return DeclaredHash(raw, lowered if _HEX64.fullmatch(lowered) else None)
    return DeclaredHash(None, None)


def identity_hash(files: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 over ``path + "\\n" + bytes`` of each file, paths in byte order.

    ``files`` are ``(repo-relative path with "/" separators, content)``.
    """
    digest = hashlib.sha256()
    for path, data in sorted(files, key=lambda item: item[0].encode("utf-8", "surrogateescape")):
        digest.update(path.encode("utf-8", "surrogateescape") + b"\n")
        digest.update(data)
    return digest.hexdigest()
