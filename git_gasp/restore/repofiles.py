"""Reading an agent repository's files as text, with size caps.

Restore and the read side take ``AGENT.md``, ``.agent/config.toml`` and
active memory from a repository they may not trust: each read is capped
(``git config gasp.maxFileBytes``, else each file's own default), stays
inside the work tree and out of ``.git``, and an over-cap file is refused,
never half read (the ``--context`` document takes the first bytes of
memory, and says so).
"""

from __future__ import annotations

import os
from typing import Any

from git_gasp import git
from git_gasp.core.agentmanifest import Manifest, ManifestError, parse_manifest
from git_gasp.core.executorconfig import MAX_CONFIG_BYTES, parse_toml, set_executor_values
from git_gasp.core.manifest import MAX_MANIFEST_BYTES
from git_gasp.errors import USAGE, GaspError
from git_gasp.store import writer
from git_gasp.store.worktree import inside, os_error

MANIFEST = "AGENT.md"
CONFIG = ".agent/config.toml"

#: ``git config gasp.maxFileBytes``: one cap, in bytes (``k``/``m``/``g``
#: suffixes), for every file restore and the read side take from a
#: repository as text (AGENT.md, .agent/config.toml, each SKILL.md, each
#: identity file, active memory); unset, each keeps its own default.
CAP_KEY = "gasp.maxFileBytes"


def file_cap(root: str) -> int | None:
    """The configured cap (the user's git configuration, as the clone sees
    it), or None; a value that is not a positive size is an error."""
    where = f"fix it where it is set (git config --show-origin {CAP_KEY}), e.g. 8m"
    try:
        value = git.config_value(root, CAP_KEY, "int")
    except git.GitError as exc:
        raise GaspError(exc.reason(), where, USAGE) from None
    if value is None:
        return None
    cap = int(value)
    if cap <= 0:
        raise GaspError(f"{CAP_KEY} is {cap}: not a size", where, USAGE)
    return cap


def over_cap(rel: str, cap: int, configured: bool = True) -> GaspError:
    hint = f"raise it if you trust the repository: git config --global {CAP_KEY} <bytes>"
    if configured:
        hint += f" (where it is set now: git config --show-origin {CAP_KEY})"
    return GaspError(f"{rel} is over the {cap:,}-byte cap (refused)", hint, USAGE)


def read_capped(
    root: str, rel: str, cap: int, required: bool, configured: bool = False
) -> bytes | None:
    path = os.path.join(root, *rel.split("/"))
    if not os.path.lexists(path):
        if required:
            raise GaspError(
                f"{rel} missing: not a GASP agent repository",
                "point it at an agent repository (-C PATH), "
                "or create one with: git gasp init --agent-id ID",
                USAGE,
            )
        return None
    if not inside(root, path) or not os.path.isfile(path):
        raise GaspError(f"{rel} is not a regular file inside the repository (refused)", None, USAGE)
    try:
        with open(path, "rb") as fh:
            data = fh.read(cap + 1)
    except OSError as exc:
        raise GaspError(f"{rel}: cannot read: {os_error(exc)}", None, USAGE) from None
    if len(data) > cap:
        raise over_cap(rel, cap, configured)
    return data


def read_manifest(root: str, cap: int | None = None) -> tuple[Manifest, bytes]:
    data = read_capped(root, MANIFEST, cap or MAX_MANIFEST_BYTES, True, cap is not None)
    assert data is not None
    try:
        return parse_manifest(data, cap), data
    except ManifestError as exc:
        raise GaspError(str(exc), "restore reads GASP spec version 1 manifests", USAGE) from None


def read_config(root: str, cap: int | None = None) -> dict[str, Any]:
    data = read_capped(root, CONFIG, cap or MAX_CONFIG_BYTES, False, cap is not None)
    if data is None:
        return {}
    try:
        return parse_toml(data.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError is one
        bom = data.startswith(b"\xef\xbb\xbf")
        raise GaspError(
            f"{CONFIG}: not valid TOML: {exc}",
            "it starts with a byte order mark: save it as UTF-8 without one"
            if bom
            else f"fix it there (git diff -- {CONFIG} shows what changed since the last commit)",
            USAGE,
        ) from None


def rebind_executor(root: str, values: dict[str, str]) -> list[str]:
    """Set ``[executor]`` values in the config by a textual edit; returns the keys changed."""
    if not values:
        return []
    cap = file_cap(root)
    data = read_capped(root, CONFIG, cap or MAX_CONFIG_BYTES, False, cap is not None) or b""
    try:
        text = data.decode("utf-8")
        current = parse_toml(text).get("executor")
        bound = current if isinstance(current, dict) else {}
        values = {k: v for k, v in values.items() if bound.get(k) != v}  # the same: untouched
        updated = set_executor_values(text, values)
    except ValueError as exc:  # UnicodeDecodeError is one
        raise GaspError(
            f"{CONFIG}: cannot rewrite the executor binding: {exc}",
            f"edit {CONFIG} by hand",
            USAGE,
        ) from None
    if updated != text:
        writer.write_atomically(os.path.join(root, *CONFIG.split("/")), updated.encode("utf-8"))
    return sorted(values)


def readable(root: str, path: str) -> bool:
    """Whether a location's file may be read for the context document: it
    stays in the work tree, outside ``.git`` (also through a symlink inside
    the repository, ``g -> .git``)."""
    real = os.path.realpath(path)
    top = os.path.realpath(root)
    if not inside(root, path) or real == top:
        return False
    rel = os.path.relpath(real, top).replace(os.sep, "/")
    return not any(part.lower() == ".git" for part in rel.split("/"))


def read_head(path: str, limit: int) -> tuple[bytes, bool]:
    """The first ``limit`` bytes of ``path``, and whether that is all of it."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    return data[:limit], len(data) <= limit
