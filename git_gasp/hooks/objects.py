"""What one walk of steps has read, and how it reads as little as it can.

For a list of steps, parents first, :class:`Objects` asks git which objects
the paths hold before and after (two ``cat-file --batch-check`` calls), and
reads only the blobs it must through one ``cat-file --batch``. It works inside
a pre-receive quarantine because git inherits ``GIT_OBJECT_DIRECTORY`` and
``GIT_ALTERNATE_OBJECT_DIRECTORIES``.

Its cost follows the change, not history:

* every version of an append-only file in a run of steps that is a prefix of
  the newest one is recognised by hashing that prefix (no read), and the
  appended bytes are slices of the newest;
* the context of the log before a step (ids, kinds, entities, nodes) is the
  context after its parent step, extended in place; for a parent outside the
  walk it is loaded from the context cache (:mod:`git_gasp.hooks.contextcache`:
  written after a check, and whenever a version had to be parsed; keyed by
  content so it can never go stale) or built by parsing that version once.
"""

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from git_gasp import git
from git_gasp.core.appendonly import Anchors, Blob, test_in_background
from git_gasp.core.change import check_lines
from git_gasp.core.event import Event
from git_gasp.core.finding import Finding, Step
from git_gasp.core.locations import DEFAULT_LOCATIONS, parse_locations
from git_gasp.core.logcontext import LogContext, context_of
from git_gasp.core.pack import Pack, PackError, parse_pack
from git_gasp.hooks.ahead import Ahead, ahead_of
from git_gasp.hooks.contextcache import load_context, save_context

JOURNALS = ("journal/JOURNAL.md", "JOURNAL.md")


def spec(rev: str, path: str) -> str:
    return f"{rev}:{path}" if rev else f":{path}"


class Locations(NamedTuple):
    """The append-only files of a tree: defaults, every ``facts.jsonl``, and
    what its ``AGENT.md`` Locations table declares."""

    logs: frozenset[str]
    facts: frozenset[str]
    journals: frozenset[str]

    @classmethod
    def from_manifest(cls, text: str) -> "Locations":
        """The defaults plus what the manifest ``text`` declares ("" for none)."""
        table, _ = parse_locations(text)
        return cls(
            frozenset(table["log"]) | DEFAULTS.logs,
            frozenset(table["facts"]) | DEFAULTS.facts,
            frozenset(table["journal"]) | DEFAULTS.journals,
        )

    def append_only(self, path: str) -> bool:
        return (
            path in self.logs
            or path in self.facts
            or path in self.journals
            or path == "facts.jsonl"
            or path.endswith("/facts.jsonl")
        )


DEFAULTS = Locations(
    frozenset(DEFAULT_LOCATIONS["log"]),
    frozenset(DEFAULT_LOCATIONS["facts"]),
    frozenset(JOURNALS),
)


def skills_of(paths: Iterable[str]) -> set[str]:
    """The skills ``paths`` lie in (``skills/<name>/...``)."""
    return {parts[1] for p in paths if len(parts := p.split("/")) >= 3 and parts[0] == "skills"}


def wanted_specs(step: Step, locations: Locations) -> set[str]:
    """The objects a step is judged by, for these append-only locations."""
    paths = set(step.paths) | set(locations.logs) | {"AGENT.md", ".agent/packs"}
    wanted = {spec(r, p) for r in (step.name, *step.parents) for p in paths}
    return wanted | {spec(step.name, f"skills/{n}/SKILL.md") for n in skills_of(step.paths)}


class Objects:
    """The blob reader, object ids, anchors, log contexts, locations and packs
    of one walk; :class:`git_gasp.hooks.changes.Judge` judges with them."""

    def __init__(self, repo: str, reader: git.BlobReader, info: git.RepoInfo | None = None) -> None:
        self.repo = repo
        self.reader = reader
        info = git.repo_info(repo) if info is None else info
        self.common_dir = info.common_dir
        self.git_dir = info.git_dir
        self.prefix = info.prefix
        self.hash_name = info.object_format
        self.info: dict[str, Blob | None] = {}
        self.trees: dict[str, str | None] = {}
        self.blobs: dict[str, bytes] = {}
        self.commits: dict[str, bytes] = {}  # commit objects read ahead, until used
        self.anchors: dict[str, Anchors] = {}
        self.contexts: dict[str, LogContext] = {}
        self.uses: dict[str, int] = {}
        self.packs: dict[str | None, list[Pack]] = {None: []}
        self.locations: dict[str | None, Locations] = {None: DEFAULTS}
        self.ahead: Ahead | None = None

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

    def read_commits(self, commits: Sequence[str]) -> None:
        """Read the commit objects of a walk in one round trip (see :meth:`message`)."""
        self.commits.update(self.reader.read_many([c for c in commits if c]))

    def message(self, commit: str) -> str:
        """A commit's message (after the header lines of the commit object)."""
        raw = self.commits.pop(commit, None)
        if raw is None:
            raw = self.reader.read(commit)
        _, _, body = raw.partition(b"\n\n")
        return body.decode("utf-8", "replace")

    def read_ahead(self, steps: Sequence[Step]) -> None:
        """Start the reads ahead of a long walk (:func:`git_gasp.hooks.ahead.ahead_of`)."""
        self.ahead = ahead_of(self.repo, steps, DEFAULTS.append_only, DEFAULTS.logs)

    def close(self) -> None:
        if self.ahead is not None:
            self.ahead.close()
            self.ahead = None

    def read(self, oid: str) -> bytes:
        data = self.blobs.get(oid)
        if data is None:
            data = self.ahead.read(self.info, oid) if self.ahead is not None else None
            if data is None:
                data = self.reader.read(oid)
            self.blobs[oid] = data
        return data

    def appended_lines(
        self, path: str, child: Blob, chunk: bytes, first: int, max_line_bytes: int, jsonl: bool
    ) -> list[Finding]:
        """:func:`check_lines` of ``chunk``, appended in ``child``, screened for
        credentials from the read ahead when it can be (:meth:`Ahead.scan`)."""
        ahead = self.ahead
        scan = ahead.scan(self.info, self.anchors.get(path), path, child, chunk) if ahead else None
        return check_lines(path, chunk, first, max_line_bytes, jsonl, scan)

    def _lookup(self, specs: set[str]) -> None:
        todo = sorted(s for s in specs if s not in self.info)
        for spec, obj in zip(todo, git.object_info(self.repo, todo), strict=True):
            self.info[spec] = Blob(obj.oid, obj.size) if obj and obj.type == "blob" else None
            if obj is not None and obj.type == "tree":
                self.trees[spec] = obj.oid

    def blob(self, rev: str, path: str) -> Blob | None:
        return self.info.get(spec(rev, path))

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
        tree = self.trees.get(spec(rev, ".agent/packs"))
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

    def _prepare_anchors(self, steps: Sequence[Step]) -> None:
        """Per append-only path, the newest version read once and every other
        version that is a prefix of it recognised by hashing, in two threads
        while this one judges (:func:`git_gasp.core.appendonly.test_in_background`)."""
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
        work: list[tuple[int, Anchors, Blob, str]] = []
        for path, blobs in versions.items():
            # bytes only: every appended line's UTF-8 is judged by check_lines,
            # so the newest version is its own anchor before it is read
            anchors = self.anchors[path] = Anchors(self.read, self.hash_name, lossy_utf8=False)
            if len(blobs) >= 8:
                work += [(n, anchors, b, blobs[-1].oid) for n, b in enumerate(blobs)]
        # the deltas need no bytes: read while the newest versions arrive
        pairs = self._delta_pairs(work) if work else {}
        for path, blobs in versions.items():
            if self.anchors[path].anchor(blobs[-1]) != blobs[-1].oid:
                work = [w for w in work if w[1] is not self.anchors[path]]
        if work:
            by_path: dict[Anchors, tuple[str, list[Blob]]] = {}
            for _, anchors, blob, first in work:
                by_path.setdefault(anchors, (first, []))[1].append(blob)
            for anchors, (first, blobs) in by_path.items():
                anchors.take_chains(pairs.get(anchors, {}), first, blobs)
            work = [w for w in work if w[2].oid not in w[1].prefix_of]
        # hashed while the steps are judged, in the order they need them
        work.sort(key=lambda w: w[0])
        test_in_background((anchors, blob, first) for _, anchors, blob, first in work)

    def _delta_pairs(
        self, work: Sequence[tuple[int, Anchors, Blob, str]]
    ) -> dict[Anchors, dict[str, set[str]]]:
        """Per path, which versions the pushed pack's deltas show to be
        prefixes of which (:mod:`git_gasp.git.packs`): those tied to the
        newest need no hashing (:meth:`Anchors.take_chains`)."""
        from git_gasp.git.packs import prefix_pairs, received_packs

        oids: dict[Anchors, list[str]] = {}
        for _, anchors, blob, first in work:
            oids.setdefault(anchors, [first]).append(blob.oid)
        with received_packs(self.hash_name) as packs:
            return {a: prefix_pairs(packs, found) for a, found in oids.items()} if packs else {}

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

    def _differs_from_all(self, step: Step, path: str) -> bool:
        child = self.blob(step.name, path)
        return all(self.blob(p, path) != child for p in step.parents) or not step.parents

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

    def _brought(self, step: Step, log_path: str) -> list[Event]:
        """The events a merge adds to its mainline parent's log: the lines
        that log does not hold (the merge rule judges their order)."""
        from git_gasp.core.change import merged_lines_not_in
        from git_gasp.core.log import parse_log

        child = self.blob(step.name, log_path)
        main = self._mainline(step)
        if child is None or main is None:
            return []
        merged = bytes(self._view(log_path, child))
        first = self.blob(main, log_path)
        before = bytes(self._view(log_path, first)) if first is not None else b""
        return list(parse_log(merged_lines_not_in(before, merged)).events)

    # -- append-only files ---------------------------------------------------------

    def _view(self, path: str, blob: Blob) -> memoryview:
        anchors = self.anchors.get(path)
        if anchors is not None:
            anchor = anchors.known(blob.oid)
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
                # a whole version parsed: kept before a step extends it in
                # place, so the next change on top of it (a retry, another
                # branch, a reset) loads it instead of parsing it again
                save_context(self.common_dir, blob.oid, found)
            self.contexts[blob.oid] = found
        return found

    def log_blobs(self, rev: str) -> list[str]:
        """The blob ids of the logs at ``rev`` (looked up in this walk)."""
        logs = self._locations_of(rev).logs
        return [b.oid for p in sorted(logs) if (b := self.blob(rev, p)) is not None]

    def save_contexts(self, oids: Sequence[str]) -> None:
        for oid in oids:
            context = self.contexts.get(oid)
            if context is not None:
                save_context(self.common_dir, oid, context)
