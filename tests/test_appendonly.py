"""Check 4: the append-only rule on linear histories, merges, and the verdict cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from git_gasp import git as gitrepo
from git_gasp.check.history import CACHE_NAME, FACTS_PATHSPECS, check_append_only, facts_paths
from git_gasp.core.appendonly import Blob, Transition, blob_id, extends, merge_problem, verify

from .conftest import commit_all, git

EVENTS = "state/events.jsonl"


def write(repo: Path, rel: str, text: str | bytes) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)


def new_repo(tmp_path: Path, name: str = "repo") -> Path:
    repo = tmp_path / name
    repo.mkdir()
    git(repo, "init", "-q")
    return repo


def failures(repo: Path, use_cache: bool = True) -> tuple[str, ...]:
    return check_append_only(str(repo), use_cache).failures


# --- pure rule ---------------------------------------------------------------


def test_extends_is_the_reference_string_prefix() -> None:
    assert extends(b"a\n", b"a\nb\n")
    assert extends(b"a", b"ab\n")  # extending an unterminated last line passes
    assert not extends(b"a\nb\n", b"a\nB\n")
    # a version cut inside a UTF-8 character reads lossily, as the reference does
    euro = "€".encode()
    assert not extends(b"x" + euro[:2], b"x" + euro)


def test_merge_rule_accepts_union_and_rejects_drops() -> None:
    base = b"e1\ne2\n"
    ours, theirs = base + b"o1\n", base + b"t1\nt2\n"
    assert merge_problem([ours, theirs], base + b"o1\nt1\nt2\n") is None
    assert merge_problem([ours, theirs], base + b"t1\nt2\no1\n") is None
    assert merge_problem([ours, theirs], base + b"o1\nt1\n") == 1  # t2 dropped
    assert merge_problem([ours, theirs], b"e1\nE2\no1\nt1\nt2\n") == -1  # base edited
    assert merge_problem([ours, None], ours) is None  # a parent without the file


def _blob(data: bytes) -> Blob:
    return Blob(blob_id(data, len(data), "sha1"), len(data))


def test_verify_reads_one_blob_for_a_linear_history() -> None:
    versions = [b"".join(b"line %d\n" % i for i in range(n)) for n in range(1, 40)]
    store = {_blob(v).oid: v for v in versions}
    reads: list[str] = []

    def read(oid: str) -> bytes:
        reads.append(oid)
        return store[oid]

    chain = [
        Transition(f"c{i:040d}", (f"c{i - 1:040d}",), _blob(v), (_blob(versions[i - 1]),))
        for i, v in enumerate(versions)
        if i
    ]
    outcome = verify(EVENTS, chain, read)
    assert outcome.failures == ()
    assert len(outcome.verified) == len(chain)
    assert reads == [_blob(versions[-1]).oid]


def test_verify_names_the_commit_that_edits() -> None:
    a, b, c = b"one\n", b"one\ntwo\n", b"ONE\ntwo\nthree\n"
    store = {_blob(v).oid: v for v in (a, b, c)}
    chain = [
        Transition("1" * 40, ("0" * 40,), _blob(b), (_blob(a),)),
        Transition("2" * 40, ("1" * 40,), _blob(c), (_blob(b),)),
        Transition("3" * 40, ("2" * 40,), None, (_blob(c),)),
    ]
    outcome = verify(EVENTS, chain, store.__getitem__)
    assert outcome.failures == (
        f"{EVENTS}: commit 2222222 edits existing lines (not append-only)",
        f"{EVENTS}: deleted in commit 3333333",
    )
    assert chain[0].key() in outcome.verified and chain[1].key() not in outcome.verified


# --- real repositories ---------------------------------------------------------


def test_linear_history_matches_the_reference(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    write(repo, EVENTS, "line one\nline two\n")
    commit_all(repo)
    write(repo, EVENTS, "line one\nline two\nline three\n")
    commit_all(repo)
    assert failures(repo) == ()
    write(repo, EVENTS, "line ONE\nline two\nline three\n")
    assert failures(repo) == (f"{EVENTS}: working tree edits committed lines",)
    sha = commit_all(repo)
    assert failures(repo) == (f"{EVENTS}: commit {sha[:7]} edits existing lines (not append-only)",)
    (repo / EVENTS).unlink()
    gone = commit_all(repo)
    assert failures(repo)[-1] == f"{EVENTS}: deleted in commit {gone[:7]}"
    write(repo, EVENTS, "fresh\n")  # re-creation starts a new chain
    commit_all(repo)
    assert len(failures(repo)) == 2


def _branchy_repo(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path)
    write(repo, ".gitattributes", "*.jsonl merge=union\n")
    write(repo, EVENTS, "e1\ne2\n")
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, EVENTS, "e1\ne2\nside1\nside2\n")
    commit_all(repo, "side")
    git(repo, "checkout", "-q", "main")
    write(repo, EVENTS, "e1\ne2\nmain1\n")
    commit_all(repo, "main")
    return repo


def test_union_merge_of_two_appending_branches_passes(tmp_path: Path) -> None:
    repo = _branchy_repo(tmp_path)
    git(repo, "merge", "-q", "--no-edit", "side")
    assert (repo / EVENTS).read_text() == "e1\ne2\nmain1\nside1\nside2\n"
    assert failures(repo) == ()
    assert failures(repo, use_cache=False) == ()


def test_merge_that_drops_a_committed_line_fails(tmp_path: Path) -> None:
    repo = _branchy_repo(tmp_path)
    git(repo, "merge", "-q", "--no-commit", "side")
    write(repo, EVENTS, "e1\ne2\nmain1\nside1\n")  # side2 lost in the merge
    merge = commit_all(repo, "merge")
    side = git(repo, "rev-parse", "side").strip()
    assert failures(repo) == (
        f"{EVENTS}: merge {merge[:7]} drops lines that parent {side[:7]} added (not append-only)",
    )


def test_merge_that_edits_shared_lines_fails(tmp_path: Path) -> None:
    repo = _branchy_repo(tmp_path)
    git(repo, "merge", "-q", "--no-commit", "side")
    write(repo, EVENTS, "E1\ne2\nmain1\nside1\nside2\n")
    merge = commit_all(repo, "merge")
    assert failures(repo) == (
        f"{EVENTS}: merge {merge[:7]} edits lines its parents share (not append-only)",
    )


def test_cache_lives_in_the_git_dir_and_is_incremental(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path)
    text = ""
    for i in range(6):
        text += f"event {i}\n"
        write(repo, EVENTS, text)
        commit_all(repo)
    assert failures(repo) == ()
    cache = repo / ".git" / "gasp" / CACHE_NAME
    assert cache.is_file()
    assert not any(CACHE_NAME in str(p) for p in repo.rglob("*") if ".git" not in p.parts)
    walked: list[tuple[str, ...]] = []
    real_walk = gitrepo.commits_touching

    def spy(path: str, file: str, tip: str, exclude: tuple[str, ...] = ()) -> object:
        result = real_walk(path, file, tip, exclude)
        if file == EVENTS:
            walked.append(tuple(commit for commit, _ in result))
        return result

    monkeypatch.setattr(gitrepo, "commits_touching", spy)
    write(repo, EVENTS, text + "event 6\n")
    new = commit_all(repo)
    assert failures(repo) == ()
    assert walked[-1] == (new,)  # only the new commit is walked
    assert failures(repo, use_cache=False) == ()
    assert len(walked[-1]) == 7  # --no-cache walks everything


def test_a_warm_check_of_an_unchanged_head_walks_no_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HEAD is a tip whose ancestry passed: ``rev-list HEAD ^HEAD`` would list
    nothing, so no rev-list runs; a new commit is walked again."""
    from git_gasp.git import history

    repo = new_repo(tmp_path)
    write(repo, EVENTS, "event 0\n")
    commit_all(repo)
    assert failures(repo) == ()
    asked: list[list[str]] = []
    real_run = history.run

    def spy(path: str, args: list[str]) -> bytes:
        asked.append(args)
        return real_run(path, args)

    monkeypatch.setattr(history, "run", spy)
    assert failures(repo) == ()
    assert [a for a in asked if a[0] == "rev-list"] == []
    write(repo, EVENTS, "event 0\nevent 1\n")
    commit_all(repo)
    assert failures(repo) == ()
    assert len([a for a in asked if a[0] == "rev-list"]) == 3  # the three static paths


def test_rewritten_history_never_reuses_a_stale_verdict(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    write(repo, EVENTS, "a\n")
    commit_all(repo)
    write(repo, EVENTS, "a\nb\n")
    commit_all(repo)
    assert failures(repo) == ()
    write(repo, EVENTS, "A\nb\n")  # rewrite the last commit so it edits line 1
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert failures(repo) == (f"{EVENTS}: commit {sha[:7]} edits existing lines (not append-only)",)


def test_damaged_cache_is_ignored(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    write(repo, EVENTS, "a\n")
    commit_all(repo)
    write(repo, EVENTS, "b\n")
    sha = commit_all(repo)
    cache = repo / ".git" / "gasp" / CACHE_NAME
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text('{"transitions": 5, "tips": "x"')
    assert failures(repo) == (f"{EVENTS}: commit {sha[:7]} edits existing lines (not append-only)",)


def test_facts_files_anywhere_and_subdirectory_repos(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    write(repo, "agent/memory/facts.jsonl", "fact one\n")
    write(repo, "agent/state/events.jsonl", "e1\n")
    commit_all(repo)
    write(repo, "agent/memory/facts.jsonl", "fact ONE\n")
    sha = commit_all(repo)
    # the agent repository is a subdirectory of a larger repository
    found = failures(repo / "agent")
    assert found == (
        f"memory/facts.jsonl: commit {sha[:7]} edits existing lines (not append-only)",
    )


def test_not_a_repository_and_no_commits(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    report = check_append_only(str(plain))
    assert report.failures == (
        "not a git repository (conformance rule 1: state lives in a git repo)",
    )
    repo = new_repo(tmp_path)
    report = check_append_only(str(repo))
    assert report.passed and report.notes == ("no commits yet — nothing to violate",)


def test_worktree_missing_and_unreadable(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    write(repo, EVENTS, "e1\n")
    commit_all(repo)
    os.remove(repo / EVENTS)
    assert failures(repo) == (f"{EVENTS}: committed file missing from working tree",)
    write(repo, EVENTS, b"e1\n\xff\n")
    assert failures(repo) == (
        f"{EVENTS}: working tree unreadable: stream did not contain valid UTF-8",
    )


def test_one_merge_rule_for_hooks_and_check() -> None:
    """Any interleaving that keeps each parent's order passes, criss-cross
    orders included; a drop, a reorder or the merge's own line first fails,
    and the hooks' byte rule agrees with check 4's."""
    from git_gasp.core.change import merge_finding

    base = b"e1\ne2\n"
    ours, theirs = base + b"o1\no2\n", base + b"t1\nt2\n"
    cases = {
        base + b"o1\nt1\no2\nt2\n": None,
        base + b"t1\no1\nt2\no2\nnew\n": None,
        base + b"o2\no1\nt1\nt2\n": 0,
        base + b"o1\no2\nt2\nt1\n": 1,
        base + b"new\no1\no2\nt1\nt2\n": -2,
    }
    for merged, problem in cases.items():
        assert merge_problem([ours, theirs], merged) == problem, merged
        found = merge_finding("log", [ours, theirs], merged, ["a" * 7, "b" * 7])
        assert (found is None) == (problem is None), merged
    crossed = [base + b"o1\nt1\n", base + b"t1\no1\n"]  # two merges, two orders
    assert merge_problem(crossed, base + b"t1\no1\n") is None
    assert merge_problem(crossed, base + b"o1\nt1\nx\n") is None
    assert merge_problem(crossed, base + b"o1\n") is not None


def test_prefixes_hashed_in_the_background_are_waited_for() -> None:
    """The hooks hash versions in two threads while they judge: a version's
    answer is waited for when asked, and one that is no prefix stays unknown."""
    from git_gasp.core.appendonly import Anchors, test_in_background

    versions = [b"".join(b"line %d\n" % i for i in range(n)) for n in range(1, 30)]
    edited = b"LINE 0\n" + versions[5][7:]
    store = {_blob(v).oid: v for v in [*versions, edited]}
    reads: list[str] = []

    def read(oid: str) -> bytes:
        reads.append(oid)
        return store[oid]

    anchors = Anchors(read, "sha1", lossy_utf8=False)
    newest = _blob(versions[-1])
    first = anchors.anchor(newest)
    assert first == newest.oid
    blobs = [_blob(v) for v in versions] + [_blob(edited)]
    test_in_background((anchors, b, first) for b in blobs)
    assert all(anchors.known(b.oid) == first for b in blobs[:-1])
    assert anchors.known(_blob(edited).oid) is None
    assert anchors.same_line(blobs[3], blobs[10]) and not anchors.same_line(blobs[10], blobs[3])
    assert anchors.pending == {}
    assert reads == [newest.oid]  # every other version was recognised by hashing


def test_read_many_reads_objects_in_one_round_trip(tmp_path: Path) -> None:
    """BlobReader.read_many: every object once, in any number (more than a
    pipe holds); a missing one is a GitError and the reader starts afresh."""
    repo = new_repo(tmp_path)
    for n in range(3):
        write(repo, EVENTS, "".join(f"event {i} {'x' * 300}\n" for i in range(200 * (n + 1))))
        commit_all(repo, f"run {n}")
    commits = git(repo, "rev-list", "HEAD").split()
    blobs = [git(repo, "rev-parse", f"{c}:{EVENTS}").strip() for c in commits]
    with gitrepo.BlobReader(str(repo)) as reader:
        found = reader.read_many([*commits, *blobs, blobs[0]])
        assert list(found) == [*commits, *blobs]
        assert found[blobs[0]] == (repo / EVENTS).read_bytes()
        assert found[commits[0]].startswith(b"tree ")
        with pytest.raises(gitrepo.GitError, match="cannot read object"):
            reader.read_many([blobs[1], "0" * 40, blobs[2]])
        assert reader.read(blobs[2]) == found[blobs[2]]


@pytest.mark.parametrize("where", ["", "a"])
def test_the_facts_paths_from_one_listing_are_the_ones_git_s_pathspec_lists(
    tmp_path: Path, where: str
) -> None:
    """Check 4 picks the facts files out of the listing check 6 also reads:
    the same paths as ``git ls-files -- facts.jsonl '*/facts.jsonl'``, from
    the top or a folder."""
    repo = new_repo(tmp_path)
    for rel in (
        "facts.jsonl/y",
        "a/b/facts.jsonl",
        "a/facts.jsonl/z",
        "a/facts.jsonl.bak",
        "x/facts.jsonlx",
        "xfacts.jsonl",
        "x/Facts.jsonl",
        "a/b/c/facts.jsonl",
    ):
        write(repo, rel, "x\n")
    git(repo, "add", "-A")
    at = str(repo / where)
    expected = gitrepo.tracked(at, FACTS_PATHSPECS)
    assert len(expected) >= 3
    assert facts_paths(gitrepo.tracked(at, [])) == expected
