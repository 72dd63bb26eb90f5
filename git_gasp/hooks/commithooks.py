"""The commit-time hooks.

* ``pre-commit``: the staged index against HEAD (or, under the pre-commit
  framework with a range, every commit of the range).
* ``commit-msg``: a commit that appends a ``run.finished`` carries exactly one
  ``Run-Id``, ``Goal`` and ``Outcome`` trailer naming that run and its
  outcome; a ``Run-Id`` names a run the staged log starts or finishes; every
  ``Agent-Session`` value follows the grammar.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from git_gasp import git
from git_gasp.core.commitmessage import run_id_findings, trailer_findings
from git_gasp.core.event import Event
from git_gasp.core.finding import Finding, Judged
from git_gasp.core.locations import DEFAULT_LOCATIONS
from git_gasp.errors import USAGE, GaspError
from git_gasp.hooks import changes, levels
from git_gasp.hooks.protocol import ZERO, done, report
from git_gasp.hooks.steps import index_step, nested_warning
from git_gasp.output import visible

LOG_PATH = DEFAULT_LOCATIONS["log"][0]


def pre_commit(repo: str, out: TextIO, env: Mapping[str, str] | None = None) -> None:
    """Judge the staged index against HEAD, or, when the pre-commit framework
    names a range (``pre-commit run --from-ref A --to-ref B`` sets
    ``PRE_COMMIT_FROM_REF`` and ``PRE_COMMIT_TO_REF``), every commit of
    ``A..B`` against its parents, as ``git gasp validate A..B`` does."""
    env = os.environ if env is None else env
    start, end = env.get("PRE_COMMIT_FROM_REF"), env.get("PRE_COMMIT_TO_REF")
    if start and end:
        tip = _commit_named(repo, end, "PRE_COMMIT_TO_REF")
        base = None if start in ZERO else _commit_named(repo, start, "PRE_COMMIT_FROM_REF")
        since = [f"^{base}"] if base else []  # a new branch: all of it
        from git_gasp.sessions.notecommits import commit_steps

        steps = commit_steps(repo, git.commit_walk(repo, [tip, *since, "--"]))
        found = _settled(repo, changes.judge(repo, steps), out)
        report(found, out)
        done(found, f"{start}..{end} refused")
        return
    state = git.repo_state(repo)  # HEAD and where the repository is: one process
    step = index_step(repo, state)
    if not step.paths:
        return
    warning = nested_warning(step.paths)
    if warning:
        out.write(visible(warning) + "\n")
    found = _settled(repo, changes.judge(repo, [step], info=state.info), out)
    report(found, out)
    done(found, "commit refused")


def _commit_named(repo: str, name: str, what: str) -> str:
    """The commit ``name`` names (never read as an option); a usage error
    when it names none, so a bad range never judges nothing and passes."""
    got = git.attempt(
        repo, ["rev-parse", "--verify", "-q", "--end-of-options", f"{name}^{{commit}}"]
    )
    oid = got.out.decode().strip()
    if got.code != 0 or not oid:
        raise GaspError(
            f"{what} {name!r} names no commit", "pass commits to --from-ref/--to-ref", USAGE
        )
    return oid


def staged_events(repo: str) -> list[Event]:
    """The events the staged index appends to the log (best effort: a log
    the pre-commit hook would refuse yields what parses)."""
    from git_gasp.core.log import parse_log

    head = git.head(repo)
    path = LOG_PATH
    specs = [f":{path}"] + ([f"{head}:{path}"] if head else [])
    info = git.object_info(repo, specs)
    staged = info[0]
    before = info[1] if head else None
    if staged is None or (before is not None and before.oid == staged.oid):
        return []
    with git.BlobReader(repo) as reader:
        data = reader.read(staged.oid)
    start = before.size if before is not None else 0
    return list(parse_log(data[start:]).events)


def staged_logs(repo: str) -> bytes:
    """Every staged log (the default path and what the staged ``AGENT.md``
    declares), whole, one after the other: what a ``Run-Id`` may name."""
    from git_gasp.hooks.objects import Locations

    with git.BlobReader(repo) as reader:
        manifest = git.object_info(repo, [":AGENT.md"])[0]
        text = reader.read(manifest.oid).decode("utf-8", "replace") if manifest else ""
        paths = sorted(Locations.from_manifest(text).logs)
        blobs = [b for b in git.object_info(repo, [f":{p}" for p in paths]) if b is not None]
        return b"".join(_ended(reader.read(b.oid)) for b in blobs)


def _ended(data: bytes) -> bytes:
    return data if data.endswith(b"\n") or not data else data + b"\n"


def commit_msg(repo: str, message_file: str, out: TextIO) -> None:
    try:
        with open(message_file, "rb") as fh:
            message = fh.read().decode("utf-8", "replace")
    except OSError as exc:
        raise GaspError(f"cannot read {message_file}: {exc.strerror}", None, USAGE) from None
    where = os.path.basename(message_file)
    if _merging(repo):
        # a merge brings in runs its other parent closed (the validator skips
        # merges' trailers too); only the Agent-Session grammar applies
        found = [Judged("", f) for f in trailer_findings(message, [], where)]
    else:
        events = staged_events(repo)
        found = [Judged("", f) for f in trailer_findings(message, events, where)]
        found += [Judged("", f) for f in _run_id_findings(repo, message, events, where)]
    found = _settled(repo, found, out)
    report(found, out)
    done(found, "commit refused")


def _run_id_findings(repo: str, message: str, events: list[Event], where: str) -> list[Finding]:
    """Run-Id trailers naming no run: the appended ``events`` first, the whole
    staged logs only when a trailer names a run they do not hold."""
    found = run_id_findings(message, events, b"", where)
    return run_id_findings(message, events, staged_logs(repo), where) if found else []


def _settled(repo: str, found: list[Judged], out: TextIO) -> list[Judged]:
    """The errors among ``found``, its warnings printed (git-gasp-hooks(1))."""
    return [j for _, j in levels.settle(repo, [(None, j) for j in found], out)]


def _merging(repo: str) -> bool:
    """A merge is being committed (``MERGE_HEAD`` exists)."""
    info = git.object_info(repo, ["MERGE_HEAD"])
    return bool(info) and info[0] is not None
