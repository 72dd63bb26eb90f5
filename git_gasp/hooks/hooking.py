"""The hooks: what each one judges, and how it reports.

* ``pre-commit``: the staged index against HEAD.
* ``commit-msg``: a commit that appends a ``run.finished`` carries exactly one
  ``Run-Id``, ``Goal`` and ``Outcome`` trailer naming that run and its
  outcome; every ``Agent-Session`` value follows the grammar.
* ``pre-push``: every commit being pushed that the remote does not have;
  then the session notes go along (:func:`git_gasp.sessions.pushnotes.pre_push`).
* ``pre-receive`` (a git server): every new commit of every pushed ref, forced
  updates and branch deletions, and updates of ``refs/notes/agent-sessions``.
* ``post-receive``: records an audited bypass.

Every hook prints one line per violation to stderr and exits 1 when it
rejects, 0 when all is well (silently). The server hook fails closed: an
internal error rejects the push with a message.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, TextIO

from git_gasp import git
from git_gasp.core.agentfiles import IDENTITY_HINT
from git_gasp.core.change import edit_finding, split_lines
from git_gasp.core.commitmessage import trailer_findings
from git_gasp.core.event import Event
from git_gasp.core.finding import Finding
from git_gasp.core.locations import DEFAULT_LOCATIONS
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.hooks import changes
from git_gasp.hooks.changes import Judged, Step
from git_gasp.output import visible
from git_gasp.store import writer

ZERO = frozenset({"0" * 40, "0" * 64})
NOTES_REF = "refs/notes/agent-sessions"
RULES_HINT = "git-gasp-hooks(1) lists the rules"
AUDIT_LOG = "audit.log"
LOG_PATH = DEFAULT_LOCATIONS["log"][0]


class Rejected(GaspError):
    """A hook that found violations (exit 1); they were already printed."""

    exit_code = FINDINGS


def _line(finding: Finding, prefix: str = "") -> str:
    where = finding.where()
    return f"gasp: {prefix}{where}: [{finding.rule}] {finding.message} (hint: {finding.hint})"


def report(findings: Sequence[Judged], out: TextIO, ref: str | None = None) -> None:
    # GitLab shows a pre-receive line in its web UI when it starts GL-HOOK-ERR:
    lead = "GL-HOOK-ERR: " if os.environ.get("GL_ID") else ""
    for judged in findings:
        prefix = f"{ref} " if ref else ""
        if judged.step:
            prefix += f"{judged.step[:7]} "
        out.write(visible(lead + _line(judged.finding, prefix)) + "\n")


def _done(findings: Sequence[Judged], what: str) -> None:
    if findings:
        commits = len({j.step for j in findings if j.step})
        where = f" in {commits} commit{'s' * (commits != 1)}" if commits else ""
        n = len(findings)
        raise Rejected(f"{what}: {n} violation{'s' * (n != 1)}{where}", RULES_HINT)


# -- pre-commit ---------------------------------------------------------------------


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
        steps = changes.commit_steps(repo, git.commit_walk(repo, [tip, *since, "--"]))
        found = changes.judge(repo, steps)
        report(found, out)
        _done(found, f"{start}..{end} refused")
        return
    step = changes.index_step(repo)
    if not step.paths:
        return
    warning = changes.nested_warning(step.paths)
    if warning:
        out.write(visible(warning) + "\n")
    found = changes.judge(repo, [step])
    report(found, out)
    _done(found, "commit refused")


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


# -- commit-msg ---------------------------------------------------------------------


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
        found = [Judged("", f) for f in trailer_findings(message, staged_events(repo), where)]
    report(found, out)
    _done(found, "commit refused")


def _merging(repo: str) -> bool:
    """A merge is being committed (``MERGE_HEAD`` exists)."""
    info = git.object_info(repo, ["MERGE_HEAD"])
    return bool(info) and info[0] is not None


# -- pre-push -----------------------------------------------------------------------


class Update(NamedTuple):
    old: str
    new: str
    ref: str


def pushed_commits(repo: str, tip: str, exclude: Sequence[str], remote: str | None) -> list[Step]:
    """Commits reachable from ``tip`` that the remote lacks, parents first."""
    revs = [tip, *(f"^{c}" for c in exclude)]
    if remote:
        revs += ["--not", f"--remotes={remote}"]
    return changes.commit_steps(repo, git.commit_walk(repo, revs))


def _exists(repo: str, oid: str) -> bool:
    info = git.object_info(repo, [oid])
    return bool(info and info[0] is not None)


def pre_push(
    repo: str, remote: str | None, lines: Iterable[str], env: Mapping[str, str], out: TextIO
) -> None:
    """Validate what is being pushed: git's stdin lines, or the pre-commit
    framework's ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``."""
    targets: list[tuple[str, str, str]] = []  # (local oid, remote oid, ref)
    if env.get("PRE_COMMIT_TO_REF"):
        remote = env.get("PRE_COMMIT_REMOTE_NAME") or remote
        ref = env.get("PRE_COMMIT_REMOTE_BRANCH") or env.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
        targets.append((env["PRE_COMMIT_TO_REF"], env.get("PRE_COMMIT_FROM_REF", ""), ref))
    elif env.get("PRE_COMMIT") and env.get("PRE_COMMIT_REMOTE_NAME"):
        # the framework gives a first push to an empty remote neither refs nor
        # stdin: judge what this branch has that the remote's branches lack
        remote = env["PRE_COMMIT_REMOTE_NAME"]
        targets.append(("HEAD", "", env.get("PRE_COMMIT_REMOTE_BRANCH") or "HEAD"))
    for line in lines:
        fields = line.split()
        if len(fields) == 4:
            targets.append((fields[1], fields[3], fields[2]))
    found: list[tuple[str, Judged]] = []
    for local, theirs, ref in targets:
        if local in ZERO or ref.startswith("refs/notes/"):
            continue
        exclude = [theirs] if theirs and theirs not in ZERO and _exists(repo, theirs) else []
        steps = pushed_commits(repo, local, exclude, remote)
        found += [(ref, j) for j in changes.judge(repo, steps)]
    for ref, judged in found:
        report([judged], out, ref)
    _done([j for _, j in found], "push refused")
    # notes and their sync: only a push needs them
    from git_gasp.sessions import pushnotes as notehooks

    notehooks.pre_push(repo, remote, [ref for local, _, ref in targets if local not in ZERO], out)


# -- the server: pre-receive and post-receive ---------------------------------------


def read_updates(lines: Iterable[str]) -> list[Update]:
    updates = []
    for n, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise GaspError(f"pre-receive input line {n} is not '<old> <new> <ref>': {line!r}")
        updates.append(Update(*fields))
    return updates


def push_options(env: Mapping[str, str]) -> list[str]:
    try:
        count = int(env.get("GIT_PUSH_OPTION_COUNT", "0"))
    except ValueError:
        return []
    return [env.get(f"GIT_PUSH_OPTION_{i}", "") for i in range(count)]


def bypass_reason(repo: str, env: Mapping[str, str]) -> str | None:
    """The reason of an allowed ``-o gasp.bypass=<reason>``, else None."""
    reasons = [o.split("=", 1)[1] for o in push_options(env) if o.startswith("gasp.bypass=")]
    if not reasons or not reasons[0].strip():
        return None
    if git.config_value(repo, "gasp.allowBypass", "bool") != "true":
        return None
    return reasons[0].strip()


def pusher(env: Mapping[str, str]) -> str:
    for key in ("GL_USERNAME", "GITHUB_USER_LOGIN", "GITEA_PUSHER_NAME", "REMOTE_USER", "USER"):
        if env.get(key):
            return env[key]
    return "unknown"


def pre_receive(repo: str, lines: Iterable[str], env: Mapping[str, str], out: TextIO) -> None:
    """Judge a push on the server (see module docstring).

    Every new commit of every pushed ref is judged, whatever the ref: a
    commit parked under a ref no one looks at would otherwise be "known"
    when a branch later moves onto it. Replace refs are refused, and git
    reads no replacements while judging (``GIT_NO_REPLACE_OBJECTS``).
    """
    os.environ["GIT_NO_REPLACE_OBJECTS"] = "1"
    updates = read_updates(lines)
    if not updates:  # git always names at least one ref: a cut-off input fails closed
        raise GaspError("pre-receive read no ref updates", "the hook's input was lost; push again")
    found: list[tuple[str, Judged]] = []
    judged_tips: dict[str, set[tuple[str, str]]] = {}  # tip -> (path, rule) its commits broke
    for update in updates:
        if update.ref.startswith("refs/replace/"):
            found.append(
                (update.ref, Judged(update.new if update.new not in ZERO else "", _REPLACE))
            )
            continue
        if update.new in ZERO:
            found += [(update.ref, j) for j in _deletion(repo, update)]
            continue
        if update.ref == NOTES_REF:
            found += [(update.ref, j) for j in _notes_findings(repo, update)]
            if update.old not in ZERO and not _is_ancestor(repo, update.old, update.new):
                found += [(update.ref, j) for j in _notes_rewrite(repo, update, "forced update")]
        if update.new not in judged_tips:
            steps = changes.commit_steps(repo, git.new_commits(repo, update.new))
            verdicts = changes.judge(repo, steps)
            judged_tips[update.new] = {(j.finding.path, j.finding.rule) for j in verdicts}
            found += [(update.ref, j) for j in verdicts]
        if update.old not in ZERO:
            # whatever path the commits took (merges, parked refs, a forced
            # push), the new tip keeps the old tip's append-only files and
            # changes who the agent is only with a recorded decision; what a
            # commit on the way was already refused for is not said twice
            said = judged_tips[update.new]
            tips = _tip_findings(repo, update)
            found += [(update.ref, j) for j in tips if (j.finding.path, j.finding.rule) not in said]
    if not found:
        return
    for ref, judged in found:
        report([judged], out, ref)
    requested = any(o.startswith("gasp.bypass=") for o in push_options(env))
    reason = bypass_reason(repo, env)
    if reason is not None and _audit(repo, env, reason, updates, "requested"):
        line = f"gasp: bypass by {pusher(env)} ({reason}): violations above not enforced"
        out.write(visible(line) + "\n")
        return
    if requested:
        if reason is not None:
            why = "its audit log cannot be written"
        elif git.config_value(repo, "gasp.allowBypass", "bool") != "true":
            why = "gasp.allowBypass is not set on this server"
        else:
            why = "its reason is empty (push with -o gasp.bypass=<why>)"
        out.write(f"gasp: bypass requested but refused: {why}\n")
    _done([j for _, j in found], "push rejected")


_REPLACE = Finding(
    "refs/replace/",
    None,
    "replace-ref",
    "replace refs change what existing commits mean to every reader",
    "push the rewritten commits themselves instead",
)


def _audit_path(repo: str) -> str:
    return os.path.join(git.repo_info(repo).common_dir, "gasp", AUDIT_LOG)


def _audit(
    repo: str, env: Mapping[str, str], reason: str, updates: Sequence[Update], status: str
) -> bool:
    """Append one JSON line to ``<git-dir>/gasp/audit.log``; False when it
    cannot be written (then the bypass is refused: it would go unrecorded)."""
    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "status": status,
        "pusher": pusher(env),
        "reason": reason,
        "refs": [u._asdict() for u in updates],
    }
    path = _audit_path(repo)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with writer.locked(path) as log:
            log.write((json.dumps(record, sort_keys=True) + "\n").encode("utf-8"))
    except OSError:
        return False
    return True


def _is_ancestor(repo: str, old: str, new: str) -> bool:
    """A fast-forward: its new commits were each judged against their parents."""
    try:
        git.run(repo, ["merge-base", "--is-ancestor", old, new])
        return True
    except git.GitError:
        return False


def _notes_rewrite(repo: str, update: Update, what: str) -> list[Judged]:
    """A deletion or forced update of the session notes ref would drop every
    clone's notes on the server (unless the server allows it)."""
    if git.config_value(repo, "gasp.allowNotesRewrite", "bool") == "true":
        return []
    finding = Finding(
        NOTES_REF,
        None,
        "notes",
        f"{what} of {NOTES_REF} would drop the session notes other clones pushed",
        "merge instead: git gasp notes sync; or let the server allow it: "
        "git config gasp.allowNotesRewrite true",
    )
    return [Judged(update.new if update.new not in ZERO else update.old, finding)]


def _deletion(repo: str, update: Update) -> list[Judged]:
    if update.ref == NOTES_REF:
        return _notes_rewrite(repo, update, "deletion")
    if not update.ref.startswith("refs/heads/"):
        return []
    if git.config_value(repo, "gasp.allowDeletion", "bool") == "true":
        return []
    paths, locations = _append_only_paths(repo, update.old)
    logs = [p for p in paths if p in locations.logs]
    if not logs:
        return []
    finding = Finding(
        logs[0],
        None,
        "append-only",
        f"deleting {update.ref} would drop an agent's log",
        "keep the branch, or let the server allow it: git config gasp.allowDeletion true",
    )
    return [Judged(update.old, finding)]


def _append_only_paths(repo: str, rev: str) -> tuple[list[str], changes.Locations]:
    """Every append-only file of ``rev``'s tree (see :class:`changes.Locations`),
    and the locations they were found by."""
    out = git.run(repo, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", rev])
    names = [n for n in out.decode("utf-8", "surrogateescape").split("\0") if n]
    text = ""
    if "AGENT.md" in names:
        with git.BlobReader(repo) as reader:
            text = reader.read(f"{rev}:AGENT.md").decode("utf-8", "replace")
    locations = changes.Locations.from_manifest(text)
    return [n for n in names if locations.append_only(n)], locations


def _tip_findings(repo: str, update: Update) -> list[Judged]:
    """Between the old and the new tip of a ref: every append-only file of
    the old tip is kept byte for byte at the start of the new tip's, and an
    identity hash or Locations change comes with an appended decision."""
    from git_gasp.core.agentfiles import approves, check_locations
    from git_gasp.core.appendonly import blob_id
    from git_gasp.core.log import parse_log
    from git_gasp.core.manifest import declared_identity_hash

    fast = _is_ancestor(repo, update.old, update.new)
    verb = "update" if fast else "forced update"
    paths, locations = _append_only_paths(repo, update.old)
    specs = [f"{rev}:{p}" for p in [*paths, "AGENT.md"] for rev in (update.old, update.new)]
    info = git.object_info(repo, specs)
    hash_name = git.repo_info(repo).object_format
    out: list[Judged] = []
    kept: dict[str, tuple[bytes, bytes]] = {}
    with git.BlobReader(repo) as reader:
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
                # a merge on the way put the old tip's lines after its first
                # parent's: every one kept, in order (each merge was judged)
                kept[path] = (before, _lines_not_in(after, before))
                continue
            finding = edit_finding(path, before, after)
            message = f"{verb} of {update.ref}: {finding.message}"
            out.append(Judged(update.new, finding._replace(message=message, hint=_FORCE)))
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
    declared = [
        declared_identity_hash(m.decode("utf-8", "replace")).value for m in (before, after_manifest)
    ]
    if declared[0] != declared[1] and not any(approves(e) for e in appended):
        message = (
            f"the identity of {update.ref} changes without an Approved decision.created on the way"
        )
        finding = Finding("AGENT.md", None, "identity", message, IDENTITY_HINT)
        out.append(Judged(update.new, finding))
    for finding in check_locations(before, after_manifest, appended, log_path):
        out.append(Judged(update.new, finding._replace(message=f"{update.ref}: {finding.message}")))
    return out


_FORCE = "never rewrite a pushed agent log; push new commits on top instead"


def _keeps_lines(before: bytes, after: bytes) -> bool:
    """Every line of ``before`` is in ``after``, in order (bytes)."""
    tail = iter(split_lines(after))
    return all(any(line == other for other in tail) for line in split_lines(before))


def _lines_not_in(after: bytes, before: bytes) -> bytes:
    old = set(split_lines(before))
    return b"".join(line for line in split_lines(after) if line not in old)


def _notes_findings(repo: str, update: Update) -> list[Judged]:
    """The notes ref names a commit, and every commit it gains holds
    references and digests only: judged whatever other ref already brought
    a commit to the server (``new ^old``, not only what is new to it)."""
    if update.new in ZERO:
        return []
    (kind,) = git.object_info(repo, [update.new])
    if kind is None or kind.type != "commit":
        what = kind.type if kind is not None else "missing object"
        message = f"the ref must name a commit, not a {what}"
        return [Judged("", Finding(NOTES_REF, None, "notes", message, _NOT_A_NOTE))]
    since = [] if update.old in ZERO else [f"^{update.old}"]
    walk = git.commit_walk(repo, [update.new, *since, "--"])
    return note_findings(repo, changes.commit_steps(repo, walk))


def note_findings(repo: str, steps: Sequence[Step], messages: bool = True) -> list[Judged]:
    """What the server refuses in notes commits ``steps``: each note a step
    changes must be named by a commit (and not annotate another kind of
    object this repository has) and carry references and digests only; with
    ``messages``, each commit object must hold no content either
    (:func:`git_gasp.core.notes.check_notes_commit`). ``git gasp notes
    sync`` checks its push with this too."""
    from git_gasp.core.notes import check_note, is_note_path

    out: list[Judged] = []
    specs: list[str] = []
    for step in steps:
        for path in sorted(step.paths):
            if is_note_path(path):
                specs.append(f"{step.name}:{path}")
            else:  # never looked up: a stray's name may hold anything, a newline too
                out.append(Judged(step.name, stray_finding(path)))
    info = git.object_info(repo, specs)
    annotated: list[tuple[str, str]] = []  # (commit, annotated object) of each note
    unseen: dict[str, list[str]] = {}  # commit -> note paths with no blob there
    with git.BlobReader(repo) as reader:
        for spec, blob in zip(specs, info, strict=True):
            commit, _, path = spec.partition(":")
            if blob is None or blob.type != "blob":
                unseen.setdefault(commit, []).append(path)
                continue
            annotated.append((commit, path.replace("/", "")))
            for problem in check_note(reader.read(blob.oid)):
                message = f"note for {path.replace('/', '')[:12]}: {problem.message}"
                finding = Finding(NOTES_REF, problem.line, "notes", message, _NOTE_HINT)
                out.append(Judged(commit, finding))
        kinds = git.object_info(repo, [oid for _, oid in annotated])
        for (commit, oid), kind in zip(annotated, kinds, strict=True):
            if kind is not None and kind.type != "commit":
                message = f"note for {oid[:12]}: annotates a {kind.type}, not a commit"
                hint = f"remove it: git notes --ref agent-sessions remove {oid}"
                out.append(Judged(commit, Finding(NOTES_REF, None, "notes", message, hint)))
        if messages:
            out += _notes_commit_findings(repo, reader, [s for s in steps if s.name])
    for commit, paths in unseen.items():
        out += [Judged(commit, f) for f in _odd_entries(repo, commit, paths)]
    return out


def _odd_entries(repo: str, commit: str, paths: Sequence[str]) -> list[Finding]:
    """Note paths a commit holds as something other than a file (a gitlink,
    a tree, a link): git reads no note there, and a merge of them breaks
    every clone's sync. A path the commit removed is no finding."""
    if not commit:
        return []
    from git_gasp.core.notes import NOTE_FILE_MODES

    out = git.run(repo, ["ls-tree", "-z", commit, "--", *paths])
    found = []
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = item.partition("\t")
        mode = meta.split(" ", 1)[0]
        if path and mode not in NOTE_FILE_MODES:
            message = f"{path} is a {mode} entry, not a note file"
            found.append(Finding(NOTES_REF, None, "notes", message, _NOT_A_NOTE))
    return found


STRAY = " is not a note ("
_NOT_A_NOTE = "push only notes to refs/notes/agent-sessions (git gasp notes sync)"
_NOTE_HINT = "notes carry session references and sha256 digests only (git gasp notes add)"


def stray_finding(path: str) -> Finding:
    shown = repr(path)[1:-1] if any(c in path for c in "\n\r\t") else path
    message = f"{shown}{STRAY}notes are named by the commit they annotate)"
    hint = "drop what is not a note: git gasp notes sync --drop-strays"
    return Finding(NOTES_REF, None, "notes", message, hint)


def _notes_commit_findings(
    repo: str, reader: git.BlobReader, steps: Sequence[Step]
) -> list[Judged]:
    from git_gasp.core.notes import MAX_MESSAGE_BYTES, check_notes_commit

    out = []
    by_commit = {s.name: s for s in steps}
    unique = list(by_commit)
    for commit, info in zip(unique, git.object_info(repo, unique), strict=True):
        if info is not None and info.size > 8 * MAX_MESSAGE_BYTES:  # not even read
            problems = [f"its commit object is {info.size} bytes: notes carry references"]
        else:
            changed = frozenset(p.replace("/", "") for p in by_commit[commit].paths)
            problems = check_notes_commit(reader.read(commit), changed)
        for problem in problems:
            finding = Finding(
                NOTES_REF,
                None,
                "notes",
                f"notes commit {commit[:12]}: {problem}",
                "notes history carries no content; git gasp notes sync rewrites "
                "unpushed notes history into one commit",
            )
            out.append(Judged(commit, finding))
    return out


def post_receive(repo: str, lines: Iterable[str], env: Mapping[str, str]) -> None:
    """Record that a bypassed push was accepted (pre-receive recorded the
    request before accepting it, so a bypass is never unrecorded)."""
    reason = bypass_reason(repo, env)
    if reason is None:
        return
    if not _audit(repo, env, reason, read_updates(lines), "accepted"):
        raise GaspError(f"cannot append to {_audit_path(repo)}", "check the server's permissions")


def stdin_lines() -> list[str]:
    return sys.stdin.read().splitlines()
