"""Reading a repository as the reference does: check, fold, and the canonical fixture."""

from __future__ import annotations

import click

from git_gasp import __version__, output
from git_gasp.cli.options import JSON, PATH, REPO, agent_repo_root, not_empty, one_path, repo_root
from git_gasp.errors import FINDINGS, OK


@click.command()
@PATH
@REPO
@click.option("--fixture", is_flag=True, help="Also assert the canonical fixture's four facts.")
@JSON
@click.option(
    "--no-cache",
    is_flag=True,
    help="Walk all history and read the whole log; ignore remembered verdicts and the log memo.",
)
def check(path: str | None, repo: str | None, fixture: bool, as_json: bool, no_cache: bool) -> int:
    """Run the seven GASP conformance checks on the agent repository at PATH."""
    from git_gasp.check.conformance import run_all
    from git_gasp.core.report import FOLD_SEMANTICS, render_json, render_text

    repo = repo_root(one_path(path, repo))
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
            if not _looks_like_an_agent(repo):
                output.diag(
                    f"hint: {repo} has no AGENT.md or state/: not an agent repository; check "
                    "one (git gasp check PATH), or create one: git gasp init --agent-id ID"
                )
        if any(r.number == 6 and any(_CHANGED in f for f in r.failures) for r in reports):
            from git_gasp.restore.identity import APPROVE_HINT

            output.diag(f"hint: {APPROVE_HINT}")
        if any(r.number == 2 and any(_STALE in f for f in r.failures) for r in reports):
            output.diag(
                "hint: a merge or rebase put lines before a snapshot's end; snapshots are "
                "projections: git gasp snapshot --prune removes the stale ones"
            )
    return OK if all(r.passed for r in reports) else FINDINGS


_STALE = "integrity hash mismatch"
_CHANGED = "identity bytes do not match the manifest"


def _looks_like_an_agent(root: str) -> bool:
    import os

    return os.path.lexists(os.path.join(root, "AGENT.md")) or os.path.lexists(
        os.path.join(root, "state")
    )


@click.command(name="fold")
@PATH
@REPO
@click.option("--at", "at", metavar="EVENT_ID", help="Fold the log only through this event.")
@click.option(
    "--strict", is_flag=True, help="Fail on an op that names a missing node (0.4.2 semantics)."
)
@JSON
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

    root = agent_repo_root(one_path(path, repo))
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


@click.command()
@click.argument("directory", type=click.Path(file_okay=False), callback=not_empty)
@JSON
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
