"""Notes commits judged as the server judges them: every note a commit
changes is named by a commit and carries references and digests only, and
the commit object holds no content. The server's pre-receive and ``git gasp
notes sync`` (before it pushes) both judge with :func:`note_findings`.

:func:`commit_steps` turns commits into the steps judged (one ``diff-tree
--stdin`` for them all); every hook that judges commits builds its steps
with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from git_gasp import git
from git_gasp.core.finding import Finding, Judged, Step
from git_gasp.core.notes import NOTES_REF


def commit_steps(repo: str, commits: Sequence[tuple[str, tuple[str, ...]]]) -> list[Step]:
    """One step per commit, with the paths it changes (from one diff-tree)."""
    changed = git.changed_paths(repo, commits)
    return [Step(c, parents, frozenset(changed.get(c, ()))) for c, parents in commits]


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
            found.append(Finding(NOTES_REF, None, "notes", message, NOT_A_NOTE))
    return found


STRAY = " is not a note ("
NOT_A_NOTE = "push only notes to refs/notes/agent-sessions (git gasp notes sync)"
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
