"""git-gasp: a git-native toolkit for GASP (Git Agent State Protocol) repositories."""

from __future__ import annotations

# The one source of the version: pyproject.toml reads it from here, and reading
# it costs no importlib.metadata lookup on every hook invocation.
__version__ = "0.1.0"
