"""Finding and reading an agent repository's skills (``skills/*/SKILL.md``).

The checking is pure (:mod:`git_gasp.core.skill`); this module reads the
files, at most :data:`~git_gasp.core.skill.MAX_SKILL_BYTES` + 1 bytes each,
and refuses a skill directory or SKILL.md that is a symlink leading out of the
repository (an untrusted clone must not make git-gasp read other files).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from git_gasp.core.locations import parse_locations
from git_gasp.core.manifest import MAX_MANIFEST_BYTES
from git_gasp.core.skill import (
    MAX_SKILL_BYTES,
    SKILL_FILE,
    SKILLS_DIR,
    Skill,
    check_skill,
    missing_skill,
)
from git_gasp.restore.repofiles import MANIFEST, read_capped
from git_gasp.store.worktree import inside, os_error


def read_skills(root: str, rel: str = SKILLS_DIR, cap: int | None = None) -> list[Skill]:
    """Every directory under ``rel`` (``skills/`` unless a manifest names
    another), sorted, read as a skill; symlinks leaving ``root`` are refused."""
    base = os.path.join(root, *rel.split("/"))
    if not inside(root, base) or not os.path.isdir(base):
        return []
    try:
        names = sorted(os.listdir(base))
    except OSError as exc:
        return [missing_skill(".", f"cannot list {rel}/: {os_error(exc)}")]
    out = []
    for name in names:
        directory = os.path.join(base, name)
        if not os.path.isdir(directory):
            continue  # a README or other file next to the skills
        shown = name if rel == SKILLS_DIR else f"{rel}/{name}"
        path = os.path.join(directory, SKILL_FILE)
        if not inside(root, path):
            out.append(missing_skill(shown, "symlink leads outside the repository (refused)"))
            continue
        if not os.path.isfile(path):
            out.append(missing_skill(shown))
            continue
        try:
            with open(path, "rb") as fh:
                data = fh.read((MAX_SKILL_BYTES if cap is None else cap) + 1)
        except OSError as exc:
            out.append(missing_skill(shown, f"unreadable: {os_error(exc)}"))
            continue
        skill = check_skill(name, data, cap)
        out.append(
            skill if rel == SKILLS_DIR else skill._replace(path=f"{rel}/{name}/{SKILL_FILE}")
        )
    return out


def skills_at(root: str, rels: Sequence[str], cap: int | None) -> list[Skill]:
    """Every skill under each of the skills locations ``rels``."""
    out: list[Skill] = []
    for rel in rels:
        out += read_skills(root, rel, cap)
    return out


def declared_skills(root: str, cap: int | None = None) -> list[Skill]:
    """Every skill under each skills location ``AGENT.md``'s Locations table
    declares (``skills/`` when it declares none), read as restore reads them:
    an AGENT.md over the cap is refused, never half read."""
    data = read_capped(root, MANIFEST, cap or MAX_MANIFEST_BYTES, False, cap is not None)
    locations, _ = parse_locations((data or b"").decode("utf-8", "replace"))
    return skills_at(root, locations["skills"], cap)
