"""The git adapter: every git query git-gasp makes, as named functions.

It drives the real ``git`` binary: one process per query that walks history
(``rev-list``, ``ls-files``), one ``cat-file --batch-check`` call per batch of
object look-ups, and one long-lived ``cat-file --batch`` for blob contents, so
no query costs a process per commit. It inherits ``GIT_DIR``,
``GIT_OBJECT_DIRECTORY`` and ``GIT_ALTERNATE_OBJECT_DIRECTORIES``, so it also
reads quarantined objects inside a pre-receive hook.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from typing import IO, NamedTuple

from git_gasp.core.appendonly import Blob
from git_gasp.core.runlog import LOG_FORMAT, RunCommit, parse_run_log
from git_gasp.errors import USAGE, GaspError


class GitError(GaspError):
    """git failed or is missing: an environment problem, not a finding."""

    exit_code = USAGE

    def reason(self) -> str:
        """git's message on one line: its first, without ``fatal:``/``error:``."""
        for line in self.message.splitlines():
            line = line.strip()
            for prefix in ("fatal: ", "error: "):
                line = line.removeprefix(prefix)
            if line:
                return line
        return "git failed"


def run(
    cwd: str,
    args: Sequence[str],
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    inherit: bool = True,
) -> bytes:
    """Run ``git -C cwd args``; raise :class:`GitError` with git's own message.

    ``env`` adds variables to the inherited environment (or, with
    ``inherit=False``, is the whole environment).
    """
    try:
        proc = subprocess.run(
            ["git", "-C", cwd, *args],
            input=stdin,
            capture_output=True,
            check=False,
            env=({**os.environ, **env} if inherit else dict(env)) if env is not None else None,
        )
    except OSError as exc:
        raise GitError(f"git failed to spawn: {exc}", "install git and put it on PATH") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed"
        raise GitError(message)
    return proc.stdout


class RepoInfo(NamedTuple):
    git_dir: str  # absolute
    common_dir: str  # absolute; shared by linked worktrees
    prefix: str  # the checked path relative to the top of the work tree ("" or "sub/")
    object_format: str  # "sha1" or "sha256"


def repo_info(path: str) -> RepoInfo:
    """Where the repository containing ``path`` keeps its data (GitError if none)."""
    out = run(
        path,
        [
            "rev-parse",
            "--absolute-git-dir",
            "--git-common-dir",
            "--show-prefix",
            "--show-object-format",
        ],
    )
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    git_dir, common, prefix, fmt = ([*lines, "", "", "", ""])[:4]
    common = common if os.path.isabs(common) else os.path.normpath(os.path.join(path, common))
    return RepoInfo(git_dir, common, prefix, fmt or "sha1")


def head(path: str) -> str | None:
    """The commit HEAD names, or None in a repository with no commits yet."""
    try:
        return run(path, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]).decode().strip() or None
    except GitError:
        return None


def head_and_merging(path: str) -> tuple[str | None, tuple[str, ...]]:
    """The commit HEAD names (None before the first commit) and, while a
    merge is being committed, the commits ``MERGE_HEAD`` lists (one
    ``rev-parse``; the file is read only when it exists)."""
    done = attempt(
        path, ["rev-parse", "--git-path", "MERGE_HEAD", "--verify", "-q", "HEAD^{commit}"]
    )
    lines = done.out.decode("utf-8", "surrogateescape").splitlines()
    if not lines:
        raise GitError(done.err.decode("utf-8", "replace").strip() or "git rev-parse failed")
    head = lines[1].strip() if done.code == 0 and len(lines) > 1 else None
    try:
        with open(os.path.join(path, lines[0]), encoding="ascii", errors="replace") as fh:
            merging = tuple(line.split()[0] for line in fh if line.strip())
    except FileNotFoundError:
        merging = ()
    except OSError as exc:
        raise GitError(f"cannot read MERGE_HEAD: {exc.strerror}") from None
    return head, merging


def tracked(path: str, pathspecs: Sequence[str]) -> list[str]:
    """Paths in the index matching ``pathspecs``, relative to ``path``."""
    return [name for _, name in index_entries(path, pathspecs)]


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


def commits_touching(
    path: str, file: str, tip: str, exclude: Sequence[str] = ()
) -> list[tuple[str, tuple[str, ...]]]:
    """Commits reachable from ``tip`` (not from ``exclude``) that touch ``file``,
    parents before children, each with its parents rewritten to the nearest
    ancestors that touch it (``--full-history --parents``)."""
    args = ["rev-list", "--full-history", "--parents", "--topo-order", "--reverse"]
    args += ["--ignore-missing", tip, *(f"^{c}" for c in exclude), "--", file]
    return _with_parents(run(path, args))


RANGE_HINT = "pass a range git log accepts, e.g. main~5..main or a branch name"


def _log(path: str, rev_range: str, fmt: Sequence[str]) -> bytes | None:
    """``git log`` of ``rev_range`` (None: HEAD in a repository with no
    commits yet); its failures carry :data:`RANGE_HINT`."""
    try:
        if rev_range == "HEAD" and head(path) is None:
            repo_info(path)  # GitError when path is not in a repository at all
            return None
        return run(path, ["log", *fmt, "--end-of-options", rev_range, "--"])
    except GitError as exc:
        raise GitError(exc.message, RANGE_HINT) from None


def run_commits(path: str, rev_range: str = "HEAD") -> list[RunCommit]:
    """The commits in ``rev_range`` whose final trailer block has a ``Run-Id``,
    newest first, from one ``git log`` (git parses the trailers)."""
    out = _log(path, rev_range, [f"--format={LOG_FORMAT}"])
    return parse_run_log(out.decode("utf-8", "replace")) if out is not None else []


def blobs_at(path: str, specs: Sequence[str]) -> list[Blob | None]:
    """For each ``<commit>:<path>`` spec, the blob there, or None if absent.

    Raises GitError if a spec names something that is not a file.
    """
    result: list[Blob | None] = []
    for spec, obj in zip(specs, object_info(path, specs), strict=True):
        if obj is not None and obj.type != "blob":
            raise GitError(f"{spec} is not a file ({obj.type})")
        result.append(Blob(obj.oid, obj.size) if obj is not None else None)
    return result


class BlobReader:
    """Blob contents through one long-lived ``git cat-file --batch``."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._proc: subprocess.Popen[bytes] | None = None

    def _streams(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "-C", self._path, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def read(self, oid: str) -> bytes:
        stdin, stdout = self._streams()
        stdin.write(oid.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().decode().split(" ")
        if len(header) != 3:
            raise GitError(f"cannot read object {oid}: {' '.join(header).strip()}")
        data = stdout.read(int(header[2]))
        stdout.read(1)
        return data

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.close()
            self._proc.stdout.close()
            self._proc.wait()
            self._proc = None

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- cloning an untrusted repository (``git gasp restore``) ---------------------

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


def scrubbed_env() -> dict[str, str]:
    """The inherited environment minus every ``GIT_*`` variable, for git
    commands on a repository of our own (never the one GIT_DIR names)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def import_problem(python: str, module: str, cwd: str) -> str | None:
    """Why interpreter ``python``, started in ``cwd`` (where git runs hooks:
    Python puts it on the module path), cannot import ``module`` (it is
    missing, or the import fails), or None when it can. Not git, but this
    module is the one place that starts processes."""
    try:
        done = subprocess.run(
            [python, "-c", f"import {module}"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=cwd,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"{python} does not run: {why}"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"it exits {done.returncode}"]
        return f"{python} cannot import {module}: {lines[-1]}"
    return None


def committed_size(root: str, rel: str) -> int:
    """The size of ``rel`` (relative to the work tree's ``root``) in HEAD; 0
    when it is not committed or there is no repository."""
    return committed_sizes(root, [rel])[0]


def committed_sizes(root: str, rels: Sequence[str]) -> list[int]:
    """:func:`committed_size` of each of ``rels``, in one lookup."""
    try:
        info = repo_info(root)
        tip = head(root)
        if tip is None:
            return [0] * len(rels)
        blobs = blobs_at(root, [f"{tip}:{info.prefix}{rel}" for rel in rels])
    except GitError:
        return [0] * len(rels)
    return [blob.size if blob is not None else 0 for blob in blobs]


def safe_env() -> dict[str, str]:
    """The environment for a safe clone: :func:`scrubbed_env`, plus what keeps
    git from prompting or smudging LFS objects."""
    return scrubbed_env() | {"GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1"}


def _safe(cwd: str, args: Sequence[str]) -> bytes:
    flags = [item for setting in SAFE_CONFIG for item in ("-c", setting)]
    return run(cwd, [*flags, *args], env=safe_env(), inherit=False)


def safe_clone(url: str, dest: str) -> None:
    """Clone ``url`` into ``dest`` without running anything from the remote.

    No hooks, no submodules, no filters (an ``info/attributes`` that unsets
    them is written before the checkout), and a sparse checkout that leaves
    out ``transcripts/``. A blob-less partial clone is asked for; a server
    that does not support it sends everything (git only warns, and the
    warning is dropped with the rest of stderr).
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
    _safe(
        parent,
        [
            "clone",
            "--quiet",
            "--no-checkout",
            "--no-recurse-submodules",
            "--filter=blob:none",
            *persist,
            "--",
            url,
            os.path.abspath(dest),
        ],
    )
    git_dir = _safe(dest, ["rev-parse", "--absolute-git-dir"])
    info = os.path.join(git_dir.decode("utf-8", "surrogateescape").strip(), "info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "attributes"), "wb") as fh:
        fh.write(SAFE_ATTRIBUTES)
    with open(os.path.join(info, "sparse-checkout"), "wb") as fh:
        fh.write(SPARSE_PATTERNS)
    _safe(dest, ["config", "core.sparseCheckout", "true"])
    _safe(dest, ["config", "core.sparseCheckoutCone", "false"])
    try:
        _safe(dest, ["rev-parse", "--verify", "-q", "HEAD^{commit}"])
    except GitError:
        return  # an empty repository: nothing to check out
    _safe(dest, ["read-tree", "-m", "-u", "HEAD"])


# -- what a change touches (the hooks) ---------------------------------------------


class ObjectInfo(NamedTuple):
    oid: str
    type: str  # "blob", "tree", "commit", ...
    size: int


def object_info(path: str, specs: Sequence[str]) -> list[ObjectInfo | None]:
    """For each ``<rev>:<path>`` (or ``:<path>`` for the index) spec, the
    object there, or None if absent; one ``cat-file --batch-check``."""
    if not specs:
        return []
    if any("\n" in s for s in specs):
        # one spec per line: a newline would shift every later answer
        raise GitError("a path name contains a newline; refusing to look it up")
    payload = "".join(f"{s}\n" for s in specs).encode("utf-8", "surrogateescape")
    out = run(path, ["cat-file", "--batch-check"], stdin=payload).decode("utf-8", "surrogateescape")
    result: list[ObjectInfo | None] = []
    for line in out.split("\n")[: len(specs)]:
        fields = line.split(" ")
        if len(fields) == 3 and fields[2].isdigit():
            result.append(ObjectInfo(fields[0], fields[1], int(fields[2])))
        else:
            result.append(None)  # "<spec> missing" or "ambiguous"
    return result


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


def staged_paths(path: str, head_commit: str | None) -> set[str]:
    """Paths the index changes against ``head_commit`` (everything staged
    when there is no commit yet)."""
    if head_commit is None:
        out = run(path, ["ls-files", "-z", "--cached"])
    else:
        args = ["diff-index", "--cached", "-r", "-z", "--no-renames", "--name-only", head_commit]
        out = run(path, [*args, "--"])
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}


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


def commit_walk(path: str, revs: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """``git rev-list --topo-order --reverse --parents REVS``: commits,
    parents before children, each with its parents."""
    args = ["rev-list", "--topo-order", "--reverse", "--parents", *revs]
    return _with_parents(run(path, args))


def new_commits(path: str, tip: str) -> list[tuple[str, tuple[str, ...]]]:
    """Commits reachable from ``tip`` and from no ref (``rev-list TIP --not
    --all``), parents before children, with their parents."""
    return commit_walk(path, [tip, "--not", "--all"])


def _with_parents(out: bytes) -> list[tuple[str, tuple[str, ...]]]:
    walk = []
    for line in out.decode().split("\n"):
        if line:
            commit, *parents = line.split(" ")
            walk.append((commit, tuple(parents)))
    return walk


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
    with tempfile.TemporaryDirectory(prefix="gasp-attr-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        run(path, ["read-tree", rev], env=env)
        return query(env)


def config_value(path: str, key: str, kind: str | None = None) -> str | None:
    """``git config [--type=KIND] --get KEY``, or None when unset; a value
    git cannot read as KIND is an error (a policy never fails open)."""
    args = ["config", *([f"--type={kind}"] if kind else []), "--get", key]
    try:
        proc = subprocess.run(["git", "-C", path, *args], capture_output=True, check=False)
    except OSError as exc:
        raise GitError(f"git failed to spawn: {exc}", "install git and put it on PATH") from None
    if proc.returncode == 1:
        return None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"git config {key} failed"
        raise GitError(message, f"fix it with: git config {key} <{kind or 'value'}>")
    return proc.stdout.decode("utf-8", "replace").strip()


# -- notes (``git gasp notes``) ------------------------------------------------------


class Completed(NamedTuple):
    code: int
    out: bytes
    err: bytes


def attempt(
    cwd: str, args: Sequence[str], stdin: bytes | None = None, env: Mapping[str, str] | None = None
) -> Completed:
    """Run ``git -C cwd args`` and return its status and output, whatever
    the status (for commands whose failure is an answer: a rejected push);
    ``env``, when given, is the whole environment."""
    try:
        proc = subprocess.run(["git", "-C", cwd, *args], input=stdin, capture_output=True, env=env)
    except OSError as exc:
        raise GitError(f"git failed to spawn: {exc}", "install git and put it on PATH") from None
    return Completed(proc.returncode, proc.stdout, proc.stderr)


def resolve(path: str, rev: str) -> str | None:
    """The object ``rev`` names (``rev-parse --verify -q``), or None."""
    got = attempt(path, ["rev-parse", "--verify", "-q", "--end-of-options", rev])
    return got.out.decode().strip() or None if got.code == 0 else None


def commit_message(path: str, rev: str) -> str:
    """The message of commit ``rev``: one ``cat-file commit``."""
    raw = run(path, ["cat-file", "commit", rev])
    return raw.partition(b"\n\n")[2].decode("utf-8", "replace")


def committer_ident(path: str) -> str | None:
    """The identity git would commit as (strict: no guessed host names), or None."""
    got = attempt(path, ["var", "GIT_COMMITTER_IDENT"])
    return got.out.decode("utf-8", "replace").strip() or None if got.code == 0 else None


def notes_list(path: str, ref: str) -> dict[str, str]:
    """Annotated object -> note blob for every note under ``ref`` (one
    ``git notes list``); empty when the ref does not exist."""
    if resolve(path, ref) is None:
        return {}
    out = run(path, ["notes", "--ref", ref, "list"]).decode()
    found = {}
    for line in out.split("\n"):
        if line:
            blob, _, obj = line.partition(" ")
            found[obj] = blob
    return found


def note_blob(path: str, ref: str, obj: str) -> str | None:
    """The blob of ``obj``'s note under ``ref``, or None."""
    got = attempt(path, ["notes", "--ref", ref, "list", obj])
    return got.out.decode().strip() or None if got.code == 0 else None


def grep_tree(path: str, rev: str, needles: Sequence[str]) -> list[str]:
    """Paths of the files in tree ``rev`` holding any of ``needles`` (fixed
    strings): one ``git grep``."""
    if not needles:
        return []
    args = ["grep", "-l", "-z", "-F", *(x for n in needles for x in ("-e", n)), rev, "--"]
    got = attempt(path, args)
    if got.code == 1:
        return []
    if got.code != 0:
        raise GitError(got.err.decode("utf-8", "replace").strip() or "git grep failed")
    prefix = f"{rev}:"
    names = got.out.decode("utf-8", "surrogateescape").split("\0")
    return [n[len(prefix) :] if n.startswith(prefix) else n for n in names if n]


def write_notes(
    path: str, ref: str, notes: Mapping[str, bytes], message: str, old: str | None
) -> str:
    """One commit on notes ref ``ref`` setting each object's note to exactly
    the given bytes, with ``message``, moved from ``old`` (None: the ref must
    not exist) by a compare-and-swap ``update-ref``; GitError if it moved."""
    tmp = f"refs/notes/gasp-tmp-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        if old is not None:
            run(path, ["update-ref", "--no-deref", tmp, old, ""])
        for obj, data in notes.items():
            blob = run(path, ["hash-object", "-w", "--stdin"], stdin=data).decode().strip()
            run(path, ["notes", "--ref", tmp, "add", "-f", "-C", blob, obj])
        tree = run(path, ["rev-parse", "--verify", f"{tmp}^{{tree}}"]).decode().strip()
        parents = ["-p", old] if old is not None else []
        new = run(path, ["commit-tree", tree, *parents, "-m", message]).decode().strip()
        run(path, ["update-ref", "-m", message, ref, new, old or ""])
        return new
    finally:
        attempt(path, ["update-ref", "-d", tmp])


# -- sessions: commit messages and blame (``git gasp sessions``, ``who``) -------------


def _messages(out: bytes) -> list[tuple[str, str]]:
    """``(commit, raw message)`` pairs from ``git log -z --format=%H%n%B``."""
    found = []
    for record in out.decode("utf-8", "replace").split("\0"):
        commit, sep, message = record.lstrip("\n").partition("\n")
        if commit and sep:
            found.append((commit, message))
    return found


def commit_messages(path: str, rev_range: str = "HEAD") -> list[tuple[str, str]]:
    """``(commit, raw message)`` of every commit in ``rev_range``, newest
    first, from one ``git log`` (empty in a repository with no commits)."""
    out = _log(path, rev_range, ["-z", "--format=%H%n%B"])
    return _messages(out) if out is not None else []


def messages_of(path: str, commits: Sequence[str]) -> dict[str, str]:
    """The raw message of each of ``commits`` (full ids), from one
    ``git log --no-walk --stdin``."""
    if not commits:
        return {}
    payload = "".join(f"{c}\n" for c in dict.fromkeys(commits)).encode()
    args = ["log", "--no-walk=unsorted", "-z", "--format=%H%n%B", "--stdin"]
    return dict(_messages(run(path, args, stdin=payload)))


def blame_porcelain(path: str, file: str, line: int | None = None, rev: str = "HEAD") -> bytes:
    """``git blame --porcelain [-L LINE,LINE] REV -- FILE`` (FILE relative to
    ``path``), one process; GitError with git's message when it fails."""
    span = ["-L", f"{line},{line}"] if line is not None else []
    return run(path, ["blame", "--porcelain", *span, rev, "--", file])


def config_entries(path: str, pattern: str) -> list[tuple[str, str]]:
    """``git config --get-regexp PATTERN``: every (key, value), keys lowercased."""
    got = attempt(path, ["config", "--get-regexp", pattern])
    if got.code == 1:
        return []
    if got.code != 0:
        raise GitError(got.err.decode("utf-8", "replace").strip() or "git config failed")
    out = []
    for line in got.out.decode("utf-8", "replace").split("\n"):
        if line:
            key, _, value = line.partition(" ")
            out.append((key.lower(), value))
    return out


def config_values(path: str, key: str) -> list[str]:
    """Every value of a multi-valued ``git config`` key (``--get-all``)."""
    got = attempt(path, ["config", "--get-all", key])
    if got.code == 1:
        return []
    if got.code != 0:
        raise GitError(got.err.decode("utf-8", "replace").strip() or f"git config {key} failed")
    return [v for v in got.out.decode("utf-8", "replace").split("\n") if v]
