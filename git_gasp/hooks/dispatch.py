"""``git-gasp hooks run HOOK ARGS...`` with no click and no command modules.

Git runs a hook for every commit and push, so a hook's start-up is paid on
every git write. :func:`git_gasp.entry.main` routes the plain shape the shims
and the pre-commit framework use (``hooks run HOOK`` followed by git's own
arguments) straight here: the hook's module is the only one imported, under
the click-free error handler (:mod:`git_gasp.outcome`). Anything else, ``-C``,
``--help`` or a name that is no hook, goes through the command line, whose
``hooks run`` calls :func:`run_hook` too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from git_gasp.errors import FINDINGS, OK, USAGE, GaspError
from git_gasp.hooks.names import CLIENT_HOOKS, SERVER_HOOKS
from git_gasp.outcome import handled, tolerant_streams

HOOK_NAMES = (*CLIENT_HOOKS, *SERVER_HOOKS)
USAGE_HINT = "see `git gasp hooks run -h`"


def routes(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (the arguments after ``git-gasp``) is a hook run this
    module can take alone: no option of the command line among them."""
    return (
        len(argv) >= 3
        and argv[0] == "hooks"
        and argv[1] == "run"
        and argv[2] in HOOK_NAMES
        and not any(a.startswith("-") for a in argv[3:])
    )


def main(argv: Sequence[str]) -> int:
    """Run ``argv`` (``hooks run HOOK ARGS...``, :func:`routes` said yes)."""
    tolerant_streams()
    with handled() as result:
        run_hook(".", argv[2], argv[3:])
        result.code = OK
    return result.code


def _needs(hook: str, args: Sequence[str], what: str) -> None:
    if not args:
        raise GaspError(f"{hook} needs {what}", USAGE_HINT, USAGE)


def run_hook(root: str, hook: str, args: Sequence[str]) -> None:
    """Run one hook in ``root`` as git would; a rejection raises
    :class:`~git_gasp.hooks.protocol.Rejected` (exit 1)."""
    from git_gasp.hooks.protocol import stdin_lines

    err = sys.stderr
    if hook == "pre-commit":
        from git_gasp.hooks.commithooks import pre_commit

        pre_commit(root, err)
    elif hook == "prepare-commit-msg":
        _needs(hook, args, "the message file")
        from git_gasp.hooks import sessiontrailer

        sessiontrailer.prepare_commit_msg(root, args[0], args[1:], os.environ)
    elif hook == "post-commit":
        from git_gasp.sessions import pushnotes

        pushnotes.post_commit(root, err)
    elif hook == "post-rewrite":
        from git_gasp.sessions import pushnotes

        command = args[0] if args else os.environ.get("PRE_COMMIT_REWRITE_COMMAND", "")
        pushnotes.post_rewrite(root, command, stdin_lines(), err)
    elif hook == "commit-msg":
        _needs(hook, args, "the message file")
        from git_gasp.hooks.commitmsg import commit_msg

        commit_msg(root, args[0], err)
    elif hook == "pre-push":
        from git_gasp.hooks.pushhooks import pre_push

        lines = [] if os.environ.get("PRE_COMMIT_TO_REF") else stdin_lines()
        pre_push(root, args[0] if args else None, lines, os.environ, err)
    elif hook == "pre-receive":
        from git_gasp.hooks.serverhooks import pre_receive

        fail_closed(lambda: pre_receive(root, stdin_lines(), os.environ, err))
    elif hook == "post-receive":
        from git_gasp.hooks.serverhooks import post_receive

        post_receive(root, stdin_lines(), os.environ, err)
    else:
        raise GaspError(f"{hook} is not a hook git-gasp runs", USAGE_HINT, USAGE)


def fail_closed(action: Callable[[], None]) -> None:
    """An internal error in the server hook rejects the push, and says so."""
    from git_gasp.hooks.protocol import Rejected

    try:
        action()
    except Rejected:
        raise
    except GaspError as exc:
        message = f"push rejected (the hook fails closed): {exc}"
        raise GaspError(message, exc.hint, FINDINGS) from None
    except Exception as exc:
        sys.stderr.write(
            f"gasp: internal error ({type(exc).__name__}); push rejected (the hook fails closed)\n"
        )
        raise
