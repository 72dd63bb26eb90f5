"""The reading commands: runs, show, lineage, nodes."""

from __future__ import annotations

import click

from git_gasp import output
from git_gasp.cli import paging
from git_gasp.cli.options import (
    ANY_REPO,
    JSON,
    REPO,
    agent_repo_root,
    agent_root,
    none_found,
    run_filters,
)
from git_gasp.core.graph import Graph
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import OK, USAGE, GaspError

LIST_HINT = "list them with: git gasp nodes (--kind K, --status S, --grep TEXT)"


def _known(graph: Graph, node_id: str) -> None:
    if node_id in graph.nodes:
        return
    hint = did_you_mean(node_id, graph.nodes) or LIST_HINT
    raise GaspError(f"unknown node: {node_id}", hint, USAGE)


def _tone(outcome: str | None) -> str:
    from git_gasp.core.nodefields import outcome_tone

    return outcome_tone(outcome)


@click.command()
@click.argument("rev_range", metavar="[REV-RANGE]", required=False, default="HEAD")
@ANY_REPO
@run_filters("runs")
@paging.options
@JSON
def runs(
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
    """List the runs in the commit history: commits whose final trailer block has a Run-Id."""
    from git_gasp.core.runlog import missing_runs, runs_to_text, runs_to_value, select_runs
    from git_gasp.git.runhistory import run_commits_dated
    from git_gasp.view.story import work_tree_goal_titles

    root = agent_root(repo)  # a bare repository's history too
    found = run_commits_dated(root, rev_range, since, until)
    titles = work_tree_goal_titles(root) if found else {}
    found = select_runs(found, goal, outcome, limit, titles)
    unknown = missing_runs(found, _tip_logs(root, rev_range)) if found else set()
    if as_json:
        output.data_json(runs_to_value(rev_range, found, unknown))
        return OK
    if not found:
        filters = {"since": since, "until": until, "goal": goal, "outcome": outcome}
        said = none_found("runs", rev_range, {**filters, "max-count": limit})
        output.diag(said + _unclosed(root, rev_range, filters, limit))
        return OK
    with paging.screen(root, color, no_pager) as styled:
        output.data(runs_to_text(found, titles, output.paint, _tone, unknown), styled)
    return OK


@click.command()
@click.argument("node")
@REPO
@paging.options
@JSON
def show(node: str, repo: str | None, color: str | None, no_pager: bool, as_json: bool) -> int:
    """Show one node: its fields, where it was recorded, its relations grouped
    by rel with each neighbour's title and status, and for a run everything
    recorded in it."""
    from git_gasp.core.showing import show_text, show_value
    from git_gasp.view.story import read_story, run_commits

    root = agent_repo_root(repo)
    story = read_story(root)
    if node not in story.graph.nodes:
        return _show_other(root, story.graph, node, color, no_pager, as_json)
    commit = None
    if story.graph.nodes[node].kind == "run":
        closed = run_commits(root).get(node)
        commit = closed.commit if closed else None
    if as_json:
        output.data_json(show_value(story.graph, node, story.provenance, commit))
        return OK
    with paging.screen(root, color, no_pager) as styled:
        text = show_text(story.graph, node, story.provenance, commit, output.paint)
        output.data(text, styled)
    return OK


def _not_a_node(root: str, graph: Graph, node: str, event_kind: str | None = None) -> None:
    """Raise what ``node``, no node of ``graph``, is: an event (of ``event_kind``),
    a memory fact, or nothing known (with a "did you mean")."""
    from git_gasp.view.eventview import is_fact

    if event_kind is not None:
        raise GaspError(
            f"{node}: an event of the log ({event_kind}), not a node of the graph",
            f"see the event and the nodes it touched with: git gasp show {node}",
            USAGE,
        )
    if is_fact(root, node):
        raise GaspError(
            f"{node}: a memory fact (memory/facts.jsonl), not a node of the graph",
            "see the current facts with: git gasp fact list (--json for every field)",
            USAGE,
        )
    _known(graph, node)


def _show_other(
    root: str, graph: Graph, node: str, color: str | None, no_pager: bool, as_json: bool
) -> int:
    """``show`` of an id that is no node: an event of the log is shown; a
    memory fact is named as one, with the command that lists facts."""
    from git_gasp.core.eventshowing import event_text, event_value
    from git_gasp.view.eventview import find_event

    found = find_event(root, node)  # a second pass over the log, only for an id no node has
    if found is None:
        _not_a_node(root, graph, node)  # raises
        return USAGE
    if as_json:
        output.data_json(event_value(found))
        return OK
    with paging.screen(root, color, no_pager) as styled:
        output.data(event_text(found, graph), styled)
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
    "--max-nodes",
    type=click.IntRange(min=1),
    default=40,
    show_default=True,
    metavar="N",
    help="Show at most N nodes, the nearest first.",
)
@click.option(
    "--through-goals",
    is_flag=True,
    help="Walk through goals and tasks too (by default they end the walk).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "dot", "mermaid", "svg"]),
    default="text",
    show_default=True,
    help="Output format: text, JSON, a Graphviz digraph, a Mermaid graph, or SVG (needs dot).",
)
@JSON
def lineage(
    node: str,
    repo: str | None,
    depth: int | None,
    max_nodes: int,
    through_goals: bool,
    fmt: str,
    as_json: bool,
) -> int:
    """Show NODE's story: the nodes it is connected to along the graph's
    relations, both directions, stopping at goals, tasks and runs."""
    from git_gasp.core import lineage as query
    from git_gasp.core import lineagedraw as draw
    from git_gasp.view.story import read_story, run_titles

    if as_json and fmt not in ("text", "json"):
        raise click.UsageError(f"--json and --format {fmt} ask for two formats; give one")
    fmt = "json" if as_json else fmt
    story = read_story(agent_repo_root(repo))
    if node not in story.graph.nodes:
        from git_gasp.view.eventview import find_event

        event = find_event(story.root, node)
        _not_a_node(story.root, story.graph, node, event.event.kind if event else None)
    found = query.lineage(story.graph, node, depth, max_nodes, through_goals)
    runs = {r.id: story.provenance.run_of(r.id) for r in found.nodes}
    titles = run_titles(story.graph, runs.values())
    if fmt == "json":
        output.data_json(draw.lineage_value(found, runs))
    elif fmt == "dot":
        output.data(draw.lineage_dot(found, runs, titles))
    elif fmt == "svg":
        from git_gasp.git.programs import render_dot

        output.data(render_dot(draw.lineage_dot(found, runs, titles)).decode("utf-8", "replace"))
    elif fmt == "mermaid":
        output.data(draw.lineage_mermaid(found, runs, titles))
    else:
        output.data(draw.lineage_text(found))
    for line in query.cut_lines(found) if fmt != "text" else ():
        output.diag(line)
    return OK


@click.command()
@REPO
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    metavar="KIND",
    help="Only nodes of this kind (repeat for several).",
)
@click.option(
    "--status",
    "statuses",
    multiple=True,
    metavar="STATUS",
    help="Only nodes with this status, any case (repeat for several).",
)
@click.option("--grep", metavar="TEXT", help="Only nodes whose id, title or summary holds TEXT.")
@paging.options
@JSON
def nodes(
    repo: str | None,
    kinds: tuple[str, ...],
    statuses: tuple[str, ...],
    grep: str | None,
    color: str | None,
    no_pager: bool,
    as_json: bool,
) -> int:
    """List the folded graph's nodes as a table: id, kind, status, title."""
    from git_gasp.core.nodetable import nodes_text, nodes_value, select_nodes
    from git_gasp.view.story import read_story

    root = agent_repo_root(repo)
    graph = read_story(root).graph
    found = select_nodes(graph, kinds, statuses, grep)
    if as_json:
        output.data_json(nodes_value(found))
        return OK
    if not found:
        output.diag("no nodes match" + _no_such_kind(graph, kinds))
        return OK
    with paging.screen(root, color, no_pager) as styled:
        output.data(nodes_text(found, output.paint), styled)
    return OK


def _no_such_kind(graph: Graph, kinds: tuple[str, ...]) -> str:
    """For ``nodes --kind K`` that matched nothing: the kinds given that no
    node has, with a "did you mean" among those the graph holds (a typo read
    as an empty list)."""
    present = sorted({node.kind for node in graph.nodes.values()})
    absent = [kind for kind in kinds if kind not in present]
    if not absent:
        return ""
    guess = " or ".join(filter(None, (did_you_mean(k, present) for k in absent)))
    listed = ", ".join(present) or "none yet"
    return f": no node has kind {', '.join(absent)} ({guess or 'the kinds here: ' + listed})"


def _unclosed(root: str, rev_range: str, filters: dict[str, str | None], limit: int | None) -> str:
    """What ``runs`` adds to "no runs in REV" when no filter was given and
    the log at the range's tips records runs anyway (a history seeded or
    imported in one commit): that history is not empty."""
    from git_gasp.core.runlog import logged_runs, unclosed_note

    if limit is not None or any(v is not None for v in filters.values()):
        return ""
    try:
        count = len(logged_runs(_tip_logs(root, rev_range)))
    except GaspError:  # a range git cannot name: "no runs" said enough
        return ""
    return unclosed_note(count) if count else ""


def _tip_logs(root: str, rev_range: str) -> bytes:
    """The logs at the range's tips (its revisions that are not ``^``
    exclusions), one after another: a log is append-only, so a tip's holds
    every line of its ancestors', a merge's both sides' too. (Not the newest
    run commit's: a merge made after it brings the other side's runs.)"""
    from git_gasp import git

    listed = git.run(root, ["rev-parse", "--end-of-options", rev_range]).decode()
    tips = [t for t in listed.split() if not t.startswith("^")]
    blobs = git.blobs_at(root, [f"{tip}:state/events.jsonl" for tip in tips])
    with git.BlobReader(root) as reader:
        return b"\n".join(reader.read(b.oid) for b in dict.fromkeys(blobs) if b is not None)
