""" "Did you mean …?" for an id that names nothing."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A hint naming up to three close candidates, or None if none is close."""
    close = difflib.get_close_matches(word, list(candidates), n=3)
    return "did you mean " + " or ".join(close) + "?" if close else None
