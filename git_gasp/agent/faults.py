"""Kill points for the kill-and-retry tests: ``GASP_FAULT=<point>`` SIGKILLs
the process when it reaches ``<point>`` (a crash at that step, as a power
cut or ``kill -9`` would leave it). Unset, a point costs one dict lookup."""

from __future__ import annotations

import os
import signal

#: The points, in the order a close reaches them.
CLOSE_POINTS = ("close:finished", "close:projected", "close:committed")

#: The points, in the order an identity commit reaches them: AGENT.md
#: rewritten, the approval decision appended, the commit made.
IDENTITY_POINTS = ("identity:manifest", "identity:decided", "identity:committed")


def point(name: str) -> None:
    if os.environ.get("GASP_FAULT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
