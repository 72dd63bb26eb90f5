"""The local control files (:data:`git_gasp.store.runmarker.LOCAL_PATHS`:
the lease, ``.agent/RUN``, ``.agent/worker``, temporary files) kept out of
``git add`` in every repository git-gasp works in, including one another
runtime wrote: they go to the repository's ``info/exclude``, which is local,
so a tracked ``.gitignore`` is never edited.
"""

from __future__ import annotations

import os

from git_gasp import git
from git_gasp.store.runmarker import LOCAL_PATHS

HEADER = "# git-gasp: local control files, never committed"


def exclude_local(root: str) -> list[str]:
    """Add the control files ``info/exclude`` lacks; the patterns added (none
    when it cannot be written: a read-only clone keeps working)."""
    path = os.path.join(git.repo_info(root).common_dir, "info", "exclude")
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            have = {line.strip() for line in fh}
    except FileNotFoundError:
        have = set()
    except OSError:
        return []
    missing = [p for p in LOCAL_PATHS if p not in have]
    if not missing:
        return []
    lines = ([HEADER] if HEADER not in have else []) + missing
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a+b") as fh:
            fh.seek(0, os.SEEK_END)
            end = fh.tell()
            if end:
                fh.seek(end - 1)
                lead = b"" if fh.read(1) == b"\n" else b"\n"
            else:
                lead = b""
            fh.write(lead + "".join(f"{line}\n" for line in lines).encode("utf-8"))
    except OSError:
        return []
    return missing
