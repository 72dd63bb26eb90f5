"""The import direction: the core is pure (no git, no processes, no environment)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.sources import parsed

PACKAGE = Path(__file__).resolve().parent.parent / "git_gasp"
GIT_MODULES = ("process", "refs", "history", "objects", "paths", "config", "notes", "clone")
IMPURE_MODULES = {
    "subprocess",
    "click",
    "dulwich",
    "git_gasp.git",
    *(f"git_gasp.git.{name}" for name in GIT_MODULES),
    "git_gasp.store.worktree",
}
IMPURE_CALLS = {"open", "getenv", "environ", "system", "popen", "listdir", "walk"}


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_core_imports_nothing_impure() -> None:
    for path in sorted((PACKAGE / "core").glob("*.py")):
        tree = parsed(path)
        bad = {
            m for m in _imports(tree) if m.split(".")[0] in IMPURE_MODULES or m in IMPURE_MODULES
        }
        assert not bad, f"{path.name} imports {bad}"
        assert not any(
            m.startswith("git_gasp.") and not m.startswith("git_gasp.core") for m in _imports(tree)
        ), path.name
        for node in ast.walk(tree):
            name = (
                node.attr
                if isinstance(node, ast.Attribute)
                else node.id
                if isinstance(node, ast.Name)
                else None
            )
            assert name not in IMPURE_CALLS, f"{path.name} uses {name}"


def test_only_the_adapter_runs_git() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "git":
            continue
        assert "subprocess" not in _imports(parsed(path)), path.name


def test_only_the_shell_layer_imports_click() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] != "cli":
            assert "click" not in _imports(parsed(path)), path.name


def test_starting_a_command_imports_no_yaml_or_toml_parser() -> None:
    """Every hook starts the CLI: the parsers only some commands need are
    imported by those commands, not at startup."""
    import subprocess
    import sys

    code = (
        "import sys, git_gasp.cli.root; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ruamel', 'tomllib')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_command_line_imports_a_command_module_only_when_it_runs() -> None:
    """``git gasp check`` loads the check command's module, not every command's;
    the root's table names each command as that command calls itself."""
    import subprocess
    import sys

    from git_gasp.cli import root

    code = (
        "import sys, git_gasp.cli.root as r; r.cli.lazy_command('check'); "
        "print(sorted(m for m in sys.modules if m.startswith('git_gasp.cli.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {m.rsplit(".", 1)[1] for m in ast.literal_eval(out.stdout)}
    commands = {target.split(":")[0] for target in root.COMMANDS.values()}
    assert "check" in loaded and not (loaded & commands) - {"check", "completion"}
    for name in root.COMMANDS:
        command = root.cli.lazy_command(name)
        assert command is not None and command.name == name
    assert sorted(root.cli.commands) == sorted(root.COMMANDS)
