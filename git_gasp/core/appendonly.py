"""Check 4's rule, on plain values: append-only files only grow at their end.

The rule, per commit C and append-only path (see git-gasp-check(1)):

* one parent P: C's version must extend P's version (the reference's
  "string prefix" test, with invalid UTF-8 read lossily as the reference does);
* a merge: let B be the longest common prefix of the parents' versions, cut
  back to a line end. C's version must start with B, and every line each
  parent added after B must still be there, in that parent's order, any
  interleaving and criss-cross merges included, the merge's own lines last
  (:mod:`git_gasp.core.mergerule`, the hooks' rule too; dropping or editing
  a line fails);
* a version that disappears while a parent had it is a deletion; a version
  that appears where no parent had it starts a fresh chain.

On a linear history this gives the reference's verdicts. Verification avoids
reading every version: a version that is a prefix of an already-read newer
version ("anchor") is recognized by hashing that prefix as a git blob and
comparing object ids, so a linear history costs one blob read plus hashing.
"""

import codecs
import hashlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # the pool is loaded only where it is used (a hook judging one change never is)
    from concurrent.futures import Future


class Blob(NamedTuple):
    oid: str
    size: int


class Transition(NamedTuple):
    commit: str
    parents: tuple[str, ...]
    child: Blob | None  # the path's blob at the commit, None if absent
    parent_blobs: tuple[Blob | None, ...]

    def key(self) -> str:
        """Content address of the transition: a verdict on it can never go stale."""
        parents = ",".join(b.oid if b else "-" for b in self.parent_blobs)
        return f"{parents}>{self.child.oid if self.child else '-'}"


class Outcome(NamedTuple):
    failures: tuple[str, ...]
    verified: frozenset[str]  # keys of transitions found append-only
    commits: tuple[str, ...] = ()  # the commit of each failure, in order


def lossy(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def extends(prev: bytes, new: bytes) -> bool:
    """``new`` keeps ``prev`` as its start (the reference's lossy string prefix)."""
    if new.startswith(prev) and is_utf8(memoryview(prev)):
        return True
    return lossy(new).startswith(lossy(prev))


def merge_problem(parents: list[bytes | None], merged: bytes) -> int | None:
    """None if ``merged`` obeys the merge rule (:mod:`git_gasp.core.mergerule`,
    the hooks' rule too, on the lossy text); -1 if it edits the common base;
    -2 if a line no parent holds comes before a parent's lines; else the
    index of a parent whose lines were dropped or reordered."""
    from git_gasp.core.mergerule import merge_verdict, shared_start

    # the base is what every parent that has the file shares: a parent
    # without it must not make the whole file "new" (a line could then be
    # slipped in before the other parent's lines)
    present = [(i, lossy(p).encode("utf-8")) for i, p in enumerate(parents) if p is not None]
    if not present:
        return None
    base = shared_start([t for _, t in present])
    result = lossy(merged).encode("utf-8")
    if not result.startswith(present[0][1][:base]):
        return -1
    tails = [_lines(t[base:].decode("utf-8")) for _, t in present]
    problem = merge_verdict(tails, _lines(result[base:].decode("utf-8"))).problem
    if problem is None or problem < 0:
        return problem
    return present[problem][0]


def _lines(text: str) -> list[str]:
    """Lines split on ``\\n``, without it (an unterminated last line matches
    the same line terminated by a merge)."""
    parts = text.split("\n")
    return parts[:-1] if parts and not parts[-1] else parts


def blob_id(data: bytes | memoryview, size: int, hash_name: str) -> str:
    digest = hashlib.new(hash_name)
    digest.update(b"blob %d\0" % size)
    digest.update(data)
    return digest.hexdigest()


class Anchors:
    """Contents read so far, and which versions are known prefixes of them."""

    def __init__(
        self, read_blob: Callable[[str], bytes], hash_name: str, lossy_utf8: bool = True
    ) -> None:
        """``lossy_utf8=False`` compares bytes only: for callers (the hooks) that
        judge the UTF-8 of every appended line themselves, an anchor needs no
        decoding to be used."""
        self.read_blob = read_blob
        self.hash_name = hash_name
        self.lossy_utf8 = lossy_utf8
        self.data: dict[str, bytes] = {}
        self.usable: dict[str, bool] = {}  # anchor is valid UTF-8
        self.prefix_of: dict[str, str] = {}  # version oid -> anchor oid
        self.pending: dict[str, Future[bool]] = {}  # tests running in the background

    def read(self, oid: str) -> bytes:
        data = self.data.get(oid)
        if data is None:
            data = self.data[oid] = self.read_blob(oid)
        return data

    def known(self, oid: str) -> str | None:
        """The anchor ``oid`` is known to be a clean prefix of, if any (a test
        of it running in the background is waited for)."""
        pending = self.pending.pop(oid, None)
        if pending is not None:
            pending.result()
        return self.prefix_of.get(oid)

    def same_line(self, before: Blob, after: Blob) -> bool:
        """``before`` is a clean prefix of ``after``, both known prefixes of one anchor."""
        anchor = self.known(after.oid)
        return anchor is not None and self.known(before.oid) == anchor and before.size <= after.size

    def anchor(self, blob: Blob) -> str | None:
        """An anchor that ``blob`` is a clean prefix of (reading it if needed)."""
        known = self.known(blob.oid)
        if known is not None:
            return known
        data = self.read(blob.oid)
        if blob.oid not in self.usable and not self.lossy_utf8:
            self.usable[blob.oid] = True
        if blob.oid not in self.usable:
            self.usable[blob.oid] = is_utf8(memoryview(data))
        if not self.usable[blob.oid]:
            return None
        self.prefix_of[blob.oid] = blob.oid
        return blob.oid

    def take_chains(self, pairs: dict[str, set[str]], anchor: str, blobs: Iterable[Blob]) -> None:
        """Note which ``blobs`` are prefixes of ``anchor`` by what ``pairs``
        shows otherwise than by hashing (a received pack's deltas: each
        object's shorter ones at its start; the relation is transitive). A
        chain of them that does not reach ``anchor`` is tied to it by hashing
        its longest version only; each is kept only where hashing would keep
        it too (the cut starts a character)."""
        known = {b.oid: b for b in blobs}
        tied: set[str] = set()  # versions whose chain below them is taken
        for top in sorted(known.values(), key=lambda b: -b.size):
            if top.oid in tied or top.oid not in pairs or not self.test(top, anchor):
                continue  # not a prefix: its chain is hashed version by version
            chain = shown_below(pairs, top.oid)
            tied |= chain
            data = self.data[anchor]
            for blob in (known[oid] for oid in chain if oid in known):
                size = blob.size
                if size == len(data) or (size < len(data) and data[size] & 0xC0 != 0x80):
                    self.prefix_of[blob.oid] = anchor

    def test(self, blob: Blob, anchor: str) -> bool:
        if self.known(blob.oid) == anchor:
            return True
        return self._test(blob, anchor)

    def _test(self, blob: Blob, anchor: str) -> bool:
        """Hash ``anchor``'s start up to ``blob``'s size (any thread)."""
        if self.prefix_of.get(blob.oid) == anchor:
            return True
        data = self.data[anchor]
        size = blob.size
        if size > len(data) or (size < len(data) and data[size] & 0xC0 == 0x80):
            return False
        if blob_id(memoryview(data)[:size], size, self.hash_name) != blob.oid:
            return False
        self.prefix_of[blob.oid] = anchor
        return True

    def test_many(self, blobs: Iterable[Blob], anchor: str) -> None:
        """Hash many candidate prefixes of one anchor, in parallel threads."""
        todo = [b for b in {b.oid: b for b in blobs}.values() if b.oid not in self.prefix_of]
        if len(todo) < 8:
            return
        # only here, for eight or more: a hook judging one change never
        # loads the thread pool (and logging with it)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda b: self._test(b, anchor), todo))


def shown_below(pairs: dict[str, set[str]], top: str) -> set[str]:
    """Every object ``pairs`` shows to be a prefix of ``top``, ``top`` included."""
    found = {top}
    stack = [top]
    while stack:
        for short in pairs.get(stack.pop(), ()):
            if short not in found:
                found.add(short)
                stack.append(short)
    return found


def test_in_background(work: Iterable[tuple[Anchors, Blob, str]]) -> None:
    """Start hashing each (anchors, blob, anchor) in two threads, in the order
    given, and return at once: the caller goes on judging (the hashing
    releases the interpreter) and :meth:`Anchors.known` waits for a result it
    needs before its turn. Only the calling thread may use the anchors then.
    With nothing to hash (a hook judging one change) no pool, and none of the
    thread pool's imports (logging with it), is made."""
    todo = list(work)
    if not todo:
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=2)
    for anchors, blob, anchor in todo:
        if blob.oid not in anchors.prefix_of and blob.oid not in anchors.pending:
            anchors.pending[blob.oid] = pool.submit(anchors._test, blob, anchor)
    pool.shutdown(wait=False)  # the threads end when the queue is done


def verify(
    path: str,
    transitions: list[Transition],
    read_blob: Callable[[str], bytes],
    hash_name: str = "sha1",
    known: frozenset[str] = frozenset(),
) -> Outcome:
    """Judge every transition of one path (given oldest first)."""
    found: dict[int, str] = {}
    linear: list[int] = []
    merges: list[int] = []
    for i, t in enumerate(transitions):
        present = [b for b in t.parent_blobs if b is not None]
        if t.child is None:
            if present:
                found[i] = f"{path}: deleted in commit {t.commit[:7]}"
            continue
        if not present or all(b.oid == t.child.oid for b in present) or t.key() in known:
            continue
        (linear if len(t.parent_blobs) == 1 else merges).append(i)
    anchors = Anchors(read_blob, hash_name)
    verified = {transitions[i].key() for i in linear + merges}
    if linear:
        newest = transitions[linear[-1]].child
        assert newest is not None
        first = anchors.anchor(newest)
        if first is not None:
            blobs = [
                b for i in linear for b in (transitions[i].child, transitions[i].parent_blobs[0])
            ]
            anchors.test_many((b for b in blobs if b is not None), first)
    for i in reversed(linear):
        if not _linear_ok(transitions[i], anchors):
            found[i] = (
                f"{path}: commit {transitions[i].commit[:7]} edits existing lines (not append-only)"
            )
    for i in merges:
        problem = _merge_check(transitions[i], anchors)
        if problem is not None:
            found[i] = f"{path}: {problem}"
    for i in found:
        verified.discard(transitions[i].key())
    order = sorted(found)
    commits = tuple(transitions[i].commit for i in order)
    return Outcome(tuple(found[i] for i in order), frozenset(verified), commits)


def _linear_ok(t: Transition, anchors: Anchors) -> bool:
    child, parent = t.child, t.parent_blobs[0]
    assert child is not None and parent is not None
    anchor = anchors.anchor(child)
    if anchor is not None and parent.size <= child.size and anchors.test(parent, anchor):
        return True
    return extends(anchors.read(parent.oid), anchors.read(child.oid))


def _merge_check(t: Transition, anchors: Anchors) -> str | None:
    child = t.child
    assert child is not None
    anchor = anchors.anchor(child)
    if anchor is not None and all(
        b is None or (b.size <= child.size and anchors.test(b, anchor)) for b in t.parent_blobs
    ):
        return None
    contents = [anchors.read(b.oid) if b is not None else None for b in t.parent_blobs]
    problem = merge_problem(contents, anchors.read(child.oid))
    if problem is None:
        return None
    if problem == -1:
        return f"merge {t.commit[:7]} edits lines its parents share (not append-only)"
    if problem == -2:
        return (
            f"merge {t.commit[:7]} puts a line no parent holds before its parents' lines "
            "(not append-only)"
        )
    parent = t.parents[problem][:7]
    return f"merge {t.commit[:7]} drops lines that parent {parent} added (not append-only)"


class WorktreeCheck(NamedTuple):
    problem: str | None  # why the work tree copy does not extend the committed one
    exact: bool  # it starts with the committed bytes, checked by hashing them


def check_worktree(
    path: str,
    committed: Blob,
    on_disk: bytes,
    read_blob: Callable[[str], bytes],
    hash_name: str,
    appended_only: bool = False,
) -> WorktreeCheck:
    """The work tree copy must extend the committed version (uncommitted
    appends are fine). The whole copy must be UTF-8, as check 4 reads it; with
    ``appended_only`` (a commit about to be made) only what it adds, when it
    starts with exactly the committed bytes."""
    size = committed.size
    view = memoryview(on_disk)
    exact = size <= len(on_disk) and blob_id(view[:size], size, hash_name) == committed.oid
    exact = exact and (size == len(on_disk) or on_disk[size] & 0xC0 != 0x80)
    if not is_utf8(view[size:] if exact and appended_only else view):
        unreadable = f"{path}: working tree unreadable: stream did not contain valid UTF-8"
        return WorktreeCheck(unreadable, False)
    if exact:
        return WorktreeCheck(None, True)
    if lossy(on_disk).startswith(lossy(read_blob(committed.oid))):
        return WorktreeCheck(None, False)
    return WorktreeCheck(f"{path}: working tree edits committed lines", False)


def is_utf8(data: memoryview) -> bool:
    """Whether ``data`` is UTF-8, decoded a MiB at a time (never a second copy
    of a whole log as text)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), 1 << 20):
            decoder.decode(data[start : start + (1 << 20)])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def worktree_problem(
    path: str, committed: Blob, on_disk: bytes, read_blob: Callable[[str], bytes], hash_name: str
) -> str | None:
    """Why the work tree copy does not extend the committed version, if it does not."""
    return check_worktree(path, committed, on_disk, read_blob, hash_name).problem


def merge_appends(base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """A three-way merge of a file both sides only appended to: ours, then
    what theirs appended, each side's block kept whole (git's ``union``
    merge interleaves blocks that share lines, such as journal entries).
    None when a side did more than append."""
    if not (ours.startswith(base) and theirs.startswith(base)):
        return None
    added = theirs[len(base) :]
    if not added or ours[len(base) :] == added:
        return ours
    if ours.endswith(added):
        return ours  # already merged
    return ours + (b"" if not ours or ours.endswith(b"\n") else b"\n") + added
