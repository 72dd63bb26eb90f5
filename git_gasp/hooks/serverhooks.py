"""The server's hooks.

* ``pre-receive``: every new commit of every pushed ref, forced updates and
  branch deletions, and updates of ``refs/notes/agent-sessions``.
* ``post-receive``: records an audited bypass (:mod:`git_gasp.hooks.bypass`).

The server hook fails closed: an internal error rejects the push with a
message.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TextIO

from git_gasp import git
from git_gasp.core.bypassrecord import BYPASS_REF
from git_gasp.core.finding import Finding, Judged
from git_gasp.core.notes import NOTES_REF
from git_gasp.errors import GaspError
from git_gasp.hooks import bypass, changes, levels
from git_gasp.hooks.keptrefs import held_elsewhere
from git_gasp.hooks.protocol import ZERO, Update, done, read_updates
from git_gasp.hooks.tips import append_only_paths, is_ancestor, tip_findings
from git_gasp.output import visible
from git_gasp.sessions.notecommits import NOT_A_NOTE, commit_steps, note_findings


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
    first, said_by_tip = _judge_new_commits(repo, updates)
    for update in updates:
        if update.ref.startswith("refs/replace/"):
            found.append(
                (update.ref, Judged(update.new if update.new not in ZERO else "", _REPLACE))
            )
            continue
        if update.ref == BYPASS_REF:
            found.append((update.ref, Judged("", _BYPASS_RECORD)))
            continue
        if update.new in ZERO:
            found += [(update.ref, j) for j in _deletion(repo, update, updates)]
            continue
        if update.ref == NOTES_REF:
            found += [(update.ref, j) for j in _notes_findings(repo, update)]
            if update.old not in ZERO and not is_ancestor(repo, update.old, update.new):
                found += [(update.ref, j) for j in _notes_rewrite(repo, update, "forced update")]
        found += [(update.ref, j) for j in first.pop(update.new, [])]
        if update.old not in ZERO:
            # whatever path the commits took (merges, parked refs, a forced
            # push), the new tip keeps the old tip's append-only files and
            # changes who the agent is only with a recorded decision; what a
            # commit on the way was already refused for is not said twice
            said = said_by_tip[update.new]
            tips = _forced(repo, update, updates, tip_findings(repo, update))
            found += [(update.ref, j) for j in tips if (j.finding.path, j.finding.rule) not in said]
    errors = levels.push_errors(repo, found, bypass.push_options(env), out)
    if not errors:
        return
    asked = bypass.request(repo, env)
    if asked is not None and not asked.refused:
        if bypass.honour(repo, asked, updates, [j for _, j in errors], out):
            return
    elif asked is not None:
        out.write(visible(f"gasp: bypass requested but refused: {asked.refused}") + "\n")
    _innocent(repo, updates, errors, out)
    done([j for _, j in errors], "push rejected", "git gasp validate --all REMOTE/BRANCH..HEAD")


def _innocent(
    repo: str, updates: Sequence[Update], errors: Sequence[tuple[str | None, Judged]], out: TextIO
) -> None:
    """git refuses every ref of a push the hook refuses: say which refs
    caused it, and that the others were refused only because of them (a ref
    whose tip holds a refused commit reported under another ref is a cause)."""
    steps = {j.step for _, j in errors if j.step}
    guilty = {ref for ref, _ in errors}
    for u in updates:
        if u.ref not in guilty and u.new not in ZERO:
            if u.new in steps or any(is_ancestor(repo, s, u.new) for s in sorted(steps)[:32]):
                guilty.add(u.ref)
    others = [u.ref for u in updates if u.ref not in guilty]
    if not others:
        return
    bad = [u.ref for u in updates if u.ref in guilty]
    n, it = len(others), "it" if len(others) == 1 else "them"
    line = (
        f"gasp: the push's {n} other ref{'s' * (n != 1)} refused only because of "
        f"{', '.join(bad)} (git takes all of a push or none of it): push "
        f"{it} without {', '.join(bad)} to land {it}"
    )
    out.write(visible(line) + "\n")


Said = set[tuple[str, str]]  # (path, rule) of what a tip's new commits broke


def _judge_new_commits(
    repo: str, updates: Sequence[Update]
) -> tuple[dict[str, list[Judged]], dict[str, Said]]:
    """Every pushed tip's new commits judged at once: one walk (``rev-list TIPS
    --not --all``), one diff-tree and one judge for the whole push, so the hook's
    cost follows the new commits, not the refs. Returns, per tip, the verdicts
    first reported under it (a commit two tips reach is reported once, under
    the first) and what all the new commits it reaches broke."""
    tips = list(
        dict.fromkeys(
            u.new for u in updates if u.new not in ZERO and not u.ref.startswith("refs/replace/")
        )
    )
    if not tips:
        return {}, {}
    walk = git.commit_walk(repo, [*tips, "--not", "--all"])
    verdicts = changes.judge(repo, commit_steps(repo, walk))
    parents = dict(walk)
    first: dict[str, list[Judged]] = {}
    said: dict[str, Said] = {}
    reported: set[int] = set()
    for tip in tips:
        reached = _reached(tip, parents)
        mine = [j for j in verdicts if j.step in reached or j.step not in parents]
        said[tip] = {(j.finding.path, j.finding.rule) for j in mine}
        first[tip] = [j for j in mine if id(j) not in reported]
        reported.update(id(j) for j in mine)
    return first, said


def _reached(tip: str, parents: Mapping[str, tuple[str, ...]]) -> set[str]:
    """The new commits ``tip`` reaches (``parents`` holds only new commits)."""
    seen: set[str] = set()
    todo = [tip]
    while todo:
        commit = todo.pop()
        if commit in seen or commit not in parents:
            continue
        seen.add(commit)
        todo.extend(parents[commit])
    return seen


_REPLACE = Finding(
    "refs/replace/",
    None,
    "replace-ref",
    "replace refs change what existing commits mean to every reader",
    "push the rewritten commits themselves instead",
)


_BYPASS_RECORD = Finding(
    BYPASS_REF,
    None,
    "notes",
    "only the server writes the record of audited bypasses (its post-receive)",
    f"do not push {BYPASS_REF}; fetch it: git fetch origin {BYPASS_REF}:{BYPASS_REF}",
)


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


def _deletion(repo: str, update: Update, updates: Sequence[Update]) -> list[Judged]:
    """A deleted ref, in any namespace, drops an agent's log only when no
    ref the push keeps still holds its tip (:mod:`git_gasp.hooks.keptrefs`)."""
    if update.ref == NOTES_REF:
        return _notes_rewrite(repo, update, "deletion")
    if update.ref.startswith("refs/replace/") or held_elsewhere(repo, update.old, updates):
        return []
    if git.config_value(repo, "gasp.allowDeletion", "bool") == "true":
        return []
    try:
        paths, locations = append_only_paths(repo, update.old)
    except git.GitError:  # not a commit (a tag of a blob or tree): no log
        return []
    logs = [p for p in paths if p in locations.logs]
    if not logs:
        return []
    finding = Finding(
        logs[0],
        None,
        "append-only",
        f"deleting {update.ref} would drop an agent's log no other ref holds",
        "keep the ref, or push its commits to a ref that stays first; "
        "or let the server allow it: git config gasp.allowDeletion true",
    )
    return [Judged(update.old, finding)]


def _forced(
    repo: str, update: Update, updates: Sequence[Update], tips: list[Judged]
) -> list[Judged]:
    """A forced update drops the old tip's lines only when no ref the push
    keeps holds the old tip: then its append-only findings stand."""
    if not tips or is_ancestor(repo, update.old, update.new):
        return tips
    if not held_elsewhere(repo, update.old, updates):
        return tips
    return [j for j in tips if j.finding.rule != "append-only"]


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
        return [Judged("", Finding(NOTES_REF, None, "notes", message, NOT_A_NOTE))]
    since = [] if update.old in ZERO else [f"^{update.old}"]
    walk = git.commit_walk(repo, [update.new, *since, "--"])
    return note_findings(repo, commit_steps(repo, walk))


def post_receive(repo: str, lines: Iterable[str], env: Mapping[str, str], out: TextIO) -> None:
    """Record each accepted bypass where clones see it (:mod:`git_gasp.hooks.bypass`)."""
    bypass.post_receive(repo, lines, out)
