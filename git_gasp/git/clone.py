"""Cloning an untrusted repository (``git gasp restore``): nothing from the
remote runs, nothing is filtered or smudged, ``transcripts/`` stays out."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from git_gasp.git.process import GitError, run, run_showing, scrubbed_env

#: ``-c`` settings for every git process of a safe clone: no hooks, no LFS or
#: other smudge/process filters, no ``ext::`` transport, byte-exact checkout.
SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.autocrlf=false",
    "core.symlinks=true",
    "filter.lfs.smudge=cat",
    "filter.lfs.process=",
    "filter.lfs.required=false",
    "protocol.ext.allow=never",
    "protocol.fd.allow=never",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
)


#: ``$GIT_DIR/info/attributes`` of a safe clone: it outranks every in-tree
#: ``.gitattributes``, so no filter, eol conversion, ident or encoding applies.
SAFE_ATTRIBUTES = b"* -filter -text -eol -ident -working-tree-encoding\n"


#: sparse-checkout patterns of a safe clone: everything but ``transcripts/``.
SPARSE_PATTERNS = b"/*\n!/transcripts/\n"


def safe_env() -> dict[str, str]:
    """The environment for a safe clone: :func:`scrubbed_env`, plus what keeps
    git from prompting or smudging LFS objects."""
    return scrubbed_env() | {"GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1"}


def _safe(cwd: str, args: Sequence[str]) -> bytes:
    flags = [item for setting in SAFE_CONFIG for item in ("-c", setting)]
    return run(cwd, [*flags, *args], env=safe_env(), inherit=False)


def safe_clone(
    url: str,
    dest: str,
    before_checkout: Callable[[], None] | None = None,
    progress: bool = False,
    branch: str | None = None,
) -> None:
    """Clone ``url`` into ``dest`` without running anything from the remote.

    No hooks, no submodules, no filters (an ``info/attributes`` that unsets
    them is written before the checkout), and a sparse checkout that leaves
    out ``transcripts/``. A blob-less partial clone is asked for; a server
    that does not support it sends everything (git only warns, and the
    warning is dropped with the rest of stderr). ``before_checkout`` runs
    once HEAD is known and before a file is written (to refuse a clone from
    its tree alone: a 2 GB log, say). With ``progress``, git's clone progress
    (and that warning) goes to stderr as git writes it. ``branch``: the
    remote's branch to check out (``git clone --branch``), not its HEAD's.
    """
    parent = os.path.dirname(os.path.abspath(dest))
    if os.path.exists(url):
        # a local path, as git itself would take it (it checks the path before
        # any URL syntax); made absolute, since git runs in dest's parent
        url = os.path.abspath(url)
    try:
        os.makedirs(parent, exist_ok=True)  # leading directories, as git clone makes them
    except OSError as exc:
        raise GitError(f"could not create {parent}: {exc.strerror or exc}") from None
    persist = [item for setting in SAFE_CONFIG[:1] for item in ("--config", setting)]
    clone = [
        "clone",
        "--progress" if progress else "--quiet",
        "--no-checkout",
        "--no-recurse-submodules",
        "--filter=blob:none",
        *persist,
        *(["--branch", branch] if branch else []),
        "--",
        url,
        os.path.abspath(dest),
    ]
    if progress:
        flags = [item for setting in SAFE_CONFIG for item in ("-c", setting)]
        run_showing(parent, [*flags, *clone], safe_env())
    else:
        _safe(parent, clone)
    _lock_down(dest)
    try:
        _safe(dest, ["rev-parse", "--verify", "-q", "HEAD^{commit}"])
    except GitError:
        return  # an empty repository: nothing to check out
    if before_checkout is not None:
        before_checkout()
    if not _blobs_missing(dest):
        # the server sent every blob (it ignores --filter): no partial clone,
        # so later fetches ask for no filter (and warn of it on each pull)
        _safe(dest, ["config", "--unset", "remote.origin.partialclonefilter"])
    _safe(dest, ["read-tree", "-m", "-u", "HEAD"])


def _lock_down(dest: str) -> None:
    """The attributes that unset every filter, and the sparse checkout that
    leaves ``transcripts/`` out, in the clone before a file is written."""
    git_dir = _safe(dest, ["rev-parse", "--absolute-git-dir"])
    info = os.path.join(git_dir.decode("utf-8", "surrogateescape").strip(), "info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "attributes"), "wb") as fh:
        fh.write(SAFE_ATTRIBUTES)
    with open(os.path.join(info, "sparse-checkout"), "wb") as fh:
        fh.write(SPARSE_PATTERNS)
    _safe(dest, ["config", "core.sparseCheckout", "true"])
    _safe(dest, ["config", "core.sparseCheckoutCone", "false"])


def _blobs_missing(dest: str) -> bool:
    """Whether HEAD's tree lacks blobs locally (a real partial clone): listed
    with ``--missing=print``, which marks them and fetches nothing."""
    listed = _safe(dest, ["rev-list", "--objects", "--missing=print", "--no-walk", "HEAD"])
    return any(line.startswith(b"?") for line in listed.splitlines())


def safe_checkout(dest: str, commit: str) -> None:
    """Check out ``commit`` in the safe clone ``dest`` on a detached HEAD, as
    safely as :func:`safe_clone` checked out the tip (no hooks, no filters)."""
    _safe(dest, ["checkout", "--quiet", "--detach", commit, "--"])
