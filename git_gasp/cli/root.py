"""The ``git gasp`` command line: parse, call one function, render, return a code."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence

import click

from git_gasp import __version__, git, output
from git_gasp.cli import agent as cli_agent
from git_gasp.cli import demo as cli_demo
from git_gasp.cli import hooks as cli_hooks
from git_gasp.cli import identity as cli_identity
from git_gasp.cli import notes as cli_notes
from git_gasp.cli import read as cli_read
from git_gasp.cli import record as cli_record
from git_gasp.cli import restore as cli_restore
from git_gasp.cli import sessions as cli_sessions
from git_gasp.cli.shell import handle_errors
from git_gasp.errors import FINDINGS, OK
from git_gasp.store.worktree import refuse_escapes

_PATH = click.argument("path", required=False, type=click.Path(file_okay=False))
_REPO = cli_agent.REPO  # the same -C as every other command: an alternative to PATH
_JSON = cli_agent.JSON


def _one_path(path: str | None, repo: str | None) -> str | None:
    if path is not None and repo is not None and path != repo:
        raise click.UsageError(f"two repositories: PATH {path} and -C {repo}; give one")
    return path if path is not None else repo


def agent_root(path: str | None) -> str:
    """An explicit PATH is taken literally (as the reference checker does);
    without one, the current directory, or the top of its work tree when the
    current directory is not itself an agent repository."""
    if path is not None:
        if not os.path.isdir(path):
            raise click.BadParameter(f"{path}: no such directory", param_hint="PATH")
        root = path
    elif os.path.exists("AGENT.md") or os.path.exists("state"):
        root = "."
    else:
        try:
            root = git.run(".", ["rev-parse", "--show-toplevel"]).decode().strip() or "."
        except git.GitError:
            root = "."
    refuse_escapes(root)  # no command follows the repository's symlinks out of it
    return root


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


@cli.command()
@_PATH
@_REPO
@click.option("--fixture", is_flag=True, help="Also assert the canonical fixture's four facts.")
@_JSON
@click.option(
    "--no-cache", is_flag=True, help="Walk all history; ignore remembered check 4 verdicts."
)
def check(path: str | None, repo: str | None, fixture: bool, as_json: bool, no_cache: bool) -> int:
    """Run the seven GASP conformance checks on the agent repository at PATH."""
    from git_gasp.check.conformance import run_all
    from git_gasp.core.report import FOLD_SEMANTICS, render_json, render_text

    repo = agent_root(_one_path(path, repo))
    reports = run_all(repo, fixture=fixture, use_cache=not no_cache)
    if as_json:
        output.data_json(render_json(reports, repo, fixture))
    else:
        output.data(
            render_text(reports, f"git-gasp check {__version__} — folding with {FOLD_SEMANTICS}")
        )
        failing = [str(r.number) for r in reports if not r.passed]
        if failing:  # stdout stays the reference checker's; the verdict goes to stderr
            output.diag(f"not conformant: check {', '.join(failing)} failed")
        if any(r.number == 2 and any(_STALE in f for f in r.failures) for r in reports):
            output.diag(
                "hint: a merge or rebase put lines before a snapshot's end; snapshots are "
                "projections: git gasp snapshot --prune removes the stale ones"
            )
    return OK if all(r.passed for r in reports) else FINDINGS


_STALE = "integrity hash mismatch"


@cli.command(name="fold")
@_PATH
@_REPO
@click.option("--at", "at", metavar="EVENT_ID", help="Fold the log only through this event.")
@click.option(
    "--strict", is_flag=True, help="Fail on an op that names a missing node (0.4.2 semantics)."
)
@_JSON
@click.option(
    "--graph-out",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Write the graph JSON (reference layout, sorted keys) to FILE; - prints it instead.",
)
def fold_cmd(
    path: str | None,
    repo: str | None,
    at: str | None,
    strict: bool,
    as_json: bool,
    graph_out: str | None,
) -> int:
    """Fold the event log at PATH into the graph and summarize it."""
    from git_gasp.restore.folding import fold_repo, graph_text, write_graph

    root = agent_root(_one_path(path, repo))
    if graph_out is not None and graph_out != "-":
        from git_gasp.store.outfile import check_target

        check_target(graph_out, root)  # before the fold, not after it
    summary = fold_repo(root, at=at, strict=strict)
    if graph_out == "-":
        output.json_text(graph_text(summary))
        return OK
    if graph_out is not None:
        write_graph(summary, graph_out, root)
    if as_json:
        output.data_json(summary.to_value())
    else:
        output.data(summary.to_text())
    return OK


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False), callback=cli_agent.not_empty)
@_JSON
def fixture(directory: str, as_json: bool) -> int:
    """Write the canonical GASP fixture to DIRECTORY as a committed git repository."""
    from git_gasp.agent.fixture import write_fixture

    commit = write_fixture(directory)
    if as_json:
        output.data_json({"directory": directory, "commit": commit})
    else:
        output.data(f"fixture written to {directory} (commit {commit[:12]})")
        output.diag(f"check it with: git gasp check --fixture {directory}")
    return OK


for _commands in (
    cli_agent,
    cli_record,
    cli_demo,
    cli_read,
    cli_identity,
    cli_restore,
    cli_hooks,
    cli_notes,
    cli_sessions,
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
