"""Rewinds in a Claude Code transcript: which records are the active branch.

Lines form a tree through ``parentUuid``. ``/rewind`` (or an edited prompt,
or a regenerated answer) adds a sibling under the same parent; the latest
sibling is the active branch. Parallel tool results also share a parent,
and are not a rewind. Pure.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from git_gasp.adapters.emitting import Emitter
from git_gasp.adapters.lines import Diagnostics, Record


def active(recs: list[Record], diag: Diagnostics, em: Emitter) -> list[Record]:
    """The records of the active branch: after a rewind (siblings under one
    parent that are distinct prompts or messages, not parallel tool results)
    the latest sibling's subtree; each abandoned subtree is observed once."""
    parents = _parents(recs, diag)
    children: dict[Any, list[int]] = defaultdict(list)
    for i, rec in enumerate(recs):
        if isinstance(rec.value.get("uuid"), str):
            children[parents[i]].append(i)
    dropped: set[int] = set()
    for parent, kids in children.items():
        if parent is None:
            continue
        turns = [k for k in kids if _branch_identity(recs[k]) is not None]
        identities = [_branch_identity(recs[k]) for k in turns]
        if len(set(identities)) < 2:
            continue
        keep = identities[-1]
        for k, ident in zip(turns, identities, strict=True):
            if ident != keep:
                size = _drop(k, recs, children, dropped)
                uid = str(recs[k].value.get("uuid"))
                text = f"a rewound branch of {size} record(s) after {parent} is not projected"
                em.observation(
                    f"branch:{uid}",
                    "abandoned branch",
                    text,
                    em.at(recs[k].value.get("timestamp")),
                    {"records": size},
                )
                diag.abandoned += size
    return [r for i, r in enumerate(recs) if i not in dropped]


def _parents(recs: list[Record], diag: Diagnostics) -> list[str | None]:
    """Each record's ``parentUuid`` (None when it is not a string); a record
    whose parents lead back to itself (a cycle, which no rewind makes) is
    read as a root, and counted."""
    parents = [r.value.get("parentUuid") for r in recs]
    parents = [p if isinstance(p, str) else None for p in parents]
    at: dict[str, int] = {}
    for i, rec in enumerate(recs):
        uid = rec.value.get("uuid")
        if isinstance(uid, str):
            at.setdefault(uid, i)
    state = [0] * len(recs)  # 0 not seen, 1 on the path walked now, 2 done
    for start in range(len(recs)):
        path, j = [], start
        while state[j] == 0:
            state[j] = 1
            path.append(j)
            parent = parents[j]
            if parent is None or parent not in at:
                break
            j = at[parent]
        if state[j] == 1 and parents[j] is not None and parents[j] in at:
            cycle = path[path.index(j) :]
            for k in cycle:
                parents[k] = None
            diag.unknown_fields["parentUuid cycle (read as a root)"] += len(cycle)
        for k in path:
            state[k] = 2
    return parents


def _branch_identity(rec: Record) -> str | None:
    value = rec.value
    msg = value.get("message")
    if value.get("type") == "assistant" and isinstance(msg, dict):
        return f"m:{msg.get('id')}"
    if value.get("type") == "user" and isinstance(msg, dict):
        content = msg.get("content")
        if (
            isinstance(content, list)
            and content
            and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        ):
            return None  # parallel tool results share a parent
        return f"u:{value.get('uuid')}"
    return None


def _drop(start: int, recs: list[Record], children: dict[Any, list[int]], out: set[int]) -> int:
    stack, size = [start], 0
    while stack:
        i = stack.pop()
        if i in out:
            continue
        out.add(i)
        size += 1
        uid = recs[i].value.get("uuid")
        stack.extend(children.get(uid, ()) if isinstance(uid, str) else ())
    return size
