"""What an event may carry of a transcript: summaries and metadata, redacted
and capped. Every prompt, output and tool result becomes a summary (redacted
by the hooks' credential detector, cut with a visible marker); every value a
projector copies from the transcript into an event's metadata goes through
:func:`plain` (redacted and capped too, and bounded: the log holds no NaN, no
lone surrogate, nothing nested past ``DEPTH_CAP`` levels). Pure.
"""

from __future__ import annotations

import math
import re
from typing import Any

from git_gasp.core.secrets import find_secrets, may_hold_secrets

SUMMARY_CAP = 2000  # characters of any summary (the rest stays in the native file)
TITLE_CAP = 120
REDACTED = "[redacted: {}]"
DEPTH_CAP = 16  # levels of a native value kept in an event's metadata
_SURROGATE = re.compile("[\ud800-\udfff]")  # not text: a file name's bad bytes, or JSON's


def redact(text: str) -> str:
    """``text`` with every credential the hooks' detector finds replaced by a
    visible marker naming its rule."""
    if not text or not may_hold_secrets(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for _ in range(50):  # each pass removes one finding
            found = find_secrets(line)
            if not found:
                break
            start = found[0].column - 1
            end = start
            while end < len(line) and not line[end].isspace() and line[end] not in "\"'`":
                end += 1
            end = max(end, start + 1)
            line = line[:start] + REDACTED.format(found[0].rule) + line[end:]
        lines[i] = line
    return "\n".join(lines)


def summary(text: str, cap: int = SUMMARY_CAP) -> str:
    """Redacted, then cut to ``cap`` characters with a visible marker; a lone
    surrogate (which UTF-8 cannot write) made U+FFFD."""
    if not text.isascii():
        text = _SURROGATE.sub("\ufffd", text)
    text = redact(text.strip())
    if len(text) <= cap:
        return text
    return text[:cap] + f" [truncated: {len(text) - cap} more characters]"


def plain(value: Any) -> Any:
    """A native value (metadata copied from a transcript) as the log may hold
    it: strings (keys too) redacted and capped as summaries are, a float that
    is not finite as None, what nests past ``DEPTH_CAP`` levels as a marker.
    The credential detector looks at all its strings at once, and at each
    only when that finds something: metadata comes with every event."""
    strings: list[str] = []
    out = _bounded(value, 0, strings)
    if strings and may_hold_secrets("\n".join(strings)):
        out = _redacted(out)
    return out


def _bounded(value: Any, depth: int, strings: list[str]) -> Any:
    kind = type(value)
    if kind is str:
        if len(value) > SUMMARY_CAP or not value.isascii():
            value = _long(value)
        strings.append(value)
        return value
    if kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if depth >= DEPTH_CAP:
        return "[nested too deep: not kept]"
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str or len(key) > TITLE_CAP or not key.isascii():
                key = _long(str(key), TITLE_CAP)
            strings.append(key)
            kind = type(item)
            if kind is int or item is None or kind is bool:
                out[key] = item
            elif kind is str and len(item) <= SUMMARY_CAP and item.isascii():
                strings.append(item)
                out[key] = item
            else:
                out[key] = _bounded(item, depth + 1, strings)
        return out
    if kind is list or kind is tuple:
        return [_bounded(item, depth + 1, strings) for item in value]
    return _bounded(str(value), depth, strings)


def _long(text: str, cap: int = SUMMARY_CAP) -> str:
    """A string that is long or not ASCII: surrogates made U+FFFD, redacted, capped."""
    text = redact(_SURROGATE.sub("\ufffd", text))
    return text if len(text) <= cap else text[:cap] + f" [truncated: {len(text) - cap} more]"


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return value


def name(value: Any, fallback: str = "unknown") -> str:
    """A model's or a tool's name as a transcript gives it (maybe not a string)."""
    return summary(value, TITLE_CAP) or fallback if isinstance(value, str) else fallback


def title(text: str) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return summary(first, TITLE_CAP) or "(empty)"
