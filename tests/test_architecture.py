"""The package's shape: no import cycle, the layering between packages, module and
function sizes, and a docstring for every package (issue 14; ARCHITECTURE.md).

The import graph is built from the source with ``ast``, counting imports made inside
functions too: a lazy import is still a dependency, and a cycle through one is still
a cycle the moment both modules run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.sources import parsed

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "git_gasp"

#: The arrows allowed between the package's parts: each may import itself and what
#: its row names. ``errors``, ``output`` and ``outcome`` (the click-free error handler)
#: are the base every part but ``core`` uses.
#: ARCHITECTURE.md draws this table; keep the two the same.
BASE = {"errors", "output", "outcome", "__init__"}
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "errors": set(),
    "output": set(),
    # the click-free error handler the command line and the hooks' entry share
    "outcome": {"errors", "output", "git", "__init__"},
    "git": {"core"} | BASE,
    "store": {"core", "git"} | BASE,
    "sessions": {"core", "git", "store"} | BASE,
    "hooks": {"core", "git", "store", "sessions"} | BASE,
    "check": {"core", "git", "store"} | BASE,
    "restore": {"core", "git", "store", "check"} | BASE,
    "agent": {"core", "git", "store", "sessions", "hooks", "check", "restore"} | BASE,
    "adapters": {"core", "git", "store", "sessions", "agent", "restore"} | BASE,
    "view": {"core", "git", "store", "check", "restore"} | BASE,
    # the live adapters: Claude Code and Codex hook handlers, their spool,
    # installing their hook entries, rehydration and handoff
    "live": {
        "core",
        "git",
        "store",
        "sessions",
        "agent",
        "adapters",
        "restore",
        "view",
        "check",
        "hooks",
        "__init__",
    }
    | BASE,
    "cli": {
        "core",
        "git",
        "store",
        "sessions",
        "hooks",
        "check",
        "restore",
        "agent",
        "adapters",
        "view",
        "live",
        "__init__",
    }
    | BASE,
    # the entry points, and the compatibility modules the README once showed
    "entry": {"cli", "hooks", "live"},
    "__main__": {"entry"},
    "__init__": set(),
    "init": {"agent"},
    "runs": {"agent"},
    "projecting": {"agent"},
}
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
#: A function may run longer when a table or a ``match`` reads better whole; the
#: line above its ``def`` (or its decorators) says so in a comment starting with this.
LONG_MARKER = "# long:"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _imported(node: ast.AST, here: str, is_package: bool) -> Iterator[tuple[str, list[str]]]:
    """(module, names) for every import in ``node``, relative ones resolved."""
    for item in ast.walk(node):
        if isinstance(item, ast.Import):
            for alias in item.names:
                yield alias.name, []
        elif isinstance(item, ast.ImportFrom):
            base = item.module or ""
            if item.level:
                parts = here.split(".")
                keep = len(parts) - item.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([item.module] if item.module else []))
            yield base, [alias.name for alias in item.names]


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from pkg import mod`` names the
    submodule; ``from pkg import name`` names the package's ``__init__``)."""
    known = modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        deps: set[str] = set()
        tree = parsed(path)
        for target, names in _imported(tree, name, path.name == "__init__.py"):
            if target not in known and f"{root.name}.{target}" in known:
                target = f"{root.name}.{target}"  # a script's sibling: benchmarks/ imports so
            if target not in known:
                continue
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
            deps.update(subs)
            if len(subs) < len(names) or not names:
                deps.add(target)
        deps.discard(name)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(graph.get(node, ())):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def part(module: str) -> str:
    """The package part a module belongs to: ``git_gasp.hooks.x`` -> ``hooks``."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"


def test_the_package_has_no_import_cycle() -> None:
    assert cycles(import_graph(PACKAGE)) == []


def test_the_benchmarks_have_no_import_cycle() -> None:
    assert cycles(import_graph(ROOT / "benchmarks")) == []


def test_cycles_are_found_where_there_is_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_every_arrow_between_packages_is_in_the_table() -> None:
    wrong = []
    for module, deps in sorted(import_graph(PACKAGE).items()):
        source = part(module)
        assert source in ALLOWED, f"{module}: a new part of the package; add it to ALLOWED"
        for dep in sorted(deps):
            target = part(dep)
            if target != source and target not in ALLOWED[source]:
                wrong.append(f"{module} -> {dep}")
    assert wrong == []


def test_nothing_but_the_entry_points_imports_the_command_line() -> None:
    for module, deps in import_graph(PACKAGE).items():
        if part(module) not in {"cli", "entry"}:
            assert not any(part(d) == "cli" for d in deps), module


def _too_long(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            marked = first >= 2 and lines[first - 2].strip().startswith(LONG_MARKER)
            if length > MAX_FUNCTION_LINES and not marked:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length})")
    return found


def test_modules_and_functions_fit_on_a_screen() -> None:
    long_modules = []
    long_functions = []
    for folder in (PACKAGE, ROOT / "benchmarks"):
        for path in sorted(folder.rglob("*.py")):
            count = len(path.read_text().splitlines())
            if count > MAX_MODULE_LINES:
                long_modules.append(f"{path.relative_to(ROOT)} ({count})")
            if folder is PACKAGE:
                long_functions += _too_long(path)
    assert long_modules == []
    assert long_functions == []


def test_every_package_says_what_it_holds_and_may_import() -> None:
    for init in sorted(PACKAGE.rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc, f"{init.relative_to(ROOT)} has no docstring"
        if init.parent != PACKAGE:
            assert "import" in doc, f"{init.relative_to(ROOT)}: say what it may import"


def test_every_package_folder_has_an_init() -> None:
    for folder in sorted(p for p in PACKAGE.rglob("*") if p.is_dir()):
        if folder.name in {"__pycache__", "data"} or "data" in folder.relative_to(PACKAGE).parts:
            continue
        assert (folder / "__init__.py").exists(), folder.relative_to(ROOT)


def test_architecture_md_names_every_package() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        assert f"{init.parent.name}/" in text, init.parent.name
