"""All printing: data to stdout, diagnostics to stderr."""

from __future__ import annotations

import json
import sys
from typing import Any


def data(text: str) -> None:
    """Write command output (stdout)."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def data_json(value: Any) -> None:
    """Write a JSON document (stdout), indented, non-ASCII kept."""
    data(json.dumps(value, indent=2, ensure_ascii=False))


def diag(text: str) -> None:
    """Write a diagnostic (stderr)."""
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    sys.stderr.flush()
