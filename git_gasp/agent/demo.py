"""``git gasp demo``: the main job, end to end, on built-in data.

It creates an agent repository, records two runs through the Python API the
way an agent loop would — one whose patch passes its eval and is promoted,
one whose patch fails and is rejected — with tool and model calls, an
observation, a failure, a hypothesis, facts (one superseding another) and a
snapshot, makes one boundary commit per run, runs the seven checks and
reports what is in the repository. The directory is kept for a look around.

The demo only ever writes to its own new repository. When git has no
identity (a fresh machine, CI), its commits are made as
``git-gasp demo <demo@git-gasp.invalid>`` through the process environment;
the user's git configuration is never changed.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import Any, NamedTuple

from git_gasp import git
from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.agent.projecting import add_fact, read_facts, write_snapshot
from git_gasp.agent.runs import close_run
from git_gasp.check.conformance import run_all
from git_gasp.core.graph import Graph
from git_gasp.core.projections import current_facts
from git_gasp.core.report import CheckReport
from git_gasp.errors import USAGE, GaspError
from git_gasp.restore.folding import fold_repo

DEMO_FORMAT = "git-gasp.demo/1"
AGENT_ID = "demo-agent"
WORKER_ID = "demo-worker"
DEMO_NAME = "git-gasp demo"
DEMO_EMAIL = "demo@git-gasp.invalid"
# variables that would point git at another repository than the demo's own
_REDIRECTS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
)


_TRAILERS = ("Run-Id", "Goal", "Outcome")


class RunCommit(NamedTuple):
    """One commit of ``git log``: a run's boundary commit, or another commit."""

    commit: str
    run_id: str | None
    goal: str | None
    outcome: str | None
    subject: str


class DemoResult(NamedTuple):
    directory: str
    identity: str  # the identity the demo's commits were made with
    events: int
    nodes: int
    relations: int
    version: int
    node_kinds: dict[str, int]
    relation_kinds: dict[str, int]
    patches: dict[str, str]  # patch id -> status
    goals: dict[str, str]  # goal id -> status
    titles: dict[str, str]  # goal and patch id -> title
    facts: int  # lines in memory/facts.jsonl
    current_facts: tuple[str, ...]  # the latest fact of each chain
    superseded: dict[str, str]  # superseded fact id -> the fact superseding it
    snapshot: str
    runs: tuple[RunCommit, ...]  # git log, newest first
    checks: tuple[CheckReport, ...]

    @property
    def passed(self) -> bool:
        return len(self.checks) == 7 and all(c.passed for c in self.checks)

    def to_value(self) -> dict[str, Any]:
        """The ``--json`` document (format ``git-gasp.demo/1``)."""
        return {
            "format": DEMO_FORMAT,
            "directory": self.directory,
            "identity": self.identity,
            "events": self.events,
            "nodes": self.nodes,
            "relations": self.relations,
            "version": self.version,
            "node_kinds": self.node_kinds,
            "relation_kinds": self.relation_kinds,
            "goals": self.goals,
            "patches": self.patches,
            "titles": self.titles,
            "facts": {
                "lines": self.facts,
                "current": list(self.current_facts),
                "superseded": self.superseded,
            },
            "snapshot": self.snapshot,
            "commits": [c._asdict() for c in self.runs],
            "conformant": self.passed,
            "checks": [
                {
                    "number": c.number,
                    "name": c.name,
                    "passed": c.passed,
                    "failures": list(c.failures),
                    "notes": list(c.notes),
                }
                for c in self.checks
            ],
        }

    def to_text(self) -> str:
        def counts(kinds: dict[str, int]) -> str:
            return ", ".join(f"{k} {n}" for k, n in kinds.items())

        out = [f"git gasp demo: two agent runs recorded in {self.directory}", ""]
        out.append("what is in the repository")
        out.append(
            f"  events     {self.events} in state/events.jsonl (graph version {self.version})"
        )
        out.append(f"  nodes      {self.nodes}: {counts(self.node_kinds)}")
        out.append(f"  relations  {self.relations}: {counts(self.relation_kinds)}")
        for kind, nodes in (("goal", self.goals), ("patch", self.patches)):
            for node, status in nodes.items():
                out.append(f'  {kind:<10} "{self.titles.get(node, node)}": {status} ({node})')
        superseded = len(self.superseded)
        out.append(
            f"  facts      {self.facts} in memory/facts.jsonl, {len(self.current_facts)} current"
            f" ({superseded} superseded)"
        )
        verified = "verified by check 2" if self.checks[1].passed else "NOT verified"
        out.append(f"  snapshot   {self.snapshot} (the graph after run 1; {verified})")
        out.append("")
        out.append("checks")
        for check in self.checks:
            mark = "PASS" if check.passed else "FAIL"
            out.append(f"  [{mark}] check {check.number} — {check.name}")
            out.extend(f"         {failure}" for failure in check.failures)
        verdict = "conformant: all checks passed" if self.passed else "NOT conformant"
        out.append(f"  {verdict}")
        out.append("")
        out.append(f"git log (newest first; commits by {self.identity})")
        for c in self.runs:
            if c.run_id:
                goal = self.titles.get(c.goal or "", c.goal)
                out.append(f'  {c.commit[:12]}  {c.run_id}  goal "{goal}"  outcome {c.outcome}')
            else:
                out.append(f"  {c.commit[:12]}  {c.subject}")
        out.append("")
        out.append(f"the repository is kept in {self.directory}; look around:")
        out.append(f"  cd {self.directory} && git log && git gasp fold && git gasp check")
        return "\n".join(out) + "\n"


# -- the environment ------------------------------------------------------------------


def _config(directory: str, key: str) -> str | None:
    try:
        value = git.run(directory, ["config", "--get", key]).decode().strip()
    except git.GitError:
        return None
    return value or None


@contextlib.contextmanager
def demo_environment(directory: str) -> Iterator[str]:
    """Scrub repository redirection and, where git has no identity, supply
    the demo's own through the environment, for the duration of the demo.
    Yields the author identity the commits are made with."""
    saved = dict(os.environ)
    try:
        for key in _REDIRECTS:
            os.environ.pop(key, None)
        values = {}
        for role in ("AUTHOR", "COMMITTER"):
            for field, fallback in (("NAME", DEMO_NAME), ("EMAIL", DEMO_EMAIL)):
                key = f"GIT_{role}_{field}"
                value = os.environ.get(key) or _config(directory, f"{role.lower()}.{field.lower()}")
                value = value or _config(directory, f"user.{field.lower()}")
                if not value:
                    os.environ[key] = value = fallback
                values[key] = value
        yield f"{values['GIT_AUTHOR_NAME']} <{values['GIT_AUTHOR_EMAIL']}>"
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _prepare(directory: str | None) -> str:
    if directory is None:
        return tempfile.mkdtemp(prefix="git-gasp-demo-")
    if os.path.lexists(directory) and (not os.path.isdir(directory) or os.listdir(directory)):
        raise GaspError(
            f"{directory}: already exists and is not an empty directory",
            "name a new directory, or run `git gasp demo` without one (a temporary directory)",
            USAGE,
        )
    os.makedirs(directory, exist_ok=True)
    return directory


# -- the job ----------------------------------------------------------------------------


def _record_runs(root: str) -> str:
    """The two runs; returns the snapshot path."""
    with Agent.open(root, worker=WORKER_ID) as agent:
        retry = agent.record_goal(
            None, "Make retry reliable", "the retry skill loses its counter after a timeout"
        )
        latency = agent.record_goal(None, "Cut retry latency", "retries wait too long")

        # run 1: a patch validated by a passing eval, approved and promoted
        agent.start_run("fix the retry skill", goal=retry)
        agent.update_goal_status(retry, "InProgress", "run started")
        agent.record_model_call(
            "demo-model", "why does retry forget its counter?", "the counter lives in memory"
        )
        agent.record_model_finished("demo-model", "suggests persisting the counter")
        agent.record_tool_call("shell", "pytest tests/test_retry.py", "1 failed", success=False)
        agent.record_tool_finished("shell", "1 failed: counter reset after timeout", False)
        broke = _newest(agent, "failure")  # the failed tool's failure, as the adapter records it
        seen = agent.record_observation(
            None, "counter resets after timeout", "the retry counter is 0 after a timeout"
        )
        hypothesis = agent.record_hypothesis(
            None, "the counter is never persisted", "kept in memory only", 0.8, explains=seen
        )
        first = add_fact(agent, "retry counters are kept in memory only", [seen, hypothesis])
        patch = agent.propose_patch(  # addresses the failure: lineage shows the whole arc
            None,
            "persist the retry counter",
            "write it to state on every attempt",
            evidence=[broke, seen],
        )
        agent.link(patch, "advances", retry)
        agent.record_tool_call("shell", "pytest tests/test_retry.py", "3 passed", success=True)
        agent.record_tool_finished("shell", "3 passed", True)
        passed = agent.record_eval(None, "pytest tests/test_retry.py", "Passed", 1.0, patch=patch)
        agent.record_decision(None, "Approved", "eval passed", target=patch)
        agent.update_patch_status(patch, "Promoted", f"validated by {passed}")
        agent.update_goal_status(retry, "Satisfied", f"{patch} promoted")
        add_fact(agent, "retry counters persist across timeouts", [patch, passed], first.id)
        close_run(agent, "promoted", sessions=[f"{AGENT_ID}:demo:session-1"])

        # a snapshot of the graph as of the end of run 1 (committed with run 2)
        snapshot = write_snapshot(root)

        # run 2: a patch that fails its eval, is rejected and set Rejected
        agent.start_run("shorten the retry backoff", goal=latency)
        agent.record_model_call("demo-model", "can retries wait less?", "halve the backoff")
        agent.record_model_finished("demo-model", "proposes halving the backoff")
        cut = agent.propose_patch(None, "halve the retry backoff", "wait 50 ms instead of 100 ms")
        agent.link(cut, "advances", latency)
        agent.record_tool_call("shell", "pytest tests/test_retry.py", "1 failed", success=False)
        agent.record_tool_finished("shell", "1 failed: upstream rate limit hit", False)
        limited = _newest(agent, "failure")
        failed = agent.record_eval(None, "pytest tests/test_retry.py", "Failed", 0.0, patch=cut)
        agent.link(failed, "observes", limited)
        agent.record_decision(None, "Rejected", "eval failed: the upstream rate-limits", target=cut)
        agent.update_patch_status(cut, "Rejected", f"failed {failed}")
        add_fact(agent, "the upstream rate-limits retries faster than 100 ms", [failed])
        close_run(agent, "rejected", sessions=[f"{AGENT_ID}:demo:session-2"], paths=[snapshot])
    return snapshot


def _newest(agent: Agent, kind: str) -> str:
    """The id of the node of ``kind`` recorded last."""
    return [n.id for n in agent.graph.nodes.values() if n.kind == kind][-1]


def _status_of(graph: Graph, kind: str) -> dict[str, str]:
    out = {}
    for node in graph.nodes.values():
        if node.kind == kind:
            status = node.props.get("status") if isinstance(node.props, dict) else None
            out[node.id] = status if isinstance(status, str) else "unknown"
    return out


def _titles(graph: Graph, kinds: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for node in graph.nodes.values():
        title = node.props.get("title") if isinstance(node.props, dict) else None
        if node.kind in kinds and isinstance(title, str):
            out[node.id] = title
    return out


def git_runs(root: str) -> tuple[RunCommit, ...]:
    """``git log`` with each commit's Run-Id, Goal and Outcome trailers."""
    trailers = [f"%(trailers:key={k},valueonly,separator=%x2C)" for k in _TRAILERS]
    fields = ["%H", *trailers, "%s"]
    out = git.run(root, ["log", f"--format={'%x00'.join(fields)}%x1e"]).decode()
    commits = []
    for record in out.split("\x1e"):
        parts = record.strip("\n").split("\x00")
        if len(parts) == 5:
            commit, run_id, goal, outcome, subject = (p.strip() for p in parts)
            commits.append(
                RunCommit(commit, run_id or None, goal or None, outcome or None, subject)
            )
    return tuple(commits)


def run_demo(directory: str | None = None) -> DemoResult:
    """Record the demo's two runs in ``directory`` (default: a new temporary
    directory), check the repository, and describe it."""
    root = _prepare(directory)
    with demo_environment(root) as identity:
        # the demo's repository is its own, even inside another work tree
        git.run(root, ["init", "-q"])
        git.run(root, ["config", "commit.gpgsign", "false"])
        init_repo(root, AGENT_ID, provider="demo", model="demo-model", runtime="git-gasp")
        snapshot = _record_runs(root)
        runs = git_runs(root)
        checks = tuple(run_all(root))
    folded = fold_repo(root)
    summary, graph = folded.to_value(), folded.result.graph
    memory = read_facts(root)
    superseded = {f.supersedes: f.id for f in memory.facts if f.supersedes is not None}
    return DemoResult(
        directory=root,
        identity=identity,
        events=summary["events"],
        nodes=summary["nodes"],
        relations=summary["relations"],
        version=summary["version"],
        node_kinds=summary["node_kinds"],
        relation_kinds=summary["relation_kinds"],
        patches=_status_of(graph, "patch"),
        goals=_status_of(graph, "goal"),
        titles=_titles(graph, ("goal", "patch")),
        facts=len(memory.facts),
        current_facts=tuple(f.text for f in current_facts(memory.facts)),
        superseded=superseded,
        snapshot=snapshot,
        runs=runs,
        checks=checks,
    )
