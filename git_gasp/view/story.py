"""A repository read once for the read side: its log folded into the graph,
with where each node came from (:mod:`git_gasp.core.provenance`), and the
run commits of its history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from git_gasp import git
from git_gasp.core.graph import Graph
from git_gasp.core.provenance import Provenance
from git_gasp.core.runlog import RunCommit


class Story(NamedTuple):
    root: str
    graph: Graph
    provenance: Provenance


def read_story(root: str) -> Story:
    """Fold ``root``'s work-tree log (the errors are :func:`fold_repo`'s)."""
    from git_gasp.restore.folding import fold_repo

    provenance = Provenance()
    summary = fold_repo(root, on_event=provenance.add)
    return Story(root, summary.result.graph, provenance)


def run_commits(root: str) -> dict[str, RunCommit]:
    """Run id -> the newest commit that closed it (empty outside a history)."""
    try:
        found = git.run_commits(root, "HEAD")
    except git.GitError:
        return {}
    commits: dict[str, RunCommit] = {}
    for run in found:  # newest first
        commits.setdefault(run.run_id, run)
    return commits


def goal_titles(graph: Graph) -> dict[str, str]:
    """Goal id -> title, for the goals of ``graph``."""
    titles = {}
    for node in graph.nodes.values():
        title = node.props.get("title") if isinstance(node.props, dict) else None
        if node.kind == "goal" and isinstance(title, str):
            titles[node.id] = title
    return titles


def run_titles(graph: Graph, runs: Iterable[str | None]) -> dict[str, str]:
    """Run id -> its task, for the runs named in ``runs`` that are nodes."""
    titles = {}
    for run in set(runs):
        node = graph.nodes.get(run) if run else None
        task = node.props.get("task") if node and isinstance(node.props, dict) else None
        if run and isinstance(task, str):
            titles[run] = task
    return titles


def work_tree_goal_titles(root: str) -> dict[str, str]:
    """Goal id -> title from ``root``'s work-tree log; none when it cannot be folded
    (a list of runs still reads without titles)."""
    from git_gasp.errors import GaspError

    try:
        return goal_titles(read_story(root).graph)
    except GaspError:
        return {}
