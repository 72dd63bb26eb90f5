"""The ``git-gasp`` script's entry point.

The command line itself is :func:`git_gasp.cli.root.main`; this module only makes
an interrupt during start-up (Ctrl-C while Python imports the command line,
before its error handler runs) end quietly with exit 130, as an interrupt
later does, instead of with a traceback.
"""

from __future__ import annotations

import signal
import sys


def main() -> int:
    try:
        # held back while extension modules initialise (an interrupt inside
        # one can crash the interpreter); delivered, if it came, right after
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):  # no such call here
        blocked = None
    try:
        try:
            from git_gasp.cli.root import main as command_line
        finally:
            if blocked is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    return command_line()
