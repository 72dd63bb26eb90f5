"""The secret screen of a large batch, run by a second process while the
append validates the batch.

:func:`git_gasp.agent.validate.secrets` tests only the lines the screen
names (:func:`git_gasp.core.secretscreen.scan_lines`: the lines holding one
of the credential rules' triggers). On a batch of megabytes (an import of a
long transcript writes tens of thousands of events at once) that screen is
dozens of substring searches of the whole batch in this process, which holds
the interpreter. ``git grep --no-index`` finds the same lines, byte by byte
(:func:`git_gasp.git.lines_holding`, as the hooks' reads ahead use it), on
the machine's other core, while this process checks depths, line sizes and
the graph. Its answer only picks lines to test: when git cannot give it (it
fails, or the batch holds a byte the byte-wise screen cannot read,
:func:`~git_gasp.core.secretscreen.screenable`), the batch is screened here,
so no verdict ever depends on it.
"""

from __future__ import annotations

import threading

from git_gasp import git
from git_gasp.core.secrets import SCREEN_TRIGGERS
from git_gasp.core.secretscreen import scan_lines, screenable

#: a batch this large is screened by ``git grep``: below it, starting a
#: process and writing a copy cost more than the screen here (~15 ms a MB)
GREP_FROM = 1 << 20


class Screen:
    """The screen of one batch, started at once, asked for by :meth:`lines`."""

    def __init__(self, lines: bytes) -> None:
        self._data = lines
        self._found: set[int] | None = None
        self._thread: threading.Thread | None = None
        if len(lines) >= GREP_FROM and screenable(lines):
            self._thread = threading.Thread(target=self._grep, name="gasp-screen", daemon=True)
            self._thread.start()

    def _grep(self) -> None:
        try:
            self._found = git.lines_holding([self._data], SCREEN_TRIGGERS)[0]
        except (git.GitError, OSError):
            self._found = None  # screened here instead

    def lines(self) -> set[int]:
        """The indexes (split on ``\\n``, from 0) of the lines to test."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._found is None:
            self._found = scan_lines(self._data)
        return self._found
