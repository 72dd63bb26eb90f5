"""All printing: data to stdout, diagnostics to stderr.

A repository can be hostile, and what it holds reaches the terminal through
ids, titles, commit subjects and error messages. So no control character
(but newline and tab) is written as itself: an escape sequence could redraw
the screen or set the window title, a carriage return could overwrite a
line. Each is shown escaped (``\\x1b``, ``\\r``), as is a lone surrogate,
which cannot be encoded at all. JSON output escapes them as ``\\uXXXX`` and
never writes ``NaN``: it stays valid JSON with the same values.

Colour is asked for by marking spans with :func:`paint`; :func:`data` given
``styled`` turns the marks into SGR colour codes (``styled=True``) or drops
them (``styled=False``). A mark carries only a style name from
:data:`STYLES` and the painted text is escaped like any other, so what a
repository holds can at most colour its own text with one of these styles.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from typing import Any

# C0 but tab and newline, DEL, C1, lone surrogates, the Unicode line separators
_UNSAFE_CHARS = "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]"


@functools.cache
def _unsafe() -> re.Pattern[str]:
    """Compiled when first needed: its Unicode ranges take a hook that prints
    nothing about 0.5 ms to compile."""
    return re.compile(_UNSAFE_CHARS)


def visible(text: str) -> str:
    """``text`` with every unsafe character written as its escape."""
    if not _unsafe().search(text):
        return text
    return _unsafe().sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


#: The styles :func:`paint` knows, as SGR parameters.
STYLES = {
    "good": "32",
    "bad": "31",
    "warn": "33",
    "dim": "2",
    "bold": "1",
    "id": "36",
    "open": "",  # the neutral tone: no colour
}
_MARK = re.compile("\x0e([a-z]+)\x0f(.*?)\x0e\x0f", re.DOTALL)


def paint(text: str, style: str) -> str:
    """``text`` marked to be shown in ``style`` (a key of :data:`STYLES`)."""
    return f"\x0e{style}\x0f{text}\x0e\x0f" if text else text


def _styled(text: str, color: bool) -> str:
    parts: list[str] = []
    end = 0
    for match in _MARK.finditer(text):
        style, inner = match.groups()
        parts.append(visible(text[end : match.start()]))
        shown, sgr = visible(inner), STYLES.get(style, "")
        parts.append(f"\x1b[{sgr}m{shown}\x1b[m" if color and sgr else shown)
        end = match.end()
    parts.append(visible(text[end:]))
    return "".join(parts)


def data(text: str, styled: bool | None = None) -> None:
    """Write command output (stdout). With ``styled``, spans marked by
    :func:`paint` are coloured (True) or shown plain (False)."""
    text = visible(text) if styled is None else _styled(text, styled)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def data_json(value: Any) -> None:
    """Write a JSON document (stdout), indented, non-ASCII kept."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a NaN or an infinity from a TOML file: written as a string
        text = json.dumps(_finite(value), indent=2, ensure_ascii=False)
    json_text(text)


def json_text(text: str) -> None:
    """Write a JSON document already rendered (stdout): inside JSON the unsafe
    characters occur only in strings, where ``\\uXXXX`` means the same."""
    text = _unsafe().sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def diag(text: str) -> None:
    """Write a diagnostic (stderr)."""
    text = visible(text)
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    sys.stderr.flush()
