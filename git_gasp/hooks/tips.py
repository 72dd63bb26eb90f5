"""Between the old and the new tip of a pushed ref: the new tip keeps every
append-only file of the old one at its start, and changes who the agent is
only with a recorded decision, whatever path the commits took.
"""

from __future__ import annotations

from collections.abc import Sequence

from git_gasp import git
from git_gasp.core.agentfiles import IDENTITY_HINT
from git_gasp.core.change import edit_finding, merged_lines_not_in, split_lines
from git_gasp.core.event import Event
from git_gasp.core.finding import Finding, Judged
from git_gasp.core.locations import DEFAULT_LOCATIONS
from git_gasp.hooks.objects import Locations
from git_gasp.hooks.protocol import Update

LOG_PATH = DEFAULT_LOCATIONS["log"][0]


def is_ancestor(repo: str, old: str, new: str) -> bool:
    """A fast-forward: its new commits were each judged against their parents."""
    try:
        git.run(repo, ["merge-base", "--is-ancestor", old, new])
        return True
    except git.GitError:
        return False


def append_only_paths(repo: str, rev: str) -> tuple[list[str], Locations]:
    """Every append-only file of ``rev``'s tree (see :class:`Locations`),
    and the locations they were found by."""
    out = git.run(repo, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", rev])
    names = [n for n in out.decode("utf-8", "surrogateescape").split("\0") if n]
    text = ""
    if "AGENT.md" in names:
        with git.BlobReader(repo) as reader:
            text = reader.read(f"{rev}:AGENT.md").decode("utf-8", "replace")
    locations = Locations.from_manifest(text)
    return [n for n in names if locations.append_only(n)], locations


def tip_findings(repo: str, update: Update) -> list[Judged]:
    """Between the old and the new tip of a ref: every append-only file of
    the old tip is kept byte for byte at the start of the new tip's, and an
    identity hash or Locations change comes with an appended decision."""
    from git_gasp.core.log import parse_log

    fast = is_ancestor(repo, update.old, update.new)
    verb = "update" if fast else "forced update"
    paths, locations = append_only_paths(repo, update.old)
    specs = [f"{rev}:{p}" for p in [*paths, "AGENT.md"] for rev in (update.old, update.new)]
    info = git.object_info(repo, specs)
    with git.BlobReader(repo) as reader:
        out, kept = _kept_files(repo, reader, update, fast, paths, info)
        manifest_old, manifest_new = info[-2], info[-1]
        if manifest_old is not None and manifest_new is None:
            # an agent stays an agent: dropping AGENT.md would make the next
            # identity look like a new agent's first one, needing no decision
            message = f"{verb} of {update.ref} drops AGENT.md (and with it the pinned identity)"
            finding = Finding("AGENT.md", None, "identity", message, IDENTITY_HINT)
            out.append(Judged(update.new, finding))
        if out or manifest_old is None or manifest_new is None or manifest_old == manifest_new:
            return out
        before = reader.read(manifest_old.oid)
        after_manifest = reader.read(manifest_new.oid)
    logs = [p for p in paths if p in locations.logs]
    appended = [e for p in logs if p in kept for e in parse_log(kept[p][1]).events]
    log_path = logs[0] if logs else LOG_PATH
    return out + _decision_findings(update, before, after_manifest, appended, log_path)


def _kept_files(
    repo: str,
    reader: git.BlobReader,
    update: Update,
    fast: bool,
    paths: Sequence[str],
    info: Sequence[git.ObjectInfo | None],
) -> tuple[list[Judged], dict[str, tuple[bytes, bytes]]]:
    """Each append-only file of the old tip (``info``: its old and new
    object per path) kept at the start of the new tip's: the findings, and
    per kept file what it kept and what was appended."""
    from git_gasp.core.appendonly import blob_id

    verb = "update" if fast else "forced update"
    hash_name = git.repo_info(repo).object_format
    out: list[Judged] = []
    kept: dict[str, tuple[bytes, bytes]] = {}
    for i, path in enumerate(paths):
        old, new = info[2 * i], info[2 * i + 1]
        if old is None or (new is not None and new.oid == old.oid):
            continue
        if new is None:
            message = f"{verb} of {update.ref} drops the file"
            out.append(Judged(update.new, Finding(path, None, "append-only", message, _FORCE)))
            continue
        after = reader.read(new.oid)
        size = old.size
        if size <= len(after) and blob_id(after[:size], size, hash_name) == old.oid:
            kept[path] = (after[:size], after[size:])
            continue
        before = reader.read(old.oid)
        if fast and _keeps_lines(before, after):
            # merges on the way interleaved the old tip's lines with others:
            # every one is kept (each merge was judged for their order)
            kept[path] = (before, merged_lines_not_in(before, after))
            continue
        finding = edit_finding(path, before, after)
        message = f"{verb} of {update.ref}: {finding.message}"
        out.append(Judged(update.new, finding._replace(message=message, hint=_FORCE)))
    return out, kept


def _decision_findings(
    update: Update, before: bytes, after: bytes, appended: Sequence[Event], log_path: str
) -> list[Judged]:
    """An identity hash or Locations change between the tips' manifests
    (``before``, ``after``) comes with an Approved decision appended on the way."""
    from git_gasp.core.agentfiles import approves, check_locations
    from git_gasp.core.manifest import declared_identity_hash

    out: list[Judged] = []
    declared = [declared_identity_hash(m.decode("utf-8", "replace")).value for m in (before, after)]
    if declared[0] != declared[1] and not any(approves(e) for e in appended):
        message = (
            f"the identity of {update.ref} changes without an Approved decision.created "
            "by a person on the way"
        )
        finding = Finding("AGENT.md", None, "identity", message, IDENTITY_HINT)
        out.append(Judged(update.new, finding))
    for finding in check_locations(before, after, appended, log_path):
        out.append(Judged(update.new, finding._replace(message=f"{update.ref}: {finding.message}")))
    return out


_FORCE = "never rewrite a pushed agent log; push new commits on top instead"


def _keeps_lines(before: bytes, after: bytes) -> bool:
    """Every line of ``before`` is in ``after``, as often (bytes)."""
    from collections import Counter

    return not Counter(split_lines(before)) - Counter(split_lines(after))
