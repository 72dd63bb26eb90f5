"""Reading an agent's identity: its hash, verified as check 6 verifies it (§9.2).

``git gasp identity hash`` and ``verify``, and restore's fail-closed check,
read the working tree exactly as check 6 does (the §9.2 recipe over
``identity/``, untracked files included), but refuse a symlink under
``identity/`` that leads out of the repository. The ``--context`` document
takes the identity files the manifest's Locations table names, capped, and
tells apart those the hash does not cover. Committing an identity change
(a write) is :mod:`git_gasp.agent.identity`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, NamedTuple

from git_gasp.core.manifest import MAX_MANIFEST_BYTES, declared_identity_hash, identity_hash
from git_gasp.core.repochecks import Identity
from git_gasp.core.repochecks import _verify_identity as verify_manifest
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.restore.repofiles import MANIFEST, over_cap, read_head, readable
from git_gasp.store.worktree import identity_files, os_error

IDENTITY_DIR = "identity"


class Verification(NamedTuple):
    declared: str | None  # the manifest's identity_hash as written, if any
    computed: str | None  # the §9.2 digest of the working tree, if computable
    failures: tuple[str, ...]  # check 6's wording; empty when verified
    notes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_value(self) -> dict[str, Any]:
        return {
            "declared": self.declared,
            "computed": self.computed,
            "verified": self.ok,
            "failures": list(self.failures),
            "notes": list(self.notes),
        }


def compute(root: str) -> str:
    """The §9.2 identity hash of ``root``'s working tree (GaspError if it cannot be);
    a symlink leading out of the repository is refused, not followed."""
    try:
        return identity_hash(identity_files(root))
    except FileNotFoundError:
        raise GaspError(
            f"{root}: no identity/ directory or IDENTITY.md", "create identity/IDENTITY.md"
        ) from None
    except OSError as exc:
        raise GaspError(f"cannot compute identity hash: {os_reason(exc)}", None, USAGE) from None


def os_reason(exc: OSError) -> str:
    return os_error(exc) if exc.errno else str(exc)


def verify(root: str) -> Verification:
    """Declared against computed, with check 6's failure wording."""
    path = os.path.join(root, MANIFEST)
    manifest: bytes | None = None
    if os.path.isfile(path):
        try:
            with open(path, "rb") as fh:
                manifest = fh.read()
        except OSError:
            manifest = b""
    present = os.path.isdir(os.path.join(root, IDENTITY_DIR)) or os.path.isfile(
        os.path.join(root, "IDENTITY.md")
    )
    digest, error = None, None
    if present:
        try:
            digest = compute(root)
        except GaspError as exc:
            error = exc.message.removeprefix("cannot compute identity hash: ")
    failures: list[str] = []
    notes: list[str] = []
    if manifest is None:
        failures.append("AGENT.md manifest missing")
    if not present:
        failures.append(
            "no identity/ directory or IDENTITY.md "
            "(manifest-declared alternate locations are not yet checked)"
        )
    elif manifest is not None:
        verify_manifest(Identity(True, manifest, digest, error), failures, notes)
    declared = None
    if manifest:
        declared = declared_identity_hash(manifest.decode("utf-8", "replace")).raw
    return Verification(declared, digest, tuple(failures), tuple(notes))


#: Each identity file at most (when gasp.maxFileBytes is unset): the hash
#: reads them whole, and a persona is text.
MAX_IDENTITY_FILE_BYTES = 16 * 1024 * 1024


def verified_identity(
    root: str, manifest: bytes, cap: int | None = None, local: bool = False
) -> tuple[bool, str | None, tuple[str, ...]]:
    """:func:`verify_identity`, refusing (fail closed) an identity that does
    not match; ``local`` (status, in the work tree where identity/ was edited)
    names how a person approves the edit, or undoes it."""
    verified, digest, notes = verify_identity(root, manifest, cap)
    if not verified:
        hint = (
            APPROVE_HINT
            if local
            else "refusing to restore an agent whose identity/ does not match AGENT.md; "
            "nothing from the repository was run"
        )
        raise GaspError(notes[0], hint, FINDINGS)
    return verified, digest, notes


#: How a changed identity/ is approved or undone (status, identity verify, check).
APPROVE_HINT = (
    "identity/ does not match AGENT.md; a person approves it with: git add identity/ && "
    "git gasp identity commit --approved-by NAME --reason TEXT "
    "(or undo it: git checkout HEAD -- identity/)"
)


def verify_identity(
    root: str, manifest: bytes, cap: int | None = None
) -> tuple[bool, str | None, tuple[str, ...]]:
    """Check 6's verification (fail-closed): (verified, computed hash, failures
    or notes); with ``cap``, an identity file over it is refused unread."""
    limit = MAX_IDENTITY_FILE_BYTES if cap is None else cap
    present = os.path.isdir(os.path.join(root, "identity")) or os.path.isfile(
        os.path.join(root, "IDENTITY.md")
    )
    try:
        sizes = identity_files(root, sizes_only=True) if present else []
    except OSError as exc:  # never read what could not be sized first (fail closed)
        why = os_error(exc)
        if exc.filename:
            why = f"{os.path.relpath(str(exc.filename), root)}: {why}"
        return False, None, (f"cannot compute identity hash: {why}",)
    for rel, size in sizes:
        if int(size) > limit:
            raise over_cap(rel, limit, cap is not None)

    failures: list[str] = []
    notes: list[str] = []
    digest, error = None, None
    if not present:
        failures.append(
            "no identity/ directory or IDENTITY.md "
            "(manifest-declared alternate locations are not yet checked)"
        )
    else:
        try:
            digest = compute(root)
        except GaspError as exc:
            error = exc.message.removeprefix("cannot compute identity hash: ")
        verify_manifest(Identity(True, manifest, digest, error), failures, notes)
    if failures:
        return False, digest, tuple(failures)
    return True, digest, tuple(notes)


#: What the --context document takes from identity locations at most.
MAX_IDENTITY_FILES = 256
MAX_IDENTITY_BYTES = 4 * 1024 * 1024


def identity_texts(
    root: str, locations: Sequence[str], cap: int | None = None, cut: list[str] | None = None
) -> tuple[list[tuple[str, str]], bool]:
    """(path, text) of the identity files at ``locations``: inside the work
    tree and outside ``.git`` only, each file once (whatever symlinks name
    it), at most :data:`MAX_IDENTITY_FILES` files and
    :data:`MAX_IDENTITY_BYTES` bytes; and whether those caps left some out."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    total = 0
    for rel in locations:
        base = os.path.join(root, *rel.split("/"))
        if not readable(root, base):
            continue
        files: list[str] = []
        if os.path.isfile(base):
            files = [base]
        elif os.path.isdir(base):
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(
                    d for d in dirnames if readable(root, os.path.join(dirpath, d))
                )
                files += [os.path.join(dirpath, f) for f in sorted(filenames)]
        for path in files:
            real = os.path.realpath(path)
            if real in seen or not readable(root, path) or not os.path.isfile(path):
                continue
            if len(out) >= MAX_IDENTITY_FILES or total >= MAX_IDENTITY_BYTES:
                return out, True
            seen.add(real)
            data, whole = read_head(
                path, min(cap or MAX_MANIFEST_BYTES, MAX_IDENTITY_BYTES - total)
            )
            rel_path = os.path.relpath(path, root).replace(os.sep, "/")
            if not whole and cut is not None:  # the document takes its first bytes, and says so
                cut.append(rel_path)
            total += len(data)
            out.append((rel_path, _as_read(data)))
    return out, False


def unhashed(root: str, identity: Sequence[tuple[str, str]]) -> list[str]:
    """The identity files read that ``identity_hash`` does not cover (it
    covers ``identity/``, or the root ``IDENTITY.md``; REFERENCE §9.2)."""

    def real(rel: str) -> str:
        return os.path.realpath(os.path.join(root, *rel.split("/")))

    try:  # by the file, not the name: a link to a hashed file reads the same bytes
        hashed = {real(rel) for rel, _ in identity_files(root)}
    except OSError:
        hashed = set()
    return [path for path, _ in identity if real(path) not in hashed]


def _as_read(data: bytes) -> str:
    """An identity file's text as a person reads it: a leading byte order
    mark and the CR of each CRLF line end (a file written on Windows) are
    no text, so they do not reach the documents as an invisible character
    and an escaped ``\\r`` on every line. The hash is over the bytes."""
    return data.decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n")
