"""``git gasp import claude-code|codex`` and ``git gasp usage``."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import click

from git_gasp import git, output
from git_gasp.cli.options import JSON, WORKER, emit, refuse_bare, repo_option
from git_gasp.errors import FINDINGS, OK, USAGE, GaspError

_F = TypeVar("_F", bound=Callable[..., Any])


def agent_repo_option(
    what: str, default: str = "$GASP_AGENT_REPO, else gasp.agentRepo"
) -> Callable[[_F], _F]:
    """``-C``/``--repo`` of a command whose agent repository is found by
    :func:`agent_repo`; ``what`` says what the command does with it."""
    return repo_option(f"The agent repository {what} (default: {default}).", exists=False)


AGENT_REPO = agent_repo_option("to write")


def _since(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a date (YYYY-MM-DD[THH:MM])", ctx, param
        ) from None


def _options(fn: Any) -> Any:
    for option in reversed(
        (
            click.argument("paths", nargs=-1, type=click.Path(), metavar="[PATH]..."),
            click.option("--session", metavar="ID", help="The session with this id."),
            click.option("--project", metavar="DIR", help="The sessions of this project."),
            click.option(
                "--since", metavar="DATE", callback=_since, help="Files changed since DATE."
            ),
            click.option(
                "--lift",
                metavar="RULES",
                help="Lifting rules: eval,patch,commit,decision (or none); "
                "default: gasp.importLift, else all.",
            ),
            click.option(
                "--keep-transcript",
                is_flag=True,
                help="Store the main file gzipped under transcripts/ (cold, not pushed).",
            ),
            AGENT_REPO,
            WORKER,
            JSON,
        )
    ):
        fn = option(fn)
    return fn


@click.group(name="import")
def import_group() -> None:
    """Project Claude Code or Codex sessions into an agent repository."""


@import_group.command(name="claude-code")
@_options
def import_claude_code(**given: Any) -> int:
    """Import Claude Code transcripts (files, directories or --session/--project)."""
    return _run("claude-code", given)


@import_group.command(name="codex")
@_options
def import_codex(**given: Any) -> int:
    """Import Codex rollouts (.jsonl, .jsonl.zst, .json; files, directories or --session)."""
    return _run("codex", given)


def _run(agent: str, given: dict[str, Any]) -> int:
    from git_gasp.adapters.importing import import_all

    root = agent_repo(given["repo"])
    imported = import_all(
        root,
        agent,
        list(given["paths"]),
        dict(os.environ),
        session=given["session"],
        project=given["project"],
        since=given["since"],
        lift=given["lift"],
        keep=given["keep_transcript"],
        worker=given["worker"],
    )
    results = imported.sessions
    for skipped in imported.skipped:
        output.diag(f"warning: {skipped['path']}: {skipped['reason']} (skipped)")
    for result in results:
        for warning in result["warnings"]:
            output.diag(f"warning: {warning}")
    value = {
        "format": "git-gasp.import/1",
        "repo": root,
        "sessions": results,
        "skipped": imported.skipped,
    }
    emit(given["as_json"], value, "\n".join(_line(r) for r in results) or "nothing to import")
    return FINDINGS if imported.skipped else OK  # as rsync's partial transfer


def _line(result: dict[str, Any]) -> str:
    ref = f"{result['agent']}:{result['session']}"
    if result.get("empty"):
        return f"{ref}: nothing to import (no conversation in {result['files']})"
    if result["unchanged"]:
        return f"{ref}: unchanged since the last import"
    commit = result["commit"][:12] if result["commit"] else "no commit"
    return (
        f"{ref}: run {result['run_id']} +{result['appended']} events, "
        f"outcome {result['outcome']}, {commit}"
    )


def agent_repo(repo: str | None, purpose: str = "to import into", here: bool = False) -> str:
    """``--repo``, else ``$GASP_AGENT_REPO``, else ``git config gasp.agentRepo``,
    else (``here``) the current directory when it is an agent repository;
    ``purpose`` says what it is for when there is none."""
    chosen = repo or os.environ.get("GASP_AGENT_REPO")
    if not chosen:
        try:
            chosen = git.config_value(".", "gasp.agentRepo", "path")
        except git.GitError:
            chosen = None
    if not chosen and here and os.path.isfile("AGENT.md"):
        chosen = "."
    if not chosen:
        here_too = "this directory is one: --repo ." if os.path.isfile("AGENT.md") else ""
        raise GaspError(
            f"no agent repository {purpose}",
            "pass --repo PATH, set GASP_AGENT_REPO or `git config gasp.agentRepo PATH` "
            f"({here_too or 'create one with: git gasp init --agent-id ID PATH'})",
            USAGE,
        )
    if not os.path.isfile(os.path.join(chosen, "AGENT.md")):
        refuse_bare(chosen)  # a server's repository: not one to init in
        raise GaspError(
            f"{chosen}: not an agent repository (no AGENT.md)",
            f"create it with: git gasp init --agent-id ID {chosen}",
            USAGE,
        )
    return chosen


@click.command()
@click.argument("rev_range", metavar="[REV-RANGE]", required=False)
@click.option(
    "--by",
    type=click.Choice(["run", "session", "model", "commit", "day"]),
    default="model",
    show_default=True,
    help="Group the counts by this.",
)
@click.option(
    "--pricing",
    metavar="FILE",
    type=click.Path(dir_okay=False, exists=True),
    help="A JSON pricing table (USD per million tokens per model): adds an estimated cost.",
)
@agent_repo_option(
    "to read", "$GASP_AGENT_REPO, else gasp.agentRepo, else the current directory when it is one"
)
@JSON
def usage(
    rev_range: str | None, by: str, pricing: str | None, repo: str | None, as_json: bool
) -> int:
    """Count the input, output and cache tokens of imported sessions, per model."""
    from git_gasp.adapters.accounting import read_usage, usage_text

    root = agent_repo(repo, "to read", here=True)
    report = read_usage(root, rev_range, by, pricing)
    emit(as_json, report, usage_text(report))
    return OK
