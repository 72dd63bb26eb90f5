"""The notes ``git gasp notes sync`` pushes, checked first as the server
checks notes commits (:mod:`git_gasp.sessions.notecommits`): notes it would
refuse are refused here, each named with the command that undoes the local
change; a history since the remote's tip that holds refused notes (since
removed) is squashed into one commit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from git_gasp import git
from git_gasp.core.finding import Judged, Step
from git_gasp.core.notes import is_note_path
from git_gasp.errors import FINDINGS, GaspError
from git_gasp.sessions.notecommits import commit_steps, note_findings
from git_gasp.sessions.notes import NOTES_REF, require_identity


def pushable(repo: str, tip: str, fetched: str | None, say: Callable[[str], None]) -> str:
    """The notes tip to push, checked as the server checks notes commits.

    Notes the server would refuse are refused here, each named with the
    command that undoes the local change to it. When only the history since
    the remote's tip holds such notes (one since removed: the server judges
    every commit), that history is replaced by one commit of the current
    notes on top of the remote's, and the local ref moved to it; the commits
    it replaces are not on this remote (nor on any other this clone tracks).
    """
    base = (fetched,) if fetched else ()
    if fetched:
        (step,) = commit_steps(repo, [(tip, base)])
    else:  # the remote has no notes: every note of the tip is new to it
        paths = frozenset(name for name, _ in git.tree_files(repo, tip, []))
        step = Step(tip, (), paths)
    now = note_findings(repo, [step], messages=False)  # messages: squashed below
    if now:
        raise _refused_notes(repo, now, step.paths, fetched)
    walk = git.commit_walk(repo, [tip, *(f"^{c}" for c in base), *_other_remotes(repo)])
    if not note_findings(repo, commit_steps(repo, walk)):
        return tip
    require_identity(repo)
    message = "gasp: session notes, squashed (their history held what the server refuses)"
    args = ["commit-tree", f"{tip}^{{tree}}", *(x for c in base for x in ("-p", c)), "-m", message]
    squashed = git.run(repo, args).decode().strip()
    git.run(repo, ["update-ref", "-m", message, NOTES_REF, squashed, tip])
    say(f"notes history since {fetched[:12] if fetched else 'the start'} squashed into one commit")
    return squashed


def _other_remotes(repo: str) -> list[str]:
    """``--not`` and the notes tips of every remote this clone tracks: their
    history is never squashed."""
    got = git.attempt(repo, ["for-each-ref", "--format=%(objectname)", "refs/notes/remotes/"])
    tips = got.out.decode().split() if got.code == 0 else []
    return ["--not", *tips] if tips else []


_NOTE_FOR = re.compile(r"note for ([0-9a-f]+):")


def _refused_notes(
    repo: str, found: Sequence[Judged], paths: frozenset[str], fetched: str | None
) -> GaspError:
    """The refusal of notes the remote would refuse: how many, the first
    problem, and how to undo the local change to that note (the remote's own
    version restored, or the note removed when the remote has none)."""
    finding = found[0].finding
    strays = sorted(p for p in paths if not is_note_path(p))
    if strays:
        return _refused_strays(strays)
    named = _NOTE_FOR.match(finding.message)
    notes = {m.group(1) for j in found if (m := _NOTE_FOR.match(j.finding.message))}
    n = max(len(notes), 1)
    what = f"{n} note{'s' * (n != 1)} the remote would refuse: {finding.message}"
    names = sorted(p.replace("/", "") for p in paths)
    full = next((x for x in names if named and x.startswith(named.group(1))), None)
    if full is None:
        return GaspError(what, finding.hint, FINDINGS)
    theirs = None
    if fetched:  # the remote's note of that commit, whatever its tree's fan-out
        fanouts = [full, f"{full[:2]}/{full[2:]}", f"{full[:2]}/{full[2:4]}/{full[4:]}"]
        found_there = git.object_info(repo, [f"{fetched}:{p}" for p in fanouts])
        theirs = next((info for info in found_there if info is not None), None)
    undo = (
        f"git notes --ref agent-sessions add -f -C {theirs.oid} {full}"
        " (the remote's version back; your additions to it are dropped)"
        if theirs is not None
        else f"git notes --ref agent-sessions remove {full}"
    )
    return GaspError(what, f"undo your change to it: {undo}; then sync again", FINDINGS)


def _refused_strays(paths: Sequence[str]) -> GaspError:
    """The refusal of files in the notes tree that are not notes, all named
    (escaped), with the command that drops them."""
    shown = [repr(p)[1:-1] if not p.isprintable() else p for p in paths]
    listed = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    n = len(paths)
    verb = "are not notes" if n != 1 else "is not a note"
    return GaspError(
        f"{n} file{'s' * (n != 1)} in the notes tree {verb}"
        f" (notes are named by the commit they annotate): {listed}",
        "drop them from the local notes and sync: git gasp notes sync --drop-strays",
        FINDINGS,
    )
