"""The ``git gasp`` command line: parse, call one function, render, return a code."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from git_gasp import __version__
from git_gasp.cli import adapt as cli_adapt
from git_gasp.cli import adaptlive as cli_adaptlive
from git_gasp.cli import agent as cli_agent
from git_gasp.cli import check as cli_check
from git_gasp.cli import completion as cli_completion
from git_gasp.cli import demo as cli_demo
from git_gasp.cli import hooks as cli_hooks
from git_gasp.cli import identity as cli_identity
from git_gasp.cli import importing as cli_importing
from git_gasp.cli import notes as cli_notes
from git_gasp.cli import paging
from git_gasp.cli import read as cli_read
from git_gasp.cli import record as cli_record
from git_gasp.cli import report as cli_report
from git_gasp.cli import restore as cli_restore
from git_gasp.cli import sessions as cli_sessions
from git_gasp.cli.completion import COMPLETE_VAR
from git_gasp.cli.shell import handle_errors
from git_gasp.outcome import tolerant_streams


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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


for _commands in (
    cli_check,
    cli_agent,
    cli_record,
    cli_demo,
    cli_read,
    cli_identity,
    cli_restore,
    cli_hooks,
    cli_notes,
    cli_sessions,
    cli_completion,
    cli_report,
    cli_importing,
    cli_adapt,
    cli_adaptlive,  # after the adapt group, which it adds its commands to
):
    _commands.register(cli)


def counts_as_git_has_them(args: list[str]) -> list[str]:
    """``-<n>`` after a command that takes ``-n``/``--max-count`` is
    ``--max-count=<n>``, as ``git log -1`` is ``git log -n 1``."""
    position = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
    if position is None or not isinstance(cli.commands.get(args[position]), click.Command):
        return args
    command = cli.commands[args[position]]
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``git-gasp`` script and ``python -m git_gasp``."""
    args = counts_as_git_has_them(list(sys.argv[1:] if argv is None else argv))
    tolerant_streams()
    with handle_errors() as result:
        result.code = cli.main(
            args, prog_name="git gasp", complete_var=COMPLETE_VAR, standalone_mode=False
        )
    return result.code
