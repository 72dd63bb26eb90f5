"""git-gasp: a git-native toolkit for GASP (Git Agent State Protocol) repositories."""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("git-gasp")
except metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"

# the fold semantics every git-gasp verdict is computed with (REFERENCE §2.4)
FOLD_SEMANTICS = "yoagent-state 0.5.2+ (lenient; skipped ops not counted)"
