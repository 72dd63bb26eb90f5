"""The reading commands: runs, show, lineage (registered on ``cli``)."""

from __future__ import annotations

import click

from git_gasp import output
from git_gasp.cli.options import JSON, REPO, emit, repo_root
from git_gasp.core.graph import Graph
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import OK, USAGE, GaspError


def _graph(repo: str | None) -> Graph:
    from git_gasp.restore.folding import fold_repo

    return fold_repo(repo_root(repo)).result.graph


def _known(graph: Graph, node_id: str) -> None:
    if node_id in graph.nodes:
        return
    hint = did_you_mean(node_id, graph.nodes) or (
        "list the node ids with: git gasp fold --graph-out - | jq '.nodes | keys'"
    )
    raise GaspError(f"unknown node: {node_id}", hint, USAGE)


@click.command()
@click.argument("rev_range", metavar="[REV-RANGE]", required=False, default="HEAD")
@REPO
@JSON
def runs(rev_range: str, repo: str | None, as_json: bool) -> int:
    """List the runs in the commit history: commits whose final trailer block has a Run-Id."""
    from git_gasp import git
    from git_gasp.core.runlog import missing_runs, runs_to_text, runs_to_value

    root = repo_root(repo)
    found = git.run_commits(root, rev_range)
    if not found and not as_json:
        output.diag(f"no runs in {rev_range}")
        return OK
    unknown: set[str] = set()
    if found:
        (blob,) = git.blobs_at(root, [f"{found[0].commit}:state/events.jsonl"])
        with git.BlobReader(root) as reader:
            log = reader.read(blob.oid) if blob is not None else b""
        unknown = missing_runs(found, log)
    emit(as_json, runs_to_value(rev_range, found, unknown), runs_to_text(found, unknown))
    return OK


@click.command()
@click.argument("node")
@REPO
@JSON
def show(node: str, repo: str | None, as_json: bool) -> int:
    """Show one node of the folded graph and its incoming and outgoing relations."""
    from git_gasp.core.lineage import show_value, to_markdown

    graph = _graph(repo)
    _known(graph, node)
    if as_json:
        output.data_json(show_value(graph, node))
    else:
        output.data(to_markdown(graph, node))
    return OK


@click.command()
@click.argument("node")
@REPO
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Follow relations at most N hops from NODE (default: no limit).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "dot", "mermaid"]),
    default="text",
    show_default=True,
    help="Output format: text, JSON, a Graphviz digraph or a Mermaid graph.",
)
@JSON
def lineage(node: str, repo: str | None, depth: int | None, fmt: str, as_json: bool) -> int:
    """Show everything NODE is connected to along the graph's relations, both directions."""
    from git_gasp.core import lineage as query

    if as_json and fmt not in ("text", "json"):
        raise click.UsageError(f"--json and --format {fmt} ask for two formats; give one")
    fmt = "json" if as_json else fmt
    graph = _graph(repo)
    _known(graph, node)
    found = query.lineage(graph, node, depth)
    if fmt == "json":
        output.data_json(query.lineage_value(found))
    elif fmt == "dot":
        output.data(query.lineage_dot(found))
    elif fmt == "mermaid":
        output.data(query.lineage_mermaid(found))
    else:
        output.data(query.lineage_text(found))
    return OK


def register(group: click.Group) -> None:
    for command in (runs, show, lineage):
        group.add_command(command)
