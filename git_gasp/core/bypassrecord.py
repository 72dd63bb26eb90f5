"""The record of an audited bypass, as clones see it: one JSON line per
accepted bypass in a note under :data:`BYPASS_REF`, on each pushed tip (the
old tip for a deletion). The server's post-receive writes it; ``git gasp
check`` reads it to name the bypass next to what it let through.

A record names who pushed (as the server knows them, and through which
variable), why (``-o gasp.bypass=<reason>``), when (the server's clock),
each ref it moved (``old..new``) and the commits the hook found violations
in. Pure: values in, values out.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

BYPASS_REF = "refs/notes/gasp-bypass"
#: the violating commits one record lists at most (the ranges name the rest)
MAX_COMMITS = 200
ZERO_IDS = frozenset({"0" * 40, "0" * 64})


class RefMove(NamedTuple):
    ref: str
    old: str
    new: str

    def annotated(self) -> str:
        """The commit the note goes on: the new tip, or the old for a deletion."""
        return self.old if self.new in ZERO_IDS else self.new


class Bypass(NamedTuple):
    time: str  # UTC, ISO 8601
    pusher: str
    via: str  # the server variable the pusher came from
    reason: str
    refs: tuple[RefMove, ...]
    commits: tuple[str, ...]  # where the hook found the violations it let through
    rules: tuple[str, ...]

    def line(self) -> str:
        value = {
            "time": self.time,
            "pusher": self.pusher,
            "via": self.via,
            "reason": self.reason,
            "refs": [m._asdict() for m in self.refs],
            "commits": list(self.commits[:MAX_COMMITS]),
            "rules": list(self.rules),
        }
        return json.dumps(value, sort_keys=True, ensure_ascii=False) + "\n"

    def summary(self) -> str:
        """How check names it: who, when, why and the ranges."""
        ranges = ", ".join(f"{m.ref} {_short(m.old)}..{_short(m.new)}" for m in self.refs)
        return (
            f"pushed with an audited bypass by {self.pusher} ({self.via}) at {self.time}: "
            f"{json.dumps(self.reason, ensure_ascii=False)} ({ranges}; "
            f"git notes --ref={BYPASS_REF.removeprefix('refs/notes/')} show "
            f"{_short(self.refs[0].annotated()) if self.refs else '?'})"
        )


def _short(oid: str) -> str:
    return "0" if oid in ZERO_IDS else oid[:7]


def build(
    time: str,
    pusher: str,
    via: str,
    reason: str,
    refs: Iterable[RefMove],
    commits: Iterable[str],
    rules: Iterable[str],
) -> Bypass:
    return Bypass(
        time,
        pusher,
        via,
        reason,
        tuple(refs),
        tuple(sorted({c for c in commits if c})),
        tuple(sorted(set(rules))),
    )


def parse(text: str) -> list[Bypass]:
    """The records of one note; a line that is not one is skipped (a record
    only explains a finding, it never clears one)."""
    out = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        record = _record(value)
        if record is not None:
            out.append(record)
    return out


def _strings(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return tuple(value)


def _record(value: Any) -> Bypass | None:
    if not isinstance(value, dict):
        return None
    fields = [value.get(k) for k in ("time", "pusher", "via", "reason")]
    commits, rules = _strings(value.get("commits")), _strings(value.get("rules"))
    moves = value.get("refs")
    if not isinstance(moves, list) or commits is None or rules is None:
        return None
    refs = []
    for move in moves:
        parts = [move.get(k) for k in ("ref", "old", "new")] if isinstance(move, dict) else []
        if len(parts) != 3 or not all(isinstance(p, str) for p in parts):
            return None
        refs.append(RefMove(str(parts[0]), str(parts[1]), str(parts[2])))
    if not all(isinstance(f, str) for f in fields):
        return None
    time, pusher, via, reason = (str(f) for f in fields)
    return Bypass(time, pusher, via, reason, tuple(refs), commits, rules)


def covering(
    records: Sequence[Bypass], reached: Mapping[tuple[str, str], frozenset[str]]
) -> dict[str, Bypass]:
    """Commit -> the (first) record that let it through: the commits it
    lists, and every commit of its ranges (``reached[(old, new)]``, the
    caller's walk of ``new ^old``)."""
    out: dict[str, Bypass] = {}
    for record in records:
        for commit in record.commits:
            out.setdefault(commit, record)
        for move in record.refs:
            for commit in reached.get((move.old, move.new), frozenset()):
                out.setdefault(commit, record)
    return out
