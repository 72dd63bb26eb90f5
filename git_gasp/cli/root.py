"""The ``git gasp`` command line: parse, call one function, render, return a code."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from git_gasp import __version__
from git_gasp.cli import paging
from git_gasp.cli.completion import COMPLETE_VAR
from git_gasp.cli.lazy import LazyGroup
from git_gasp.cli.shell import handle_errors
from git_gasp.outcome import tolerant_streams

# command name -> "module:attribute" of its click command, in `--help` order of
# the groups; a command's module is imported only when that command is looked up
COMMANDS = {
    "check": "check:check",
    "fold": "check:fold_cmd",
    "fixture": "check:fixture",
    "init": "agent:init",
    "run": "agent:run",
    "fact": "agent:fact",
    "snapshot": "agent:snapshot",
    "repair": "agent:repair",
    "record": "record:record",
    "demo": "demo:demo",
    "runs": "read:runs",
    "show": "read:show",
    "lineage": "read:lineage",
    "nodes": "read:nodes",
    "identity": "identity:identity",
    "skill": "identity:skill",
    "restore": "restore:restore",
    "status": "restore:status",
    "hooks": "hooks:hooks",
    "validate": "hooks:validate",
    "notes": "notes:notes",
    "transcript": "sessions:transcript",
    "sessions": "sessions:sessions",
    "who": "sessions:who",
    "completion": "completion:completion",
    "report": "report:report",
    "import": "importing:import_group",
    "usage": "importing:usage",
    "adapt": "adapt:adapt",
    "handoff": "adapt:handoff",
}


@click.group(
    cls=LazyGroup,
    lazy_commands={n: f"git_gasp.cli.{t}" for n, t in COMMANDS.items()},
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="git-gasp")
@click.option("--no-pager", "no_pager", is_flag=True, help="Never send output through the pager.")
@click.option(
    "--color",
    "color",
    type=paging.WHEN,
    default=None,
    metavar="WHEN",
    help="Colour the output: auto, always or never (default: as color.ui says).",
)
@click.pass_context
def cli(ctx: click.Context, no_pager: bool, color: str | None) -> None:
    """git-gasp: keep an AI agent's state in git, the GASP way.

    Creates agent repositories, records typed events and runs with one
    boundary commit each, restores an agent from a URL, enforces the protocol
    in git hooks, links commits to agent sessions, and reads and checks GASP
    repositories (an event log that folds into a graph, identity, skills,
    memory) exactly as the reference runtime and conformance checker do.
    Exit status: 0 ok, 1 findings, 2 bad usage or input, 3 internal error,
    130 interrupted.
    """
    ctx.obj = {"no_pager": no_pager, "color": color}


def counts_as_git_has_them(args: list[str]) -> list[str]:
    """``-<n>`` after a command that takes ``-n``/``--max-count`` is
    ``--max-count=<n>``, as ``git log -1`` is ``git log -n 1``."""
    position = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
    command = None if position is None else cli.lazy_command(args[position])
    if position is None or command is None:
        return args
    if not any("--max-count" in getattr(p, "opts", ()) for p in command.params):
        return args
    head, tail = args[: position + 1], args[position + 1 :]
    if "--" in tail:
        cut = tail.index("--")
        tail, rest = tail[:cut], tail[cut:]
    else:
        rest = []
    valued = {
        o for p in command.params if isinstance(p, click.Option) and not p.is_flag for o in p.opts
    }
    out = []
    for i, a in enumerate(tail):
        count = a.startswith("-") and a[1:].isdigit() and (i == 0 or tail[i - 1] not in valued)
        out.append(f"--max-count={a[1:]}" if count else a)
    return head + out + rest


def command_path(args: Sequence[str]) -> str:
    """The command ``args`` name, as far as they name one (``git gasp record
    goal``); the root's own options are passed over."""
    ctx = click.Context(cli, info_name="git gasp")
    command: click.Command = cli
    words = ["git gasp"]
    valued = False  # the word before was an option that takes a value (--color WHEN)
    for arg in args:
        if not isinstance(command, click.Group):
            break
        if valued or arg.startswith("-"):
            valued = any(
                arg in p.opts and not p.is_flag
                for p in command.params
                if isinstance(p, click.Option)
            )
            continue
        found = command.get_command(ctx, arg)
        if found is None:
            break
        words.append(arg)
        command = found
    return " ".join(words)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``git-gasp`` script and ``python -m git_gasp``."""
    args = counts_as_git_has_them(list(sys.argv[1:] if argv is None else argv))
    tolerant_streams()
    with handle_errors(lambda: command_path(args)) as result:
        result.code = cli.main(
            args, prog_name="git gasp", complete_var=COMPLETE_VAR, standalone_mode=False
        )
    return result.code
