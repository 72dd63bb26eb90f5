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
    SAFE_ATTRIBUTES as SAFE_ATTRIBUTES,
)
from git_gasp.git.clone import (
    SAFE_CONFIG as SAFE_CONFIG,
)
from git_gasp.git.clone import (
    SPARSE_PATTERNS as SPARSE_PATTERNS,
)
from git_gasp.git.clone import (
    safe_clone as safe_clone,
)
from git_gasp.git.clone import (
    safe_env as safe_env,
)
from git_gasp.git.config import (
    committer_ident as committer_ident,
)
from git_gasp.git.config import (
    config_entries as config_entries,
)
from git_gasp.git.config import (
    config_value as config_value,
)
from git_gasp.git.config import (
    config_values as config_values,
)
from git_gasp.git.history import (
    RANGE_HINT as RANGE_HINT,
)
from git_gasp.git.history import (
    blame_porcelain as blame_porcelain,
)
from git_gasp.git.history import (
    commit_message as commit_message,
)
from git_gasp.git.history import (
    commit_messages as commit_messages,
)
from git_gasp.git.history import (
    commit_walk as commit_walk,
)
from git_gasp.git.history import (
    commits_touching as commits_touching,
)
from git_gasp.git.history import (
    messages_of as messages_of,
)
from git_gasp.git.history import (
    new_commits as new_commits,
)
from git_gasp.git.history import (
    run_commits as run_commits,
)
from git_gasp.git.notes import (
    note_blob as note_blob,
)
from git_gasp.git.notes import (
    notes_list as notes_list,
)
from git_gasp.git.notes import (
    write_notes as write_notes,
)
from git_gasp.git.objects import (
    BlobReader as BlobReader,
)
from git_gasp.git.objects import (
    ObjectInfo as ObjectInfo,
)
from git_gasp.git.objects import (
    blobs_at as blobs_at,
)
from git_gasp.git.objects import (
    committed_size as committed_size,
)
from git_gasp.git.objects import (
    committed_sizes as committed_sizes,
)
from git_gasp.git.objects import (
    grep_tree as grep_tree,
)
from git_gasp.git.objects import (
    object_info as object_info,
)
from git_gasp.git.paths import (
    attribute_views as attribute_views,
)
from git_gasp.git.paths import (
    changed_paths as changed_paths,
)
from git_gasp.git.paths import (
    index_entries as index_entries,
)
from git_gasp.git.paths import (
    staged_against_head as staged_against_head,
)
from git_gasp.git.paths import (
    staged_paths as staged_paths,
)
from git_gasp.git.paths import (
    tracked as tracked,
)
from git_gasp.git.paths import (
    tree_files as tree_files,
)
from git_gasp.git.process import (
    Completed as Completed,
)
from git_gasp.git.process import (
    GitError as GitError,
)
from git_gasp.git.process import (
    attempt as attempt,
)
from git_gasp.git.process import (
    import_problem as import_problem,
)
from git_gasp.git.process import (
    run as run,
)
from git_gasp.git.process import (
    scrubbed_env as scrubbed_env,
)
from git_gasp.git.refs import (
    RepoInfo as RepoInfo,
)
from git_gasp.git.refs import (
    head as head,
)
from git_gasp.git.refs import (
    head_and_merging as head_and_merging,
)
from git_gasp.git.refs import (
    repo_info as repo_info,
)
from git_gasp.git.refs import (
    resolve as resolve,
)

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
