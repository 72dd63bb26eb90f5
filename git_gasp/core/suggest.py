""" "Did you mean …?" for an id that names nothing."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A hint naming up to three candidates that start with ``word`` (an id
    cut short), else up to three close ones; None if none is close."""
    pool = list(candidates)
    starting = sorted(c for c in pool if word and c.startswith(word) and c != word)
    close = starting[:3] or difflib.get_close_matches(word, pool, n=3)
    more = " (and more)" if len(starting) > 3 else ""
    return "did you mean " + " or ".join(close) + "?" + more if close else None
