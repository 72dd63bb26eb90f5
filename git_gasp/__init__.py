"""git-gasp: a git-native toolkit for GASP (Git Agent State Protocol) repositories."""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("git-gasp")
except metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"
