"""``.agent/config.toml``: read safely, and its ``[executor]`` binding edited.

:func:`parse_toml` reads a file from a repository (any failure is one short
``ValueError``); :func:`set_executor_values` is the careful textual edit
behind ``--model`` / ``--provider``.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any

MAX_CONFIG_BYTES = 1024 * 1024

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_VALUE = r"(\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s#]*)"


def _key_line(key: str) -> re.Pattern[str]:
    quoted = rf"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')"
    return re.compile(rf"^(\s*{quoted}\s*=\s*){_VALUE}(.*)$")


_EXECUTOR = r"""(?:executor|"executor"|'executor')"""
_TABLES = re.compile(r"^\s*\[\[")  # an array-of-tables header ends a table too


def _set_dotted(lines: list[str], values: Mapping[str, str], newline: str) -> str:
    """The top-level ``executor.<key> = ...`` lines (before the first table
    header) with ``values`` set; a missing key goes after the last of them.
    An inline table (``executor = {...}``) is no such line: the caller's
    check then refuses the edit."""
    top = next(
        (i for i, ln in enumerate(lines) if _HEADER.match(ln.rstrip("\r")) or _TABLES.match(ln)),
        len(lines),
    )
    cr = "\r" if newline == "\r\n" else ""
    for key, value in values.items():
        name = rf"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')"
        pattern = re.compile(rf"^(\s*{_EXECUTOR}\s*\.\s*{name}\s*=\s*){_VALUE}(.*)$")
        done = False
        for i in range(top):
            bare = lines[i][:-1] if lines[i].endswith("\r") else lines[i]
            match = pattern.match(bare)
            if match:
                kept = match.group(3) + lines[i][len(bare) :]
                lines[i] = match.group(1) + toml_string(value) + kept
                done = True
                break
        if not done:
            dotted = [i for i in range(top) if re.match(rf"^\s*{_EXECUTOR}\s*\.", lines[i])]
            if any(re.match(rf"^\s*{_EXECUTOR}\s*=", lines[i]) for i in range(top)):
                raise ValueError(
                    "the executor table is an inline table (executor = {...}); "
                    "it cannot be edited line by line"
                )
            at = dotted[-1] + 1 if dotted else top
            lines.insert(at, f"executor.{key} = {toml_string(value)}{cr}")
            top += 1
    return "\n".join(lines)


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string."""
    return json.dumps(value, ensure_ascii=False)


_OUT_OF_RANGE = "an integer outside the 64-bit range TOML allows"


def parse_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads`` for a file from a repository: any failure (bad
    syntax, an integer too long to convert, nesting past the stack) is one
    ``ValueError`` with a short message."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise ValueError(_OUT_OF_RANGE) from None
        raise ValueError(" ".join(str(exc).split())[:200]) from None
    stack: list[object] = [value]
    while stack:  # TOML integers are 64-bit; tomllib takes any size
        item = stack.pop()
        if type(item) is int and not -(2**63) <= item < 2**63:
            raise ValueError(_OUT_OF_RANGE)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


def set_executor_values(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each key of ``values`` set under ``[executor]``: only the
    value of an existing line changes (its comment and every other byte stay);
    a missing key is added after the table's last key line; a missing table is
    appended. Raises ValueError if the result does not parse as TOML with
    exactly those values changed."""
    if not values:
        return text
    before = parse_toml(text)
    if isinstance(before.get("executor"), list):
        raise ValueError("executor is an array of tables ([[executor]]); edit it by hand")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split("\n")
    start = end = None
    for i, line in enumerate(lines):
        match = _HEADER.match(line.rstrip("\r"))
        named = match.group(1).strip() if match else ""
        if match and start is None and named in ("executor", '"executor"', "'executor'"):
            start = i
        elif (match or _TABLES.match(line)) and start is not None and end is None:
            end = i
    if start is None and isinstance(before.get("executor"), dict):
        # dotted keys at the top (``executor.model = "m"``): edited as such
        result = _set_dotted(lines, values, newline)
    elif start is None:
        tail = "" if text.endswith("\n") or not text else newline
        added = "".join(f"{k} = {toml_string(v)}{newline}" for k, v in values.items())
        gap = newline if text.strip() else ""
        result = f"{text}{tail}{gap}[executor]{newline}{added}"
    else:
        end = len(lines) if end is None else end
        for key, value in values.items():
            pattern = _key_line(key)
            for i in range(start + 1, end):
                bare = lines[i][:-1] if lines[i].endswith("\r") else lines[i]
                match = pattern.match(bare)
                if match:
                    lines[i] = (
                        match.group(1) + toml_string(value) + match.group(3) + lines[i][len(bare) :]
                    )
                    break
            else:
                last = start
                for i in range(start + 1, end):
                    content = lines[i].strip()
                    if content and not content.startswith("#"):
                        last = i
                cr = "\r" if newline == "\r\n" else ""
                lines.insert(last + 1, f"{key} = {toml_string(value)}{cr}")
                end += 1
        result = "\n".join(lines)
    after = parse_toml(result)
    expected = dict(before)
    executor = dict(expected.get("executor", {}))
    executor.update(values)
    expected["executor"] = executor
    if after != expected:
        raise ValueError("the edit would change more than the executor values")
    return result
