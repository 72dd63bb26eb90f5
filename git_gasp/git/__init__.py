"""The one adapter to git: every git process and object read goes through here.

It drives the real ``git`` binary: one process per query that walks history
(``rev-list``, ``ls-files``), one ``cat-file --batch-check`` call per batch of
object look-ups, and one long-lived ``cat-file --batch`` for blob contents, so
no query costs a process per commit. It inherits ``GIT_DIR``,
``GIT_OBJECT_DIRECTORY`` and ``GIT_ALTERNATE_OBJECT_DIRECTORIES``, so it also
reads quarantined objects inside a pre-receive hook.

The modules, by what they query: :mod:`~git_gasp.git.process` (starting git;
:class:`GitError`), :mod:`~git_gasp.git.refs` (the repository, HEAD,
revisions), :mod:`~git_gasp.git.history` (walks, messages, blame),
:mod:`~git_gasp.git.objects` (objects and blobs), :mod:`~git_gasp.git.paths`
(the index, changed paths, attributes), :mod:`~git_gasp.git.config`,
:mod:`~git_gasp.git.notes` and :mod:`~git_gasp.git.clone` (the safe clone).

It may import :mod:`git_gasp.core` and :mod:`git_gasp.errors`, nothing else of
the package. Callers use it as one namespace: ``from git_gasp import git``,
then ``git.head(path)``; a name replaced here (a test's monkeypatch, a
benchmark's timer) is replaced for the adapter's own calls too.
"""

from __future__ import annotations

import sys
from types import ModuleType

from git_gasp.git.clone import (
    SAFE_ATTRIBUTES,
    SAFE_CONFIG,
    SPARSE_PATTERNS,
    safe_checkout,
    safe_clone,
    safe_env,
)
from git_gasp.git.config import (
    committer_ident,
    config_entries,
    config_value,
    config_values,
    date_problem,
)
from git_gasp.git.history import (
    RANGE_HINT,
    blame_porcelain,
    commit_message,
    commit_messages,
    commit_walk,
    commits_touching,
    messages_of,
    new_commits,
    run_commits,
)
from git_gasp.git.notes import note_blob, notes_list, write_notes
from git_gasp.git.objects import (
    BlobReader,
    ObjectInfo,
    ReadAhead,
    blobs_at,
    blobs_of,
    committed_size,
    committed_sizes,
    grep_tree,
    lines_holding,
    object_info,
)
from git_gasp.git.paths import (
    attribute_views,
    changed_paths,
    ignored,
    index_entries,
    staged_against_head,
    staged_paths,
    tracked,
    tree_files,
)
from git_gasp.git.process import (
    Completed,
    GitError,
    attempt,
    import_problem,
    maintain,
    run,
    scrubbed_env,
)
from git_gasp.git.refs import (
    RepoInfo,
    RepoState,
    head,
    head_and_merging,
    repo_info,
    repo_state,
    resolve,
)

__all__ = [
    "RANGE_HINT",
    "SAFE_ATTRIBUTES",
    "SAFE_CONFIG",
    "SPARSE_PATTERNS",
    "BlobReader",
    "Completed",
    "GitError",
    "ObjectInfo",
    "ReadAhead",
    "RepoInfo",
    "RepoState",
    "attempt",
    "attribute_views",
    "blame_porcelain",
    "blobs_at",
    "blobs_of",
    "changed_paths",
    "commit_message",
    "commit_messages",
    "commit_walk",
    "commits_touching",
    "committed_size",
    "committed_sizes",
    "committer_ident",
    "config_entries",
    "config_value",
    "config_values",
    "date_problem",
    "grep_tree",
    "head",
    "head_and_merging",
    "ignored",
    "import_problem",
    "index_entries",
    "lines_holding",
    "maintain",
    "messages_of",
    "new_commits",
    "note_blob",
    "notes_list",
    "object_info",
    "repo_info",
    "repo_state",
    "resolve",
    "run",
    "run_commits",
    "safe_checkout",
    "safe_clone",
    "safe_env",
    "scrubbed_env",
    "staged_against_head",
    "staged_paths",
    "tracked",
    "tree_files",
    "write_notes",
]

_UNSET = object()


class _Namespace(ModuleType):
    """This package as a module whose names can be replaced for every caller.

    The modules of ``git/`` call each other by the names they imported
    (``commit_message`` calls ``run``), so setting ``git.run`` alone would
    leave those calls on the old function: setting a name here also sets it
    in every module of the package that holds the same object under it.
    """

    def __setattr__(self, name: str, value: object) -> None:
        old = self.__dict__.get(name, _UNSET)
        super().__setattr__(name, value)
        if old is _UNSET:
            return
        for module_name, module in list(sys.modules.items()):
            if module_name.startswith(f"{__name__}.") and vars(module).get(name, _UNSET) is old:
                setattr(module, name, value)


sys.modules[__name__].__class__ = _Namespace
