"""init, runs and their boundary commits, facts, journal and snapshots, through real git."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.agent.projecting import add_fact, read_facts
from git_gasp.agent.runs import close_run, commit_message
from git_gasp.check.conformance import run_all
from git_gasp.cli import root as cli
from git_gasp.core.log import parse_log
from git_gasp.errors import GaspError

from .conftest import git


def main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def conformant(repo: Path) -> None:
    reports = run_all(str(repo))
    assert [r.failures for r in reports] == [()] * 7


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "agent"
    init_repo(str(path), "evolve", provider="anthropic", model="claude-opus-4-6")
    return path


def test_init_lays_out_a_conformant_repository(repo: Path) -> None:
    for rel in (
        "AGENT.md",
        "identity/IDENTITY.md",
        "state/events.jsonl",
        "memory/facts.jsonl",
        "memory/active_memory.md",
        "journal/JOURNAL.md",
        ".agent/config.toml",
        "skills/README.md",
    ):
        assert (repo / rel).is_file(), rel
    ignored = (repo / ".gitignore").read_text().split()
    assert {".agent/lease", ".agent/HEAD", ".agent/RUN", ".agent/worker"} <= set(ignored)
    assert "*.jsonl merge=union" in (repo / ".gitattributes").read_text()
    assert "agent_id: evolve" in (repo / "AGENT.md").read_text()
    assert git(repo, "log", "--format=%s") == "init agent evolve\n"
    assert git(repo, "status", "--porcelain") == ""
    conformant(repo)


def test_init_in_an_existing_repository_touches_nothing_else(tmp_path: Path) -> None:
    repo = tmp_path / "existing"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("mine\n")
    (repo / ".gitignore").write_text("*.log")  # no final newline
    (repo / "staged.txt").write_text("staged\n")
    git(repo, "add", "README.md", "staged.txt")
    init_repo(str(repo), "evolve")
    assert (repo / "README.md").read_text() == "mine\n"
    assert (repo / ".gitignore").read_text().startswith("*.log\n.agent/lease\n")
    committed = git(repo, "show", "--name-only", "--format=", "HEAD").split()
    assert "README.md" not in committed and "staged.txt" not in committed
    assert "A  staged.txt" in git(repo, "status", "--porcelain")


def test_init_refuses_an_existing_agent(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = main(capsys, "init", str(repo), "--agent-id", "again")
    assert code == 2 and "AGENT.md already exists" in err
    code, _, err = main(capsys, "init", str(repo.parent / "x"), "--agent-id", "bad id!")
    assert code == 2 and "agent id" in err


def test_run_from_separate_processes_and_the_boundary_commit(repo: Path) -> None:
    def gasp(*args: str) -> str:
        proc = subprocess.run(
            ["git", "gasp", *args], cwd=repo, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    (repo / "notes.txt").write_text("work product\n")
    (repo / "unrelated.txt").write_text("staged by the user\n")
    git(repo, "add", "unrelated.txt")
    run_id = gasp("run", "start", "--task", "fix retry skill")
    assert "open run: " + run_id in gasp("run", "status")
    closed = json.loads(
        gasp(
            "run",
            "close",
            "--outcome",
            "promoted",
            "--session",
            "claude:ses_01#r1",
            "--json",
            "notes.txt",
        )
    )
    assert closed["run_id"] == run_id and closed["commit"]
    message = git(repo, "log", "-1", "--format=%B")
    assert message == (
        f"run {run_id}: promoted\n\nRun-Id: {run_id}\nGoal: -\nOutcome: promoted\n"
        "Agent-Session: claude:ses_01#r1\n\n"
    )
    files = set(git(repo, "show", "--name-only", "--format=", "HEAD").split())
    assert files == {"state/events.jsonl", "journal/JOURNAL.md", "notes.txt"}
    assert "A  unrelated.txt" in git(repo, "status", "--porcelain")  # still staged
    assert not (repo / ".agent" / "RUN").exists() and not (repo / ".agent" / "lease").exists()
    conformant(repo)


def test_close_refuses_forged_trailers(repo: Path) -> None:
    with pytest.raises(Exception, match="newlines"):
        commit_message("run_1", "-", "done\nRun-Id: forged", [])
    with pytest.raises(Exception, match="Agent-Session"):
        commit_message("run_1", "-", "done", ["https://example.com/session"])
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t")
    before = (repo / "state" / "events.jsonl").read_bytes()
    with pytest.raises(Exception, match="newlines"):
        close_run(agent, "bad\noutcome")
    assert (repo / "state" / "events.jsonl").read_bytes() == before  # nothing written


def test_crash_mid_run_then_status_and_close(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = Agent.open(str(repo), worker="w")
    run_id = agent.start_run("t")
    agent.record_observation(None, "seen")
    del agent  # the process "crashes": no close, marker and lease stay behind
    code, out, _ = main(capsys, "run", "status", "-C", str(repo), "--worker", "w")
    assert code == 0 and run_id in out
    (repo / ".agent" / "RUN").unlink()  # even without the marker, the log says it is open
    again = Agent.open(str(repo), worker="w")
    assert again.open_run is not None and again.open_run.run_id == run_id
    closed = close_run(again, "recovered")
    assert closed.commit is not None
    conformant(repo)


def test_a_retried_close_after_its_commit_changes_nothing(repo: Path) -> None:
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t")
    marker = (repo / ".agent" / "RUN").read_bytes()
    assert close_run(agent, "done").commit is not None
    head = git(repo, "rev-parse", "HEAD")
    with pytest.raises(Exception, match="no run is open"):
        close_run(agent, "again")
    # a crash after the commit, before the marker was removed: close again
    (repo / ".agent" / "RUN").write_bytes(marker)
    again = Agent.open(str(repo), worker="w")
    closed = close_run(again, "done")
    # no second commit; the commit that was made is reported as made (issue 16)
    assert closed.commit == head.strip() and git(repo, "rev-parse", "HEAD") == head
    assert not (repo / ".agent" / "RUN").exists()
    assert (repo / "journal" / "JOURNAL.md").read_text().count("## Run ") == 1


def test_repository_hooks_apply_to_the_boundary_commit(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "commit-msg"
    hook.write_text('#!/bin/sh\necho hooked >> "$(git rev-parse --git-dir)/hook-ran"\n')
    hook.chmod(0o755)
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t")
    close_run(agent, "done")
    assert (repo / ".git" / "hook-ran").read_text() == "hooked\n"


def test_a_hook_refusing_the_boundary_commit_is_one_line_and_the_run_stays_open(
    repo: Path,
) -> None:
    import sys

    from git_gasp.core.event import encode_event
    from git_gasp.errors import FINDINGS, GaspError

    assert cli.main(["hooks", "install", "--python", sys.executable, "-C", str(repo)]) == 0
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t")
    # a runtime writing behind the API's back, which refuses secrets itself
    started = agent.events()[-2]
    leaked = started._replace(
        id="event_leak", kind="tool.called", causation_id=started.id,
        payload={"id": "observation_x", "title": "ghp_" + "a1" * 18, "metadata": {}},
    )  # fmt: skip
    with open(repo / "state" / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(encode_event(leaked) + "\n")
    with pytest.raises(GaspError) as caught:
        close_run(Agent.open(str(repo), worker="w"), "done")
    error = caught.value
    assert error.exit_code == FINDINGS and "\n" not in error.message
    assert error.message.startswith("a hook refused the boundary commit: state/events.jsonl:")
    assert "[github-token]" in error.message
    assert (error.hint or "").endswith("the run stays open: fix that, then close it again")
    assert Agent.open(str(repo), worker="w").open_run is not None


def test_facts_supersede_and_active_memory_is_deterministic(repo: Path) -> None:
    (repo / "memory" / "facts.jsonl").write_text("legacy: an old note\n")
    git(repo, "commit", "-qam", "legacy fact")
    agent = Agent.open(str(repo), worker="w")
    goal = agent.record_goal("goal_1", "g")
    first = add_fact(agent, "prefer small patches", [goal])
    with pytest.raises(Exception, match="no event, node or fact"):
        add_fact(agent, "x", ["nope"])
    second = add_fact(agent, "prefer small, tested patches", [], supersedes=first.id)
    with pytest.raises(Exception, match="already superseded"):
        add_fact(agent, "y", [], supersedes=first.id)
    memory = read_facts(str(repo))
    assert memory.legacy == ("legacy: an old note",)
    text = (repo / "memory" / "active_memory.md").read_bytes()
    assert b"prefer small, tested patches" in text and b"prefer small patches (" not in text
    assert b"legacy: an old note" in text
    from git_gasp.agent.projecting import regenerate_memory

    regenerate_memory(str(repo))
    assert (repo / "memory" / "active_memory.md").read_bytes() == text
    assert (repo / "memory" / "facts.jsonl").read_text().startswith("legacy: an old note\n")
    assert second.supersedes == first.id


def test_journal_grows_by_appending_and_lists_the_run(repo: Path) -> None:
    agent = Agent.open(str(repo), worker="w")
    goal = agent.record_goal("goal_1", "g")
    agent.start_run("first", goal=goal)
    patch = agent.propose_patch("patch_1", "p")
    agent.record_eval("eval_1", "pytest", "Passed", patch=patch)
    agent.record_decision("decision_1", "Approved", "ok", target=patch)
    agent.update_patch_status(patch, "Promoted")
    close_run(agent, "promoted")
    first = (repo / "journal" / "JOURNAL.md").read_text()
    assert "patches: patch_1 (Promoted)" in first and "goal: goal_1" in first
    agent.start_run("second")
    close_run(agent, "nothing")
    second = (repo / "journal" / "JOURNAL.md").read_text()
    assert second.startswith(first) and second.count("## Run ") == 2
    conformant(repo)


def test_snapshot_passes_check_2_and_cadence_is_applied(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = repo / ".agent" / "config.toml"
    config.write_text(config.read_text().replace("snapshot_every = 1000", "snapshot_every = 4"))
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t")
    agent.record_goal("goal_1", "g")
    closed = close_run(agent, "done")
    assert closed.snapshot is not None
    assert closed.snapshot in git(repo, "show", "--name-only", "--format=", "HEAD")
    code, out, _ = main(capsys, "snapshot", "-C", str(repo), "--json")
    path = json.loads(out)["path"]
    record = json.loads((repo / path).read_text())
    events = parse_log((repo / "state" / "events.jsonl").read_bytes()).events
    assert record["integrity"]["event_id"] == events[-1].id
    reports = run_all(str(repo))
    assert reports[1].passed and not any("not verified" in n for n in reports[1].notes)
    code, _, err = main(capsys, "snapshot", "-C", str(repo), "--at", "event_nope")
    assert code == 2 and "unknown event id" in err


def test_a_close_snapshot_remembers_its_prefix_ids_for_a_seeded_open(repo: Path) -> None:
    """The snapshot a close takes keeps its prefix's event ids in the git dir;
    a seeded open answers knows() from them as from the prefix's lines, and a
    damaged or stale file is not used."""
    from git_gasp.core.log import canonical_ids
    from git_gasp.store import seeding

    config = repo / ".agent" / "config.toml"
    config.write_text(config.read_text().replace("snapshot_every = 1000", "snapshot_every = 4"))
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t")
    agent.record_goal("goal_1", "g")
    assert close_run(agent, "done").snapshot is not None
    kept = list((repo / ".git" / "gasp" / seeding.IDS_DIR).iterdir())
    log = (repo / "state" / "events.jsonl").read_bytes()
    ids = canonical_ids(log)
    assert ids is not None and len(kept) == 1
    seeded = Agent.open(str(repo), worker="w")
    assert seeded._seed is not None and seeding.seed_ids(seeded._common, seeded._seed) == ids
    assert all(seeded.knows(i) for i in ids) and not seeded.knows("event_absent")
    head, _, body = kept[0].read_bytes().partition(b"\n")
    kept[0].write_bytes(head + b"\n" + body.replace(b"\n", b"\nevent_forged\n", 1))
    again = Agent.open(str(repo), worker="w")
    assert again._seed is not None and seeding.seed_ids(again._common, again._seed) is None
    assert not again.knows("event_forged") and all(again.knows(i) for i in ids)


def test_worker_id_is_stable_per_clone(repo: Path) -> None:
    first = Agent.open(str(repo))
    second = Agent.open(str(repo))
    assert first.worker == second.worker
    assert (repo / ".agent" / "worker").read_text().strip() == first.worker
    os.environ["GASP_WORKER_ID"] = "env-worker"
    try:
        assert Agent.open(str(repo)).worker == "env-worker"
    finally:
        del os.environ["GASP_WORKER_ID"]


def _seeded_repo(repo: Path) -> tuple[str, str]:
    agent = Agent.open(str(repo), worker="w")
    goal = agent.record_goal("goal_1", "g")
    agent.start_run("first", goal=goal)
    agent.record_observation("observation_1", "seen")
    close_run(agent, "done")
    from git_gasp.agent.projecting import write_snapshot

    snapshot = write_snapshot(str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "snapshot")
    Agent.open(str(repo), worker="w")  # the first open folds everything and verifies it
    return goal, snapshot


def test_a_verified_snapshot_seeds_the_next_open(repo: Path) -> None:
    from git_gasp.core.fold import fold
    from git_gasp.core.graph import graphs_equal

    goal, _ = _seeded_repo(repo)
    agent = Agent.open(str(repo), worker="w")
    assert agent._seed is not None  # read only the tail
    agent.start_run("second", goal=goal)
    agent.record_observation(None, "after the seed")
    full = fold(parse_log((repo / "state" / "events.jsonl").read_bytes()).events).graph
    assert graphs_equal(agent.graph, full)
    fact = add_fact(agent, "derived from before the seed", ["observation_1"])
    assert fact.derived_from == ("observation_1",)
    close_run(agent, "done again")
    conformant(repo)


def test_a_tampered_snapshot_is_never_a_seed(repo: Path) -> None:
    _, snapshot = _seeded_repo(repo)
    path = repo / snapshot
    record = json.loads(path.read_text())
    record["graph"]["nodes"]["goal_1"]["props"]["title"] = "forged"  # integrity still matches
    path.write_text(json.dumps(record, separators=(",", ":"), sort_keys=True) + "\n")
    agent = Agent.open(str(repo), worker="w")
    assert agent._seed is None  # its digest was never verified: a full fold instead
    node = agent.graph.nodes["goal_1"]
    assert isinstance(node.props, dict) and node.props["title"] == "g"
    assert Agent.open(str(repo), worker="w")._seed is None  # and it never becomes trusted


def test_an_open_run_from_before_the_seed_is_found(repo: Path) -> None:
    goal, _ = _seeded_repo(repo)
    agent = Agent.open(str(repo), worker="w")
    run_id = agent.start_run("long run", goal=goal)
    from git_gasp.agent.projecting import write_snapshot

    write_snapshot(str(repo))  # a snapshot taken mid-run
    Agent.open(str(repo), worker="w")  # verifies it
    (repo / ".agent" / "RUN").unlink()
    again = Agent.open(str(repo), worker="w")
    assert again.open_run is not None and again.open_run.run_id == run_id
    closed = close_run(again, "closed after a seeded open")
    assert "long run" in (repo / "journal" / "JOURNAL.md").read_text()
    assert closed.commit is not None


def test_close_refuses_what_would_fail_a_check(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = Agent.open(str(repo), worker="w")
    agent.record_goal("goal_1", "g")
    agent.start_run("t")
    close_run(agent, "first")  # commits the goal
    agent.start_run("t2")
    log = repo / "state" / "events.jsonl"
    committed = log.read_bytes()
    log.write_bytes(committed.replace(b'"title":"g"', b'"title":"G"'))
    with pytest.raises(Exception, match="edits committed lines: refusing to commit it"):
        close_run(agent, "after an edit")
    log.write_bytes(committed)
    (repo / "identity" / "IDENTITY.md").write_text("someone else\n")
    with pytest.raises(Exception, match="human-gated"):
        close_run(agent, "sneaky", paths=["identity/IDENTITY.md"])
    with pytest.raises(Exception, match="no such file"):
        close_run(agent, "typo", paths=["nonexist.txt"])
    with pytest.raises(Exception, match="unknown goal"):
        close_run(agent, "typo", goal="goal_nope")
    assert close_run(agent, "fine", goal="goal_1").commit is not None
    git(repo, "checkout", "--", "identity/IDENTITY.md")
    conformant(repo)


def test_written_files_follow_the_umask(repo: Path) -> None:
    mode = (repo / "AGENT.md").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_run_status_still_reports_after_a_torn_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = Agent.open(str(repo), worker="w")
    run_id = agent.start_run("t")
    with (repo / "state" / "events.jsonl").open("ab") as fh:
        fh.write(b'{"id":"to')
    code, out, err = main(capsys, "run", "status", "-C", str(repo), "--worker", "w")
    assert code == 1 and f"open run: {run_id}" in out and "lease: worker w" in out
    assert "git gasp repair" in err


def test_a_second_snapshot_in_the_tracked_directory_is_committed(repo: Path) -> None:
    config = repo / ".agent" / "config.toml"
    config.write_text(config.read_text().replace("snapshot_every = 1000", "snapshot_every = 4"))
    git(repo, "commit", "-q", "-am", "snapshot every 4 events")
    taken = []
    for n in range(2):
        agent = Agent.open(str(repo), worker="w")
        agent.start_run(f"run {n}")
        agent.record_goal(f"goal_{n}", "g")
        closed = close_run(agent, "done")
        assert closed.snapshot is not None and closed.commit is not None
        taken.append(closed.snapshot)
    assert taken[0] != taken[1]
    assert taken[1] in git(repo, "show", "--name-only", "--format=", "HEAD")
    assert git(repo, "status", "--porcelain", "--", "snapshots") == ""


def _event_line(event_id: str, payload: dict[str, int]) -> bytes:
    from git_gasp.core.event import Actor, Event, encode_event

    event = Event(event_id, 1, 1, Actor("agent", "a"), "note.created", payload, None, None)
    return encode_event(event).encode() + b"\n"


def test_a_verified_seed_is_located_by_its_last_event_or_by_counting(tmp_path: Path) -> None:
    import hashlib

    from git_gasp.agent.projecting import write_snapshot
    from git_gasp.store import seeding

    # the snapshot's last event id also appears in an earlier line (a payload key)
    lines = [
        _event_line("event_a", {"event_c": 1}),
        _event_line("event_b", {}),
        _event_line("event_c", {}),
    ]
    (tmp_path / "state").mkdir()
    log = tmp_path / "state" / "events.jsonl"
    log.write_bytes(b"".join(lines))
    rel = write_snapshot(str(tmp_path))
    log.write_bytes(b"".join(lines) + _event_line("event_d", {}))
    data = log.read_bytes()
    digest = hashlib.sha256((tmp_path / rel).read_bytes()).hexdigest()
    prefix = len(b"".join(lines))
    for verified in ({digest: 3}, {}, {digest: 2}):
        found = seeding.choose(str(tmp_path), data, verified, lambda seed: seed.offset)
        assert found is not None
        seed, decoded = found
        assert (seed.offset, seed.events, decoded) == (prefix, 3, prefix)
        assert seed.verified is (verified.get(digest) == 3)
    log.write_bytes(data.replace(b"event_b", b"event_x"))  # the prefix changed
    assert seeding.choose(str(tmp_path), log.read_bytes(), {digest: 3}, lambda s: s) is None
    # the latest snapshot no longer matches: an earlier one that still does is chosen
    log.write_bytes(data)
    write_snapshot(str(tmp_path), at="event_b")
    log.write_bytes(data.replace(_event_line("event_c", {}), _event_line("event_c", {"x": 1})))
    found = seeding.choose(str(tmp_path), log.read_bytes(), {}, lambda seed: seed.name)
    assert found is not None and found[1] == "event_b" and found[0].events == 2


def test_the_common_directory_is_found_without_git_where_plain(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_gasp import git as gitrepo
    from git_gasp.store import seeding

    assert seeding.common_dir(str(repo)) == str(repo / ".git")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    assert os.path.samefile(seeding.common_dir(str(linked)) or "", repo / ".git")
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    asked = []
    real = gitrepo.repo_info
    monkeypatch.setattr(gitrepo, "repo_info", lambda path: asked.append(path) or real(path))
    assert os.path.samefile(seeding.common_dir(str(repo)) or "", repo / ".git") and asked


def test_the_fixtures_open_run_can_be_closed(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run_42 of the canonical fixture was started without a run node: closing
    it creates the node instead of updating a missing one."""
    code, out, err = main(
        capsys, "run", "abandon", "--reason", "fixture", "-C", str(fixture_repo), "--worker", "w"
    )
    assert code == 0, err
    head = subprocess.run(
        ["git", "-C", str(fixture_repo), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout
    assert out.strip() == f"abandoned run_42: commit {head[:12]}"  # as close says it
    conformant(fixture_repo)
    code, out, _ = main(capsys, "run", "status", "-C", str(fixture_repo), "--json")
    assert json.loads(out)["open_run"] is None


def test_close_rereads_the_log_an_agent_has_in_memory(repo: Path) -> None:
    log = repo / "state" / "events.jsonl"
    agent = Agent.open(str(repo), worker="w")
    agent.record_goal("goal_v", "g")
    agent.start_run("t")
    close_run(agent, "first")
    fresh = Agent.open(str(repo), worker="w")
    # an edit of the same size behind the agent's back, times put back as they were
    times = os.stat(log)
    log.write_bytes(log.read_bytes().replace(b'"title":"g"', b'"title":"G"'))
    os.utime(log, ns=(times.st_atime_ns, times.st_mtime_ns))
    fresh.start_run("t2")
    with pytest.raises(Exception, match="edits committed lines"):
        close_run(fresh, "after an edit")


def test_init_without_a_git_identity_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        for field in ("NAME", "EMAIL"):
            monkeypatch.delenv(f"GIT_{role}_{field}", raising=False)
    for key, value in {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "user.useConfigOnly",  # no guessing an identity
        "GIT_CONFIG_VALUE_0": "true",
    }.items():
        monkeypatch.setenv(key, value)
    dest = tmp_path / "agent"
    code = cli.main(["init", str(dest), "--agent-id", "evolve"])
    err = capsys.readouterr().err
    assert code == 2 and "nothing was written" in err
    assert not dest.exists()  # not even an empty .git
    existing = tmp_path / "plain"
    existing.mkdir()
    assert cli.main(["init", str(existing), "--agent-id", "evolve"]) == 2
    assert list(existing.iterdir()) == []


def test_a_recorded_outcome_no_commit_can_carry_does_not_block_the_close(repo: Path) -> None:
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t")
    agent.finish_run("line1\nline2")  # another runtime's finish: no trailer can hold it
    closed = close_run(Agent.open(str(repo), worker="w"), "line1")
    assert closed.commit is not None
    agent = Agent.open(str(repo), worker="w")
    agent.start_run("t2")
    agent.finish_run("first")
    with pytest.raises(GaspError) as caught:
        close_run(Agent.open(str(repo), worker="w"), "second")
    assert "already finished with outcome `first`" in caught.value.message
    assert caught.value.hint == "finish it with: git gasp run close --outcome first"
