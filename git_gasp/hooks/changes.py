"""Judging changes in a real repository with :mod:`git_gasp.core.change`.

A *step* is one change: a commit against its parents (pre-push, the server's
pre-receive) or the staged index against HEAD (pre-commit). For a list of
steps, parents first, this module asks git what each changes (one
``diff-tree --stdin``), which objects those paths hold before and after (two
``cat-file --batch-check`` calls), and reads only the blobs it must through
one ``cat-file --batch``. It works inside a pre-receive quarantine because
git inherits ``GIT_OBJECT_DIRECTORY`` and ``GIT_ALTERNATE_OBJECT_DIRECTORIES``.

Its cost follows the change, not history:

* every version of an append-only file in a run of steps that is a prefix of
  the newest one is recognised by hashing that prefix (no read), and the
  appended bytes are slices of the newest;
* the context of the log before a step (ids, kinds, entities, nodes) is the
  context after its parent step, extended in place; for a parent outside the
  walk it is loaded from ``<git-common-dir>/gasp/contexts-v1/<blob-id>.json``
  (written after a check, keyed by content so it can never go stale) or built
  by parsing that version once.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from git_gasp import git
from git_gasp.core.agentfiles import (
    check_control_plane,
    check_identity,
    check_locations,
    check_skill_manifests,
    check_skills,
    check_transcripts,
)
from git_gasp.core.appendedevents import check_events, check_facts
from git_gasp.core.appendonly import Anchors, Blob
from git_gasp.core.attributes import CHECKOUT_ATTRIBUTES, check_attribute_names, check_attributes
from git_gasp.core.change import (
    DEFAULT_MAX_LINE_BYTES,
    appended_chunk,
    check_lines,
    deletion_finding,
    merge_finding,
)
from git_gasp.core.commitmessage import trailer_findings
from git_gasp.core.event import Event
from git_gasp.core.finding import Finding
from git_gasp.core.locations import DEFAULT_LOCATIONS, parse_locations
from git_gasp.core.logcontext import LogContext, context_of, physical_lines
from git_gasp.core.manifest import identity_hash
from git_gasp.core.pack import Pack, PackError, parse_pack

CONTEXTS_DIR = "contexts-v1"
_KEEP_CONTEXTS = 8
JOURNALS = ("journal/JOURNAL.md", "JOURNAL.md")


class Step(NamedTuple):
    name: str  # a commit id, or "" for the staged index
    parents: tuple[str, ...]
    paths: frozenset[str]  # the paths it changes against any parent


class Judged(NamedTuple):
    step: str  # the step's name
    finding: Finding


class Policy(NamedTuple):
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    commit_transcripts: bool = False  # git config gasp.commitTranscripts


def policy_of(repo: str) -> Policy:
    """The repository's policy: ``git config gasp.maxLineBytes``."""
    transcripts = git.config_value(repo, "gasp.commitTranscripts", "bool") == "true"
    return Policy(max_line_bytes(repo), transcripts)


def max_line_bytes(repo: str) -> int:
    """The line-size cap: ``git config gasp.maxLineBytes`` (0 or less, or
    unset: the default)."""
    raw = git.config_value(repo, "gasp.maxLineBytes", "int")
    if raw is None:
        return DEFAULT_MAX_LINE_BYTES
    try:
        cap = int(raw)
    except ValueError:
        raise git.GitError(
            f"gasp.maxLineBytes is not a number ({raw!r})",
            "set it to a size in bytes: git config gasp.maxLineBytes 1048576",
        ) from None
    return cap if cap > 0 else DEFAULT_MAX_LINE_BYTES


def commit_steps(repo: str, commits: Sequence[tuple[str, tuple[str, ...]]]) -> list[Step]:
    """One step per commit, with the paths it changes (from one diff-tree)."""
    changed = git.changed_paths(repo, commits)
    return [Step(c, parents, frozenset(changed.get(c, ()))) for c, parents in commits]


def index_step(repo: str) -> Step:
    """The staged index as a step: against HEAD, and while a merge is being
    committed (``git merge --no-commit``, a resolved conflict) against every
    parent the merge commit will have, as a merge commit is judged."""
    head, merging = git.head_and_merging(repo)
    if head is None:
        return Step("", (), frozenset(git.staged_paths(repo, None)))
    paths = git.staged_paths(repo, head)
    for other in merging:
        paths |= git.staged_paths(repo, other)
    return Step("", (head, *merging), frozenset(paths))


def nested_agents(paths: Iterable[str]) -> list[str]:
    """Directories below the top that ``paths`` show to hold an agent (an
    ``AGENT.md`` or a ``state/events.jsonl`` of their own): the rules judge
    the repository's top as the agent, so these are not judged."""
    found = set()
    for path in paths:
        for marker in ("/AGENT.md", "/state/events.jsonl"):
            if path.endswith(marker) and len(path) > len(marker):
                found.add(path[: -len(marker)])
    return sorted(found)


def nested_warning(paths: Iterable[str]) -> str | None:
    """The one warning line for :func:`nested_agents`, if any."""
    nested = nested_agents(paths)
    if not nested:
        return None
    shown = ", ".join(f"{d}/" for d in nested[:3]) + (" ..." if len(nested) > 3 else "")
    command = shlex.quote(nested[0])
    text = (
        f"gasp: warning: {shown} looks like an agent in a subdirectory; the hooks judge the "
        f"repository's top as the agent, not it (check it with: git gasp check {command})"
    )
    return text.replace("\n", "\\n").replace("\r", "\\r")


def _skills(paths: Iterable[str]) -> set[str]:
    """The skills ``paths`` lie in (``skills/<name>/...``)."""
    return {parts[1] for p in paths if len(parts := p.split("/")) >= 3 and parts[0] == "skills"}


def _spec(rev: str, path: str) -> str:
    return f"{rev}:{path}" if rev else f":{path}"


class Locations(NamedTuple):
    """The append-only files of a tree: defaults, every ``facts.jsonl``, and
    what its ``AGENT.md`` Locations table declares."""

    logs: frozenset[str]
    facts: frozenset[str]
    journals: frozenset[str]

    @classmethod
    def from_manifest(cls, text: str) -> Locations:
        """The defaults plus what the manifest ``text`` declares ("" for none)."""
        table, _ = parse_locations(text)
        return cls(
            frozenset(table["log"]) | _DEFAULT.logs,
            frozenset(table["facts"]) | _DEFAULT.facts,
            frozenset(table["journal"]) | _DEFAULT.journals,
        )

    def append_only(self, path: str) -> bool:
        return (
            path in self.logs
            or path in self.facts
            or path in self.journals
            or path == "facts.jsonl"
            or path.endswith("/facts.jsonl")
        )


_DEFAULT = Locations(
    frozenset(DEFAULT_LOCATIONS["log"]),
    frozenset(DEFAULT_LOCATIONS["facts"]),
    frozenset(JOURNALS),
)


class _Tally(NamedTuple):
    """What the next append to a facts file or journal needs of a version."""

    lines: int
    terminated: bool  # ends with a newline (or is empty)
    fact_ids: frozenset[str]


class Judge:
    """Judges steps; holds the blob reader, anchors and log contexts of one walk."""

    def __init__(self, repo: str, policy: Policy, reader: git.BlobReader) -> None:
        self.repo = repo
        self.policy = policy
        self.reader = reader
        info = git.repo_info(repo)
        self.common_dir = info.common_dir
        self.prefix = info.prefix
        self.hash_name = info.object_format
        self.info: dict[str, Blob | None] = {}
        self.trees: dict[str, str | None] = {}
        self.blobs: dict[str, bytes] = {}
        self.anchors: dict[str, Anchors] = {}
        self.contexts: dict[str, LogContext] = {}
        self.uses: dict[str, int] = {}
        self.packs: dict[str | None, list[Pack]] = {None: []}
        self.locations: dict[str | None, Locations] = {None: _DEFAULT}
        self.tallies: dict[str, _Tally] = {}

    # -- reading -------------------------------------------------------------------

    def seed_from_worktree(self, root: str, path: str, blob: Blob) -> None:
        """Use the work tree's copy of a staged file when it is byte-identical
        (its blob id matches): reading a file is cheaper than inflating a blob."""
        from git_gasp.core.appendonly import blob_id

        try:
            with open(os.path.join(root, path), "rb") as fh:
                data = fh.read(blob.size + 1)
        except OSError:
            return
        if len(data) == blob.size and blob_id(data, blob.size, self.hash_name) == blob.oid:
            self.blobs[blob.oid] = data

    def message(self, commit: str) -> str:
        """A commit's message (after the header lines of the commit object)."""
        raw = self.reader.read(commit)
        _, _, body = raw.partition(b"\n\n")
        return body.decode("utf-8", "replace")

    def read(self, oid: str) -> bytes:
        data = self.blobs.get(oid)
        if data is None:
            data = self.reader.read(oid)
            self.blobs[oid] = data
        return data

    def _lookup(self, specs: set[str]) -> None:
        todo = sorted(s for s in specs if s not in self.info)
        for spec, obj in zip(todo, git.object_info(self.repo, todo), strict=True):
            self.info[spec] = Blob(obj.oid, obj.size) if obj and obj.type == "blob" else None
            if obj is not None and obj.type == "tree":
                self.trees[spec] = obj.oid

    def blob(self, rev: str, path: str) -> Blob | None:
        return self.info.get(_spec(rev, path))

    def _locations_of(self, rev: str) -> Locations:
        manifest = self.blob(rev, "AGENT.md")
        key = manifest.oid if manifest else None
        found = self.locations.get(key)
        if found is None:
            text = self.read(manifest.oid).decode("utf-8", "replace") if manifest else ""
            found = self.locations[key] = Locations.from_manifest(text)
        return found

    def _step_locations(self, step: Step) -> Locations:
        """The append-only paths of a step: those its own AGENT.md declares and
        those its parents' declared (dropping a declaration frees nothing)."""
        found = self._locations_of(step.name)
        for parent in step.parents:
            other = self._locations_of(parent)
            found = Locations(
                found.logs | other.logs, found.facts | other.facts, found.journals | other.journals
            )
        return found

    def _packs_of(self, rev: str) -> list[Pack]:
        tree = self.trees.get(_spec(rev, ".agent/packs"))
        found = self.packs.get(tree)
        if found is None:
            found = []
            listing = git.run(self.repo, ["ls-tree", "-z", tree or ""]).decode("utf-8", "replace")
            for item in sorted(listing.split("\0")):
                meta, _, name = item.partition("\t")
                if not name.endswith(".json") or name == ".json" or " blob " not in meta:
                    continue
                try:
                    found.append(parse_pack(self.read(meta.split(" ")[2]).decode("utf-8")))
                except (PackError, UnicodeDecodeError):
                    pass  # a bad pack is check 3's finding; its vocabulary declares nothing
            self.packs[tree] = found
        return found

    # -- the walk ------------------------------------------------------------------

    def run(self, steps: Sequence[Step]) -> list[Judged]:
        out: list[Judged] = []
        odd = [(s.name, p) for s in steps for p in s.paths if "\n" in p or "\r" in p]
        for name, path in odd:
            finding = Finding(
                repr(path)[1:-1],
                None,
                "path",
                "a path name contains a line break",
                "rename it: such a path cannot be judged safely, so it is refused",
            )
            out.append(Judged(name, finding))
        if odd:
            steps = [
                s._replace(paths=frozenset(p for p in s.paths if "\n" not in p and "\r" not in p))
                for s in steps
            ]
        self._lookup({_spec(r, "AGENT.md") for s in steps for r in (s.name, *s.parents)})
        wanted: set[str] = set()
        for step in steps:
            locations = self._step_locations(step)
            paths = set(step.paths) | set(locations.logs) | {"AGENT.md", ".agent/packs"}
            wanted |= {_spec(r, p) for r in (step.name, *step.parents) for p in paths}
            wanted |= {_spec(step.name, f"skills/{n}/SKILL.md") for n in _skills(step.paths)}
        self._lookup(wanted)
        if any(not s.name for s in steps):  # the index: its files are usually on disk too
            top = os.path.join(self.repo, *[".."] * self.prefix.count("/"))
            for step in steps:
                for path in step.paths & self._step_locations(step).logs:
                    blob = self.blob(step.name, path)
                    if blob is not None:
                        self.seed_from_worktree(top, path, blob)
        self._prepare_anchors(steps)
        for step in steps:
            out += [Judged(step.name, f) for f in self._judge(step)]
        return out

    def _skill_left(self, step: Step, name: str, touched: Sequence[str]) -> bool:
        """Whether skill ``name`` still has files after ``step``: one it
        touched is there, or (its SKILL.md deleted) any other file is."""
        mine = [p for p in touched if p.split("/")[1] == name]
        if any(self.blob(step.name, p) for p in mine):
            return True
        if f"skills/{name}/SKILL.md" not in mine:
            return False
        return bool(git.tree_files(self.repo, step.name or None, [f"skills/{name}/"]))

    def _renamed(self, step: Step, a: str, b: str) -> bool:
        """Whether skill ``a`` became skill ``b`` in ``step`` (or ``b`` became
        ``a``): one of them gone, the other new, the same files otherwise."""
        from git_gasp.core.skill import SKILLS_DIR, is_rename, skill_of

        if len(step.parents) != 1:
            return False
        spec = [f"{SKILLS_DIR}/{a}", f"{SKILLS_DIR}/{b}"]

        def by_skill(rev: str | None) -> dict[str, dict[str, str]]:
            found: dict[str, dict[str, str]] = {a: {}, b: {}}
            for path, oid in git.tree_files(self.repo, rev, spec):
                name = skill_of(path)
                if name in found:
                    found[name][path.split("/", 2)[2]] = oid
            return found

        before, after = by_skill(step.parents[0]), by_skill(step.name or None)
        for old, new in ((a, b), (b, a)):
            if not after[old] and not before[new]:
                return is_rename(before[old], after[new], self.read)
        return False

    def _prepare_anchors(self, steps: Sequence[Step]) -> None:
        """Per append-only path, the newest version read once and every other
        version that is a prefix of it recognised by hashing."""
        versions: dict[str, list[Blob]] = {}
        for step in steps:
            locations = self._step_locations(step)
            for path in step.paths:
                if not locations.append_only(path):
                    continue
                for rev in (*step.parents, step.name):
                    blob = self.blob(rev, path)
                    if blob is not None:
                        versions.setdefault(path, []).append(blob)
                parent = self.blob(step.parents[0], path) if len(step.parents) == 1 else None
                if parent is not None and path in locations.logs:
                    self.uses[parent.oid] = self.uses.get(parent.oid, 0) + 1
        for path, blobs in versions.items():
            # bytes only: every appended line's UTF-8 is judged by check_lines
            anchors = self.anchors[path] = Anchors(self.read, self.hash_name, lossy_utf8=False)
            newest = blobs[-1]
            first = anchors.anchor(newest)
            if first is not None:
                anchors.test_many(blobs, first)

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
            # a commit's trailers (the index's are commit-msg's to judge); a
            # merge brings in runs its other parent closed: its session
            # trailers alone are judged
            message = self.message(step.name)
            merge = len(step.parents) > 1
            low = message.lower()
            if (appended and not merge) or "session" in low or "agent-logs-url" in low:
                out += trailer_findings(message, [] if merge else appended, "commit message")
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
            files = {
                p: self.read(b.oid)
                for p in skill_paths
                if p.endswith("/SKILL.md") and (b := self.blob(step.name, p)) is not None
            }
            from git_gasp.core.skill import skills_changed_together  # ruamel.yaml: when needed

            together = skills_changed_together(skill_paths)
            renamed = len(together) == 2 and self._renamed(step, together[0], together[1])
            out += check_skills(skill_paths, files, renamed)
            out += check_skill_manifests(
                name
                for name in _skills(skill_paths)
                if self.blob(step.name, f"skills/{name}/SKILL.md") is None
                and self._skill_left(step, name, skill_paths)
            )
        for path in sorted(own):
            parts = path.split("/")
            if len(parts) == 3 and parts[0] == "snapshots" and parts[2] == "graph.json":
                out += self._snapshot(step, path, locations)
        # what decides an append-only file's checkout: any .gitattributes, the
        # manifest's Locations table (which files are append-only), and an
        # append-only file arriving under attributes already there
        attributes = sorted(
            p for p in step.paths if p.rsplit("/", 1)[-1].lower() == ".gitattributes"
        )
        out += check_attribute_names(p for p in attributes if self.blob(step.name, p))
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
        return check_attributes(source, kept, after)

    def _mainline(self, step: Step) -> str | None:
        """The parent a change is judged against for identity: the first that
        is an agent (has AGENT.md), else the first parent."""
        for parent in step.parents:
            if self.blob(parent, "AGENT.md") is not None:
                return parent
        return step.parents[0] if step.parents else None

    def _differs_from_first(self, step: Step, path: str) -> bool:
        main = self._mainline(step)
        return main is None or self.blob(main, path) != self.blob(step.name, path)

    def _brought(self, step: Step, log_path: str) -> list[Event]:
        """The events a merge adds to its mainline parent's log (none when
        that log is not a prefix of the merged one: the merge rule refuses it)."""
        from git_gasp.core.log import parse_log

        child = self.blob(step.name, log_path)
        main = self._mainline(step)
        if child is None or main is None:
            return []
        merged = bytes(self._view(log_path, child))
        first = self.blob(main, log_path)
        before = bytes(self._view(log_path, first)) if first is not None else b""
        if not merged.startswith(before):
            return []
        return list(parse_log(merged[len(before) :]).events)

    def _differs_from_all(self, step: Step, path: str) -> bool:
        child = self.blob(step.name, path)
        return all(self.blob(p, path) != child for p in step.parents) or not step.parents

    # -- append-only files ---------------------------------------------------------

    def _view(self, path: str, blob: Blob) -> memoryview:
        anchors = self.anchors.get(path)
        if anchors is not None:
            anchor = anchors.prefix_of.get(blob.oid)
            if anchor is not None:
                return memoryview(anchors.data[anchor])[: blob.size]
        return memoryview(self.read(blob.oid))

    @staticmethod
    def _known_prefix(anchors: Anchors, parent: Blob, child: Blob) -> bool:
        """``parent`` is a clean prefix of ``child``: known already, or shown by
        hashing the child's anchor up to the parent's size (no read of it)."""
        if anchors.same_line(parent, child):
            return True
        anchor = anchors.anchor(child)
        if anchor is None or parent.size > child.size:
            return False
        return anchors.test(parent, anchor)

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
        return [], merged[len(data) :], parents[first]

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
        findings += check_lines(path, chunk, first, self.policy.max_line_bytes, jsonl=True)
        judged = check_events(path, context, chunk, self._packs_of(step.name))
        findings += judged.findings
        context.extend(judged.events, physical_lines(chunk))
        self.contexts[child.oid] = context
        findings.sort(key=lambda f: f.line or 0)
        return findings, list(judged.events)

    def _take_context(self, path: str, blob: Blob) -> LogContext:
        """The context of ``blob``, to extend: taken over when no later step
        needs it, else a copy."""
        uses = self.uses.get(blob.oid, 0)
        self.uses[blob.oid] = uses - 1
        context = self.context(path, blob)
        if uses > 1:
            return context.fork()
        self.contexts.pop(blob.oid, None)
        return context

    def context(self, path: str, blob: Blob) -> LogContext:
        found = self.contexts.get(blob.oid)
        if found is None:
            found = load_context(self.common_dir, blob.oid)
            if found is None:
                found = context_of(bytes(self._view(path, blob)))
            self.contexts[blob.oid] = found
        return found

    def _other(self, step: Step, path: str, locations: Locations) -> list[Finding]:
        from git_gasp.core.projections import parse_facts

        jsonl = path.endswith(".jsonl")
        findings, chunk, base = self._appended(step, path, jsonl)
        child = self.blob(step.name, path)
        if chunk is None or child is None:
            return findings
        tally = self.tallies.get(base.oid) if isinstance(base, Blob) else None
        if tally is None:
            before = bytes(self._view(path, base)) if isinstance(base, Blob) else base or b""
            ids = frozenset(f.id for f in parse_facts(before.decode("utf-8", "replace")).facts)
            tally = _Tally(physical_lines(before), not before or before.endswith(b"\n"), ids)
        first = tally.lines + 1 if tally.terminated else tally.lines
        findings += check_lines(path, chunk, first, self.policy.max_line_bytes, jsonl)
        added = frozenset(f.id for f in parse_facts(chunk.decode("utf-8", "replace")).facts)
        self.tallies[child.oid] = _Tally(
            first - 1 + physical_lines(chunk), chunk.endswith(b"\n"), tally.fact_ids | added
        )
        if path in locations.journals or path.rsplit("/", 1)[-1] != "facts.jsonl":
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

    def log_blobs(self, rev: str) -> list[str]:
        """The blob ids of the logs at ``rev`` (looked up in this walk)."""
        logs = self._locations_of(rev).logs
        return [b.oid for p in sorted(logs) if (b := self.blob(rev, p)) is not None]

    def save_contexts(self, oids: Sequence[str]) -> None:
        for oid in oids:
            context = self.contexts.get(oid)
            if context is not None:
                save_context(self.common_dir, oid, context)


# -- the context cache ------------------------------------------------------------


def _context_path(common_dir: str, oid: str) -> str:
    return os.path.join(common_dir, "gasp", CONTEXTS_DIR, f"{oid}.json")


def load_context(common_dir: str, oid: str) -> LogContext | None:
    """A cached context, or None (a missing or damaged file is just a miss)."""
    try:
        with open(_context_path(common_dir, oid), "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    try:
        import orjson

        value = orjson.loads(raw)
    except ValueError:
        return None
    return LogContext.from_value(value)


def save_context(common_dir: str, oid: str, context: LogContext) -> None:
    """Remember a context; keep the newest few. Failure to write is ignored
    (a read-only server is just not cached)."""
    import orjson

    path = _context_path(common_dir, oid)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # a cache needs no fsync: a torn file fails to parse and is a miss
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(orjson.dumps(context.to_value()))
        os.replace(tmp, path)
        folder = os.path.dirname(path)
        entries = sorted((os.path.getmtime(os.path.join(folder, n)), n) for n in os.listdir(folder))
        for _, name in entries[:-_KEEP_CONTEXTS]:
            os.unlink(os.path.join(folder, name))
    except OSError:
        pass


def judge(repo: str, steps: Sequence[Step], policy: Policy | None = None) -> list[Judged]:
    """Judge ``steps`` (parents first); findings in step order. When all
    pass, the log contexts of the last step are cached for the next check."""
    if not steps:
        return []
    with git.BlobReader(repo) as reader:
        judge_ = Judge(repo, policy or policy_of(repo), reader)
        found = judge_.run(steps)
        if not found:
            judge_.save_contexts(judge_.log_blobs(steps[-1].name))
        return found
