"""The package's modules parsed once per test process.

The layering, architecture and dependency tests each walk the syntax tree of
every module of git_gasp (seven whole-package passes, ~0.7 s of CPU each);
none of them changes a tree, so they share one parse of each file.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def parsed(path: Path) -> ast.Module:
    """``path``'s source (UTF-8) parsed; the same tree on every call: read it, never change it."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))
