"""The man pages under ``man/`` document exactly the click command tree.

One source for docs (STYLE.md guideline 12): a new command or option without
its man page entry fails here, and so does a page that documents an option
the command does not have. ``git gasp --help`` (which git turns into
``man git-gasp``) must find the page.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from git_gasp.cli.root import cli

ROOT = Path(__file__).resolve().parent.parent
MAN = ROOT / "man"
TOP = "git-gasp"
# every page has these sections, in this order (git's conventions)
REQUIRED_SECTIONS = (
    "NAME",
    "SYNOPSIS",
    "DESCRIPTION",
    "OPTIONS",
    "EXIT STATUS",
    "FILES",
    "EXAMPLES",
    "SEE ALSO",
)
TOP_SECTIONS = ("COMMANDS", "ENVIRONMENT")

_FONT = re.compile(r"\\f(?:[BIRP1-4]|\(..|\[[^\]]*\])")
_GLYPH = re.compile(r"\\(?:\(..|\[[^\]]*\])")
_BOLD = re.compile(r"\\fB(.*?)(?=\\f[RIP1-4]|\\f\[|$)")
_LONG = re.compile(r"(?<![\w-])--[A-Za-z0-9][\w-]*")
_SHORT = re.compile(r"(?<![\w-])-[A-Za-z0-9](?![\w-])")
_ALTERNATING = {".BR": 0, ".BI": 0, ".RB": 1, ".IB": 1}


# --- the command tree ------------------------------------------------------


def _walk(
    command: click.Command, name: str, parent: click.Context | None
) -> Iterator[tuple[click.Command, click.Context]]:
    ctx = click.Context(command, parent=parent, info_name=name, **command.context_settings)
    yield command, ctx
    if isinstance(command, click.Group):
        for sub_name, sub in sorted(command.commands.items()):
            if not sub.hidden:
                yield from _walk(sub, sub_name, ctx)


def _root() -> click.Context:
    return click.Context(cli, info_name=TOP, **cli.context_settings)


def page_commands() -> dict[str, list[tuple[click.Command, click.Context]]]:
    """Page name -> the commands it documents: the group itself for
    ``git-gasp``, and each top-level command (with any subcommands) for
    ``git-gasp-<command>``."""
    root = _root()
    pages: dict[str, list[tuple[click.Command, click.Context]]] = {TOP: [(cli, root)]}
    for name, command in sorted(cli.commands.items()):
        if not command.hidden:
            pages[f"{TOP}-{name}"] = list(_walk(command, name, root))
    return pages


def option_names(commands: list[tuple[click.Command, click.Context]]) -> set[str]:
    """Every option spelling (``opts`` and ``secondary_opts``), help included."""
    names: set[str] = set()
    for command, ctx in commands:
        for param in command.get_params(ctx):
            if isinstance(param, click.Option) and not param.hidden:
                names.update(param.opts)
                names.update(param.secondary_opts)
    return names


PAGES = page_commands()
COMMAND_PAGES = sorted(PAGES)


# --- reading roff ----------------------------------------------------------


def plain(text: str) -> str:
    """Roff text with escapes reduced to what a reader sees (enough for tests)."""
    text = text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    text = _FONT.sub("", text)
    return _GLYPH.sub(" ", text)


def sections(page: Path) -> dict[str, list[str]]:
    """``.SH`` heading -> the raw lines up to the next ``.SH``."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(".SH"):
            current = out.setdefault(line[3:].strip().strip('"'), [])
        elif current is not None:
            current.append(line)
    return out


def _macro_args(line: str) -> list[str]:
    return [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', line)[1:]]


def bold(lines: list[str]) -> list[str]:
    """The text set in bold: ``\\fB...`` runs and ``.B``/``.BR``-style macros."""
    out: list[str] = []
    for line in lines:
        macro = line.split(" ", 1)[0]
        if macro == ".B":
            out.append(plain(" ".join(_macro_args(line))))
        elif macro in _ALTERNATING:
            args = _macro_args(line)
            out.extend(plain(a) for a in args[_ALTERNATING[macro] :: 2])
        out.extend(plain(m) for m in _BOLD.findall(line))
    return out


def bold_options(lines: list[str]) -> set[str]:
    found: set[str] = set()
    for text in bold(lines):
        found.update(_LONG.findall(text))
        found.update(_SHORT.findall(text))
    return found


def page_path(name: str) -> Path:
    return MAN / f"{name}.1"


# --- the pages match the command tree --------------------------------------


@pytest.mark.parametrize("name", COMMAND_PAGES)
def test_every_command_has_a_page(name: str) -> None:
    assert page_path(name).is_file(), f"man/{name}.1 is missing: write it"


@pytest.mark.parametrize("name", COMMAND_PAGES)
def test_every_option_is_documented_in_options(name: str) -> None:
    documented = bold_options(sections(page_path(name)).get("OPTIONS", []))
    missing = option_names(PAGES[name]) - documented
    assert not missing, f"man/{name}.1 OPTIONS does not document {sorted(missing)} in bold"


@pytest.mark.parametrize("name", COMMAND_PAGES)
def test_options_section_mentions_only_real_options(name: str) -> None:
    lines = sections(page_path(name)).get("OPTIONS", [])
    mentioned = set(_LONG.findall(plain("\n".join(lines)))) | bold_options(lines)
    unknown = mentioned - option_names(PAGES[name])
    assert not unknown, f"man/{name}.1 OPTIONS documents options that do not exist: {unknown}"


def test_every_command_is_listed_in_the_top_page() -> None:
    listed = " ".join(bold(sections(page_path(TOP)).get("COMMANDS", [])))
    assert set(re.findall(rf"{TOP}-[\w-]+", listed)) == set(COMMAND_PAGES) - {TOP}


@pytest.mark.parametrize("name", [n for n in COMMAND_PAGES if n != TOP])
def test_subcommands_are_named_in_their_page(name: str) -> None:
    text = plain(page_path(name).read_text(encoding="utf-8"))
    for command, ctx in PAGES[name][1:]:
        assert f" {ctx.command_path.split(' ', 1)[1]}" in text, f"{command.name} not in {name}.1"


def test_every_page_is_a_command() -> None:
    pages = {p.name[: -len(".1")] for p in MAN.glob("*.1")}
    strays = pages - set(PAGES)
    assert not strays, f"man pages without a command: {sorted(strays)}"
    assert {p.name for p in MAN.iterdir()} == {f"{n}.1" for n in pages}


def test_pyproject_installs_exactly_the_pages() -> None:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        config = tomllib.load(fh)
    listed = config["tool"]["setuptools"]["data-files"]["share/man/man1"]
    assert len(listed) == len(set(listed)), "duplicate man pages in pyproject.toml"
    assert sorted(listed) == sorted(f"man/{p.name}" for p in MAN.glob("*.1"))


# --- the pages are well-formed roff ----------------------------------------


@pytest.mark.parametrize("name", COMMAND_PAGES)
def test_page_structure(name: str) -> None:
    page = page_path(name)
    raw = page.read_text(encoding="utf-8")
    assert raw.isascii(), "keep pages ASCII: use roff escapes such as \\(em"
    requests = [ln for ln in raw.splitlines() if not ln.startswith(('.\\"', "'\\\""))]
    assert requests[0].startswith(".TH "), ".TH must come first"
    title, section = _macro_args(requests[0])[:2]
    assert (plain(title), section) == (name.upper(), "1")
    found = list(sections(page))
    wanted = REQUIRED_SECTIONS + (TOP_SECTIONS if name == TOP else ())
    assert set(wanted) <= set(found), f"missing sections: {set(wanted) - set(found)}"
    order = [s for s in found if s in REQUIRED_SECTIONS]
    assert order == list(REQUIRED_SECTIONS), f"sections out of git's order: {order}"
    assert plain(sections(page)["NAME"][0]).startswith(f"{name} - ")


@pytest.mark.parametrize("name", COMMAND_PAGES)
def test_page_renders(name: str) -> None:
    page = page_path(name)
    env = {**os.environ, "MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat", "LC_ALL": "C.UTF-8"}
    if shutil.which("man"):
        proc = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, env=env)
    elif shutil.which("groff"):
        cmd = ["groff", "-man", "-Tutf8", str(page)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    else:
        pytest.skip("neither man nor groff is installed (structure is checked above)")
    assert proc.returncode == 0, proc.stderr
    assert "SYNOPSIS" in proc.stdout and name in proc.stdout
    if shutil.which("groff"):
        lint = ["groff", "-man", "-Tutf8", "-ww", "-z", str(page)]
        warnings = subprocess.run(lint, capture_output=True, text=True, env=env).stderr
        assert not warnings, warnings


# --- help through every entry point ----------------------------------------


def _env_with_scripts() -> dict[str, str]:
    """The environment with this interpreter's scripts directory first on PATH."""
    bindir = os.path.dirname(sys.executable)
    return {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}


def _script() -> str:
    env = _env_with_scripts()
    found = shutil.which("git-gasp", path=env["PATH"])
    assert found, "the git-gasp script is not installed: pip install -e '.[dev]'"
    return found


def test_script_help() -> None:
    proc = subprocess.run([_script(), "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for name in cli.commands:
        assert name in proc.stdout


def test_python_m_help() -> None:
    proc = subprocess.run([sys.executable, "-m", "git_gasp", "--help"], capture_output=True)
    assert proc.returncode == 0, proc.stderr


def test_git_gasp_dash_h() -> None:
    _script()
    proc = subprocess.run(
        ["git", "gasp", "-h"], capture_output=True, text=True, env=_env_with_scripts()
    )
    assert proc.returncode == 0, proc.stderr
    # usage lines say what users type (issue 18, item 9; it said git-gasp before)
    assert "Usage: git gasp [OPTIONS] COMMAND" in proc.stdout


def test_git_gasp_help_opens_the_man_page(tmp_path: Path) -> None:
    """git turns ``git gasp --help`` into ``man git-gasp``."""
    if not shutil.which("man"):
        assert page_path(TOP).is_file()
        return
    # man looks in <dir>/man1/ of each MANPATH entry, so lay the pages out so
    man1 = tmp_path / "man1"
    man1.mkdir()
    for page in MAN.glob("*.1"):
        shutil.copy(page, man1 / page.name)
    env = {
        **_env_with_scripts(),
        "MANPATH": str(tmp_path),
        "GIT_PAGER": "cat",
        "MANPAGER": "cat",
        "PAGER": "cat",
        "MANWIDTH": "80",
    }
    proc = subprocess.run(["git", "gasp", "--help"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "git-gasp - keep, check and read GASP" in proc.stdout
