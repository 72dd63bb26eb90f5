"""Token accounting over imported events (pure): ``git gasp usage``.

- Claude Code repeats a message's usage on every line of it: one count per
  message id, the most complete usage logged for it, the one of most tokens
  (a message still streaming at one import and final at the next keeps the
  final figures). A message id is the
  API's, unique: met again in another session's file (``/branch``,
  ``--fork-session`` and resumed copies carry the old messages), it is a copy,
  counted once, for the first session that logged it (as ccusage counts).
  Input, output, cache-creation and cache-read tokens are the API's (the
  cache creation, when its per-TTL split ``cache_creation`` was logged, is
  the split's sum); a usage without input and output counts is not counted;
  fast mode's (``speed: fast``) is counted as the model's ``-fast`` variant.
- Codex: each imported ``token_count`` holds the call's usage, its
  ``last_token_usage`` (a repeated cumulative total is not imported again);
  without one, the delta of the cumulative totals (a total that fell, as a
  resumed Codex writes one, counts from zero again). Input excludes the
  cached tokens (the cache reads) and the cache writes.
- A subagent's messages are counted once, in its own file; records a child
  copied from its parent were never imported as the child's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from git_gasp.core.event import Event

FIELDS = ("input", "output", "cache_creation", "cache_read")
CACHE_TIERS = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")


def _claude(usage: Mapping[str, Any]) -> dict[str, int] | None:
    """A Claude message's counts; None for a usage without input and output
    counts (ccusage skips it). The cache creation is the per-TTL split's sum
    when the split was logged (ccusage's reading; the API's total beside it
    is the same figure), else the total."""
    if type(usage.get("input_tokens")) is not int or type(usage.get("output_tokens")) is not int:
        return None
    tiers = usage.get("cache_creation")
    created = usage.get("cache_creation_input_tokens")
    if isinstance(tiers, dict):
        created = sum(_int(tiers.get(k)) for k in CACHE_TIERS)
    return {
        "input": _int(usage.get("input_tokens")),
        "output": _int(usage.get("output_tokens")),
        "cache_creation": _int(created),
        "cache_read": _int(usage.get("cache_read_input_tokens")),
    }


def _codex(delta: Mapping[str, Any]) -> dict[str, int]:
    """A Codex call's counts: its input holds the cached tokens (the cache
    reads, at most all of it) and the cache writes (at most what is left)."""
    given = _int(delta.get("input_tokens"))
    cached = delta.get("cached_input_tokens")
    cached = min(_int(delta.get("cache_read_input_tokens") if cached is None else cached), given)
    written = min(_int(delta.get("cache_write_input_tokens")), given - cached)
    return {
        "input": given - cached - written,
        "output": _int(delta.get("output_tokens")),
        "cache_creation": written,
        "cache_read": cached,
    }


def _int(value: Any) -> int:
    return value if type(value) is int else 0


def counted(events: Iterable[Event]) -> list[tuple[Event, str, dict[str, int]]]:
    """``(event, model, counts)`` for each count, de-duplicated as above."""
    claude: dict[str, tuple[Event, str, dict[str, int]]] = {}  # message id -> its count
    sessions: dict[str, str] = {}  # message id -> the first session that logged it
    raw: dict[str, Any] = {}  # message id -> the usage counted for it
    out: list[tuple[Event, str, dict[str, int]]] = []
    for event in events:
        if event.kind not in ("model.called", "model.finished"):
            continue
        payload = event.payload if isinstance(event.payload, dict) else {}
        meta = payload.get("metadata")
        if not isinstance(meta, dict) or not isinstance(meta.get("usage"), dict):
            continue
        model = str(payload.get("model") or "unknown")
        if "total_token_usage" in meta:  # codex: the call's usage
            calls = _codex(meta["usage"])
            if any(calls.values()):  # an empty one is not a call (ccusage skips it)
                out.append((event, model, calls))
        elif isinstance(meta.get("message_id"), str):
            key, session = meta["message_id"], str(meta.get("session"))
            if key in sessions and sessions[key] != session:
                continue  # a copy in another session's file (a branch, a fork, a resume)
            if key in claude and event.kind == "model.finished":
                model = claude[key][1]  # a later usage of the same message
            sessions[key] = session
            if key in claude and not fuller(meta["usage"], raw[key]):
                continue  # the usage kept is the message's most complete
            fast = meta["usage"].get("speed") == "fast" and not model.endswith("-fast")
            if (message := _claude(meta["usage"])) is not None:  # fast mode: its own prices
                claude[key] = (event, f"{model}-fast" if fast else model, message)
                raw[key] = meta["usage"]
    return out + list(claude.values())


def fuller(usage: Any, kept: Any) -> bool:
    """Whether a later usage of a Claude message replaces the one kept: it
    counts, and more tokens (the largest is the most complete, a streamed
    message's last; ccusage keeps it, the first of equals)."""
    new = _claude(usage) if isinstance(usage, Mapping) else None
    old = _claude(kept) if isinstance(kept, Mapping) else None
    return new is not None and (old is None or sum(new.values()) > sum(old.values()))


def group(
    events: Iterable[Event], by: str, commit_of: Callable[[str], str | None]
) -> list[dict[str, Any]]:
    """Rows of counts per model within each group (``by``: run, session, model,
    commit or day), in order of first appearance."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for event, model, counts in counted(events):
        run = event.correlation_id or "-"
        meta = event.payload.get("metadata") if isinstance(event.payload, dict) else {}
        session = str(meta.get("session")) if isinstance(meta, dict) else "-"
        key = {
            "run": run,
            "session": session,
            "model": model,
            "commit": commit_of(run) or "(not committed)",
            "day": datetime.fromtimestamp(event.ts_ms / 1000, UTC).date().isoformat(),
        }[by]
        row = rows.setdefault((key, model), {by: key, "model": model, **dict.fromkeys(FIELDS, 0)})
        for field in FIELDS:
            row[field] += counts[field]
    for row in rows.values():
        row["total"] = sum(row[f] for f in FIELDS)
    return list(rows.values())


def estimate(rows: list[dict[str, Any]], prices: Mapping[str, Any]) -> list[str]:
    """Add ``cost_estimate`` (USD) to the rows whose model the table prices;
    the models it does not price."""
    missing = []
    for row in rows:
        price = prices.get(row["model"])
        if not isinstance(price, dict):
            missing.append(row["model"])
            continue
        cost = sum(float(price.get(f, 0)) * row[f] for f in FIELDS) / 1_000_000
        row["cost_estimate"] = round(cost, 6)
    return sorted(set(missing))
