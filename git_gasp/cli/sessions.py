"""The session commands: ``transcript add``, ``sessions`` and ``who``."""

from __future__ import annotations

import click

from git_gasp import output
from git_gasp.cli import paging
from git_gasp.cli.options import (
    ANY_REPO,
    JSON,
    REPO,
    WORKER,
    agent_root,
    emit,
    none_found,
    open_agent,
    run_filters,
)
from git_gasp.errors import OK


@click.group()
def transcript() -> None:
    """Keep a run's raw transcript: gzipped, local, referenced by digest."""


@transcript.command(name="add")
@click.argument("run_id", metavar="RUN")
@click.argument("file", type=click.Path(dir_okay=False))
@REPO
@WORKER
@JSON
def transcript_add(
    run_id: str, file: str, repo: str | None, worker: str | None, as_json: bool
) -> int:
    """Store FILE as transcripts/RUN.jsonl.gz and record its digest in the run's events."""
    from git_gasp.agent.transcript import add_transcript

    with open_agent(repo, worker) as agent:
        added = add_transcript(agent, run_id, file)
    if added.gitignore:
        output.diag("added /transcripts/ to .gitignore (commit it)")
    if added.note_skipped:
        output.diag(f"no note written: {added.note_skipped}")
    state = "stored" if added.written else "already stored"
    lines = [f"{state} {added.path} ({added.digest}, {added.bytes} bytes)"]
    if added.event:
        lines.append(f"recorded on run {added.run_id}: event {added.event}")
    if added.commit and added.noted:
        lines.append(f"noted on commit {added.commit[:12]} for {added.noted}")
    emit(as_json, added._asdict(), "\n".join(lines))
    return OK


@click.command()
@click.argument("rev_range", metavar="[REV-RANGE]", required=False, default="HEAD")
@ANY_REPO
@run_filters("commits")
@paging.options
@JSON
def sessions(
    rev_range: str,
    repo: str | None,
    limit: int | None,
    since: str | None,
    until: str | None,
    goal: str | None,
    outcome: str | None,
    color: str | None,
    no_pager: bool,
    as_json: bool,
) -> int:
    """List commits with the agent sessions linked to them (trailers, aliases, notes)."""
    from git_gasp.sessions.query import (
        list_sessions,
        select_sessions,
        sessions_lines,
        sessions_value,
    )
    from git_gasp.view.story import work_tree_goal_titles

    root = agent_root(repo)  # a bare repository's history too
    found = list_sessions(root, rev_range, since, until)
    titles = work_tree_goal_titles(root) if goal and found else {}
    found = select_sessions(found, goal, outcome, limit, titles)
    if not found and not as_json:
        filters = {"since": since, "until": until, "goal": goal, "outcome": outcome}
        output.diag(none_found("commits", rev_range, {**filters, "max-count": limit}))
        return OK
    if as_json:
        output.data_json(sessions_value(rev_range, found))
        return OK
    with paging.screen(root, color, no_pager) as styled:
        output.data(sessions_lines(found, output.paint), styled)
    return OK


@click.command()
@click.argument("target", metavar="PATH[:LINE]")
@ANY_REPO
@JSON
def who(target: str, repo: str | None, as_json: bool) -> int:
    """Name the commits, runs and sessions that produced PATH (or one LINE of it) at HEAD."""
    from git_gasp.sessions.who import who as find
    from git_gasp.sessions.who import who_text, who_value

    found = find(repo or ".", target)
    if not found.commits and not as_json:
        output.diag(f"{found.path} is empty at HEAD")
        return OK
    emit(as_json, who_value(found), who_text(found))
    return OK
