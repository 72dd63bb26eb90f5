"""The ``git-gasp`` script's entry point.

The command line itself is :func:`git_gasp.cli.main`; this module only makes
an interrupt during start-up (Ctrl-C while Python imports the command line,
before its error handler runs) end quietly with exit 130, as an interrupt
later does, instead of with a traceback.
"""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from git_gasp.cli import main as command_line
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    return command_line()
