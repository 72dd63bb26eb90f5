"""The ``git gasp`` command line: parse, call one function, render, return a code."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence

import click

from git_gasp import __version__
from git_gasp.cli import agent as cli_agent
from git_gasp.cli import check as cli_check
from git_gasp.cli import demo as cli_demo
from git_gasp.cli import hooks as cli_hooks
from git_gasp.cli import identity as cli_identity
from git_gasp.cli import importing as cli_importing
from git_gasp.cli import notes as cli_notes
from git_gasp.cli import read as cli_read
from git_gasp.cli import record as cli_record
from git_gasp.cli import restore as cli_restore
from git_gasp.cli import sessions as cli_sessions
from git_gasp.cli.shell import handle_errors


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="git-gasp")
def cli() -> None:
    """git-gasp: keep an AI agent's state in git, the GASP way.

    Creates agent repositories, records typed events and runs with one
    boundary commit each, restores an agent from a URL, enforces the protocol
    in git hooks, links commits to agent sessions, and reads and checks GASP
    repositories (an event log that folds into a graph, identity, skills,
    memory) exactly as the reference runtime and conformance checker do.
    Exit status: 0 ok, 1 findings, 2 bad usage or input, 3 internal error,
    130 interrupted.
    """


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
    cli_importing,
):
    _commands.register(cli)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``git-gasp`` script and ``python -m git_gasp``."""
    args = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        # a terminal or pipe that cannot take UTF-8 (PYTHONIOENCODING=ascii, a C
        # locale): what it cannot encode is written as escapes, never a crash
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")
    with handle_errors() as result:
        result.code = cli.main(args, prog_name="git-gasp", standalone_mode=False)
    return result.code
