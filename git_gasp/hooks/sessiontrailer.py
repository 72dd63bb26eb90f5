"""The ``prepare-commit-msg`` hook: link the commit to the agent session making it.

When the environment variable ``AGENT_SESSION`` is set (and not empty), or else
``git config gasp.session`` is, or else a live adapter recorded a session as
active in this work tree (:mod:`git_gasp.sessions.active`: a Claude Code or
Codex session with the live hooks installed), the hook adds one ``Agent-Session: <ref>``
trailer to the final trailer block of the message, as
``git interpret-trailers --if-exists addIfDifferent`` would: never a second copy
of a line already there (an amend keeps one), everything else byte for byte.

It does nothing, and exits 0, when:

* no session is set (then it costs one ``git config`` read, and no git process
  at all when ``AGENT_SESSION`` is set);
* the value is not an Agent-Session reference
  ``<agent>:[<namespace>:]<sessionId>[#<recordRef>]`` (a URL, white space, an
  empty id): it says so on stderr and the commit goes ahead without the link, so
  a bad variable never blocks an agent's commit (the commit-msg hook would
  refuse a malformed trailer, so none is written); likewise a value that
  looks like a credential (a token pasted into the variable);
* the message has no content yet (only comment and blank lines, git is about to
  open an editor) or comes from ``commit.template``: an empty or unedited
  message must still abort the commit, and a trailer would make it non-empty;
* git is replaying commits (a rebase, a cherry-pick): the replayed message keeps
  the links of the original, and the session did not author it.

:func:`session_message` is the pure step, shared with ``git gasp run close
--session``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from git_gasp.core.secrets import find_secrets
from git_gasp.core.trailers import SESSION_KEY, Trailer, add_trailers, is_session_ref

ENV_VAR = "AGENT_SESSION"
CONFIG_KEY = "gasp.session"
SESSION_GRAMMAR = "<agent>:[<namespace>:]<sessionId>[#<recordRef>]"
#: what in the git directory says a commit is being replayed, not made
REPLAYING = ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD")
_SCISSORS = "# ------------------------ >8 ------------------------"


def session_message(message: str, sessions: Sequence[str]) -> str:
    """``message`` with one ``Agent-Session`` trailer per session appended to its
    final trailer block (a block is started if there is none), skipping any
    already there or repeated (git's ``addIfDifferent``); otherwise unchanged.

    Raises ``ValueError`` for a value that is not an Agent-Session reference.
    """
    for ref in sessions:
        if not is_session_ref(ref):
            raise ValueError(f"{ref!r} is not an Agent-Session reference {SESSION_GRAMMAR}")
    return add_trailers(message, [Trailer(SESSION_KEY, ref) for ref in sessions])


def has_content(message: str) -> bool:
    """Whether the message has a line that is neither a ``#`` comment nor blank
    (before a scissors line): what git would keep of it. ``#`` is git's default
    ``core.commentChar``; another comment character reads as content."""
    for line in message.splitlines():
        if line.rstrip() == _SCISSORS:
            return False
        if line.strip() and not line.startswith("#"):
            return True
    return False


def configured_session(repo: str, env: Mapping[str, str]) -> tuple[str, str] | None:
    """``(value, where it came from)``: ``$AGENT_SESSION`` if set and not empty,
    else ``git config gasp.session``; None when neither is."""
    value = env.get(ENV_VAR, "").strip()
    if value:
        return value, f"${ENV_VAR}"
    from git_gasp import git

    configured = (git.config_value(repo, CONFIG_KEY) or "").strip()
    return (configured, f"git config {CONFIG_KEY}") if configured else None


def active_session(message_file: str, env: Mapping[str, str]) -> tuple[str, str] | None:
    """``(ref, where it came from)``: the live session active in the work tree
    whose git directory holds the message file (a live adapter recorded it)."""
    from git_gasp.sessions.active import session_for

    git_dir = os.path.dirname(os.path.abspath(message_file))
    ref = session_for(git_dir, env)
    return (ref, "the active live session") if ref is not None else None


def replaying(message_file: str) -> bool:
    """Whether git is replaying commits: the message file lives in the git
    directory (``COMMIT_EDITMSG``), which then holds a rebase or cherry-pick state."""
    git_dir = os.path.dirname(os.path.abspath(message_file))
    return any(os.path.exists(os.path.join(git_dir, name)) for name in REPLAYING)


def prepare_commit_msg(
    repo: str, message_file: str, args: Sequence[str], env: Mapping[str, str]
) -> None:
    """git's ``prepare-commit-msg FILE [SOURCE [SHA]]`` (the pre-commit framework
    passes FILE and ``PRE_COMMIT_COMMIT_MSG_SOURCE``); see the module docstring."""
    from git_gasp import output

    found = configured_session(repo, env) or active_session(message_file, env)
    if found is None:
        return
    ref, origin = found
    if not is_session_ref(ref):
        output.diag(
            f"gasp: {origin} {ref!r} is not an Agent-Session reference {SESSION_GRAMMAR}; "
            "no Agent-Session trailer added (a URL is never one)"
        )
        return
    secrets = find_secrets(ref)
    if secrets:
        output.diag(
            f"gasp: {origin} looks like it holds {secrets[0].label} ({secrets[0].preview}); "
            "no Agent-Session trailer added (a session reference never carries a credential)"
        )
        return
    source = args[0] if args else env.get("PRE_COMMIT_COMMIT_MSG_SOURCE", "")
    if source == "template" or replaying(message_file):
        return
    try:
        with open(message_file, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        from git_gasp.errors import USAGE, GaspError

        raise GaspError(f"cannot read {message_file}: {exc.strerror}", None, USAGE) from None
    text = data.decode("utf-8", "surrogateescape")
    if "\0" in text or not has_content(text):
        return
    new = session_message(text, [ref])
    if new != text:
        from git_gasp.store.writer import write_atomically

        write_atomically(message_file, new.encode("utf-8", "surrogateescape"))
