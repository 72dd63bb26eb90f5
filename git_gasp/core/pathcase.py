"""Paths that differ from an agent file only in case.

On a case-insensitive file system (macOS, Windows) ``STATE/events.jsonl``
*is* ``state/events.jsonl``: a clone there checks out one of the two, or
reads the one the server never judged as the log. So a change may not add
a path that spells an agent file, or a folder of one, in other capitals,
nor one that collides in case with another path of the tree in an agent's
folder. Pure: the paths come in as values.
"""

from __future__ import annotations

from collections.abc import Iterable

from git_gasp.core.finding import Finding

#: top-level files and folders every agent repository may hold
AGENT_NAMES = (
    "AGENT.md",
    "IDENTITY.md",
    "JOURNAL.md",
    ".agent",
    "state",
    "identity",
    "skills",
    "memory",
    "journal",
    "snapshots",
    "transcripts",
)
WHY = "case-insensitive checkouts (macOS, Windows) keep only one"


def agent_spellings(declared: Iterable[str]) -> dict[str, str]:
    """casefolded path -> its one spelling, for every agent file and folder
    (the fixed names, and each path the manifest declares with its folders)."""
    out = {name.casefold(): name for name in AGENT_NAMES}
    for path in declared:
        parts = path.split("/")
        for k in range(1, len(parts) + 1):
            prefix = "/".join(parts[:k])
            out.setdefault(prefix.casefold(), prefix)
    return out


def misspelled(paths: Iterable[str], spellings: dict[str, str]) -> list[Finding]:
    """Each path whose folder or name is an agent's in other capitals."""
    out = []
    for path in sorted(set(paths)):
        parts = path.split("/")
        wrong = None
        for k in range(1, len(parts) + 1):
            prefix = "/".join(parts[:k])
            right = spellings.get(prefix.casefold())
            if right is not None and right != prefix:
                wrong = right
                break
        if wrong is None:
            wrong = _misnamed(parts)
        if wrong is not None:
            message = f"differs only in case from the agent's {wrong}"
            rest = path[len(wrong) :] if path.casefold().startswith(wrong.casefold()) else ""
            hint = f"{WHY}: rename it, git mv {path} {wrong}{rest}"
            out.append(Finding(path, None, "path", message, hint))
    return out


def _misnamed(parts: list[str]) -> str | None:
    """A facts file (any depth) or a skill's SKILL.md in other capitals:
    its one spelling."""
    base = parts[-1]
    if base != "facts.jsonl" and base.casefold() == "facts.jsonl":
        return "/".join([*parts[:-1], "facts.jsonl"])
    if len(parts) == 3 and parts[0] == "skills" and base != "SKILL.md":
        if base.casefold() == "skill.md":
            return "/".join([*parts[:-1], "SKILL.md"])
    return None


def collisions(added: Iterable[str], tree: Iterable[str]) -> list[Finding]:
    """Each added path that another path of ``tree`` equals but for case."""
    folded: dict[str, list[str]] = {}
    for path in tree:
        folded.setdefault(path.casefold(), []).append(path)
    out = []
    for path in sorted(set(added)):
        others = sorted(p for p in folded.get(path.casefold(), []) if p != path)
        if others:
            message = f"differs only in case from {others[0]}, also in the tree"
            hint = f"{WHY}: keep one, git rm --cached {path}"
            out.append(Finding(path, None, "path", message, hint))
    return out
