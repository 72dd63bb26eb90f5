"""The Locations table of ``AGENT.md``: where a repository keeps its log,
identity, skills, facts, active memory and journal (defaults otherwise)."""

from __future__ import annotations

#: Location names a Locations table may set, with their defaults.
DEFAULT_LOCATIONS: dict[str, tuple[str, ...]] = {
    "log": ("state/events.jsonl",),
    "identity": ("identity",),
    "skills": ("skills",),
    "facts": ("memory/facts.jsonl",),
    "memory": ("memory/active_memory.md",),
    "journal": ("journal/JOURNAL.md",),
}
_ALIASES = {
    "log": "log",
    "event log": "log",
    "events": "log",
    "identity": "identity",
    "skills": "skills",
    "facts": "facts",
    "memory facts": "facts",
    "memory": "memory",
    "active memory": "memory",
    "memory synthesis": "memory",
    "journal": "journal",
}


def _cell(text: str) -> str:
    return text.strip().strip("*_`").strip()


def _paths_of(cell: str) -> list[str]:
    """The paths a cell names, read left to right: its comma-separated parts
    (outside parentheses), each the first code span in it when it has one;
    plus the code spans of a ``(+ ...)`` group, as a real manifest writes a
    second facts file: `` `memory/facts.jsonl` (+ `memory/social_facts.jsonl`) ``.
    Any other parenthesised text is prose, commas and code spans in it
    included, however deeply nested; a code span is taken whole, parentheses
    in it included; an unclosed ``(`` runs to the end of the cell."""
    parts: list[list[str]] = [[]]  # per part: its text (depth 0) ...
    spans: list[list[str]] = [[]]  # ... and its code spans (depth 0)
    extra: list[str] = []  # code spans of (+ ...) groups
    depth = 0
    plus = False  # inside a (+ ...) group (its depth-1 text)
    group: list[str] = []  # a (+ ...) group's depth-1 text, for one without code spans
    group_spans = 0
    i = 0
    while i < len(cell):
        c = cell[i]
        if c == "`":
            close = cell.find("`", i + 1)
            if close < 0:  # no closing backtick: plain text
                close = len(cell)
            span = cell[i + 1 : close]
            if depth == 0:
                spans[-1].append(span)
                parts[-1].append(span)
            elif depth == 1 and plus:
                extra.append(span)
                group_spans += 1
            i = close + 1
            continue
        if c == "(":
            depth += 1
            if depth == 1:
                plus = cell[i + 1 :].lstrip().startswith("+")
                group, group_spans = [], 0
        elif c == ")" and depth > 0:
            depth -= 1
            if depth == 0 and plus and not group_spans:  # (+ a, b): plain paths
                extra += "".join(group).strip().removeprefix("+").split(",")
        elif depth == 1 and plus:
            group.append(c)
        elif c == "," and depth == 0:
            parts.append([])
            spans.append([])
        elif depth == 0:
            parts[-1].append(c)
        i += 1
    out = [found[0] if found else "".join(text) for text, found in zip(parts, spans, strict=True)]
    return out + extra


#: Paths one location may name; the rest are ignored with a warning.
MAX_PATHS = 32


def _normal(path: str) -> tuple[str | None, str]:
    """The path in its one spelling (``a/./b/`` is ``a/b``), or None with why
    it is refused: it must name something inside the work tree, below its
    top, and outside ``.git``."""
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None, "holds a control character"
    slashed = path.replace("\\", "/")
    parts = [p for p in slashed.split("/") if p not in ("", ".")]
    if slashed.startswith("/") or ":" in slashed.split("/")[0] or ".." in parts:
        return None, "is outside the repository"
    if not parts:
        return None, "names the whole repository"
    if any(p.lower() == ".git" for p in parts):
        return None, "is inside .git"
    return "/".join(parts), ""


def parse_locations(text: str) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """Locations from ``AGENT.md``'s markdown table rows (outside fenced
    blocks) whose first cell names a location (log, identity, skills, facts,
    memory, journal; case-insensitive) and whose second cell lists paths:
    each code span (`` `a` (+ `b`) ``), or, without code spans, the parts
    separated by commas. Each path is taken in its one spelling; absolute
    paths, paths with ``..``, the top of the repository and paths in ``.git``
    are ignored with a warning, as are paths past :data:`MAX_PATHS` for one
    location; anything not named keeps its default."""
    found: dict[str, dict[str, None]] = {}
    warnings: list[str] = []
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not stripped.startswith("|"):
            continue
        cells = [c for c in stripped.strip("|").split("|")]
        if len(cells) < 2:
            continue
        key = _ALIASES.get(_cell(cells[0]).lower())
        if key is None:
            continue
        for raw in _paths_of(cells[1]):
            path = _cell(raw).rstrip("/")
            if not path:
                continue
            normal, why = _normal(path)
            if normal is None:
                warnings.append(f"Locations: {key} path {path!r} {why} (ignored)")
                continue
            paths = found.setdefault(key, {})
            if len(paths) >= MAX_PATHS and normal not in paths:
                warnings.append(
                    f"Locations: {key} names more than {MAX_PATHS} paths (the rest ignored)"
                )
                break
            paths[normal] = None
    locations = dict(DEFAULT_LOCATIONS)
    for key, paths in found.items():
        locations[key] = tuple(paths)
    return locations, warnings
