"""The restore commands: restore (clone + verify + fold) and status."""

from __future__ import annotations

import click

from git_gasp import output
from git_gasp.cli import paging
from git_gasp.cli.options import JSON as _JSON
from git_gasp.cli.options import REPO, not_empty
from git_gasp.errors import OK, USAGE, GaspError

_CONTEXT = click.option(
    "--context",
    "context",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write a Markdown rehydration document (identity, skills, memory, goals, runs) "
    "to FILE; - prints it on standard output, and the report on standard error.",
)


def _context_target(context: str | None, as_json: bool) -> str | None:
    """The file ``--context`` names, None for none or standard output (``-``),
    which --json, a document on standard output too, cannot share."""
    if context == "-" and as_json:
        raise GaspError(
            "--context - and --json would both print on standard output",
            "write the document to a file: --context FILE",
            USAGE,
        )
    return None if context == "-" else context


_BUDGET = click.option(
    "--budget",
    "budget",
    metavar="CHARS",
    type=click.IntRange(min=0),
    default=None,
    help="Bound the --context document to CHARS characters (default 24,000; 0: no bound).",
)


def _budget(value: int | None) -> int | None:
    from git_gasp.core.contextbudget import DEFAULT_BUDGET, MIN_BUDGET

    if value is None:
        return DEFAULT_BUDGET
    if value and value < MIN_BUDGET:
        raise click.BadParameter(f"{value} is too small: at least {MIN_BUDGET}, or 0 for no bound")
    return value or None


def emit(
    report: dict[str, object],
    as_json: bool,
    context: str | None,
    text: str,
    root: str,
    screen: tuple[str | None, bool] | None = None,
) -> None:
    """Write the --context document, then the report; ``screen`` (--color,
    --no-pager) pages and colours the text as the reading commands do."""
    from git_gasp.core.restoretext import report_text
    from git_gasp.restore.restoring import write_context

    if context == "-":  # the document on stdout, the report beside it on stderr
        output.data(text)
        output.diag(report_text(report))
        return
    if context is not None:
        write_context(context, text, root)
    if as_json:
        output.data_json(report)
    elif screen is None:
        output.data(report_text(report))
    else:
        with paging.screen(root, *screen) as styled:
            output.data(report_text(report, output.paint), styled)


@click.command()
@click.argument("url")
@click.argument("directory", required=False, type=click.Path(file_okay=False), callback=not_empty)
@click.option(
    "-b",
    "--branch",
    metavar="NAME",
    help="Restore this branch of URL instead of the one its HEAD names.",
)
@click.option("--at", "at", metavar="EVENT_ID", help="Fold the log only through this event.")
@click.option("--model", metavar="M", help="Rebind the executor: set [executor] model.")
@click.option("--provider", metavar="P", help="Rebind the executor: set [executor] provider.")
@click.option(
    "--verify-snapshot",
    is_flag=True,
    help="Also compare a seeding snapshot's graph with a fold of its log prefix.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print no progress and no closing lines (where it restored, what to try next).",
)
@_CONTEXT
@_BUDGET
@_JSON
def restore(
    url: str,
    directory: str | None,
    branch: str | None,
    at: str | None,
    model: str | None,
    provider: str | None,
    verify_snapshot: bool,
    quiet: bool,
    context: str | None,
    budget: int | None,
    as_json: bool,
) -> int:
    """Clone the agent at URL safely (no hooks, filters, submodules or transcripts),
    verify it and fold its log.

    On a terminal, git's clone progress and then one line per phase go to
    stderr (never to stdout, so --json stays a document); the report ends
    with the directory and the commands to try next. --quiet prints neither.
    """
    import sys

    from git_gasp.restore.restoring import restore as do_restore

    target = _context_target(context, as_json)
    if target is not None:
        from git_gasp.restore.restoring import default_directory
        from git_gasp.store.outfile import check_target_in_clone

        # before the clone, not after it
        check_target_in_clone(target, directory or default_directory(url))
    executor = {k: v for k, v in (("model", model), ("provider", provider)) if v is not None}
    shown = not quiet and sys.stderr.isatty()
    progress = (lambda line: output.diag(f"restore: {line}")) if shown else None
    restored = do_restore(
        url, directory, at, executor, verify_snapshot, _budget(budget), progress, branch
    )
    try:
        emit(restored.report, as_json, context, restored.context, restored.root)
    except GaspError as exc:  # the agent is restored all the same: say where
        exc.hint = f"{exc.hint}; the agent is restored in {restored.root}"
        raise
    if not quiet and not as_json:
        (output.diag if context == "-" else output.data)(next_steps(restored.root))
    return OK


def next_steps(root: str) -> str:
    """Where the agent was restored, and what to try there."""
    import os
    import shlex

    where = os.path.abspath(root)
    go = f"cd {shlex.quote(where)}"
    return "\n".join(
        [
            f"restored into {where}",
            "next:",
            f"  {go} && git gasp status     # the agent, as restore reported it",
            f"  {go} && git gasp runs       # its runs, newest first",
            f"  {go} && git gasp check      # the conformance checks",
        ]
    )


@click.command()
@REPO
@_CONTEXT
@_BUDGET
@paging.options
@_JSON
def status(
    repo: str | None,
    context: str | None,
    budget: int | None,
    color: str | None,
    no_pager: bool,
    as_json: bool,
) -> int:
    """Report the agent in the current repository as restore would (no clone)."""
    from git_gasp.cli.options import repo_root
    from git_gasp.restore.restoring import describe

    root = repo_root(repo)
    target = _context_target(context, as_json)
    if target is not None:
        from git_gasp.store.outfile import check_target

        check_target(target, root)
    restored = describe(root, local=True, budget=_budget(budget))
    emit(restored.report, as_json, context, restored.context, root, (color, no_pager))
    return OK
