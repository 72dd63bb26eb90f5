"""Skills (REFERENCE §9.4): ``skills/<name>/SKILL.md`` frontmatter, checked.

A skill file starts with YAML frontmatter between two ``---`` lines: required
``name`` and ``description`` (non-empty strings), optional ``tools`` and
``allowed-tools`` (a string or a list of strings), then a markdown body. The
frontmatter is read with ruamel.yaml in *safe* mode, and only after a pass
over the parse events that refuses what a hostile file could use to exhaust
memory or the stack: anchors and aliases (alias bombs), nesting deeper than
:data:`MAX_DEPTH`, more than :data:`MAX_EVENTS` nodes; files over
:data:`MAX_SKILL_BYTES` are refused before parsing. Frontmatter of only
``key: plain words`` lines (what nearly every skill holds) is read without
YAML, as YAML reads it (:func:`plain_frontmatter`): a hook judging a seed
commit that adds many skills does not pay a YAML parse for each.

Also the commit rule "skills change one per commit" (§9.7 rule 5) as a pure
function of the changed paths: :func:`skills_changed_together`; a rename
(:func:`is_rename`) is one change.
"""

import io
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

SKILLS_DIR = "skills"
SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256 * 1024
MAX_DEPTH = 16
MAX_EVENTS = 10_000
REQUIRED = ("name", "description")
TOOL_FIELDS = ("tools", "allowed-tools")


class SkillError(ValueError):
    """Why a SKILL.md cannot be read as a skill (one line)."""


class Skill(NamedTuple):
    directory: str  # the directory name under skills/
    path: str  # repo-relative path of SKILL.md
    name: str | None
    description: str | None
    tools: tuple[str, ...]  # tools and allowed-tools, in that order
    problems: tuple[str, ...]  # empty when the skill is valid

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_value(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "tools": list(self.tools),
            "path": self.path,
            "valid": self.valid,
            "problems": list(self.problems),
        }


def split_frontmatter(text: str) -> str | None:
    """The text between a first line ``---`` and the next ``---`` line, or None."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r").rstrip() == "---":
            return "\n".join(line.rstrip("\r") for line in lines[1:i]) + "\n"
    return None


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] or type(exc).__name__


def _screen(text: str) -> None:
    """Refuse anchors, aliases, deep nesting and too many nodes, before loading."""
    from ruamel.yaml import YAML
    from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, NodeEvent

    depth = 0
    count = 0
    for event in YAML(typ="safe").parse(io.StringIO(text)):
        if isinstance(event, AliasEvent):
            raise SkillError("frontmatter uses a YAML alias (aliases and anchors are refused)")
        if isinstance(event, NodeEvent) and event.anchor is not None:
            raise SkillError(
                f"frontmatter defines a YAML anchor &{event.anchor} "
                "(aliases and anchors are refused)"
            )
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise SkillError(f"frontmatter nests deeper than {MAX_DEPTH} levels")
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
        count += 1
        if count > MAX_EVENTS:
            raise SkillError(f"frontmatter has more than {MAX_EVENTS} YAML nodes")


_PLAIN_LINE = re.compile(
    r"([A-Za-z_][A-Za-z0-9_-]*): ([A-Za-z](?:[A-Za-z0-9 ,.()/'_+-]*[A-Za-z0-9,.()/'_+-])?)"
)
_PLAIN_LINES = 64
# words a YAML resolver may read as something other than a string (1.1 or 1.2)
_NOT_STRINGS = frozenset(["true", "false", "null", "yes", "no", "on", "off", "y", "n"])


def plain_frontmatter(front: str) -> dict[str, Any] | None:
    """The mapping of a frontmatter made only of ``key: words`` lines (a key
    of letters, digits, ``_`` and ``-``; a value starting with a letter, of
    letters, digits, spaces and ``,.()/'_+-``, that is no word YAML reads as
    a boolean or null), each key once: exactly what YAML's safe loader
    returns for it, all strings. None for anything else (YAML decides)."""
    lines = front.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines or len(lines) > _PLAIN_LINES:
        return None
    out: dict[str, Any] = {}
    for line in lines:
        match = _PLAIN_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match.groups()
        if key in out or key.lower() in _NOT_STRINGS or value.lower() in _NOT_STRINGS:
            return None
        out[key] = value
    return out


def parse_frontmatter(data: bytes, cap: int | None = None) -> dict[str, Any]:
    """The frontmatter mapping of a SKILL.md, or :class:`SkillError`;
    ``cap`` replaces :data:`MAX_SKILL_BYTES` (``gasp.maxFileBytes``)."""
    limit = MAX_SKILL_BYTES if cap is None else cap
    if len(data) > limit:
        key = " (gasp.maxFileBytes)" if cap is not None else ""
        raise SkillError(f"file is over the {limit:,}-byte cap{key}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillError("file is not valid UTF-8") from None
    front = split_frontmatter(text.removeprefix("\ufeff"))
    if front is None:
        raise SkillError("no YAML frontmatter (the file must open with a --- line and close it)")
    plain = plain_frontmatter(front)
    if plain is not None:
        return plain
    from ruamel.yaml import YAML  # only now: most skills never need it
    from ruamel.yaml.error import YAMLError

    try:
        _screen(front)
        value = YAML(typ="safe").load(front)
    except SkillError:
        raise
    except (YAMLError, RecursionError, ValueError, TypeError) as exc:
        raise SkillError(f"frontmatter is not valid YAML: {_first_line(exc)}") from None
    if not isinstance(value, dict):
        raise SkillError(f"frontmatter is not a mapping (it is {_type_name(value)})")
    return value


def _type_name(value: object) -> str:
    if value is None:
        return "empty"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):  # ruamel's CommentedMap too
        return "a mapping"
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def _tools(front: dict[str, Any], problems: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for field in TOOL_FIELDS:
        if field not in front or front[field] is None:
            continue
        value = front[field]
        if isinstance(value, str):
            out.extend(value.replace(",", " ").split())
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            out.extend(value)
        else:
            problems.append(f"`{field}` must be a string or a list of strings")
    return tuple(out)


def check_skill(directory: str, data: bytes, cap: int | None = None) -> Skill:
    """Read ``skills/<directory>/SKILL.md`` (its bytes) as a skill, with problems."""
    path = f"{SKILLS_DIR}/{directory}/{SKILL_FILE}"
    try:
        front = parse_frontmatter(data, cap)
    except SkillError as exc:
        return Skill(directory, path, None, None, (), (str(exc),))
    problems: list[str] = []
    fields: dict[str, str | None] = {}
    for field in REQUIRED:
        value = front.get(field)
        fields[field] = None
        if field not in front:
            problems.append(f"missing required field `{field}`")
        elif not isinstance(value, str):
            problems.append(f"`{field}` must be a string, not {_type_name(value)}")
        elif not value.strip():
            problems.append(f"`{field}` must not be empty")
        else:
            fields[field] = value
    tools = _tools(front, problems)
    name = fields["name"]
    if name is not None and name != directory:
        problems.append(f"`name` is `{name}` but the directory is `{directory}`")
    return Skill(directory, path, name, fields["description"], tools, tuple(problems))


def missing_skill(directory: str, reason: str = "no SKILL.md") -> Skill:
    """A skill directory that cannot be read at all."""
    return Skill(directory, f"{SKILLS_DIR}/{directory}/{SKILL_FILE}", None, None, (), (reason,))


def skill_of(path: str) -> str | None:
    """The skill a repo-relative path belongs to (``skills/<name>/...``), if any."""
    parts = path.replace("\\", "/").split("/")
    if len(parts) >= 3 and parts[0] == SKILLS_DIR and parts[1]:
        return parts[1]
    return None


def skills_changed_together(paths: Iterable[str]) -> list[str]:
    """The skills changed, sorted, when more than one is (rule: one per commit);
    an empty list when the change respects the rule."""
    names = sorted({name for p in paths if (name := skill_of(p)) is not None})
    return names if len(names) > 1 else []


def is_rename(old: Mapping[str, str], new: Mapping[str, str], read: Callable[[str], bytes]) -> bool:
    """Whether skill ``new`` is skill ``old`` under another name: the same
    files (paths inside the skill directory -> blob ids; ``old`` as it was,
    ``new`` as it is, the old one gone and the new one new), byte for byte,
    except the ``name`` line of SKILL.md's frontmatter, which must follow the
    directory. ``read`` gives a blob's bytes."""
    if not old or old.keys() != new.keys():
        return False
    for path, oid in old.items():
        if oid == new[path]:
            continue
        if path != SKILL_FILE or _without_name(read(oid)) != _without_name(read(new[path])):
            return False
    return True


def _without_name(data: bytes) -> list[bytes]:
    """SKILL.md's lines without the frontmatter's top-level ``name`` line."""
    lines = data.split(b"\n")
    if lines and lines[0].rstrip(b"\r") == b"---":
        for n, line in enumerate(lines[1:], 1):
            if line.rstrip(b"\r") == b"---":
                break
            if line.startswith(b"name:"):
                return lines[:n] + lines[n + 1 :]
    return lines
