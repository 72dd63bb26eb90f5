"""Judging changes in a real repository with the rules of
:mod:`git_gasp.core.change` and its siblings.

A *step* is one change: a commit against its parents (pre-push, the server's
pre-receive) or the staged index against HEAD (pre-commit). For a list of
steps, parents first, :class:`Judge` applies every rule to each; what it
reads, and how little, is :mod:`git_gasp.hooks.objects`.
"""

import os
from collections.abc import Sequence
from typing import NamedTuple

from git_gasp import git
from git_gasp.core import pathcase
from git_gasp.core.agentfiles import (
    check_control_plane,
    check_identity,
    check_locations,
    check_skill_manifests,
    check_skills,
    check_transcripts,
)
from git_gasp.core.appendedevents import check_events, check_facts
from git_gasp.core.appendonly import Blob
from git_gasp.core.attributes import CHECKOUT_ATTRIBUTES, check_attribute_names, check_attributes
from git_gasp.core.change import (
    APPEND_HINT,
    COMMITTED_APPEND_HINT,
    appended_chunk,
    deletion_finding,
    merge_finding,
    merged_lines_not_in,
)
from git_gasp.core.commitmessage import trailer_findings
from git_gasp.core.event import Event
from git_gasp.core.finding import Finding, Judged, Step
from git_gasp.core.logcontext import LogContext, context_of, physical_lines
from git_gasp.core.manifest import identity_hash
from git_gasp.hooks.commitmsg import LOG_PATH, ends_a_run, note_no_run_end
from git_gasp.hooks.objects import DEFAULTS, Locations, Objects, skills_of, spec, wanted_specs
from git_gasp.hooks.steps import Policy, policy_of, without_line_breaks


def _committed(finding: Finding) -> Finding:
    """A commit's finding, with the hint that works once it is committed."""
    if finding.hint == APPEND_HINT:
        return finding._replace(hint=COMMITTED_APPEND_HINT)
    return finding


class _Tally(NamedTuple):
    """What the next append to a facts file or journal needs of a version."""

    lines: int
    terminated: bool  # ends with a newline (or is empty)
    fact_ids: frozenset[str]


class Judge(Objects):
    """Judges steps with the objects of one walk."""

    def __init__(
        self, repo: str, policy: Policy, reader: git.BlobReader, info: git.RepoInfo | None = None
    ) -> None:
        super().__init__(repo, reader, info)
        self.policy = policy
        self.tallies: dict[str, _Tally] = {}
        #: (staged log, HEAD's log or "-"), when the index appends no run.finished
        self.no_run_end: tuple[str, str] | None = None

    # -- the walk ------------------------------------------------------------------

    def run(self, steps: Sequence[Step]) -> list[Judged]:
        out, steps = without_line_breaks(steps)
        self.read_ahead(steps)
        # one look-up of what every step needs whatever its manifests declare
        # (AGENT.md among it); a second only for the logs a manifest adds,
        # usually none, and then no process at all
        self._lookup({s for step in steps for s in wanted_specs(step, DEFAULTS)})
        index = any(not s.name for s in steps)  # its files are usually on disk too
        top = os.path.join(self.repo, *[".."] * self.prefix.count("/"))
        if index and (manifest := self.blob("", "AGENT.md")) is not None:
            self.seed_from_worktree(top, "AGENT.md", manifest)  # often no cat-file at all
        self._lookup({s for step in steps for s in wanted_specs(step, self._step_locations(step))})
        for step in steps if index else ():
            for path in step.paths & self._step_locations(step).logs:
                blob = self.blob(step.name, path)
                if blob is not None:
                    self.seed_from_worktree(top, path, blob)
        self._prepare_anchors(steps)
        self.read_commits([s.name for s in steps])
        for step in steps:
            out += [Judged(step.name, _committed(f) if step.name else f) for f in self._judge(step)]
        return out

    def _judge(self, step: Step) -> list[Finding]:
        locations = self._step_locations(step)
        own = {p for p in step.paths if self._differs_from_all(step, p)}
        present = [p for p in own if self.blob(step.name, p) is not None]
        out = check_control_plane(present)
        if not self.policy.commit_transcripts:
            out += check_transcripts(present)
        appended: list[Event] = []
        log_paths = sorted(p for p in step.paths if p in locations.logs)
        for path in log_paths:
            findings, events = self._log(step, path)
            out += findings
            appended += events
        for path in sorted(step.paths):
            if locations.append_only(path) and path not in locations.logs:
                out += self._other(step, path, locations)
        if step.name:
            out += self._trailers(step, appended)
        # identity is judged against the first parent, the branch merged into:
        # a merge that takes another branch's identity must bring its decision
        mainline = {p for p in step.paths if self._differs_from_first(step, p)}
        identity_changed = any(p == "IDENTITY.md" or p.startswith("identity/") for p in mainline)
        if identity_changed or "AGENT.md" in mainline:
            log_path = (log_paths or sorted(locations.logs))[0]
            brought = appended if len(step.parents) <= 1 else self._brought(step, log_path)
            out += self._identity(step, identity_changed, brought, log_path)
        skill_paths = [p for p in own if p.startswith("skills/")]
        if skill_paths:
            out += self._skill_findings(step, skill_paths)
        for path in sorted(own):
            parts = path.split("/")
            if len(parts) == 3 and parts[0] == "snapshots" and parts[2] == "graph.json":
                out += self._snapshot(step, path, locations)
        return out + self._checkout(step, locations) + self._case(step, present, locations)

    def _case(self, step: Step, present: list[str], locations: Locations) -> list[Finding]:
        """Added paths that spell an agent file in other capitals, or collide
        in case with a path already in an agent's folder (:mod:`git_gasp.core.pathcase`)."""
        added = [p for p in present if all(self.blob(r, p) is None for r in step.parents)]
        if not added:
            return []
        declared = [*locations.logs, *locations.facts, *locations.journals]
        out = pathcase.misspelled(added, pathcase.agent_spellings(declared))
        tops = sorted({p.split("/")[0] for p in added} & set(pathcase.AGENT_NAMES))
        if tops and not out:
            tree = [path for path, _ in git.tree_files(self.repo, step.name or None, tops)]
            out += pathcase.collisions(added, tree)
        return out

    def _trailers(self, step: Step, appended: list[Event]) -> list[Finding]:
        """A commit's trailers (the index's are commit-msg's to judge); a
        merge brings in runs its other parent closed: its session trailers
        alone are judged."""
        message = self.message(step.name)
        merge = len(step.parents) > 1
        low = message.lower()
        if (appended and not merge) or "session" in low or "agent-logs-url" in low:
            return trailer_findings(message, [] if merge else appended, "commit message")
        return []

    def _skill_findings(self, step: Step, skill_paths: list[str]) -> list[Finding]:
        """The skills a step changes: one at a time (or one renamed), each
        with valid frontmatter, none left with files but no SKILL.md."""
        files = {
            p: self.read(b.oid)
            for p in skill_paths
            if p.endswith("/SKILL.md") and (b := self.blob(step.name, p)) is not None
        }
        from git_gasp.core.skill import skills_changed_together  # ruamel.yaml: when needed

        together = skills_changed_together(skill_paths)
        renamed = len(together) == 2 and self._renamed(step, together[0], together[1])
        out = check_skills(skill_paths, files, renamed)
        out += check_skill_manifests(
            name
            for name in skills_of(skill_paths)
            if self.blob(step.name, f"skills/{name}/SKILL.md") is None
            and self._skill_left(step, name, skill_paths)
        )
        return out

    def _checkout(self, step: Step, locations: Locations) -> list[Finding]:
        """What decides an append-only file's checkout: any .gitattributes,
        the manifest's Locations table (which files are append-only), and an
        append-only file arriving under attributes already there."""
        attributes = sorted(
            p for p in step.paths if p.rsplit("/", 1)[-1].lower() == ".gitattributes"
        )
        out = check_attribute_names(p for p in attributes if self.blob(step.name, p))
        parent = step.parents[0] if step.parents else None
        arriving = sorted(
            p
            for p in step.paths
            if locations.append_only(p)
            and self.blob(step.name, p) is not None
            and (parent is None or self.blob(parent, p) is None)
        )
        manifest = ["AGENT.md"] if "AGENT.md" in step.paths else []
        sources = [*attributes, *manifest, *arriving]  # the finding names the first
        if sources:
            out += self._attributes(step, sources[0])
        return out

    def _attributes(self, step: Step, source: str) -> list[Finding]:
        """What the change does to the append-only files' checkout, against
        the first parent (local attribute files weigh on both sides alike);
        a file that becomes append-only here is judged as new."""
        now = self._locations_of(step.name)
        names, facts = CHECKOUT_ATTRIBUTES, "facts.jsonl"
        files = sorted(now.logs | now.facts | now.journals)
        after = git.attribute_views(self.repo, step.name or None, files, names, facts)
        parent = step.parents[0] if step.parents else None
        if parent is None:
            return check_attributes(source, (), after)
        was = self._locations_of(parent)
        old = sorted(was.logs | was.facts | was.journals)
        before = git.attribute_views(self.repo, parent, old, names, facts)
        kept = [{p: a for p, a in view.items() if was.append_only(p)} for view in before]
        every = sorted({p for view in after for p in view})
        there = git.object_info(self.repo, [spec(step.name, p) for p in every])
        present = {p for p, info in zip(every, there, strict=True) if info is not None}
        return check_attributes(source, kept, after, present)

    # -- append-only files ---------------------------------------------------------

    def _appended(
        self, step: Step, path: str, jsonl: bool
    ) -> tuple[list[Finding], bytes | None, Blob | bytes | None]:
        """Findings on the append-only rule, the appended bytes (None when the
        file is unchanged or the rule failed) and what they were appended to:
        the parent's blob, the merge base's bytes, or None for a new file."""
        child = self.blob(step.name, path)
        parents = [self.blob(p, path) for p in step.parents]
        present = [p for p in parents if p is not None]
        if child is None:
            return ([deletion_finding(path)] if present else []), None, None
        if not present:
            return [], bytes(self._view(path, child)), None
        if all(p.oid == child.oid for p in present):
            return [], None, None
        if len(parents) == 1:
            parent = present[0]
            anchors = self.anchors.get(path)
            view = self._view(path, child)
            if anchors is None or not self._known_prefix(anchors, parent, child):
                before = bytes(self._view(path, parent))
                findings, chunk = appended_chunk(path, before, bytes(view), jsonl)
            elif parent.size and view[parent.size - 1] != 0x0A:
                before = bytes(view[: parent.size])
                findings, chunk = appended_chunk(path, before, bytes(view), jsonl)
            else:  # known to be a clean prefix: no need to read it
                findings, chunk = [], bytes(view[parent.size :])
            return findings, chunk, (parent if chunk is not None else None)
        contents = [bytes(self._view(path, p)) if p is not None else None for p in parents]
        merged = bytes(self._view(path, child))
        finding = merge_finding(path, contents, merged, step.parents)
        if finding is not None:
            return [finding], None, None
        first = next(i for i, p in enumerate(parents) if p is not None)
        data = contents[first]
        assert data is not None
        return [], merged_lines_not_in(data, merged), parents[first]

    def _log(self, step: Step, path: str) -> tuple[list[Finding], list[Event]]:
        findings, chunk, base = self._appended(step, path, jsonl=True)
        child = self.blob(step.name, path)
        if chunk is None or child is None:
            return findings, []
        if base is None:
            context = LogContext()
        elif isinstance(base, bytes):
            context = context_of(base)
        else:
            context = self._take_context(path, base)
        first = context.lines + 1
        findings += self.appended_lines(path, child, chunk, first, self.policy.max_line_bytes, True)
        judged = check_events(path, context, chunk, self._packs_of(step.name))
        findings += judged.findings
        context.extend(judged.events, physical_lines(chunk))
        self.contexts[child.oid] = context
        if not step.name and path == LOG_PATH and not isinstance(base, bytes):
            if not ends_a_run(chunk):
                self.no_run_end = (child.oid, base.oid if base is not None else "-")
        findings.sort(key=lambda f: f.line or 0)
        return findings, list(judged.events)

    def _other(self, step: Step, path: str, locations: Locations) -> list[Finding]:
        from git_gasp.core.projections import parse_facts

        jsonl = path.endswith(".jsonl")
        findings, chunk, base = self._appended(step, path, jsonl)
        child = self.blob(step.name, path)
        if chunk is None or child is None:
            return findings
        # only facts files are held to the fact envelope (see below): the
        # fact ids of a journal or of another file a manifest names go unused
        facts = path not in locations.journals and path.rsplit("/", 1)[-1] == "facts.jsonl"

        def ids_in(data: bytes) -> frozenset[str]:
            if not facts:
                return frozenset()
            return frozenset(f.id for f in parse_facts(data.decode("utf-8", "replace")).facts)

        tally = self.tallies.get(f"{facts:d}{base.oid}") if isinstance(base, Blob) else None
        if tally is None:
            before = bytes(self._view(path, base)) if isinstance(base, Blob) else base or b""
            tally = _Tally(
                physical_lines(before), not before or before.endswith(b"\n"), ids_in(before)
            )
        first = tally.lines + 1 if tally.terminated else tally.lines
        findings += self.appended_lines(
            path, child, chunk, first, self.policy.max_line_bytes, jsonl
        )
        self.tallies[f"{facts:d}{child.oid}"] = _Tally(
            first - 1 + physical_lines(chunk), chunk.endswith(b"\n"), tally.fact_ids | ids_in(chunk)
        )
        if not facts:
            # a journal, or another append-only file a manifest names as facts
            # (yoyo's memory/social_facts.jsonl keeps a format of its own):
            # append-only, not held to the fact envelope (REFERENCE §9.5)
            return findings
        logs = [(p, b) for p in sorted(locations.logs) if (b := self.blob(step.name, p))]
        contexts = [self.context(p, b) for p, b in logs]

        def known(ref: str) -> bool:
            return any(ref in c.kinds or ref in c.nodes for c in contexts)

        return findings + check_facts(path, chunk, first, set(tally.fact_ids), known)

    # -- identity and snapshots ----------------------------------------------------

    def _identity(
        self, step: Step, changed: bool, appended: list[Event], log_path: str
    ) -> list[Finding]:
        main = self._mainline(step)
        before = self.blob(main, "AGENT.md") if main is not None else None
        after = self.blob(step.name, "AGENT.md")
        digest = None
        if changed:
            rev = step.name or None
            files = git.tree_files(self.repo, rev, ["identity"])
            if not files:
                files = git.tree_files(self.repo, rev, ["IDENTITY.md"])
            digest = identity_hash((p, self.read(oid)) for p, oid in files) if files else None
        manifest_before = self.read(before.oid) if before else None
        manifest_after = self.read(after.oid) if after else None
        findings = check_identity(
            changed, manifest_before, manifest_after, digest, appended, log_path
        )
        return findings + check_locations(manifest_before, manifest_after, appended, log_path)

    def _snapshot(self, step: Step, path: str, locations: Locations) -> list[Finding]:
        from git_gasp.core.fold import FoldError, fold
        from git_gasp.core.log import parse_log
        from git_gasp.core.repochecks import SnapshotFile, check_replay

        snap = self.blob(step.name, path)
        log_path = sorted(locations.logs)[0]
        log = self.blob(step.name, log_path)
        if snap is None:
            return []
        raw = bytes(self._view(log_path, log)) if log is not None else b""
        parsed = parse_log(raw)
        try:
            outcome: object = fold(parsed.events)
        except FoldError as exc:
            outcome = exc
        name = path.split("/")[1]
        report = check_replay(
            parsed.events,
            raw,
            outcome,  # type: ignore[arg-type]
            [SnapshotFile(name, self.read(snap.oid))],
        )
        return [
            Finding(path, None, "snapshot", failure, "write snapshots with: git gasp snapshot")
            for failure in report.failures
        ]


def judge(
    repo: str,
    steps: Sequence[Step],
    policy: Policy | None = None,
    info: git.RepoInfo | None = None,
) -> list[Judged]:
    """Judge ``steps`` (parents first); findings in step order. When all
    pass, the log contexts of the last step are cached for the next check.
    ``info``: :func:`git.repo_info`, when the caller has it."""
    if not steps:
        return []
    with git.BlobReader(repo) as reader:
        judge_ = Judge(repo, policy or policy_of(repo), reader, info)
        try:
            found = judge_.run(steps)
        finally:
            judge_.close()
        if not found:
            judge_.save_contexts(judge_.log_blobs(steps[-1].name))
        if judge_.no_run_end is not None and judge_.git_dir:
            note_no_run_end(judge_.git_dir, *judge_.no_run_end)
        return found
