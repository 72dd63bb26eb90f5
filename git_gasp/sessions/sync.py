"""Session notes and remotes: ``git gasp notes setup`` and ``notes sync``.

``setup`` makes git carry the notes across amend and rebase (``notes.rewriteRef``
with ``cat_sort_uniq``), merge them with ``cat_sort_uniq``, and fetch a remote's
notes into ``refs/notes/remotes/<remote>/agent-sessions``. ``sync`` fetches,
merges and pushes without force, retrying when another clone pushed first;
what it pushes is checked first (:mod:`git_gasp.sessions.outgoing`).
"""

import contextlib
import os
import random
import time
from collections.abc import Callable
from typing import Literal, NamedTuple

from git_gasp import git
from git_gasp.core.notes import NOTE_FILE_MODES, is_note_path
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.sessions.notes import NOTES_REF, require_identity, tracking_ref
from git_gasp.sessions.outgoing import pushable


def fetch_refspec(remote: str) -> str:
    return f"+{NOTES_REF}:{tracking_ref(remote)}"


def _check_remote(repo: str, remote: str) -> None:
    if git.config_value(repo, f"remote.{remote}.url") is None:
        raise GaspError(
            f"{remote}: no such remote",
            "name a configured remote (git remote -v), or add one: git remote add NAME URL",
        )
    got = git.attempt(repo, ["check-ref-format", tracking_ref(remote)])
    if got.code != 0:
        raise GaspError(f"{remote}: the remote's name cannot be part of a ref name")


class Setting(NamedTuple):
    key: str
    value: str
    action: str  # "added", "set", "kept", or "replaced <old value>"


def setup(repo: str, remote: str | None = None) -> list[Setting]:
    """Configure the repository so notes survive rewrites and merge cleanly,
    and fetch the remote's notes into a tracking ref (``remote`` None:
    ``origin``, skipped when there is no such remote)."""
    git.repo_info(repo)
    if remote is not None:
        _check_remote(repo, remote)
    elif git.config_value(repo, "remote.origin.url") is not None:
        remote = "origin"
    done: list[Setting] = []

    def add(key: str, value: str) -> None:
        if value in git.config_values(repo, key):
            done.append(Setting(key, value, "kept"))
        else:
            git.run(repo, ["config", "--add", key, value])
            done.append(Setting(key, value, "added"))

    def put(key: str, value: str) -> None:
        old = git.config_values(repo, key)
        if old == [value]:
            done.append(Setting(key, value, "kept"))
            return
        git.run(repo, ["config", "--replace-all", key, value])
        done.append(Setting(key, value, f"replaced {', '.join(old)}" if old else "set"))

    def default(key: str, value: str) -> None:
        old = git.config_values(repo, key)
        if old:  # a setting of its own: not ours to change (it covers every rewriteRef)
            done.append(Setting(key, old[-1], "kept"))
        else:
            put(key, value)

    add("notes.rewriteRef", NOTES_REF)
    # repository-wide: a value set for other notes refs stays (the post-rewrite
    # hook repairs what concatenate leaves, and copies what ignore drops)
    default("notes.rewriteMode", "cat_sort_uniq")
    put("notes.agent-sessions.mergeStrategy", "cat_sort_uniq")
    if remote is not None:
        add(f"remote.{remote}.fetch", fetch_refspec(remote))
    return done


Outcome = Literal["ok", "retry", "declined", "failed"]
# a server's refusals that another try cannot change
_REFUSED = ("hook declined", "hidden ref", "prohibited", "not allowed", "denied", "unpacker error")
_RETRY = (
    "[rejected]",
    "[remote rejected]",
    "fetch first",
    "non-fast-forward",
    "cannot lock ref",
    "failed to update ref",
    "stale info",
)


def push_outcome(code: int, text: str) -> Outcome:
    """What a ``git push`` of the notes ref came to: ``ok``; ``retry`` when
    someone else moved the ref first (``[rejected]``, ``[remote rejected]``,
    ``fetch first``, non-fast-forward, a lost ref lock); ``declined`` when the
    server refused it (a hook, a hidden or denied ref: retrying cannot help);
    ``failed`` otherwise."""
    if code == 0:
        return "ok"
    if any(marker in text for marker in _REFUSED):
        return "declined"
    if any(marker in text for marker in _RETRY):
        return "retry"
    return "failed"


class Synced(NamedTuple):
    remote: str
    fetched: str | None  # the remote's notes tip, None when it has none
    merge: str  # "none", "created", "up-to-date", "fast-forward" or "merged"
    pushed: bool
    attempts: int  # pushes tried
    tip: str | None  # the local notes tip afterwards


def _urls(repo: str, remote: str, *flags: str) -> list[str]:
    got = git.attempt(repo, ["remote", "get-url", *flags, remote])
    return got.out.decode("utf-8", "surrogateescape").splitlines() if got.code == 0 else []


def _fetch_source(repo: str, remote: str) -> str:
    """Where the notes are fetched from: ``remote``, or the one URL it pushes
    to when that is another (``pushurl``, ``pushInsteadOf``): the merge has
    to be with what the push will meet."""
    pushes = _urls(repo, remote, "--push", "--all")
    if len(pushes) == 1 and pushes != _urls(repo, remote):
        return pushes[0]
    return remote


def _fetch(repo: str, remote: str) -> str | None:
    tracking = tracking_ref(remote)
    args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules"]
    got = git.attempt(repo, [*args, _fetch_source(repo, remote), fetch_refspec(remote)])
    if got.code != 0:
        err = got.err.decode("utf-8", "replace").strip()
        if "couldn't find remote ref" in err:
            git.attempt(repo, ["update-ref", "-d", tracking])
            return None
        raise GaspError(
            f"cannot fetch notes from {remote}: {git.GitError(err).reason()}",
            f"check the remote: git ls-remote {remote}",
        )
    (tip,) = git.object_info(repo, [tracking])
    if tip is not None and tip.type != "commit":  # never merged, never pushed on
        raise GaspError(
            f"{remote}'s {NOTES_REF} is a {tip.type}, not a commit",
            "its administrator can set it back to the last notes commit "
            "(git update-ref on the server); nothing was merged",
        )
    return tip.oid if tip is not None else None


def _merging(repo: str) -> bool:
    """A ``git notes merge`` of the session notes is waiting to be finished."""
    (partial,) = git.object_info(repo, ["NOTES_MERGE_PARTIAL"])
    if partial is None:
        return False
    got = git.attempt(repo, ["symbolic-ref", "-q", "NOTES_MERGE_REF"])
    return got.code != 0 or got.out.decode().strip() == NOTES_REF


def _merge(repo: str, remote: str, fetched: str | None) -> str:
    local = git.resolve(repo, NOTES_REF)
    if fetched is None:
        return "none"
    if local is None:
        git.run(repo, ["update-ref", "-m", "gasp: notes from " + remote, NOTES_REF, fetched, ""])
        return "created"
    if local == fetched:
        return "up-to-date"
    args = ["notes", "--ref", NOTES_REF, "merge", "-q", "-s", "cat_sort_uniq", tracking_ref(remote)]
    require_identity(repo)  # a merge may make a notes commit
    try:
        git.run(repo, args)
    except git.GitError as exc:
        raise GaspError(
            f"cannot merge {remote}'s notes: {exc.reason()}",
            "finish or abort an earlier notes merge: git notes --ref agent-sessions merge --abort",
        ) from None
    after = git.resolve(repo, NOTES_REF)
    return "up-to-date" if after == local else "fast-forward" if after == fetched else "merged"


def sync(
    repo: str,
    remote: str = "origin",
    retries: int = 5,
    say: Callable[[str], None] = lambda _: None,
    wait: Callable[[float], None] = time.sleep,
    verify: bool = True,
) -> Synced:
    """Fetch the remote's notes, merge them (``cat_sort_uniq``) and push the
    union without force; when the push is rejected because the remote moved,
    fetch, merge and push again, up to ``retries`` more times. A pushed tip
    becomes the tracking ref's, so the next sync (or pre-push) knows the
    remote has it. ``verify`` False pushes with ``--no-verify`` (from inside
    a pre-push hook, which must not run itself again)."""
    git.repo_info(repo)  # outside a repository, say that first
    _check_remote(repo, remote)
    if _merging(repo):
        raise GaspError(
            f"a notes merge into {NOTES_REF} is in progress",
            "finish it first: git notes --ref agent-sessions merge --commit (or --abort)",
        )
    push = ["push", "--quiet", *([] if verify else ["--no-verify"])]
    push += [remote, f"{NOTES_REF}:{NOTES_REF}"]
    attempts = 0
    while True:
        fetched = _fetch(repo, remote)
        merge = _merge(repo, remote, fetched)
        tip = git.resolve(repo, NOTES_REF)
        if tip is None or tip == fetched:
            return Synced(remote, fetched, merge, False, attempts, tip)
        tip = pushable(repo, tip, fetched, say)
        attempts += 1
        got = git.attempt(repo, push)
        text = (got.out + got.err).decode("utf-8", "replace")
        outcome = push_outcome(got.code, text)
        if outcome == "ok":
            message = f"gasp: notes pushed to {remote}"
            git.attempt(repo, ["update-ref", "-m", message, tracking_ref(remote), tip])
            return Synced(remote, fetched, merge, True, attempts, tip)
        reason = _rejection(remote, outcome, text, (attempts, retries), say)
        say(f"notes push rejected ({reason}); fetching and merging again ({attempts}/{retries})")
        wait(min(2.0, 0.1 * 2 ** (attempts - 1)) * random.uniform(0.5, 1.5))


def _rejection(
    remote: str,
    outcome: Outcome,
    text: str,
    tries: tuple[int, int],
    say: Callable[[str], None],
) -> str:
    """Why a notes push that did not go through failed (``text``: git's
    output); raised as the error when another try cannot help: the server
    declined it, it failed, or ``tries`` (attempts so far, retries allowed)
    are used up."""
    reason = _reason(text)
    if outcome == "declined":
        for line in text.splitlines():
            if line.startswith("remote:"):
                say(line)
        raise GaspError(
            f"{remote} refused the notes push: {reason}",
            "see the remote's messages above; fix the notes it names, or stop the "
            "pre-push hook sending them: git config gasp.pushNotes false",
            FINDINGS,
        )
    if outcome == "failed":
        raise GaspError(f"cannot push notes to {remote}: {reason}", None, USAGE)
    attempts, retries = tries
    if attempts > retries:
        raise GaspError(
            f"the notes push to {remote} was rejected {attempts} times ({reason})",
            "someone else keeps pushing notes; run git gasp notes sync again, or raise --retries",
            FINDINGS,
        )
    return reason


def drop_strays(repo: str) -> list[str]:
    """Remove from the local notes ref every file that is not a note (one
    commit on top, through a temporary index; names go to git on stdin, so
    any name works); the names removed."""
    if _merging(repo):  # the merge would no longer find the ref it started from
        raise GaspError(
            f"a notes merge into {NOTES_REF} is in progress",
            "finish it first: git notes --ref agent-sessions merge --commit (or --abort)",
        )
    tip = git.resolve(repo, NOTES_REF)
    if tip is None:
        return []
    out = git.run(repo, ["ls-tree", "-r", "-z", tip])
    strays = []
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, name = item.partition("\t")
        if not name:
            continue
        if meta.split(" ", 1)[0] not in NOTE_FILE_MODES or not is_note_path(name):
            strays.append(name)  # a gitlink at a note's path is no note either
    if not strays:
        return []
    require_identity(repo)
    index = os.path.join(git.repo_info(repo).git_dir, "gasp-notes-strays.idx")
    env = {"GIT_INDEX_FILE": index}
    try:
        git.run(repo, ["read-tree", tip], env=env)
        payload = b"".join(n.encode("utf-8", "surrogateescape") + b"\0" for n in strays)
        git.run(repo, ["update-index", "-z", "--force-remove", "--stdin"], stdin=payload, env=env)
        tree = git.run(repo, ["write-tree"], env=env).decode().strip()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(index)
    n = len(strays)
    what = "files that are not notes" if n != 1 else "file that is not a note"
    message = f"gasp: drop {n} {what}"
    new = git.run(repo, ["commit-tree", tree, "-p", tip, "-m", message]).decode().strip()
    git.run(repo, ["update-ref", "-m", message, NOTES_REF, new, tip])
    return strays


def _reason(text: str) -> str:
    """The gist of a failed push: ``[rejected] (fetch first)``, else git's last word."""
    lines = [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()]
    for line in lines:  # git's own status line of the ref: "! [rejected] ... (why)"
        if line.startswith("!") and NOTES_REF in line and "[" in line and "]" in line:
            status = line[line.index("[") : line.index("]") + 1]
            why = line[line.rindex("(") :] if line.endswith(")") and "(" in line else ""
            return f"{status} {why}".strip()
    remote_lines = [ln for ln in lines if ln.startswith("remote:")]
    return (remote_lines or lines or ["git push failed"])[-1]
