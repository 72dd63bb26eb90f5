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
#: how long the answer of ``git grep`` is waited for, per byte of the batch:
#: half of what the screen here takes (~15 ns a byte on 2 CPUs)
WAIT_PER_BYTE = 8e-9


class Screen:
    """The screen of one batch, started at once, asked for by :meth:`lines`."""

    def __init__(self, lines: bytes) -> None:
        self._data = lines
        self._found: set[int] | None = None
        self._grepped: set[int] | None = None  # the second process's answer, once it has one
        self._thread: threading.Thread | None = None
        if len(lines) >= GREP_FROM and screenable(lines):
            # not a daemon: at exit the interpreter waits for it, so the copy
            # it screens is always removed
            self._thread = threading.Thread(target=self._grep, name="gasp-screen")
            self._thread.start()

    def _grep(self) -> None:
        try:
            self._grepped = git.lines_holding([self._data], SCREEN_TRIGGERS)[0]
        except (git.GitError, OSError):
            self._grepped = None  # screened here instead

    def lines(self) -> set[int]:
        """The indexes (split on ``\\n``, from 0) of the lines to test."""
        if self._found is None:
            thread, self._thread = self._thread, None
            if thread is not None:
                # the second process's answer is waited for as long as half
                # the screen here would take: on a batch whose every line
                # holds a trigger git grep is the slower one, and then the
                # screen here gives the answer (the thread, which needs this
                # interpreter to read git's answer, is not raced chunk by chunk)
                thread.join(timeout=len(self._data) * WAIT_PER_BYTE)
                if not thread.is_alive():
                    self._found = self._grepped
            if self._found is None:
                self._found = scan_lines(self._data)
        return self._found
