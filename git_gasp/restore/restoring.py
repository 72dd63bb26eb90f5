"""``git gasp restore`` and ``git gasp status``: clone safely, read, verify, fold, report.

Restore (REFERENCE §9.6): clone without running anything from the remote
(:func:`git_gasp.git.clone.safe_clone`), read ``AGENT.md`` (spec MAJOR version
1 only) and ``.agent/config.toml`` (:mod:`~git_gasp.restore.repofiles`),
verify the identity hash fail-closed with check 6's wording
(:mod:`~git_gasp.restore.identity`), load the skills (an invalid one is
reported, not loaded), fold the log through ``--at``
(:mod:`~git_gasp.restore.seededfold`), optionally rebind the executor, and
report. Status is the same report for a repository already on disk.

Nothing in the repository is executed; ``AGENT.md`` and the config are read
with size caps; symlinks under ``identity/`` or ``skills/`` that lead out of
the repository are refused.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from git_gasp import git
from git_gasp.core.contextbudget import DEFAULT_BUDGET
from git_gasp.core.contextdoc import context_markdown
from git_gasp.core.graph import Graph, Node
from git_gasp.core.locations import parse_locations
from git_gasp.core.manifest import MAX_MANIFEST_BYTES
from git_gasp.core.restorereport import RestoreInputs, build_report
from git_gasp.core.resume import ResumedRun
from git_gasp.core.runlog import RunCommit
from git_gasp.errors import USAGE, GaspError
from git_gasp.restore.cloned import refuse_no_agent
from git_gasp.restore.identity import (
    MAX_IDENTITY_BYTES,
    MAX_IDENTITY_FILES,
    identity_texts,
    unhashed,
    verified_identity,
)
from git_gasp.restore.loggedruns import logged_runs, mark_logged_finishes
from git_gasp.restore.repofiles import (
    CONFIG,
    file_cap,
    read_config,
    read_head,
    read_manifest,
    readable,
    rebind_executor,
)
from git_gasp.restore.seededfold import fold_log
from git_gasp.restore.skills import skills_at
from git_gasp.store.exclude import exclude_local
from git_gasp.store.logfile import refuse_committed_over_cap
from git_gasp.store.mergedriver import configure_merge_driver
from git_gasp.store.runmarker import MARKER_PATH, read_marker
from git_gasp.store.worktree import refuse_escapes

RECENT_RUNS = 5


class Restored(NamedTuple):
    report: dict[str, Any]
    context: str  # the rehydration document (Markdown)
    root: str  # the agent repository described


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


def _silent(line: str) -> None:
    """No progress to say."""


def describe(
    root: str,
    url: str | None = None,
    at: str | None = None,
    executor: dict[str, str] | None = None,
    verify_snapshot: bool = False,
    local: bool = False,
    budget: int | None = DEFAULT_BUDGET,
    progress: Callable[[str], None] | None = None,
) -> Restored:
    """Read, verify, fold and report the agent repository at ``root``;
    ``local``: a work tree (not a fresh clone), whose run marker is read too;
    ``budget``: the ``--context`` document's size in characters (None: any);
    ``progress`` hears each phase start."""
    say = progress or _silent
    refuse_escapes(root)  # before anything is read or written
    cap = file_cap(root)
    manifest, manifest_bytes = read_manifest(root, cap)
    say("verifying identity")
    verified, digest, identity_notes = verified_identity(root, manifest_bytes, cap, local)
    locations, warnings = parse_locations(manifest_bytes.decode("utf-8"))
    identity, apart, identity_warnings = _identity_context(root, locations["identity"], cap)
    warnings = [*warnings, *identity_warnings]
    log_rel = _first_existing(root, locations["log"])
    info, folder = fold_log(root, log_rel, at, verify_snapshot, say)
    if local:
        warnings = [*warnings, *_marker_warnings(root, info.resumed)]
    warnings = [*warnings, *_kept_projections(root, locations["memory"])]
    changed = rebind_executor(root, dict(executor or {}))
    config = read_config(root, cap)
    say("loading skills")
    skills = skills_at(root, locations["skills"], cap)
    log_path = os.path.join(root, *log_rel.split("/"))
    runs = _runs_then(root, info.historical, folder.graph(), log_path)
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
    mark_logged_finishes(report, info.historical, log_path)
    memory = _memory(root, locations["memory"], cap, report["warnings"])
    recent = runs[:RECENT_RUNS]
    graph = folder.graph()
    tasks = {r.run_id: _task(graph.nodes.get(r.run_id)) for r in recent}
    text = context_markdown(report, identity, memory, recent, frozenset(apart), budget, tasks)
    return Restored(report, text, root)


def _runs_then(root: str, historical: bool, graph: Graph, log_path: str) -> list[RunCommit]:
    """The boundary commits' runs; in a fold through ``--at``, the runs
    finished by then (their run.finished was folded). With no boundary
    commit at all (a history seeded in one commit), the last runs the log
    at ``log_path`` finished."""
    runs = _runs(root)
    if historical:
        return [r for r in runs if _finished_in(graph, r.run_id)]
    return runs or logged_runs(log_path, RECENT_RUNS)


def _task(node: Node | None) -> str:
    """A run node's task, on one line ("" when it has none)."""
    props = node.props if node is not None and isinstance(node.props, dict) else {}
    task = props.get("task")
    return " ".join(task.split())[:200] if isinstance(task, str) else ""


def _kept_projections(root: str, memory: Sequence[str]) -> list[str]:
    """A warning for an active memory git-gasp will not touch: one without
    its marker (an agent's own synthesis), unless gasp.activeMemory says so."""
    from git_gasp.core.projections import KEPT_MEMORY, MEMORY_MARKER

    if "memory/active_memory.md" not in memory:
        return []
    try:
        with open(os.path.join(root, "memory", "active_memory.md"), "rb") as fh:
            head = fh.read(len(MEMORY_MARKER))
    except OSError:
        return []
    if head == MEMORY_MARKER or git.config_value(root, "gasp.activeMemory") == "generate":
        return []
    return [KEPT_MEMORY]


def _identity_context(
    root: str, locations: Sequence[str], cap: int | None
) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """The identity files the ``--context`` document takes (path, text), those
    of them the identity hash does not cover, and the warnings about both."""
    cut: list[str] = []
    identity, capped = identity_texts(root, locations, cap, cut)
    warnings = [
        f"{rel} is longer than --context takes: only its first bytes are in it" for rel in cut
    ]
    if capped:
        warnings = [
            *warnings,
            f"Locations: identity names more than {MAX_IDENTITY_FILES} files or "
            f"{MAX_IDENTITY_BYTES >> 20} MiB; --context takes the first ones only",
        ]
    apart = unhashed(root, identity)
    if apart:
        named = ", ".join(apart[:3]) + (f" and {len(apart) - 3} more" if apart[3:] else "")
        warnings = [
            *warnings,
            f"Locations: identity files the identity hash does not cover ({named}); "
            "--context puts them apart, as unverified",
        ]
    return identity, apart, warnings


def _memory(
    root: str, locations: Sequence[str], cap: int | None, warnings: list[str]
) -> str | None:
    """Active memory for the ``--context`` document: its first bytes when it
    is over the cap (a projection: cut, with a warning in ``warnings``)."""
    memory_rel = _first_existing(root, locations)
    memory_path = os.path.join(root, *memory_rel.split("/"))
    if not (os.path.isfile(memory_path) and readable(root, memory_path)):
        return None
    limit = cap or MAX_MANIFEST_BYTES
    data, whole = read_head(memory_path, limit)
    if not whole:  # a projection: cut, and said so
        warnings.append(
            f"{memory_rel} is over the {limit:,}-byte cap: --context takes its first bytes"
        )
    return data.decode("utf-8", "replace")


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
    budget: int | None = DEFAULT_BUDGET,
    progress: Callable[[str], None] | None = None,
    branch: str | None = None,
) -> Restored:
    """Clone ``url`` (its ``branch``, or the one its HEAD names) safely into
    ``directory`` and :func:`describe` it; with ``at``, the work tree is the
    commit that holds that event, on a detached HEAD (see
    :func:`check_out_at`); with ``progress``, git's clone progress goes to
    stderr and each phase after it to ``progress``."""
    dest = directory or default_directory(url)
    if os.path.lexists(dest) and (not os.path.isdir(dest) or os.listdir(dest)):
        raise GaspError(
            f"{dest}: already exists and is not an empty directory",
            "name a new directory: git gasp restore URL DIR",
            USAGE,
        )
    created = _outermost_missing(dest)
    try:
        refuse = functools.partial(refuse_committed_over_cap, dest, _LOGS)
        git.safe_clone(url, dest, refuse, progress is not None, branch)
        exclude_local(dest)  # the control files stay local, whoever wrote the repository
        configure_merge_driver(dest, None)  # the journal's attribute names it; config is not cloned
        refuse_no_agent(url, dest)
        commit = check_out_at(dest, at) if at is not None else None
        restored = describe(
            dest, url, at, executor, verify_snapshot, budget=budget, progress=progress
        )
        restored.report["checkout"] = commit
        return restored
    except git.GitError as exc:
        _discard(dest, created)
        missing = branch is not None and "not found in upstream" in exc.message
        hint = "list its branches: git ls-remote --heads URL" if missing else None
        raise GaspError(
            f"clone failed: {exc.reason()}", hint or "check the URL and your access", USAGE
        ) from None
    except BaseException:
        _discard(dest, created)  # a refused restore leaves nothing behind to trip over
        raise


def check_out_at(dest: str, at: str) -> dict[str, str] | None:
    """Check out the commit that holds event ``at`` (the oldest along HEAD's
    first parents whose log has it) on a detached HEAD, so identity, skills
    and memory are those of that time; None when ``at`` is the log's last
    event (the present), HEAD is that commit, or no commit holds ``at`` (then
    the fold names the unknown event)."""
    from git_gasp.git.pastcommit import commit_holding

    manifest_bytes = read_manifest(dest, file_cap(dest))[1]
    locations, _ = parse_locations(manifest_bytes.decode("utf-8"))
    log_rel = _first_existing(dest, locations["log"])
    if _last_event_id(os.path.join(dest, *log_rel.split("/"))) == at:
        return None
    commit = commit_holding(dest, log_rel, at)
    head = git.head(dest)
    if commit is None or commit == head:
        return None
    git.safe_checkout(dest, commit)
    return {"commit": commit, "head": head or "", "event": at}


def _last_event_id(path: str) -> str | None:
    """The ``id`` of the log's last line (None when it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(fh.tell() - (1 << 20), 0))
            tail = fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        value = json.loads(tail)
    except (OSError, ValueError):
        return None
    found = value.get("id") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


# the append-only files, refused over gasp.maxLogBytes before the checkout
_LOGS = ("state/events.jsonl", "memory/facts.jsonl", "journal/JOURNAL.md")


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
