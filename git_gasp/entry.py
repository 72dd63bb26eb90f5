"""The ``git-gasp`` script's entry point.

The command line itself is :func:`git_gasp.cli.root.main`. A hook run in the
shape the shims and the pre-commit framework use (``hooks run HOOK`` and git's
arguments) goes straight to :mod:`git_gasp.hooks.dispatch` instead, which loads
no click and no command module: git pays a hook's start-up on every write.
Likewise a live adapter's hook (``adapt hook HARNESS --repo R``) goes to
:mod:`git_gasp.live.handler`, which an agent runs on every tool call.
This module also makes an interrupt during start-up (Ctrl-C while Python
imports the command line, before its error handler runs) end quietly with exit
130, as an interrupt later does, instead of with a traceback.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Sequence


def _load(argv: Sequence[str]) -> Callable[[], int]:
    """What runs ``argv``: the hook dispatcher when it takes it, else the CLI."""
    if argv[:2] == ["adapt", "hook"] and not {"-h", "--help", "-C"} & set(argv):
        from git_gasp.live import handler

        return lambda: handler.main(argv)
    if argv[:2] == ["hooks", "run"]:
        from git_gasp.hooks import dispatch

        if dispatch.routes(argv):
            return lambda: dispatch.main(argv)
    from git_gasp.cli.root import main as command_line

    return command_line


def main() -> int:
    argv = sys.argv[1:]
    try:
        # held back while extension modules initialise (an interrupt inside
        # one can crash the interpreter); delivered, if it came, right after
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):  # no such call here
        blocked = None
    try:
        try:
            run = _load(argv)
        finally:
            if blocked is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    return run()
