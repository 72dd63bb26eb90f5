"""The writing commands: init, run, fact, snapshot, repair."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from git_gasp import output
from git_gasp.cli.closenotes import after_close
from git_gasp.cli.options import (
    JSON,
    REPO,
    WORKER,
    agent_repo_root,
    emit,
    not_empty,
    open_agent,
    repo_root,
)
from git_gasp.errors import OK

if TYPE_CHECKING:
    from git_gasp.agent.runs import Closed


@click.command()
@click.argument(
    "directory",
    required=False,
    default=".",
    type=click.Path(file_okay=False),
    callback=not_empty,
)
@click.option("--agent-id", required=True, metavar="ID", help="The agent's id (AGENT.md agent_id).")
@click.option(
    "--identity",
    "identity",
    multiple=True,
    metavar="FILE",
    type=click.Path(dir_okay=False, exists=True),
    help="Copy FILE into identity/ (repeatable; default: a one-line IDENTITY.md).",
)
@click.option("--provider", metavar="P", help="Executor provider for .agent/config.toml.")
@click.option("--model", metavar="M", help="Executor model for .agent/config.toml.")
@click.option("--runtime", metavar="R", help="Executor runtime for .agent/config.toml.")
@click.option("--no-commit", is_flag=True, help="Write the layout but make no commit.")
@JSON
def init(
    directory: str,
    agent_id: str,
    identity: tuple[str, ...],
    provider: str | None,
    model: str | None,
    runtime: str | None,
    no_commit: bool,
    as_json: bool,
) -> int:
    """Create a GASP agent repository in DIRECTORY (or add the layout to an existing repo)."""
    from git_gasp.agent import init as layout

    made = layout.missing_directories(directory)  # named, as git names where it initialized
    present = layout.present_layout(directory)
    written = layout.init_repo(
        directory, agent_id, identity, provider, model, runtime, not no_commit
    )
    kept = [p for p in present if p not in written]
    left_out = layout.untracked(directory, kept) if not no_commit else []
    new = f" (new director{'ies' if len(made) > 1 else 'y'}: {', '.join(made)})" if made else ""
    forced = layout.ignored_by_rules(directory, written) if not no_commit else []
    said = layout.init_text(present, written, kept, left_out, forced)
    text = f"initialized agent {agent_id} in {directory}{new}: {said}"
    value = {"directory": directory, "agent_id": agent_id, "created": made, "written": written}
    emit(as_json, {**value, "kept": kept, "kept_uncommitted": left_out}, text)
    return OK


@click.group()
def run() -> None:
    """Open, inspect and close runs (one boundary commit per run)."""


@run.command(name="start")
@click.option("--task", required=True, metavar="TEXT", help="What the run is for.")
@click.option("--goal", metavar="ID", help="The goal the run serves (its Goal trailer).")
@REPO
@WORKER
@JSON
def run_start(
    task: str, goal: str | None, repo: str | None, worker: str | None, as_json: bool
) -> int:
    """Take the lease and record run.started; later commands continue the run."""
    agent = open_agent(repo, worker)
    run_id = agent.start_run(task, goal=goal)
    emit(as_json, {"run_id": run_id, "worker": agent.worker}, run_id)
    return OK


@run.command(name="close")
@click.option("--outcome", required=True, metavar="TEXT", help="How the run ended.")
@click.option("--goal", metavar="ID", help="Goal trailer (default: the run's goal, else -).")
@click.option(
    "--session",
    "sessions",
    multiple=True,
    metavar="REF",
    help="Agent-Session trailer <agent>:[<namespace>:]<sessionId>[#<recordRef>] (repeatable).",
)
@click.argument("paths", nargs=-1, type=click.Path())
@REPO
@WORKER
@JSON
def run_close(
    outcome: str,
    goal: str | None,
    sessions: tuple[str, ...],
    paths: tuple[str, ...],
    repo: str | None,
    worker: str | None,
    as_json: bool,
) -> int:
    """Record run.finished, update projections, make the boundary commit of PATHS too."""
    from git_gasp.agent.runs import close_run
    from git_gasp.live.linkage import sessions_of_run

    agent = open_agent(repo, worker)
    running = agent.open_run.run_id if agent.open_run is not None else None
    live: list[str] = []
    if running is not None and sessions_of_run(agent.root, running):
        from git_gasp.live.flush import before_run_close

        live = before_run_close(agent.root, running)  # a live session's run: flushed first
    sessions = (*sessions, *(ref for ref in live if ref not in sessions))
    closed = close_run(agent, outcome, goal, _with_configured(agent.root, sessions), paths)
    if live:
        from git_gasp.live.flush import after_run_close

        after_run_close(agent.root, live)
    text = f"closed {closed.run_id}: " + (
        f"commit {closed.commit[:12]}" if closed.commit else "nothing changed, no commit"
    )
    if closed.already:
        text += " (closed already, by another process)"
    if closed.note:
        text += f"; {closed.note}"
    text += _projections_said(agent.root, closed, say=not as_json)
    if closed.locks:
        output.diag(f"warning: {closed.locks}")
    after_close(agent.root, closed.commit)
    emit(as_json, closed._asdict(), text)
    return OK


def _with_configured(root: str, sessions: tuple[str, ...]) -> tuple[str, ...]:
    """The --session values, plus the session the prepare-commit-msg hook
    would name ($AGENT_SESSION or git config gasp.session), once."""
    import os

    from git_gasp.core.secrets import find_secrets
    from git_gasp.core.trailers import is_session_ref
    from git_gasp.hooks.sessiontrailer import configured_session

    found = configured_session(root, os.environ)
    if found is None or found[0] in sessions:
        return sessions
    value, source = found
    if not is_session_ref(value):
        output.diag(f"warning: {source} {value!r} is not an Agent-Session reference; not used")
        return sessions
    if find_secrets(value):
        output.diag(f"warning: {source} looks like it holds a credential; not used")
        return sessions
    return (*sessions, value)


@run.command(name="abandon")
@click.option("--reason", metavar="TEXT", default="", help="Why the run is abandoned.")
@REPO
@WORKER
@JSON
def run_abandon(reason: str, repo: str | None, worker: str | None, as_json: bool) -> int:
    """Close the open run with outcome "abandoned" (its events are committed)."""
    from git_gasp.agent.runs import close_run

    outcome = f"abandoned: {reason}" if reason else "abandoned"
    agent = open_agent(repo, worker)
    closed = close_run(agent, outcome)
    text = f"abandoned {closed.run_id}: " + (
        f"commit {closed.commit[:12]}" if closed.commit else "nothing changed, no commit"
    )
    if closed.already:
        text += " (closed already, by another process)"
    if closed.locks:
        output.diag(f"warning: {closed.locks}")
    after_close(agent.root, closed.commit)
    emit(as_json, closed._asdict(), text)
    return OK


@run.command(name="status")
@REPO
@WORKER
@JSON
def run_status(repo: str | None, worker: str | None, as_json: bool) -> int:
    """Show the open run (also after a crash) and who holds the lease."""
    import shlex

    from git_gasp.errors import GaspError
    from git_gasp.store.lease import Lease, describe_expiry, lease_value, now_ms
    from git_gasp.store.runmarker import local_worker_id, read_marker

    root = agent_repo_root(repo)  # not an agent repository: that, and nothing else
    problem: GaspError | None = None
    finished = None  # the outcome a close already recorded, its commit still to be made
    try:
        agent = open_agent(root, worker)
        run, me, finished = agent.open_run, agent.worker, agent.finished_outcome()
    except GaspError as exc:  # e.g. a torn log: still say what is known
        problem = exc
        run, me = read_marker(root), worker or local_worker_id(root)
    held = Lease(root, me).holder()
    if as_json:
        output.data_json(
            {
                "format": "git-gasp.run-status/1",
                "open_run": run._asdict() if run else None,
                "lease": lease_value(held, now_ms()) if held else None,
                "worker": me,
                "problem": problem.message if problem else None,
            }
        )
    else:
        if run is None:
            output.data("no run is open")
        else:
            flag = f" --worker {run.worker}" if run.worker and run.worker != me else ""
            output.data(f"open run: {run.run_id} (goal {run.goal or '-'})")
            outcome = "TEXT" if finished is None else shlex.quote(finished)
            if finished is not None:
                output.data(f"finished with outcome {outcome}; its commit is still to be made")
            output.data(f"close it with: git gasp run close --outcome {outcome}{flag}")
        if held:
            until = describe_expiry(held.expires_at_ms, now_ms())
            output.data(f"lease: worker {held.worker_id} (pid {held.pid}) until {until}")
    if problem is not None:
        raise problem
    return OK


@click.group()
def fact() -> None:
    """Add, supersede and list memory facts (memory/facts.jsonl)."""


@fact.command(name="add")
@click.argument("text")
@click.option(
    "--derived-from",
    "derived",
    multiple=True,
    metavar="ID",
    help="An event, node or fact id the fact comes from (repeatable).",
)
@REPO
@WORKER
@JSON
def fact_add(
    text: str, derived: tuple[str, ...], repo: str | None, worker: str | None, as_json: bool
) -> int:
    """Append a fact and regenerate memory/active_memory.md."""
    from git_gasp.agent.projecting import add_fact

    with open_agent(repo, worker) as agent:
        made = add_fact(agent, text, list(derived))
    emit(as_json, made._asdict(), made.id)
    return OK


@fact.command(name="supersede")
@click.argument("fact_id")
@click.argument("text")
@click.option(
    "--derived-from",
    "derived",
    multiple=True,
    metavar="ID",
    help="An event, node or fact id the new fact comes from (repeatable).",
)
@REPO
@WORKER
@JSON
def fact_supersede(
    fact_id: str,
    text: str,
    derived: tuple[str, ...],
    repo: str | None,
    worker: str | None,
    as_json: bool,
) -> int:
    """Append a fact that supersedes FACT_ID."""
    from git_gasp.agent.projecting import add_fact

    with open_agent(repo, worker) as agent:
        made = add_fact(agent, text, list(derived), supersedes=fact_id)
    emit(as_json, made._asdict(), made.id)
    return OK


@fact.command(name="list")
@REPO
@JSON
def fact_list(repo: str | None, as_json: bool) -> int:
    """List current facts (the latest of each chain) and legacy lines."""
    from git_gasp.agent.projecting import read_facts
    from git_gasp.core.projections import current_facts

    memory = read_facts(agent_repo_root(repo))
    current = current_facts(memory.facts)
    if as_json:
        facts = [f._asdict() for f in current]
        legacy = list(memory.legacy)
        output.data_json({"format": "git-gasp.facts/1", "facts": facts, "legacy": legacy})
        return OK
    for item in current:
        output.data(f"{item.id}  {item.text}")
    for line in memory.legacy:
        output.data(f"legacy  {line}")
    return OK


@click.command()
@click.option("--at", metavar="EVENT_ID", help="Snapshot the log only through this event.")
@click.option(
    "--prune",
    is_flag=True,
    help="Instead, remove the snapshots whose integrity record no longer matches the log "
    "(after a merge or rebase).",
)
@REPO
@JSON
def snapshot(at: str | None, prune: bool, repo: str | None, as_json: bool) -> int:
    """Write snapshots/<event-id>/graph.json with its integrity record (or --prune stale ones)."""
    from git_gasp.agent.projecting import prune_snapshots, write_snapshot

    if prune:
        if at is not None:
            raise click.UsageError("--prune and --at do different things; give one")
        removed = prune_snapshots(agent_repo_root(repo))
        text = "\n".join(f"removed {p} (its log prefix changed)" for p in removed)
        emit(as_json, {"removed": removed}, text or "no stale snapshots")
        return OK
    path = write_snapshot(agent_repo_root(repo), at)
    emit(as_json, {"path": path}, path)
    return OK


@click.command()
@REPO
@JSON
def repair(repo: str | None, as_json: bool) -> int:
    """Remove what a crash left of a batch (log, facts, journal), with a backup."""
    from git_gasp.agent.repairing import repair_log

    done = repair_log(repo_root(repo))
    emit(as_json, {"result": done}, done)
    return OK


def _projections_said(root: str, closed: Closed, say: bool) -> str:
    """What a close wrote besides the log: the projections, a snapshot with
    its size, and, the first time the text is ``say``-ed only, the projection
    it left alone (``--json`` lists it in ``kept`` every time)."""
    from git_gasp.agent.projecting import MEMORY_PATH, first_kept_notice
    from git_gasp.core.projections import KEPT_MEMORY

    text = "\nwrote " + ", ".join(closed.projections) if closed.projections else ""
    if closed.snapshot:
        text += f"\nwrote {closed.snapshot} ({_size(closed.snapshot_bytes or 0)})"
    if say and MEMORY_PATH in closed.kept and first_kept_notice(root):
        text += f"\n{KEPT_MEMORY}"
    return text


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"
