"""Paths: what the index holds, what a commit or the index changes, the
files of a tree, and the attributes ``.gitattributes`` gives them (the hooks
judge a change by these)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from git_gasp.git.process import GitError, run


def tracked(path: str, pathspecs: Sequence[str]) -> list[str]:
    """Paths in the index matching ``pathspecs``, relative to ``path``."""
    return [name for _, name in index_entries(path, pathspecs)]


def ignored(path: str, pathspecs: Sequence[str]) -> list[str]:
    """The untracked files and directories matching ``pathspecs`` that the
    ignore rules exclude (``git add`` refuses them by name), relative to
    ``path``; a directory ends in ``/``."""
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
    out = run(path, [*args, "--", *pathspecs])
    return [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def index_entries(path: str, pathspecs: Sequence[str]) -> list[tuple[str, str]]:
    """``git ls-files -v``: (tag, path) of each index entry matching
    ``pathspecs``; a lowercase tag marks an entry assumed unchanged."""
    out = run(path, ["ls-files", "-v", "-z", "--", *pathspecs])
    entries = []
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        tag, _, name = item.partition(" ")
        if name:
            entries.append((tag, name))
    return entries


def staged_against_head(path: str) -> list[str]:
    """Paths (from the top of the work tree) whose index entry differs from
    HEAD's, submodules included; GitError before the first commit."""
    args = ["diff-index", "--cached", "--name-only", "-z", "--ignore-submodules=none", "HEAD"]
    out = run(path, args)
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def staged_paths(path: str, head_commit: str | None) -> set[str]:
    """Paths the index changes against ``head_commit`` (everything staged
    when there is no commit yet)."""
    if head_commit is None:
        out = run(path, ["ls-files", "-z", "--cached"])
    else:
        args = ["diff-index", "--cached", "-r", "-z", "--no-renames", "--name-only", head_commit]
        out = run(path, [*args, "--"])
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}


def changed_paths(path: str, commits: Sequence[tuple[str, tuple[str, ...]]]) -> dict[str, set[str]]:
    """Paths each commit changes against any of its parents (a root commit:
    every path), from one ``git diff-tree --stdin``.

    Raw output, so a path is always the item after a ``:``-record and can
    never be taken for the next commit's header, whatever it is named.
    """
    if not commits:
        return {}
    payload = "".join(" ".join((c, *parents)) + "\n" for c, parents in commits).encode()
    args = ["diff-tree", "--stdin", "-r", "-z", "--root", "-m", "--no-renames", "--raw"]
    out = run(path, args, stdin=payload).decode("utf-8", "surrogateescape")
    known = {c for c, _ in commits}
    result: dict[str, set[str]] = {c: set() for c in known}
    current: str | None = None
    items = iter(out.split("\0"))
    for item in items:
        if item.startswith(":"):
            name = next(items, None)
            if current is None or name is None:
                raise GitError(f"unexpected git diff-tree output near {item!r}")
            result[current].add(name)
        elif item:
            if item not in known:
                raise GitError(f"unexpected git diff-tree output: {item!r}")
            current = item
    return result


def tree_files(path: str, rev: str | None, prefixes: Sequence[str]) -> list[tuple[str, str]]:
    """``(path, blob oid)`` of the files under ``prefixes`` in commit ``rev``,
    or in the index when ``rev`` is None."""
    if rev is None:
        out = run(path, ["ls-files", "-s", "-z", "--", *prefixes])
    else:
        out = run(path, ["ls-tree", "-r", "-z", "--full-tree", rev, "--", *prefixes])
    files = []
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        if not item:
            continue
        meta, _, name = item.partition("\t")
        fields = meta.split(" ")
        oid = fields[1] if rev is None else fields[2]
        if fields[0] != "160000":
            files.append((name, oid))
    return files


def attribute_views(
    path: str, rev: str | None, files: Sequence[str], names: Sequence[str], basename: str
) -> tuple[dict[str, dict[str, str]], ...]:
    """Attributes ``names`` of ``files`` and of every file called ``basename``,
    as the ``.gitattributes`` of commit ``rev`` (None: the index) set them:
    ``set``, ``unset``, a value, or absent when unspecified. Two views: with
    case-sensitive and with case-insensitive matching (``core.ignorecase``),
    as clones on either kind of file system apply them. A commit is read
    through a temporary index (git 2.39 has no ``check-attr --source``),
    which writes no object."""

    def query(env: dict[str, str] | None) -> tuple[dict[str, dict[str, str]], ...]:
        listing = ["ls-tree", "-r", "-z", "--name-only", rev] if rev else ["ls-files", "-z"]
        listed = run(path, listing, env=env).decode("utf-8", "surrogateescape").split("\0")
        every = sorted({*files, *(f for f in listed if f.rsplit("/", 1)[-1] == basename)})
        views = []
        for icase in ("false", "true"):
            args = ["-c", f"core.ignorecase={icase}", "check-attr", "--cached", "-z", *names]
            out = run(path, [*args, "--", *every], env=env)
            fields = out.decode("utf-8", "surrogateescape").split("\0")
            found: dict[str, dict[str, str]] = {f: {} for f in every}
            for k in range(0, len(fields) - 2, 3):
                file, name, value = fields[k : k + 3]
                if value != "unspecified":
                    found.setdefault(file, {})[name] = value
            views.append(found)
        return tuple(views)

    if rev is None:
        return query(None)
    import tempfile  # only here: a hook that reads no attributes never loads it

    with tempfile.TemporaryDirectory(prefix="gasp-attr-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        run(path, ["read-tree", rev], env=env)
        return query(env)
