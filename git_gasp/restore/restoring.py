"""``git gasp restore`` and ``git gasp status``: clone safely, read, verify, fold, report.

Restore (REFERENCE §9.6): clone without running anything from the remote
(:func:`git_gasp.git.clone.safe_clone`), read ``AGENT.md`` (spec MAJOR version
1 only) and ``.agent/config.toml``, verify the identity hash fail-closed with
check 6's wording, load the skills (an invalid one is reported, not loaded),
fold the log through ``--at`` (seeded by the latest snapshot at or before it
only when its integrity record matches *and* its graph equals the fold of its
prefix), optionally rebind the executor, and report. Status is the same
report for a repository already on disk.

Nothing in the repository is executed; ``AGENT.md`` and the config are read
with size caps; symlinks under ``identity/`` or ``skills/`` that lead out of
the repository are refused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from typing import Any, NamedTuple

from git_gasp import git
from git_gasp.core.event import Event
from git_gasp.core.fold import Folder
from git_gasp.core.graph import Graph, GraphError, graphs_equal, parse_graph, trusted_graph
from git_gasp.core.jsonvalue import JsonError, fast_loads, loads
from git_gasp.core.locations import parse_locations
from git_gasp.core.log import (
    describe_error,
    events_in_prefix,
    gc_paused,
    parse_log,
    physical_line_count,
    physical_prefix,
)
from git_gasp.core.manifest import MAX_MANIFEST_BYTES
from git_gasp.core.repochecks import Identity, _verify_identity
from git_gasp.core.restorereport import (
    MAX_CONFIG_BYTES,
    FoldInfo,
    Manifest,
    ManifestError,
    RestoreInputs,
    build_report,
    context_markdown,
    parse_manifest,
    parse_toml,
    set_executor_values,
)
from git_gasp.core.resume import ResumedRun, resumed_run, resumed_run_seeded
from git_gasp.core.runlog import RunCommit
from git_gasp.core.skill import Skill
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.restore.skills import read_skills
from git_gasp.store import seeding, writer
from git_gasp.store.runmarker import MARKER_PATH, read_marker
from git_gasp.store.worktree import (
    MAX_SNAPSHOT_BYTES,
    identity_files,
    inside,
    os_error,
    refuse_escapes,
)

MANIFEST = "AGENT.md"
CONFIG = ".agent/config.toml"
RECENT_RUNS = 5


class Restored(NamedTuple):
    report: dict[str, Any]
    context: str  # the rehydration document (Markdown)
    root: str  # the agent repository described


#: Each identity file at most (when gasp.maxFileBytes is unset): the hash
#: reads them whole, and a persona is text.
MAX_IDENTITY_FILE_BYTES = 16 * 1024 * 1024

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
        raise GaspError(exc.message, where, USAGE) from None
    if value is None:
        return None
    cap = int(value)
    if cap <= 0:
        raise GaspError(f"{CAP_KEY} is {cap}: not a size", where, USAGE)
    return cap


def _over(rel: str, cap: int, configured: bool = True) -> GaspError:
    hint = f"raise it if you trust the repository: git config --global {CAP_KEY} <bytes>"
    if configured:
        hint += f" (where it is set now: git config --show-origin {CAP_KEY})"
    return GaspError(f"{rel} is over the {cap:,}-byte cap (refused)", hint, USAGE)


def _read_capped(
    root: str, rel: str, cap: int, required: bool, configured: bool = False
) -> bytes | None:
    path = os.path.join(root, *rel.split("/"))
    if not os.path.lexists(path):
        if required:
            raise GaspError(
                f"{rel} missing: not a GASP agent repository",
                "point it at an agent repository (-C PATH), or create one with: git gasp init",
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
        raise _over(rel, cap, configured)
    return data


def read_manifest(root: str, cap: int | None = None) -> tuple[Manifest, bytes]:
    data = _read_capped(root, MANIFEST, cap or MAX_MANIFEST_BYTES, True, cap is not None)
    assert data is not None
    try:
        return parse_manifest(data, cap), data
    except ManifestError as exc:
        raise GaspError(str(exc), "restore reads GASP spec version 1 manifests", USAGE) from None


def read_config(root: str, cap: int | None = None) -> dict[str, Any]:
    data = _read_capped(root, CONFIG, cap or MAX_CONFIG_BYTES, False, cap is not None)
    if data is None:
        return {}
    try:
        return parse_toml(data.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError is one
        raise GaspError(f"{CONFIG}: not valid TOML: {exc}", None, USAGE) from None


def rebind_executor(root: str, values: dict[str, str]) -> list[str]:
    """Set ``[executor]`` values in the config by a textual edit; returns the keys changed."""
    if not values:
        return []
    cap = file_cap(root)
    data = _read_capped(root, CONFIG, cap or MAX_CONFIG_BYTES, False, cap is not None) or b""
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


# -- identity -------------------------------------------------------------------


def verify_identity(
    root: str, manifest: bytes, cap: int | None = None
) -> tuple[bool, str | None, tuple[str, ...]]:
    """Check 6's verification (fail-closed): (verified, computed hash, failures
    or notes); with ``cap``, an identity file over it is refused unread."""
    from git_gasp.agent.identity import compute
    from git_gasp.store.worktree import identity_files

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
            raise _over(rel, limit, cap is not None)

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
        _verify_identity(Identity(True, manifest, digest, error), failures, notes)
    if failures:
        return False, digest, tuple(failures)
    return True, digest, tuple(notes)


#: What the --context document takes from identity locations at most.
MAX_IDENTITY_FILES = 256
MAX_IDENTITY_BYTES = 4 * 1024 * 1024


def _readable(root: str, path: str) -> bool:
    """Whether a location's file may be read for the context document: it
    stays in the work tree, outside ``.git`` (also through a symlink inside
    the repository, ``g -> .git``)."""
    real = os.path.realpath(path)
    top = os.path.realpath(root)
    if not inside(root, path) or real == top:
        return False
    rel = os.path.relpath(real, top).replace(os.sep, "/")
    return not any(part.lower() == ".git" for part in rel.split("/"))


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
        if not _readable(root, base):
            continue
        files: list[str] = []
        if os.path.isfile(base):
            files = [base]
        elif os.path.isdir(base):
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(
                    d for d in dirnames if _readable(root, os.path.join(dirpath, d))
                )
                files += [os.path.join(dirpath, f) for f in sorted(filenames)]
        for path in files:
            real = os.path.realpath(path)
            if real in seen or not _readable(root, path) or not os.path.isfile(path):
                continue
            if len(out) >= MAX_IDENTITY_FILES or total >= MAX_IDENTITY_BYTES:
                return out, True
            seen.add(real)
            data, whole = _head(path, min(cap or MAX_MANIFEST_BYTES, MAX_IDENTITY_BYTES - total))
            rel_path = os.path.relpath(path, root).replace(os.sep, "/")
            if not whole and cut is not None:  # the document takes its first bytes, and says so
                cut.append(rel_path)
            total += len(data)
            out.append((rel_path, data.decode("utf-8", "replace")))
    return out, False


def _head(path: str, limit: int) -> tuple[bytes, bool]:
    """The first ``limit`` bytes of ``path``, and whether that is all of it."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    return data[:limit], len(data) <= limit


# -- skills -----------------------------------------------------------------------


def _skills_at(root: str, rels: Sequence[str], cap: int | None) -> list[Skill]:
    """Every skill under each of the skills locations ``rels``."""
    out: list[Skill] = []
    for rel in rels:
        out += read_skills(root, rel, cap)
    return out


def declared_skills(root: str, cap: int | None = None) -> list[Skill]:
    """Every skill under each skills location ``AGENT.md``'s Locations table
    declares (``skills/`` when it declares none), read as restore reads them:
    an AGENT.md over the cap is refused, never half read."""
    data = _read_capped(root, MANIFEST, cap or MAX_MANIFEST_BYTES, False, cap is not None)
    locations, _ = parse_locations((data or b"").decode("utf-8", "replace"))
    return _skills_at(root, locations["skills"], cap)


# -- the fold, seeded by a verified snapshot ---------------------------------------


class _Candidate(NamedTuple):
    name: str
    events: int
    digest: str
    graph_value: object


def _snapshots(
    root: str, log: bytes, events: Sequence[Event], limit: int
) -> tuple[list[_Candidate], list[str]]:
    """Snapshots whose integrity record matches ``log`` and covers at most
    ``limit`` events, latest first; notes for the others."""
    base = os.path.join(root, "snapshots")
    notes: list[str] = []
    if not os.path.isdir(base) or not inside(root, base):
        return [], notes
    lines = physical_line_count(log)
    found = []
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name, "graph.json")
        if not os.path.isfile(path) or not inside(root, path):
            continue
        if os.path.getsize(path) > MAX_SNAPSHOT_BYTES:
            notes.append(f"snapshot {name}: over the size cap (not used)")
            continue
        with open(path, "rb") as fh:
            raw = fh.read()
        try:
            value = loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, JsonError):
            notes.append(f"snapshot {name}: not JSON (not used)")
            continue
        record = value.get("integrity") if isinstance(value, dict) else None
        count = record.get("line_count") if isinstance(record, dict) else None
        sha = record.get("sha256") if isinstance(record, dict) else None
        event_id = record.get("event_id") if isinstance(record, dict) else None
        if type(count) is not int or not isinstance(sha, str) or not 0 < count <= lines:
            notes.append(f"snapshot {name}: integrity record missing or out of range (not used)")
            continue
        if hashlib.sha256(physical_prefix(log, count)).hexdigest() != sha:
            notes.append(f"snapshot {name}: integrity hash mismatch (not used)")
            continue
        k = events_in_prefix(log, count)
        if isinstance(event_id, str) and (k == 0 or events[k - 1].id != event_id):
            notes.append(
                f"snapshot {name}: event_id is not the last event of its prefix (not used)"
            )
            continue
        if k > limit:
            continue  # after --at
        assert isinstance(value, dict)
        found.append(_Candidate(name, k, hashlib.sha256(raw).hexdigest(), value.get("graph")))
    found.sort(key=lambda c: (c.events, c.name), reverse=True)
    return found, notes


def _trusted(root: str, seed: seeding.Seed) -> Graph | None:
    """The graph of a snapshot inside the repository, trusted as its integrity
    record is (its JSON tree is dropped on return; the graph keeps the props)."""
    if not inside(root, seed.path) or len(seed.raw) > MAX_SNAPSHOT_BYTES:
        return None
    try:
        value = fast_loads(seed.raw)
        return trusted_graph(value.get("graph") if isinstance(value, dict) else None)
    except (GraphError, JsonError, ValueError):
        return None


def _fold_from_snapshot(root: str, log: bytes, log_rel: str) -> tuple[FoldInfo, Folder] | None:
    """The common restore: the newest snapshot whose integrity record matches
    seeds the fold, and only the log after it is parsed and folded."""
    if not inside(root, os.path.join(root, "snapshots")):
        return None  # the careful path below notes nothing and folds it all
    verified = seeding.verified_digests(seeding.common_dir(root))
    passed_over: list[str] = []
    with gc_paused():  # tens of thousands of acyclic objects: no collector passes
        found = seeding.choose(root, log, verified, lambda seed: _trusted(root, seed), passed_over)
        if found is None or passed_over:
            return None  # the careful path below reports why (and which were not used)
        seed, graph = found
        if graph is None:
            return None
        tail = parse_log(log[seed.offset :])
        if tail.errors:
            return None
        folder = Folder.from_graph(graph)
        folder.apply_all(tail.events)
    total = seed.events + len(tail.events)
    folder.events = total
    how = "cache" if seed.verified else "integrity record"
    resumed = resumed_run_seeded(log, seed.offset, tail.events)
    return FoldInfo(total, None, seed.name, seed.events, how, (), resumed), folder


def fold_log(
    root: str, log_rel: str, at: str | None, verify_snapshot: bool = False
) -> tuple[FoldInfo, Folder]:
    """Fold the log through ``at``, seeded by the newest snapshot at or before it
    whose integrity record verifies (REFERENCE §3.3, the restore contract).

    The snapshot's graph is trusted once its integrity record matches the log's
    bytes, as the contract says; ``git gasp check`` (check 2) verifies graphs.
    With ``verify_snapshot`` the graph is also compared with a fold of its
    prefix (or a verdict this clone remembers), for sources you do not trust.
    """
    path = os.path.join(root, *log_rel.split("/"))
    if not inside(root, path):
        raise GaspError(f"{log_rel} leads outside the repository (refused)", None, USAGE)
    try:
        with open(path, "rb") as fh:
            log = fh.read()
    except FileNotFoundError:
        # fail closed: an agent without its log is no agent restored empty
        raise GaspError(
            f"{log_rel}: no event log (the log is the agent's state)",
            "an agent repository keeps it (git gasp init creates it); "
            "check the URL, or the log's path in AGENT.md's Locations table",
            FINDINGS,
        ) from None
    except OSError as exc:
        raise GaspError(f"{log_rel}: cannot read: {os_error(exc)}", None, USAGE) from None
    if at is None and not verify_snapshot:
        quick = _fold_from_snapshot(root, log, log_rel)
        if quick is not None:
            return quick
    parsed = parse_log(log)
    if parsed.errors:
        raise GaspError(
            describe_error(log_rel, parsed.errors[0]),
            "check it with: git gasp check",
            FINDINGS,
        )
    events = parsed.events
    limit = len(events)
    if at is not None:
        ends = [i for i, e in enumerate(events) if e.id == at]
        if not ends:
            raise GaspError(
                f"unknown event id: {at}",
                did_you_mean(at, [e.id for e in events])
                or f"--at takes the `id` of an event in {log_rel}",
                USAGE,
            )
        limit = ends[0] + 1
    candidates, notes = _snapshots(root, log, events, limit)
    common = seeding.common_dir(root)
    cached = seeding.verified_digests(common)
    for cand in candidates:
        try:
            graph = parse_graph(cand.graph_value)
        except GraphError as exc:
            notes.append(f"snapshot {cand.name}: graph does not parse: {exc} (not used)")
            continue
        if cached.get(cand.digest) == cand.events:
            how = "cache"
        elif not verify_snapshot:
            how = "integrity record"
        else:
            prefix = Folder()
            prefix.apply_all(events[: cand.events])
            if not graphs_equal(prefix.graph(), graph):
                notes.append(
                    f"snapshot {cand.name}: differs from folding its log prefix (not used)"
                )
                continue
            how = "fold of prefix"
            seed = seeding.Seed(cand.name, cand.digest, 0, cand.events, "", "", True)
            seeding.remember(common, seed)
        folder = Folder.from_graph(graph)
        folder.apply_all(events[cand.events : limit])
        folder.events = limit
        resumed = resumed_run(events[:limit])
        whole = limit == len(events)
        info = FoldInfo(limit, at, cand.name, cand.events, how, tuple(notes), resumed, whole)
        return info, folder
    folder = Folder()
    folder.apply_all(events[:limit])
    resumed = resumed_run(events[:limit])
    return FoldInfo(limit, at, None, 0, None, tuple(notes), resumed, limit == len(events)), folder


# -- the whole report ---------------------------------------------------------------


def _first_existing(root: str, paths: Sequence[str]) -> str:
    for rel in paths:
        if os.path.exists(os.path.join(root, *rel.split("/"))):
            return rel
    return paths[0]


def _finished_in(graph: Graph, run_id: str) -> bool:
    node = graph.nodes.get(run_id)
    props = node.props if node is not None else None
    return isinstance(props, dict) and props.get("status") not in (None, "started")


def _runs(root: str) -> list[RunCommit]:
    try:
        return git.run_commits(root, "HEAD")
    except git.GitError:
        return []


def _marker_warnings(root: str, resumed: ResumedRun | None) -> list[str]:
    """A run this clone opened or finished and has not committed (its marker,
    see :mod:`git_gasp.store.runmarker`), when the log alone resumes another."""
    try:
        marker = read_marker(root)
    except GaspError as exc:
        return [exc.message]
    if marker is None or (resumed is not None and resumed.started_event == marker.started_event):
        return []
    return [
        f"this clone's run marker ({MARKER_PATH}) names {marker.run_id}, not committed yet; "
        "git gasp run status shows it, git gasp run close completes it"
    ]


def describe(
    root: str,
    url: str | None = None,
    at: str | None = None,
    executor: dict[str, str] | None = None,
    verify_snapshot: bool = False,
    local: bool = False,
) -> Restored:
    """Read, verify, fold and report the agent repository at ``root``;
    ``local``: a work tree (not a fresh clone), whose run marker is read too."""
    refuse_escapes(root)  # before anything is read or written
    cap = file_cap(root)
    manifest, manifest_bytes = read_manifest(root, cap)
    verified, digest, identity_notes = verify_identity(root, manifest_bytes, cap)
    if not verified:
        raise GaspError(
            identity_notes[0],
            "refusing to restore an agent whose identity/ does not match AGENT.md; "
            "nothing from the repository was run",
            FINDINGS,
        )
    locations, warnings = parse_locations(manifest_bytes.decode("utf-8"))
    cut: list[str] = []
    identity, capped = identity_texts(root, locations["identity"], cap, cut)
    warnings = [
        *warnings,
        *(f"{rel} is longer than --context takes: only its first bytes are in it" for rel in cut),
    ]
    if capped:
        warnings = [
            *warnings,
            f"Locations: identity names more than {MAX_IDENTITY_FILES} files or "
            f"{MAX_IDENTITY_BYTES >> 20} MiB; --context takes the first ones only",
        ]
    unhashed = _unhashed(root, identity)
    if unhashed:
        named = ", ".join(unhashed[:3]) + (f" and {len(unhashed) - 3} more" if unhashed[3:] else "")
        warnings = [
            *warnings,
            f"Locations: identity files the identity hash does not cover ({named}); "
            "--context puts them apart, as unverified",
        ]
    info, folder = fold_log(root, _first_existing(root, locations["log"]), at, verify_snapshot)
    if local:
        warnings = [*warnings, *_marker_warnings(root, info.resumed)]
    changed = rebind_executor(root, dict(executor or {}))
    config = read_config(root, cap)
    skills = _skills_at(root, locations["skills"], cap)
    runs = _runs(root)
    if info.historical:  # the runs finished by then: their run.finished was folded
        graph = folder.graph()
        runs = [r for r in runs if _finished_in(graph, r.run_id)]
    report = build_report(
        RestoreInputs(
            root,
            url,
            manifest,
            verified,
            identity_notes,
            digest,
            skills,
            info,
            folder.graph(),
            runs,
            config,
            CONFIG,
            locations,
            warnings,
            changed,
        )
    )
    memory_rel = _first_existing(root, locations["memory"])
    memory = None
    memory_path = os.path.join(root, *memory_rel.split("/"))
    if os.path.isfile(memory_path) and _readable(root, memory_path):
        limit = cap or MAX_MANIFEST_BYTES
        data, whole = _head(memory_path, limit)
        if not whole:  # a projection: cut, and said so
            report["warnings"].append(
                f"{memory_rel} is over the {limit:,}-byte cap: --context takes its first bytes"
            )
        memory = data.decode("utf-8", "replace")
    text = context_markdown(report, identity, memory, runs[:RECENT_RUNS], frozenset(unhashed))
    return Restored(report, text, root)


def _unhashed(root: str, identity: Sequence[tuple[str, str]]) -> list[str]:
    """The identity files read that ``identity_hash`` does not cover (it
    covers ``identity/``, or the root ``IDENTITY.md``; REFERENCE §9.2)."""

    def real(rel: str) -> str:
        return os.path.realpath(os.path.join(root, *rel.split("/")))

    try:  # by the file, not the name: a link to a hashed file reads the same bytes
        hashed = {real(rel) for rel, _ in identity_files(root)}
    except OSError:
        hashed = set()
    return [path for path, _ in identity if real(path) not in hashed]


def default_directory(url: str) -> str:
    """The directory ``git clone URL`` would pick."""
    name = url.rstrip("/").rstrip("\\")
    name = name.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = name.removesuffix(".git") or "agent"
    return name


def restore(
    url: str,
    directory: str | None = None,
    at: str | None = None,
    executor: dict[str, str] | None = None,
    verify_snapshot: bool = False,
) -> Restored:
    """Clone ``url`` safely into ``directory`` and :func:`describe` it."""
    dest = directory or default_directory(url)
    if os.path.lexists(dest) and (not os.path.isdir(dest) or os.listdir(dest)):
        raise GaspError(
            f"{dest}: already exists and is not an empty directory",
            "name a new directory: git gasp restore URL DIR",
            USAGE,
        )
    created = _outermost_missing(dest)
    try:
        git.safe_clone(url, dest)
        return describe(dest, url, at, executor, verify_snapshot)
    except git.GitError as exc:
        _discard(dest, created)
        raise GaspError(
            f"clone failed: {exc.reason()}", "check the URL and your access", USAGE
        ) from None
    except BaseException:
        _discard(dest, created)  # a refused restore leaves nothing behind to trip over
        raise


def _outermost_missing(dest: str) -> str | None:
    """The outermost directory a clone into ``dest`` creates (``dest`` itself,
    or a missing parent: like ``git clone``, restore makes leading
    directories), None when ``dest`` exists."""
    path, missing = os.path.abspath(dest), None
    while not os.path.lexists(path):
        missing, path = path, os.path.dirname(path)
    return missing


def _discard(dest: str, created: str | None) -> None:
    """Remove what this restore created: the clone and any directories made
    for it (or, in a directory that was empty before, its contents)."""
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)
        return
    for name in os.listdir(dest) if os.path.isdir(dest) else []:
        path = os.path.join(dest, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)


def write_context(path: str, text: str, root: str) -> None:
    """The rehydration document, written as :mod:`git_gasp.store.outfile` writes
    (never over one of the files of the agent at ``root``)."""
    from git_gasp.store import outfile

    outfile.write(path, text.encode("utf-8"), root)
