"""The one adapter to git: every git process and object read goes through here.

It may import :mod:`git_gasp.core` and :mod:`git_gasp.errors`, nothing else of
the package. Callers use it as one namespace: ``from git_gasp import git``.
"""

from git_gasp.git.repo import (
    RANGE_HINT as RANGE_HINT,
)
from git_gasp.git.repo import (
    SAFE_ATTRIBUTES as SAFE_ATTRIBUTES,
)
from git_gasp.git.repo import (
    SAFE_CONFIG as SAFE_CONFIG,
)
from git_gasp.git.repo import (
    SPARSE_PATTERNS as SPARSE_PATTERNS,
)
from git_gasp.git.repo import (
    BlobReader as BlobReader,
)
from git_gasp.git.repo import (
    Completed as Completed,
)
from git_gasp.git.repo import (
    GitError as GitError,
)
from git_gasp.git.repo import (
    ObjectInfo as ObjectInfo,
)
from git_gasp.git.repo import (
    RepoInfo as RepoInfo,
)
from git_gasp.git.repo import (
    attempt as attempt,
)
from git_gasp.git.repo import (
    attribute_views as attribute_views,
)
from git_gasp.git.repo import (
    blame_porcelain as blame_porcelain,
)
from git_gasp.git.repo import (
    blobs_at as blobs_at,
)
from git_gasp.git.repo import (
    changed_paths as changed_paths,
)
from git_gasp.git.repo import (
    commit_message as commit_message,
)
from git_gasp.git.repo import (
    commit_messages as commit_messages,
)
from git_gasp.git.repo import (
    commit_walk as commit_walk,
)
from git_gasp.git.repo import (
    commits_touching as commits_touching,
)
from git_gasp.git.repo import (
    committed_size as committed_size,
)
from git_gasp.git.repo import (
    committed_sizes as committed_sizes,
)
from git_gasp.git.repo import (
    committer_ident as committer_ident,
)
from git_gasp.git.repo import (
    config_entries as config_entries,
)
from git_gasp.git.repo import (
    config_value as config_value,
)
from git_gasp.git.repo import (
    config_values as config_values,
)
from git_gasp.git.repo import (
    grep_tree as grep_tree,
)
from git_gasp.git.repo import (
    head as head,
)
from git_gasp.git.repo import (
    head_and_merging as head_and_merging,
)
from git_gasp.git.repo import (
    import_problem as import_problem,
)
from git_gasp.git.repo import (
    index_entries as index_entries,
)
from git_gasp.git.repo import (
    messages_of as messages_of,
)
from git_gasp.git.repo import (
    new_commits as new_commits,
)
from git_gasp.git.repo import (
    note_blob as note_blob,
)
from git_gasp.git.repo import (
    notes_list as notes_list,
)
from git_gasp.git.repo import (
    object_info as object_info,
)
from git_gasp.git.repo import (
    repo_info as repo_info,
)
from git_gasp.git.repo import (
    resolve as resolve,
)
from git_gasp.git.repo import (
    run as run,
)
from git_gasp.git.repo import (
    run_commits as run_commits,
)
from git_gasp.git.repo import (
    safe_clone as safe_clone,
)
from git_gasp.git.repo import (
    safe_env as safe_env,
)
from git_gasp.git.repo import (
    scrubbed_env as scrubbed_env,
)
from git_gasp.git.repo import (
    staged_against_head as staged_against_head,
)
from git_gasp.git.repo import (
    staged_paths as staged_paths,
)
from git_gasp.git.repo import (
    tracked as tracked,
)
from git_gasp.git.repo import (
    tree_files as tree_files,
)
from git_gasp.git.repo import (
    write_notes as write_notes,
)
