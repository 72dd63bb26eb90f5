"""``git gasp adapt hook`` and ``git gasp adapt flush``: the live adapters' runtime side.

``adapt hook`` is normally entered through :mod:`git_gasp.entry`'s fast path
(:mod:`git_gasp.live.handler`, no click); this command is the same handler
for the shapes the fast path leaves to the command line (``-h``, ``-C``).
"""

from __future__ import annotations

import os

import click

from git_gasp import output
from git_gasp.cli.options import JSON, REPO, WORKER, agent_root
from git_gasp.errors import FINDINGS, OK

HARNESS = click.Choice(["claude-code", "codex"])


@click.command(name="hook")
@click.argument("harness", type=HARNESS)
@REPO
def hook(harness: str, repo: str | None) -> int:
    """Spool one hook payload (stdin) of HARNESS; print nothing, exit 0.

    The command line each installed hook entry runs. SessionStart prints the
    rehydration document as additional context; Stop and SessionEnd start a
    detached flush."""
    from git_gasp.live import handler

    root = os.path.abspath(repo or ".")
    return handler.main(["adapt", "hook", harness, "--repo", root])


@click.command(name="flush")
@click.option("--session", metavar="ID", help="Only this session (default: every live one).")
@click.option("--close", is_flag=True, help="Close the session's run too (its boundary commit).")
@REPO
@WORKER
@JSON
def flush(
    session: str | None, close: bool, repo: str | None, worker: str | None, as_json: bool
) -> int:
    """Project the spooled hook payloads and the transcripts' new lines into runs.

    Uses the projectors and ids of `git gasp import`. Without --session, every
    live session is flushed, and those that ended (SessionEnd) or that a newer
    session of the same workspace followed are closed."""
    from git_gasp.live.flush import flush as flush_sessions

    root = agent_root(repo)
    done = flush_sessions(root, session, close, worker)
    if as_json:
        output.data_json({"sessions": [d._asdict() for d in done]})
    for d in done if not as_json else []:
        text = f"{d.harness}:{d.session}: {d.appended} event(s) appended to {d.run_id}"
        if d.closed:
            text += f"; closed, commit {d.commit[:12]}" if d.commit else "; closed"
        if d.deferred:
            text += f"; {d.deferred}"
        output.data(text)
    if not done and not as_json:
        output.data("no live sessions to flush")
    return FINDINGS if any((d.deferred or "").startswith("error") for d in done) else OK
