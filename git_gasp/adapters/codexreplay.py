"""Where a Codex rollout replays another thread's history (pure).

A forked thread (``codex fork``, a fork in Codex Desktop) and a spawned
subagent that inherits turns write their own ``session_meta`` first, then
the ancestor's ``session_meta`` and history copied into the file, with the
timestamps rewritten to the fork instant (openai/codex#21025; counters such
as ccusage and tokscale double-counted it, ccusage#1371). Some versions then
write the thread's own ``session_meta`` again, and the thread's cumulative
token totals go on from the ancestor's.

The replayed records are not the thread's work: they are counted as copied,
never projected, and the last cumulative total among them is the baseline
the thread's own totals are counted from. The replay ends at the thread's
own ``session_meta`` repeated, at an inter-agent message (a parent's task
for its subagent), or at the first record more than a second after the
burst before it (the copy is written in milliseconds); a record with no
readable time ends it too, so what cannot be told apart is counted as the
thread's own.
"""

from __future__ import annotations

from typing import Any

from git_gasp.adapters.emitting import ts_ms

WINDOW_MS = 1000
BOUNDARIES = frozenset(("inter_agent_communication", "inter_agent_communication_metadata"))


class Replay:
    """Reads one rollout's records in order and says which are replayed."""

    def __init__(self) -> None:
        self.own: Any = None  # the id of the file's first session_meta
        self.start = 0  # its time
        self.until: int | None = None  # the burst's latest time, while replaying
        self.total: dict[str, Any] | None = None  # the last cumulative total replayed

    def copied(self, kind: Any, payload: dict[str, Any], stamp: Any) -> bool:
        ms = ts_ms(stamp, 0)
        if kind == "session_meta":
            thread = payload.get("id")
            if self.own is None:
                self.own, self.start = thread, ms
                return False
            if thread == self.own or not isinstance(thread, str):
                self.until = None  # the thread's own meta again: its own records follow
                return False
            self.until = max(ms, self.start) if ms else None
            return self.until is not None
        if self.until is None:
            return False
        item = payload.get("type")
        if kind in BOUNDARIES or (kind == "response_item" and item == "agent_message"):
            self.until = None
            return False
        if not ms or ms > self.until + WINDOW_MS:
            self.until = None
            return False
        self.until = max(self.until, ms)
        info = payload.get("info") if item == "token_count" else None
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if isinstance(total, dict):
            self.total = total
        return True
