"""The one error type and the exit codes every git-gasp command uses.

=====  ==========================================================
code   meaning
=====  ==========================================================
0      success
1      findings: a check failed, a hook rejected a change
2      usage or bad input: a bad argument, an unreadable file
3      unexpected internal error (traceback written to a log file)
130    interrupted (Ctrl-C)
=====  ==========================================================
"""

from __future__ import annotations

OK = 0
FINDINGS = 1
USAGE = 2
UNEXPECTED = 3
INTERRUPTED = 130


class GaspError(Exception):
    """A failure with a one-line message, an optional hint and an exit code."""

    exit_code = USAGE

    def __init__(self, message: str, hint: str | None = None, exit_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message
