"""``AGENT.md``'s manifest, as restore reads it: the first fenced block as YAML.

ruamel.yaml safe mode, after the same screen skills get (no anchors or
aliases, bounded depth and node count), with the spec MAJOR version check.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from git_gasp.core.manifest import MAX_MANIFEST_BYTES, first_fenced_block
from git_gasp.core.skill import SkillError
from git_gasp.core.skill import _screen as screen_yaml

SUPPORTED_MAJOR = 1


class ManifestError(ValueError):
    """Why AGENT.md cannot be used (one line); ``exit_code`` 2 (bad input)."""


class Manifest(NamedTuple):
    spec_version: object
    agent_id: str | None
    executor: str | None
    fields: dict[str, Any]


def _major(value: object) -> int | None:
    if type(value) is int:
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)*", value.strip()):
        return int(value.strip().split(".")[0])
    return None


def _shown(value: object) -> str:
    """A value from a hostile file, for a one-line message: short, never an
    error (an integer of thousands of digits has no repr)."""
    try:
        text = repr(value)
    except ValueError:
        return "a number too long to show"
    return text if len(text) <= 60 else text[:57] + "..."


def parse_manifest(data: bytes, cap: int | None = None) -> Manifest:
    """The manifest block of ``AGENT.md``; :class:`ManifestError` if it is
    missing, hostile, not a mapping, or declares a spec MAJOR version other
    than :data:`SUPPORTED_MAJOR`. ``cap`` replaces :data:`MAX_MANIFEST_BYTES`."""
    limit = MAX_MANIFEST_BYTES if cap is None else cap
    if len(data) > limit:
        raise ManifestError(f"AGENT.md is over the {limit:,}-byte cap")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise ManifestError("AGENT.md is not valid UTF-8") from None
    block = first_fenced_block(text)
    if block is None:
        raise ManifestError("AGENT.md has no fenced YAML block (spec_version, agent_id, ...)")
    source = "\n".join(block) + "\n"
    try:
        screen_yaml(source)
        value = YAML(typ="safe").load(source)
    except SkillError as exc:
        raise ManifestError(
            "AGENT.md manifest block: " + str(exc).replace("frontmatter ", "", 1)
        ) from None
    except (YAMLError, RecursionError, ValueError, TypeError) as exc:
        first = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise ManifestError(f"AGENT.md manifest block is not valid YAML: {first}") from None
    if not isinstance(value, dict):
        # the reference reads the first fenced block, whatever its language
        raise ManifestError(
            "AGENT.md manifest block is not a YAML mapping (the first fenced block of "
            "AGENT.md is the manifest; check 6 reads only it)"
        )
    if "spec_version" not in value:
        raise ManifestError("AGENT.md declares no spec_version")
    spec = value["spec_version"]
    major = _major(spec)
    if major != SUPPORTED_MAJOR:
        raise ManifestError(
            f"AGENT.md declares spec_version {_shown(spec)}: this git-gasp reads GASP spec "
            f"major version {SUPPORTED_MAJOR} only"
        )
    agent_id = value.get("agent_id")
    executor = value.get("executor")
    return Manifest(
        spec,
        agent_id if isinstance(agent_id, str) else None,
        executor if isinstance(executor, str) else None,
        {str(k): v for k, v in value.items()},
    )
