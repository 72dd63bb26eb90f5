"""Durable appends (REFERENCE §8): concurrent writers, SIGKILL mid-append, repair.

Real processes on a real repository: writers are ``python -c`` children using
:class:`git_gasp.agent.api.Agent`; repair and check run as ``git gasp`` commands
(after each of the many kills, in this process, as the command line's
:func:`~git_gasp.cli.root.main`: what the test reads is their output, and each
child would be another interpreter started). Nothing here asserts a duration:
children synchronize through their pipes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from git_gasp.agent.api import Agent
from git_gasp.agent.init import init_repo
from git_gasp.core.event import Event
from git_gasp.core.log import parse_log
from git_gasp.store import writer as store
from git_gasp.store.lease import Lease

from .conftest import git, run_cli

EVENTS = "state/events.jsonl"
CHECK_1 = "[PASS] check 1 — envelope round-trip"


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GASP_WORKER_ID", None)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def gasp(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "gasp", *args], cwd=root, env=child_env(), capture_output=True, text=True
    )


def gasp_here(
    capsys: pytest.CaptureFixture[str], root: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """:func:`gasp`'s command run in this process, as a worker with no
    ``GASP_WORKER_ID`` (as :func:`child_env` leaves it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("GASP_WORKER_ID", raising=False)
        code, out, err = run_cli(capsys, *args, "-C", str(root))
    return subprocess.CompletedProcess(["git", "gasp", *args], code, out, err)


def python(code: str, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=child_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


@pytest.fixture
def agent_repo(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    init_repo(str(root), "agent-one")
    return root


def payload(event: Event) -> Any:
    return event.payload


def goal_ids(data: bytes) -> list[str]:
    return [payload(e)["id"] for e in parse_log(data).events if e.kind == "goal.created"]


def assert_whole_batches(data: bytes) -> None:
    """Every line complete and parsed; each goal.created directly followed by its
    own ops pair (a batch is never interleaved with another writer's)."""
    assert data == b"" or data.endswith(b"\n")
    log = parse_log(data)
    assert log.errors == ()
    assert log.line_count == data.count(b"\n")  # no blank or merged lines
    events = log.events
    assert len(events) % 2 == 0
    for created, pair in zip(events[::2], events[1::2], strict=True):
        assert created.kind == "goal.created"
        assert pair.kind == "state.ops_applied" and pair.causation_id == created.id
        assert payload(pair)[0]["CreateNode"]["id"] == payload(created)["id"]
    assert len({e.id for e in events}) == len(events)


# --- (a) four processes appending under the lease ---------------------------------------

WRITER = """
import json, sys, time
from git_gasp.agent.api import Agent
from git_gasp.store.lease import LeaseError

CONTENDED = "could not acquire lease after repeated contention; retry"
root, worker, tag, count, size = sys.argv[1:6]
ok, held, contended, other = [], 0, 0, []
for i in range(int(count)):
    goal = f"goal_{tag}_{i}"
    for _ in range(50):
        try:
            with Agent.open(root, worker=worker) as agent:
                agent.record_goal(goal, f"{tag} {i}", tag * int(size))
            ok.append(goal)
        except LeaseError as exc:
            if str(exc).startswith("lease held by worker `"):
                held += 1
            elif str(exc) == CONTENDED:  # §7.6: the lease churned 3 times; retry
                contended += 1
                continue
            else:
                other.append(f"LeaseError: {exc}")
        except Exception as exc:
            other.append(f"{type(exc).__name__}: {exc}")
        break
    if i == 0:
        print("first", flush=True)
        sys.stdin.readline()  # all four start the contended part together
    time.sleep(0.002)
print(json.dumps({"ok": ok, "held": held, "contended": contended, "other": other}), flush=True)
"""

ROUNDS = 40
SUMMARY = 6_000  # a batch spans several pages


def start_writers(root: Path, workers: list[str]) -> list[subprocess.Popen[str]]:
    """Start one writer per worker id; return once each has made its first attempt."""
    procs = [
        python(WRITER, str(root), worker, f"w{n}", str(ROUNDS), str(SUMMARY))
        for n, worker in enumerate(workers)
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stderr is not None
            assert proc.stdout.readline() == "first\n", proc.stderr.read()
    except BaseException:
        for proc in procs:
            proc.kill()
            proc.communicate()
        raise
    return procs


def finish(procs: list[subprocess.Popen[str]]) -> list[dict[str, Any]]:
    """Let the writers go on together; collect what each reports."""
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out.splitlines()[-1]))
    return results


def test_four_workers_contend_for_the_lease(agent_repo: Path) -> None:
    blocker = Lease(str(agent_repo), "blocker")
    blocker.acquire()  # every worker's first attempt meets a live foreign lease
    procs = start_writers(agent_repo, ["worker-0", "worker-1", "worker-2", "worker-3"])
    blocker.release()
    results = finish(procs)
    for n, result in enumerate(results):
        assert result["other"] == [], f"worker-{n} failed otherwise than 'lease held'"
        assert result["held"] >= 1  # at least the blocked first attempt
        assert result["held"] + len(result["ok"]) == ROUNDS
    reported = [goal for result in results for goal in result["ok"]]
    assert reported  # the lease was free after the blocker released it
    data = (agent_repo / EVENTS).read_bytes()
    assert_whole_batches(data)
    assert Counter(goal_ids(data)) == Counter(reported)  # nothing lost, nothing doubled
    assert len(set(reported)) == len(reported)
    leftovers = [n for n in os.listdir(agent_repo / ".agent") if n.startswith("lease")]
    assert leftovers == []  # every worker released; no .tmp-/.steal- files left behind


def test_four_processes_of_one_worker_serialize_on_the_file_lock(agent_repo: Path) -> None:
    results = finish(start_writers(agent_repo, ["shared"] * 4))
    for n, result in enumerate(results):
        assert result["other"] == [], f"process {n} failed"
        assert result["held"] == 0
        assert len(result["ok"]) == ROUNDS
    reported = [goal for result in results for goal in result["ok"]]
    data = (agent_repo / EVENTS).read_bytes()
    assert_whole_batches(data)
    assert Counter(goal_ids(data)) == Counter(reported)
    assert len(reported) == 4 * ROUNDS
    git(agent_repo, "add", EVENTS)
    git(agent_repo, "commit", "-q", "-m", "goals")
    checked = gasp(agent_repo, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


PAUSED_WRITER = """
import os, sys
from git_gasp.store import writer as store
from git_gasp.agent.api import Agent

real_write = os.write
def write(fd, data):
    half = len(data) // 2
    done = real_write(fd, data[:half])
    print("half", flush=True)
    sys.stdin.readline()
    return done + real_write(fd, data[half:])
store.os.write = write  # the writer stalls in the middle of its batch
with Agent.open(sys.argv[1], worker="writer") as agent:
    agent.record_goal("goal_paused", "paused", "p" * 20000)
print("done", flush=True)
"""


def test_opening_the_repo_while_another_process_is_mid_append(agent_repo: Path) -> None:
    """A batch being written (its writer holds the file lock) is not a crash tail:
    opening the repo meanwhile must not fail with a torn-line error."""
    writer = python(PAUSED_WRITER, str(agent_repo))
    assert writer.stdout is not None and writer.stdin is not None
    try:
        assert writer.stdout.readline() == "half\n", writer.stderr and writer.stderr.read()
        outcome: list[object] = []

        def open_repo() -> None:
            try:
                with Agent.open(str(agent_repo), worker="reader") as agent:
                    outcome.append(sorted(agent.graph.nodes))
            except Exception as exc:
                outcome.append(exc)

        reader = threading.Thread(target=open_repo)
        reader.start()
        reader.join(0.5)  # a reader that waits for the lock is fine too
        writer.stdin.write("go\n")
        writer.stdin.flush()
        assert writer.stdout.readline() == "done\n"
        reader.join()
    finally:
        writer.kill()
        writer.communicate()
    assert len(outcome) == 1
    assert not isinstance(outcome[0], Exception), f"{type(outcome[0]).__name__}: {outcome[0]}"
    assert goal_ids((agent_repo / EVENTS).read_bytes()) == ["goal_paused"]


# --- (b) SIGKILL mid-append ------------------------------------------------------------

BIG_WRITER = """
import sys
from git_gasp.agent.api import Agent

agent = Agent.open(sys.argv[1], worker="crashy")
print("ready", flush=True)
for i in range(40):
    agent.record_goal(None, f"big {i}", "x" * 200_000)
"""

SELF_KILLING_WRITER = """
import os, signal, sys
from git_gasp.store import writer as store
from git_gasp.agent.api import Agent

real_write = os.write
def write(fd, data):
    keep = int(sys.argv[2])
    if keep < 0:
        keep = bytes(data).index(b"\\n")
    real_write(fd, data[:keep])
    os.kill(os.getpid(), signal.SIGKILL)
store.os.write = write
Agent.open(sys.argv[1], worker="crashy").record_goal(None, "big", "x" * 200_000)
"""


def committed_log(root: Path) -> bytes:
    return subprocess.run(
        ["git", "show", f"HEAD:{EVENTS}"], cwd=root, capture_output=True, check=True
    ).stdout


def seed_committed_log(root: Path) -> bytes:
    with Agent.open(str(root), worker="crashy") as agent:
        for n in range(3):
            agent.record_goal(f"goal_seed_{n}", f"seed {n}", "committed")
    git(root, "add", EVENTS)
    git(root, "commit", "-q", "-m", "seed")
    committed = committed_log(root)
    assert len(goal_ids(committed)) == 3
    return committed


def backups(root: Path) -> list[Path]:
    folder = root / ".git" / "gasp" / "repair"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def verify_after_kill(root: Path, committed: bytes, capsys: pytest.CaptureFixture[str]) -> bool:
    """Repair, check and append again after a killed writer; True if the tail was torn."""
    path = root / EVENTS
    data = path.read_bytes()
    assert data.startswith(committed)  # committed bytes untouched by the crash
    cut = data.rfind(b"\n") + 1
    tail = data[cut:]
    if tail:
        with pytest.raises(store.TornTailError):  # nothing appends onto a torn line
            with Agent.open(str(root), worker="crashy") as glued:  # (its lease released)
                glued.record_goal(None, "glued")
        with store.locked(str(path)) as log, pytest.raises(store.TornTailError):
            log.write(b"{}\n")
        assert path.read_bytes() == data
    saved = backups(root)
    repaired = gasp_here(capsys, root, "repair")
    assert repaired.returncode == 0, repaired.stderr
    after = path.read_bytes()
    assert after.startswith(committed)
    parsed = parse_log(after)
    assert parsed.errors == () and not parsed.unterminated
    if not tail:
        assert after == data and backups(root) == saved
    elif after == data + b"\n":  # the kill fell just before the newline: a whole event
        assert backups(root) == saved
    else:
        # the torn line goes, and with it a domain event whose pair it was
        # (one batch is written whole or not at all)
        start = data.rfind(b"\n", 0, cut - 1) + 1
        orphan = parse_log(data[start:cut]).events[0]
        keep = start if orphan.kind == "goal.created" else cut
        assert after == data[:keep]
        new = [b for b in backups(root) if b not in saved]
        assert len(new) == 1 and new[0].read_bytes() == data[keep:]
    checked = gasp_here(capsys, root, "check")
    assert CHECK_1 in checked.stdout.splitlines(), checked.stdout + checked.stderr
    pairing = "[PASS] check 7 — domain↔ops consistency"
    assert pairing in checked.stdout.splitlines(), checked.stdout  # no half batch is left
    with Agent.open(str(root), worker="crashy") as agent:
        goal = agent.record_goal(None, "after the crash")
    again = path.read_bytes()
    assert again.startswith(after) and goal_ids(again)[-1] == goal
    assert parse_log(again).errors == ()
    return bool(tail)


def test_sigkill_mid_append_never_harms_the_committed_log(
    agent_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    committed = seed_committed_log(agent_repo)
    rng = random.Random(20250217)
    for _ in range(30):  # a kill lands inside a write only now and then: see below
        writer = python(BIG_WRITER, str(agent_repo))
        assert writer.stdout is not None and writer.stderr is not None
        ready = writer.stdout.readline()
        if ready == "ready\n":
            time.sleep(rng.uniform(0.0, 0.03))  # somewhere in its stream of big batches
        writer.send_signal(signal.SIGKILL)
        _, err = writer.communicate()
        assert ready == "ready\n", err
        verify_after_kill(agent_repo, committed, capsys)
        with open(agent_repo / EVENTS, "r+b") as fh:  # forget the uncommitted part
            fh.truncate(len(committed))
    assert committed_log(agent_repo) == committed


@pytest.mark.parametrize("keep", [1, 4096, 150_000, -1])
def test_a_writer_killed_inside_its_write(
    agent_repo: Path, keep: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same, deterministically: the writer SIGKILLs itself after ``keep`` bytes of
    its batch (-1: the whole first line but its newline)."""
    committed = seed_committed_log(agent_repo)
    writer = python(SELF_KILLING_WRITER, str(agent_repo), str(keep))
    writer.communicate()
    assert writer.returncode == -signal.SIGKILL
    size = len((agent_repo / EVENTS).read_bytes())
    assert size == len(committed) + keep if keep > 0 else size > len(committed) + 200_000
    assert verify_after_kill(agent_repo, committed, capsys)


# --- (c) repair never touches committed bytes --------------------------------------------


def test_repair_refuses_a_committed_torn_line(agent_repo: Path) -> None:
    committed = seed_committed_log(agent_repo)
    path = agent_repo / EVENTS
    path.write_bytes(committed[:-40])
    git(agent_repo, "commit", "-q", "-am", "torn")
    refused = gasp(agent_repo, "repair")
    assert refused.returncode != 0
    assert "part of the committed log" in refused.stderr
    assert path.read_bytes() == committed[:-40]
    assert backups(agent_repo) == []


def test_a_committed_log_without_its_final_newline_is_terminated_then_appended_to(
    agent_repo: Path,
) -> None:
    """REFERENCE §10.4: a log may lack its final newline; the newline is an
    append, so repair adds it even when a commit holds the line, and then
    the agent can append again (the history stays append-only)."""
    committed = seed_committed_log(agent_repo)
    path = agent_repo / EVENTS
    path.write_bytes(committed[:-1])
    git(agent_repo, "commit", "-q", "-am", "unterminated")
    refused = gasp(agent_repo, "run", "start", "--task", "t")
    assert refused.returncode == 1 and "git gasp repair" in refused.stderr
    done = gasp(agent_repo, "repair")
    assert done.returncode == 0, done.stderr
    assert "added its newline" in done.stdout and path.read_bytes() == committed
    assert gasp(agent_repo, "run", "start", "--task", "t").returncode == 0
    git(agent_repo, "commit", "-q", "-am", "appended")
    judged = gasp(agent_repo, "validate", "HEAD~1..HEAD")  # the truncation above is not
    assert judged.returncode == 0, judged.stdout + judged.stderr


def test_repair_terminates_a_complete_last_line_and_nothing_else(agent_repo: Path) -> None:
    committed = seed_committed_log(agent_repo)
    path = agent_repo / EVENTS
    with Agent.open(str(agent_repo), worker="crashy") as agent:
        agent.record_goal("goal_late", "late")
    data = path.read_bytes()
    path.write_bytes(data[:-1])
    done = gasp(agent_repo, "repair")
    assert done.returncode == 0, done.stderr
    assert "added its newline" in done.stdout
    assert path.read_bytes() == data
    assert backups(agent_repo) == []
    again = gasp(agent_repo, "repair")
    assert again.returncode == 0 and "nothing to repair" in again.stdout
    assert path.read_bytes() == data and data.startswith(committed)


def test_repair_of_a_torn_tail_right_after_the_committed_bytes(agent_repo: Path) -> None:
    committed = seed_committed_log(agent_repo)
    path = agent_repo / EVENTS
    path.write_bytes(committed + b'{"id":"event_torn","schema_ver')
    done = gasp(agent_repo, "repair", "--json")
    assert done.returncode == 0, done.stderr
    assert "removed a torn last line of 30 bytes" in json.loads(done.stdout)["result"]
    assert path.read_bytes() == committed
    [backup] = backups(agent_repo)
    assert backup.read_bytes() == b'{"id":"event_torn","schema_ver'


# --- (d) fsync ---------------------------------------------------------------------------


def fsync_spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Record (path, size) of every descriptor fsynced."""
    synced: list[tuple[str, int]] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append((os.readlink(f"/proc/self/fd/{fd}"), os.fstat(fd).st_size))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_fsync_once_per_batch_and_the_directory_on_first_create(
    agent_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = agent_repo.resolve()
    log, state, lease = str(root / EVENTS), str(root / "state"), str(root / ".agent" / "lease")
    os.unlink(log)  # the first append creates the log
    agent = Agent.open(str(root), worker="syncer")
    synced = fsync_spy(monkeypatch)
    agent.record_goal("goal_1", "first")  # one batch of two events
    size = os.path.getsize(log)
    assert [p for p, _ in synced if p in (log, state)] == [log, state]  # batch, new entry
    assert (log, size) in synced  # after the whole batch was written
    assert synced[0][0].startswith(lease)  # the lease record was made durable first
    synced.clear()
    agent.record_goal("goal_2", "second")
    assert [p for p, _ in synced if p in (log, state)] == [log]  # no directory this time
    assert (log, os.path.getsize(log)) in synced
    assert synced[0][0].startswith(lease)  # the renewed lease
    agent.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_the_appender_fsyncs_file_then_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path.resolve() / "d"
    path = str(folder / "x.jsonl")
    synced = fsync_spy(monkeypatch)
    with store.locked(path) as fresh:
        fresh.write(b"one\n")
        fresh.write(b"two\n")
    with store.locked(path) as old:
        old.write(b"three\n")
    assert synced == [(path, 4), (str(folder), synced[1][1]), (path, 8), (path, 14)]


# --- (e) a write that fails, a batch cut short, the other append-only files -----------


def fsize_limited(limit: int) -> Any:
    """``preexec_fn`` for a child whose files may not grow past ``limit`` bytes
    (``ulimit -f``): its writes beyond fail with EFBIG, as on a full disk.
    Run such a child with ``PYTHONDONTWRITEBYTECODE=1``: the interpreter would
    write a module's bytecode cut at the limit into the shared cache, where
    every later process fails to load it."""
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_write_that_fails_leaves_nothing_behind(agent_repo: Path) -> None:
    committed = seed_committed_log(agent_repo)
    log = agent_repo / EVENTS
    # room for the domain event's line, not for its ops pair: the batch is cut
    # inside, and must not stay half written
    result = subprocess.run(
        ["git", "gasp", "record", "goal", "--title", "x" * 300],
        cwd=agent_repo,
        env={**child_env(), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        preexec_fn=fsize_limited(len(committed) + 500),
    )
    assert result.returncode == 2, result.stderr
    assert "cannot append: File too large; nothing was written" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert log.read_bytes() == committed
    assert gasp(agent_repo, "record", "goal", "--title", "y").returncode == 0


def test_an_unpaired_last_event_is_refused_then_repaired(agent_repo: Path) -> None:
    committed = seed_committed_log(agent_repo)
    log = agent_repo / EVENTS
    with Agent.open(str(agent_repo), worker="crashy") as agent:
        agent.record_goal("goal_cut", "cut")
    first_half = log.read_bytes().splitlines(keepends=True)[-2]
    log.write_bytes(committed + first_half)  # a crash right after the domain event's line
    refused = gasp(agent_repo, "record", "goal", "--title", "next")
    assert refused.returncode == 1
    assert "ends with goal.created" in refused.stderr and "git gasp repair" in refused.stderr
    assert log.read_bytes() == committed + first_half
    done = gasp(agent_repo, "repair")
    assert done.returncode == 0, done.stderr
    assert "removed a last event whose ops pair a crash cut off" in done.stdout
    assert log.read_bytes() == committed
    [backup] = backups(agent_repo)
    assert backup.read_bytes() == first_half
    assert gasp(agent_repo, "record", "goal", "--title", "next").returncode == 0


def test_repair_covers_the_facts_and_the_journal(agent_repo: Path) -> None:
    seed_committed_log(agent_repo)
    assert gasp(agent_repo, "fact", "add", "kept").returncode == 0
    facts = agent_repo / "memory" / "facts.jsonl"
    journal = agent_repo / "journal" / "JOURNAL.md"
    git(agent_repo, "add", "-A")
    git(agent_repo, "commit", "-qm", "a fact")
    kept_facts, kept_journal = facts.read_bytes(), journal.read_bytes()
    with facts.open("ab") as fh:
        fh.write(b'{"id":"fact_torn","ts_ms":1,"te')
    with journal.open("ab") as fh:
        fh.write(b"## Run run_torn: done\n\n- task: cut sh")
    refused = gasp(agent_repo, "fact", "add", "more")
    assert refused.returncode == 1 and "git gasp repair" in refused.stderr
    done = gasp(agent_repo, "repair", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["result"]
    assert "memory/facts.jsonl: removed a torn last line" in result
    assert "journal/JOURNAL.md: removed a torn last line and the rest of its batch" in result
    assert facts.read_bytes() == kept_facts and journal.read_bytes() == kept_journal
    assert gasp(agent_repo, "fact", "add", "more").returncode == 0


CLOSE_KILLED_IN_THE_JOURNAL = """
import os, sys
from git_gasp.store import writer as store
from git_gasp.agent.api import Agent
from git_gasp.agent.runs import close_run
real = store.Appender.write
def write(self, data):
    if self.path.endswith("JOURNAL.md"):
        os.write(self.fd, data[: len(data) // 2])  # half the entry, then killed
        os._exit(9)
    real(self, data)
store.Appender.write = write
close_run(Agent.open(sys.argv[1], worker="w"), "done")
"""


@pytest.mark.parametrize("again", ["done", "done differently"])
def test_a_retried_close_completes_a_journal_entry_a_crash_cut_short(
    agent_repo: Path, again: str
) -> None:
    assert (
        gasp(agent_repo, "run", "start", "--task", "cut the journal", "--worker", "w").returncode
        == 0
    )
    journal = agent_repo / "journal" / "JOURNAL.md"
    before = journal.read_bytes()
    killed = python(CLOSE_KILLED_IN_THE_JOURNAL, str(agent_repo))
    killed.communicate()
    assert killed.returncode == 9
    cut = journal.read_bytes()
    assert len(cut) > len(before) and not cut.endswith(b"\n\n")
    retried = gasp(agent_repo, "run", "close", "--outcome", again, "--worker", "w")
    if again != "done":  # the log recorded the first close's outcome: it has its say
        assert retried.returncode == 2
        assert "already finished with outcome `done`" in retried.stderr
        assert "git gasp run close --outcome done" in retried.stderr
        retried = gasp(agent_repo, "run", "close", "--outcome", "done", "--worker", "w")
    assert retried.returncode == 0, retried.stderr
    entry = journal.read_bytes()[len(before) :]
    assert entry.startswith(b"## Run run_") and entry.count(b"## Run ") == 1
    assert entry.endswith(b"\n\n") and b": done\n" in entry
    assert git(agent_repo, "status", "--porcelain") == ""  # the whole entry is committed
    assert gasp(agent_repo, "check").returncode == 0


def test_concurrent_supersedes_make_a_chain_not_a_fork(agent_repo: Path) -> None:
    from git_gasp.agent.projecting import read_facts

    first = gasp(agent_repo, "fact", "add", "the first")
    assert first.returncode == 0, first.stderr
    fact = first.stdout.strip()
    procs = [
        subprocess.Popen(
            ["git", "gasp", "fact", "supersede", fact, f"version {n}"],
            cwd=agent_repo,
            env=child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    results = [(p.wait(), p.stderr.read() if p.stderr else "") for p in procs]
    assert sorted(code for code, _ in results) == [0, 2, 2, 2, 2, 2], results
    assert all("already superseded" in err for code, err in results if code)
    facts = read_facts(str(agent_repo)).facts
    assert [f.supersedes for f in facts].count(fact) == 1


def test_the_unpaired_event_guard_reads_the_logs_last_event_when_seeded(
    agent_repo: Path,
) -> None:
    def ok(*args: str) -> str:
        done = gasp(agent_repo, *args)
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout.strip()

    # a snapshot taken between a goal.created and its pair: a seeded open
    # must not take the snapshot's last event for the log's
    ok("run", "start", "--task", "t", "--worker", "w")
    ok("record", "goal", "--title", "g", "--worker", "w")
    lines = (agent_repo / EVENTS).read_text().splitlines()
    goal_event = json.loads(lines[-2])["id"]
    ok("snapshot", "--at", goal_event)
    for n in range(3):  # the first open verifies the snapshot, the next ones seed from it
        ok("record", "observation", "--title", f"o{n}", "--worker", "w")
    ok("run", "close", "--outcome", "done", "--worker", "w")
    # and a real unpaired event at the end is refused, also by an open seeded
    # from a snapshot taken after its run started (which loads the prefix too)
    ok("run", "start", "--task", "t2", "--worker", "w")
    ok("snapshot")
    ok("record", "observation", "--title", "warm", "--worker", "w")  # verifies the snapshot
    with Agent.open(str(agent_repo), worker="w") as agent:
        agent.record_goal("goal_cut", "cut")
    cut = (agent_repo / EVENTS).read_bytes().splitlines(keepends=True)
    (agent_repo / EVENTS).write_bytes(b"".join(cut[:-1]))  # the ops pair never came
    refused = gasp(agent_repo, "record", "observation", "--title", "after", "--worker", "w")
    assert refused.returncode == 1, refused.stderr
    assert "ends with goal.created" in refused.stderr
    assert "without its state.ops_applied" in refused.stderr


def test_a_fact_recorded_before_its_projection_failed_says_so(agent_repo: Path) -> None:
    facts = agent_repo / "memory" / "facts.jsonl"
    facts.write_bytes(b"")
    result = subprocess.run(
        ["git", "gasp", "fact", "add", "x" * 400],
        cwd=agent_repo,
        env={**child_env(), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        preexec_fn=fsize_limited(550),  # the fact's line is 515 bytes, active memory 589
    )
    assert result.returncode == 2, result.stderr
    assert "but memory/active_memory.md could not be rewritten" in result.stderr
    assert "do not add the fact again" in result.stderr
    assert facts.read_text().count('"text"') == 1


def test_repair_keeps_a_committed_unpaired_event(agent_repo: Path) -> None:
    seed_committed_log(agent_repo)
    log = agent_repo / EVENTS
    with Agent.open(str(agent_repo), worker="crashy") as agent:
        agent.record_goal("goal_half", "half")
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:-1]))
    git(agent_repo, "commit", "-qam", "a committed event without its pair")
    committed = log.read_bytes()
    done = gasp(agent_repo, "repair")  # not a crash's: a commit holds it
    assert done.returncode == 0 and "nothing to repair" in done.stdout
    assert log.read_bytes() == committed
    log.write_bytes(committed + b'{"id":"event_torn","sche')  # and before a torn tail
    done = gasp(agent_repo, "repair")
    assert done.returncode == 0, done.stderr
    assert "removed a torn last line of 24 bytes" in done.stdout
    assert log.read_bytes() == committed


def refused_close(root: Path, outcome: str) -> Path:
    """A run whose close a pre-commit hook refused (its journal entry is
    written, nothing committed); the hook is gone again. The journal's path."""
    assert gasp(root, "run", "start", "--task", "t", "--worker", "w").returncode == 0
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    assert gasp(root, "run", "close", "--outcome", outcome, "--worker", "w").returncode != 0
    hook.unlink()
    return root / "journal" / "JOURNAL.md"


def test_a_retried_close_keeps_what_follows_a_whole_journal_entry(agent_repo: Path) -> None:
    journal = refused_close(agent_repo, "first")
    with journal.open("a") as fh:
        fh.write("Human note.\n")
    done = gasp(agent_repo, "run", "close", "--outcome", "first", "--worker", "w")
    assert done.returncode == 0, done.stderr
    assert journal.read_text().count("## Run ") == 1 and "Human note." in journal.read_text()


def test_the_unpaired_event_guard_holds_when_a_snapshot_ends_at_the_event(
    agent_repo: Path,
) -> None:
    with Agent.open(str(agent_repo), worker="w") as agent:
        agent.record_goal("goal_1", "one")
        agent.record_goal("goal_cut", "cut")
    log = agent_repo / EVENTS
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:-1]))
    assert gasp(agent_repo, "snapshot").returncode == 0  # ends at the unpaired event
    assert gasp(agent_repo, "run", "status").returncode == 0  # verifies it: later opens seed
    refused = gasp(agent_repo, "record", "goal", "--title", "g3", "--worker", "w")
    assert refused.returncode == 1, refused.stderr
    assert "ends with goal.created" in refused.stderr


def test_a_retried_close_writes_the_entry_as_the_log_now_is(agent_repo: Path) -> None:
    def ok(*args: str) -> None:
        done = gasp(agent_repo, *args, "--worker", "w")
        assert done.returncode == 0, (args, done.stderr)

    ok("run", "start", "--task", "t")
    ok("record", "patch", "--id", "patch_y", "--title", "p")
    killed = python(CLOSE_KILLED_IN_THE_JOURNAL, str(agent_repo))
    killed.communicate()
    assert killed.returncode == 9
    ok("record", "patch-status", "--id", "patch_y", "--status", "Promoted")  # after the crash
    ok("run", "close", "--outcome", "done")
    journal = (agent_repo / "journal" / "JOURNAL.md").read_text()
    assert journal.endswith("- patches: patch_y (Promoted)\n\n")
    assert journal.count("## Run ") == 1
    assert gasp(agent_repo, "run", "start", "--task", "next", "--worker", "w").returncode == 0


def test_a_retried_close_keeps_an_entry_edited_by_hand(agent_repo: Path) -> None:
    journal = refused_close(agent_repo, "done")
    edited = journal.read_text().replace("- task: t\n", "- task: t\n  (continued by hand)\n")
    journal.write_text(edited + "## My notes\n\nkeep me\n")
    done = gasp(agent_repo, "run", "close", "--outcome", "done", "--worker", "w")
    assert done.returncode == 0, done.stderr
    assert journal.read_text() == edited + "## My notes\n\nkeep me\n"  # nothing lost


def test_two_repairs_in_one_second_keep_both_torn_tails(tmp_path: Path) -> None:
    """A backup is created, never overwritten: a process repairing twice within one
    second (the kill loop above does) kept only the second tail before."""
    log, saved = tmp_path / "events.jsonl", tmp_path / "repair"
    tails = [b'{"torn": "first', b'{"torn": "second']
    for tail in tails:
        log.write_bytes(b"{}\n" + tail)
        assert "saved to" in store.repair(str(log), str(saved), 0, parses=False)
        assert log.read_bytes() == b"{}\n"
    assert sorted(p.read_bytes() for p in saved.iterdir()) == sorted(tails)
