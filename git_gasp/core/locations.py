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
    "journal": "journal",
}


def _cell(text: str) -> str:
    return text.strip().strip("*_`").strip()


def _safe_rel(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return bool(path) and not path.startswith("/") and ".." not in parts and ":" not in parts[0]


def parse_locations(text: str) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """Locations from ``AGENT.md``'s markdown table rows (outside fenced
    blocks) whose first cell names a location (log, identity, skills, facts,
    memory, journal; case-insensitive) and whose second cell lists paths
    separated by commas. Absolute paths and paths with ``..`` are ignored
    with a warning; anything not named keeps its default."""
    found: dict[str, list[str]] = {}
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
        for raw in cells[1].split(","):
            path = _cell(raw).rstrip("/")
            if not path:
                continue
            if not _safe_rel(path):
                warnings.append(
                    f"Locations: {key} path {path!r} is outside the repository (ignored)"
                )
                continue
            found.setdefault(key, []).append(path)
    locations = dict(DEFAULT_LOCATIONS)
    for key, paths in found.items():
        locations[key] = tuple(dict.fromkeys(paths))
    return locations, warnings
