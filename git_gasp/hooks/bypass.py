"""The audited bypass on the server: who may use it, and its record.

* Who pushed is what the server knows, never what the client claims: the
  first of :data:`PUSHER_VARIABLES` that is set. ``USER`` and ``LOGNAME``
  never count (over a local path or ``file://`` they are the pusher's own,
  and so is every variable: such a pusher can write the repository directly).
* ``gasp.bypassAllowed`` (multi-valued) lists who may bypass; no list, no
  bypass. ``gasp.allowBypass false`` turns it off whatever the list says;
  ``gasp.allowBypass true`` alone no longer lets anyone bypass.
* pre-receive appends the request to ``<git-dir>/gasp/audit.log`` and leaves
  the record in ``<git-dir>/gasp/bypass-pending/`` (objects and refs cannot
  be written inside the quarantine); if either cannot be written the bypass
  is refused. post-receive, once the refs moved, writes the record as a note
  under :data:`~git_gasp.core.bypassrecord.BYPASS_REF` on each pushed tip,
  where clones see it, and appends ``accepted`` to the audit log. A failure
  there cannot fail the push (git has updated the refs): it is reported.
"""

import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, TextIO

from git_gasp import git
from git_gasp.core.bypassrecord import BYPASS_REF, Bypass, RefMove, build, parse
from git_gasp.core.finding import Judged
from git_gasp.hooks.protocol import Update, read_updates
from git_gasp.output import visible

AUDIT_LOG = "audit.log"
PENDING = "bypass-pending"
#: the variables a forge or the server's own login sets for the pusher, in
#: the order they are read, with who sets them (git-gasp-hooks(1))
PUSHER_VARIABLES = (
    ("GL_USERNAME", "GitLab"),
    ("GITEA_PUSHER_NAME", "Gitea and Forgejo"),
    ("GITHUB_USER_LOGIN", "GitHub Enterprise Server"),
    ("SOFT_SERVE_USERNAME", "Soft Serve"),
    ("GL_USER", "Gitolite"),
    ("REMOTE_USER", "git http-backend behind the web server's authentication"),
    ("GASP_PUSHER", "an SSH forced command (authorized_keys command=...) or a wrapper"),
)
_STALE_SECONDS = 86400
_NOTE_RETRIES = 5


def push_options(env: Mapping[str, str]) -> list[str]:
    try:
        count = int(env.get("GIT_PUSH_OPTION_COUNT", "0"))
    except ValueError:
        return []
    return [env.get(f"GIT_PUSH_OPTION_{i}", "") for i in range(count)]


def server_pusher(env: Mapping[str, str]) -> tuple[str, str] | None:
    """(name, variable) of the pusher as the server knows them, or None."""
    for key, _ in PUSHER_VARIABLES:
        value = env.get(key, "").strip()
        if value:
            return value, key
    return None


class Request(NamedTuple):
    """A push's ``-o gasp.bypass=<reason>`` and the server's answer."""

    reason: str
    pusher: tuple[str, str] | None
    refused: str  # why it is not honoured; "" when it is

    def who(self) -> str:
        return f"{self.pusher[0]} ({self.pusher[1]})" if self.pusher else "unknown"


def request(repo: str, env: Mapping[str, str]) -> Request | None:
    """The push's bypass request, judged; None when it asks for none."""
    reasons = [o.split("=", 1)[1] for o in push_options(env) if o.startswith("gasp.bypass=")]
    if not reasons:
        return None
    reason, who = reasons[0].strip(), server_pusher(env)
    switch = git.config_value(repo, "gasp.allowBypass", "bool")
    allowed = {v.strip() for v in git.config_values(repo, "gasp.bypassAllowed") if v.strip()}
    names = ", ".join(k for k, _ in PUSHER_VARIABLES)
    if switch == "false":
        why = "gasp.allowBypass is false on this server (it turns the bypass off)"
    elif not reason:
        why = "its reason is empty (push with -o gasp.bypass=<why>)"
    elif not allowed and switch == "true":
        why = (
            "gasp.allowBypass alone no longer lets anyone bypass: the server lists "
            "who may in gasp.bypassAllowed (git config --add gasp.bypassAllowed <name>)"
        )
    elif not allowed:
        why = (
            "no one may bypass here: gasp.bypassAllowed lists who may "
            "(gasp.allowBypass is not set, and alone it no longer lets anyone)"
        )
    elif who is None:
        why = f"the server knows no pusher (none of {names} is set; USER never counts)"
    elif who[0] not in allowed:
        why = f"pusher {who[0]} ({who[1]}) is not in gasp.bypassAllowed"
    else:
        why = ""
    return Request(reason, who, why)


def _gasp_dir(repo: str) -> str:
    return os.path.join(git.repo_info(repo).common_dir, "gasp")


def audit_path(repo: str) -> str:
    return os.path.join(_gasp_dir(repo), AUDIT_LOG)


def _pending_path(repo: str, update: Update) -> str:
    key = hashlib.sha256(f"{update.old} {update.new} {update.ref}".encode()).hexdigest()
    return os.path.join(_gasp_dir(repo), PENDING, key + ".json")


def _audit(repo: str, record: Bypass, status: str) -> None:
    """One JSON line in the server's audit log (OSError when it cannot be written)."""
    from git_gasp.store import writer  # only a bypass writes: a push never loads it

    entry = json.loads(record.line())
    entry["status"] = status
    path = audit_path(repo)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with writer.locked(path) as log:
        log.write((json.dumps(entry, sort_keys=True) + "\n").encode("utf-8"))


def honour(
    repo: str, asked: Request, updates: Sequence[Update], errors: Sequence[Judged], out: TextIO
) -> bool:
    """pre-receive: record an allowed bypass of ``errors`` before accepting
    it (False, and a message, when it cannot be recorded)."""
    assert asked.pusher is not None
    name, via = asked.pusher
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    moves = [RefMove(u.ref, u.old, u.new) for u in updates]
    steps, rules = [j.step for j in errors], [j.finding.rule for j in errors]
    record = build(stamp, name, via, asked.reason, moves, steps, rules)
    from git_gasp.store import writer  # only a bypass writes: a push never loads it

    try:
        _audit(repo, record, "requested")
        _clear_stale(os.path.join(_gasp_dir(repo), PENDING))
        for update in updates:
            path = _pending_path(repo, update)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            writer.write_atomically(path, record.line().encode("utf-8"))
    except OSError:
        out.write("gasp: bypass requested but refused: its record cannot be written\n")
        return False
    line = f"gasp: bypass by {asked.who()} ({asked.reason}): violations above not enforced"
    out.write(visible(line) + "\n")
    return True


def _clear_stale(directory: str) -> None:
    """Records of pushes that failed after pre-receive (another hook refused,
    a ref moved meanwhile) are dropped after a day."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        try:
            if time.time() - entry.stat().st_mtime > _STALE_SECONDS:
                os.unlink(entry.path)
        except OSError:
            pass


def post_receive(repo: str, lines: Iterable[str], out: TextIO) -> None:
    """Write each accepted bypass where clones see it (see module docstring)."""
    found: dict[str, tuple[Bypass, list[Update], list[str]]] = {}
    for update in read_updates(lines):
        path = _pending_path(repo, update)
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            continue
        for record in parse(text)[:1]:
            _, moved, paths = found.setdefault(record.line(), (record, [], []))
            moved.append(update)
            paths.append(path)
    if not found:
        return
    notes: dict[str, str] = {}
    for record, moved, _ in found.values():
        try:
            _audit(repo, record, "accepted")
        except OSError as exc:
            out.write(f"gasp: warning: cannot append to {audit_path(repo)}: {exc.strerror}\n")
        for obj in {RefMove(u.ref, u.old, u.new).annotated() for u in moved}:
            notes[obj] = notes.get(obj, "") + record.line()
    problem = _write_notes(repo, notes, next(iter(found.values()))[0])
    if problem:
        out.write(
            f"gasp: warning: the bypass could not be recorded under {BYPASS_REF} ({problem}); "
            f"{audit_path(repo)} holds it\n"
        )
    for _, _, paths in found.values():
        for path in paths:
            try:
                os.unlink(path)
            except OSError:
                pass


def _write_notes(repo: str, notes: Mapping[str, str], record: Bypass) -> str | None:
    """Append ``notes`` (object -> record lines) to the notes ref by a
    compare-and-swap, retried when another push moved it; the problem, or None."""
    os.environ.update(
        {
            "GIT_AUTHOR_NAME": record.pusher,
            "GIT_AUTHOR_EMAIL": f"{record.via.lower()}@git-gasp",
            "GIT_COMMITTER_NAME": "git-gasp post-receive",
            "GIT_COMMITTER_EMAIL": "post-receive@git-gasp",
        }
    )
    message = f"gasp: bypass by {record.pusher} ({record.via}): {record.reason}"
    problem = "the notes ref kept moving"
    for _ in range(_NOTE_RETRIES):
        try:
            old = git.resolve(repo, BYPASS_REF)
            merged = {}
            for obj, text in notes.items():
                blob = git.note_blob(repo, BYPASS_REF, obj) if old else None
                before = git.run(repo, ["cat-file", "blob", blob]) if blob else b""
                merged[obj] = before + text.encode("utf-8")
            git.write_notes(repo, BYPASS_REF, merged, message, old)
            return None
        except git.GitError as exc:
            problem = exc.reason()
    return problem
