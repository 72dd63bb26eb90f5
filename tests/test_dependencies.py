"""The runtime dependencies are only what the package imports (issue 17).

Every distribution ``pyproject.toml`` declares under ``[project]
dependencies`` must be imported by some module of ``git_gasp`` (a function
level import counts); tools only the tests drive belong in the ``dev`` extra.
"""

from __future__ import annotations

import ast
import re
import tomllib
from importlib import metadata
from pathlib import Path

from tests.sources import parsed

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "git_gasp"


def _normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(group: str | None = None) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = project["dependencies"] if group is None else project["optional-dependencies"][group]
    names = []
    for spec in specs:
        found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec)
        assert found, f"cannot read the requirement {spec!r}"
        names.append(found.group())
    return names


def _import_names(distribution: str) -> set[str]:
    """The top-level modules ``distribution`` provides, as installed (its
    name with ``-`` as ``_`` when it is not installed)."""
    provided = {
        module
        for module, dists in metadata.packages_distributions().items()
        if any(_normalise(d) == _normalise(distribution) for d in dists)
    }
    return provided or {distribution.split(".")[0].replace("-", "_").lower()}


def _imported_top_levels() -> set[str]:
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_import_names_of_a_distribution() -> None:
    assert _import_names("ruamel.yaml") == {"ruamel"}
    assert _import_names("tomli-w") == {"tomli_w"}
    assert _import_names("no-such-dist.example") == {"no_such_dist"}
    assert _normalise("Tomli_W") == _normalise("tomli-w")


def test_every_runtime_dependency_is_imported_by_the_package() -> None:
    imported = _imported_top_levels()
    assert {"click", "git_gasp"} <= imported  # the scan sees imports at all
    unused = {d: sorted(_import_names(d)) for d in _declared() if not _import_names(d) & imported}
    assert not unused, f"declared runtime dependencies nothing in git_gasp imports: {unused}"


def test_the_tools_only_tests_drive_are_dev_extras() -> None:
    runtime = {_normalise(d) for d in _declared()}
    dev = {_normalise(d) for d in _declared("dev")}
    assert {"pre-commit", "pytest-xdist"} <= dev
    assert not runtime & {"pre-commit", "pytest", "pytest-xdist", "mypy", "ruff", "hypothesis"}
