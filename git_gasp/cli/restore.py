"""The restore commands: restore (clone + verify + fold) and status (registered on ``cli``)."""

from __future__ import annotations

import click

from git_gasp import output
from git_gasp.cli.options import JSON as _JSON
from git_gasp.cli.options import REPO, not_empty
from git_gasp.errors import OK, GaspError

_CONTEXT = click.option(
    "--context",
    "context",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write a Markdown rehydration document (identity, skills, memory, goals, runs).",
)


def emit(
    report: dict[str, object], as_json: bool, context: str | None, text: str, root: str
) -> None:
    from git_gasp.core.restoretext import report_text
    from git_gasp.restore.restoring import write_context

    if context is not None:
        write_context(context, text, root)
    if as_json:
        output.data_json(report)
    else:
        output.data(report_text(report))


@click.command()
@click.argument("url")
@click.argument("directory", required=False, type=click.Path(file_okay=False), callback=not_empty)
@click.option("--at", "at", metavar="EVENT_ID", help="Fold the log only through this event.")
@click.option("--model", metavar="M", help="Rebind the executor: set [executor] model.")
@click.option("--provider", metavar="P", help="Rebind the executor: set [executor] provider.")
@click.option(
    "--verify-snapshot",
    is_flag=True,
    help="Also compare a seeding snapshot's graph with a fold of its log prefix.",
)
@_CONTEXT
@_JSON
def restore(
    url: str,
    directory: str | None,
    at: str | None,
    model: str | None,
    provider: str | None,
    verify_snapshot: bool,
    context: str | None,
    as_json: bool,
) -> int:
    """Clone the agent at URL safely (no hooks, filters, submodules or transcripts),
    verify it and fold its log."""
    from git_gasp.restore.restoring import restore as do_restore

    if context is not None:
        from git_gasp.restore.restoring import default_directory
        from git_gasp.store.outfile import check_target_in_clone

        # before the clone, not after it
        check_target_in_clone(context, directory or default_directory(url))
    executor = {k: v for k, v in (("model", model), ("provider", provider)) if v is not None}
    restored = do_restore(url, directory, at, executor, verify_snapshot)
    try:
        emit(restored.report, as_json, context, restored.context, restored.root)
    except GaspError as exc:  # the agent is restored all the same: say where
        exc.hint = f"{exc.hint}; the agent is restored in {restored.root}"
        raise
    return OK


@click.command()
@REPO
@_CONTEXT
@_JSON
def status(repo: str | None, context: str | None, as_json: bool) -> int:
    """Report the agent in the current repository as restore would (no clone)."""
    from git_gasp.cli.options import agent_root
    from git_gasp.restore.restoring import describe

    root = agent_root(repo)
    if context is not None:
        from git_gasp.store.outfile import check_target

        check_target(context, root)
    restored = describe(root, local=True)
    emit(restored.report, as_json, context, restored.context, root)
    return OK


def register(group: click.Group) -> None:
    for command in (restore, status):
        group.add_command(command)
