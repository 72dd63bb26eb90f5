"""The single-writer lease, ``.agent/lease``, exactly as REFERENCE §7.

Unit tests drive :class:`git_gasp.store.lease.Lease` with an injected clock; the
command-line tests run real ``git gasp`` processes against an agent repo.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from git_gasp.agent.init import init_repo
from git_gasp.errors import FINDINGS, GaspError
from git_gasp.store import lease as lease_module
from git_gasp.store.lease import DEFAULT_TTL_MS, Holder, Lease, LeaseError

from .conftest import git

NOW = 1_739_000_000_000
HELD_PREFIX = "lease held by worker `"


class Clock:
    """An injectable clock (epoch ms) that tests move by hand."""

    def __init__(self, now: int = NOW) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def record(worker: str, pid: int, expires: int) -> bytes:
    return json.dumps(
        {"worker_id": worker, "pid": pid, "expires_at_ms": expires}, separators=(",", ":")
    ).encode()


def lease_file(root: Path) -> Path:
    return root / ".agent" / "lease"


def plant(root: Path, data: bytes) -> Path:
    path = lease_file(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def agent_dir(root: Path) -> list[str]:
    return sorted(os.listdir(root / ".agent"))


def held_message(worker: str, pid: int, expires: int) -> str:
    """The refusal's start: the expiry as a UTC time a person reads (it was
    the raw milliseconds); what follows is how long from now."""
    stamp = datetime.fromtimestamp(expires / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"lease held by worker `{worker}` (pid {pid}) until {stamp} ("


# --- the record ------------------------------------------------------------------


def test_acquire_writes_the_compact_record_with_the_default_ttl(tmp_path: Path) -> None:
    Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()
    raw = lease_file(tmp_path).read_bytes()
    expected = f'{{"worker_id":"worker-a","pid":{os.getpid()},"expires_at_ms":{NOW + 600_000}}}'
    assert raw == expected.encode()  # field order, no spaces, no trailing newline
    assert DEFAULT_TTL_MS == 600_000
    assert agent_dir(tmp_path) == ["lease"]  # .agent/ is created; nothing else left behind


def test_the_ttl_is_configurable(tmp_path: Path) -> None:
    lease = Lease(str(tmp_path), "worker-a", ttl_ms=5_000, clock=Clock())
    lease.acquire()
    assert lease.holder() == Holder("worker-a", os.getpid(), NOW + 5_000)


def test_holder_reports_no_lease(tmp_path: Path) -> None:
    assert Lease(str(tmp_path), "worker-a", clock=Clock()).holder() is None


@pytest.mark.parametrize("blank", ["", " ", "\t\n "])
def test_a_blank_worker_id_is_refused(tmp_path: Path, blank: str) -> None:
    with pytest.raises(GaspError, match="worker id must not be blank"):
        Lease(str(tmp_path), blank, clock=Clock())
    assert not (tmp_path / ".agent").exists()


# --- exclusive create, renew -------------------------------------------------------


def test_the_first_worker_wins_the_exclusive_create(tmp_path: Path) -> None:
    clock = Clock()
    Lease(str(tmp_path), "worker-a", clock=clock).acquire()
    before = lease_file(tmp_path).read_bytes()
    with pytest.raises(LeaseError) as info:
        Lease(str(tmp_path), "worker-b", clock=clock).acquire()
    assert str(info.value).startswith(held_message("worker-a", os.getpid(), NOW + 600_000))
    assert lease_file(tmp_path).read_bytes() == before


def test_the_refusal_says_how_long_the_lease_has_left(tmp_path: Path) -> None:
    clock = Clock()
    Lease(str(tmp_path), "worker-a", clock=clock).acquire()
    clock.now += 60_000
    with pytest.raises(LeaseError) as info:
        Lease(str(tmp_path), "worker-b", clock=clock).acquire()
    # was "until 1739000600000 (2025-02-08T07:43:20Z)"
    assert str(info.value).endswith("until 2025-02-08 07:43:20 UTC (in 9 min)")


@pytest.mark.parametrize(
    ("expires", "said"),
    [
        (NOW + 600_000, "2025-02-08 07:43:20 UTC (in 10 min)"),
        (NOW + 42_000, "2025-02-08 07:34:02 UTC (in 42 s)"),
        (NOW + 5 * 3_600_000, "2025-02-08 12:33:20 UTC (in 5 h)"),
        (NOW - 180_000, "2025-02-08 07:30:20 UTC (expired 3 min ago)"),
        (NOW, "2025-02-08 07:33:20 UTC (expired 0 s ago)"),  # expiring now is expired
        (NOW - 3 * 86_400_000, "2025-02-05 07:33:20 UTC (expired 3 days ago)"),
        (10**20, str(10**20)),  # no time at all: the number as it is
    ],
)
def test_the_expiry_reads_as_a_utc_time_and_a_span_from_now(expires: int, said: str) -> None:
    assert lease_module.describe_expiry(expires, NOW) == said


def test_the_same_worker_renews_by_atomic_replace(tmp_path: Path) -> None:
    clock = Clock()
    lease = Lease(str(tmp_path), "worker-a", clock=clock)
    lease.acquire()
    first = lease_file(tmp_path).stat().st_ino
    clock.now += 1_000
    lease.acquire()
    assert lease.holder() == Holder("worker-a", os.getpid(), NOW + 1_000 + 600_000)
    assert lease_file(tmp_path).stat().st_ino != first  # a new file renamed over, not rewritten
    assert agent_dir(tmp_path) == ["lease"]  # no .tmp-<pid> left behind


def test_identity_is_the_worker_id_alone(tmp_path: Path) -> None:
    """Another process of the same worker (another pid), even expired: a renewal."""
    plant(tmp_path, record("worker-a", 999_999, NOW - 5))
    Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()
    assert lease_file(tmp_path).read_bytes() == record("worker-a", os.getpid(), NOW + 600_000)
    assert agent_dir(tmp_path) == ["lease"]


def test_a_live_foreign_lease_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = plant(tmp_path, record("worker-b", 4242, NOW + 1))
    stat = path.stat()
    with pytest.raises(LeaseError) as info:
        Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()
    assert str(info.value).startswith(held_message("worker-b", 4242, NOW + 1))
    assert info.value.exit_code == FINDINGS
    assert path.read_bytes() == record("worker-b", 4242, NOW + 1)
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)
    assert agent_dir(tmp_path) == ["lease"]


@pytest.mark.parametrize("expires", [NOW, NOW - 1, 0])
def test_an_expired_foreign_lease_is_stolen(tmp_path: Path, expires: int) -> None:
    """Live ⇔ expires_at_ms > now: a lease expiring exactly now is expired."""
    plant(tmp_path, record("worker-b", 4242, expires))
    lease = Lease(str(tmp_path), "worker-a", clock=Clock())
    lease.acquire()
    assert lease.holder() == Holder("worker-a", os.getpid(), NOW + 600_000)
    assert agent_dir(tmp_path) == ["lease"]  # the .steal-<pid> file is gone


# --- corrupt and unreadable leases ----------------------------------------------------

CORRUPT = {
    "not json": b"not json",
    "empty": b"",
    "truncated": record("worker-b", 4242, NOW + 10)[:-7],
    "a list": b"[1,2,3]",
    "a string": b'"worker-b"',
    "no expiry": b'{"worker_id":"worker-b","pid":4242}',
    "no pid": b'{"worker_id":"worker-b","expires_at_ms":0}',
    "no worker": b'{"pid":4242,"expires_at_ms":0}',
    "ours, no expiry": b'{"worker_id":"worker-a","pid":4242}',
    # serde refuses a repeated struct field, so the reference never takes it
    "a repeated worker": b'{"worker_id":"other","pid":1,"expires_at_ms":1,"worker_id":"worker-a"}',
    "not UTF-8": b'{"worker_id":"\xff","pid":1,"expires_at_ms":1}',
}


@pytest.mark.parametrize("data", CORRUPT.values(), ids=CORRUPT.keys())
def test_a_corrupt_lease_is_an_error_and_never_stolen(tmp_path: Path, data: bytes) -> None:
    path = plant(tmp_path, data)
    lease = Lease(str(tmp_path), "worker-a", clock=Clock(NOW * 2))  # long after any expiry
    with pytest.raises(LeaseError, match=r"lease file .* is corrupt") as info:
        lease.acquire()
    assert "inspect or remove it manually" in (info.value.hint or "")
    with pytest.raises(LeaseError, match="is corrupt"):
        lease.release()
    assert path.read_bytes() == data
    assert agent_dir(tmp_path) == ["lease"]


TYPED = {
    "worker id null": b'{"worker_id":null,"pid":4242,"expires_at_ms":0}',
    "worker id a number": b'{"worker_id":7,"pid":4242,"expires_at_ms":0}',
    "pid a string": b'{"worker_id":"worker-b","pid":"4242","expires_at_ms":0}',
    "pid negative": b'{"worker_id":"worker-b","pid":-1,"expires_at_ms":0}',
    "expiry a string": b'{"worker_id":"worker-b","pid":4242,"expires_at_ms":"0"}',
    "expiry a float": b'{"worker_id":"worker-b","pid":4242,"expires_at_ms":0.5}',
    "expiry a bool": b'{"worker_id":"worker-b","pid":4242,"expires_at_ms":false}',
}


@pytest.mark.parametrize("data", TYPED.values(), ids=TYPED.keys())
def test_a_wrongly_typed_field_is_corrupt(tmp_path: Path, data: bytes) -> None:
    """§7 types the fields (string, u32, i64): anything else is not a lease, and an
    expired-looking record of the wrong shape must not be stolen."""
    path = plant(tmp_path, data)
    with pytest.raises(LeaseError, match="is corrupt"):
        Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()
    assert path.read_bytes() == data


def test_an_unreadable_lease_is_an_error(tmp_path: Path) -> None:
    lease_file(tmp_path).mkdir(parents=True)  # exists, but cannot be read as a file
    lease = Lease(str(tmp_path), "worker-a", clock=Clock())
    with pytest.raises(LeaseError, match="unreadable"):
        lease.acquire()
    assert lease_file(tmp_path).is_dir()


# --- races, simulated at the exact interleavings §7 names --------------------------------


def test_a_lease_that_vanishes_before_it_is_stolen_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The expired holder releases between our look and our steal: retry and create."""
    plant(tmp_path, record("worker-b", 4242, NOW - 1))
    vanished: list[bool] = []
    real_rename = os.rename

    def holder_releases(src: Any, dst: Any) -> None:
        if not vanished:
            vanished.append(True)
            lease_file(tmp_path).unlink()
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", holder_releases)
    lease = Lease(str(tmp_path), "worker-a", clock=Clock())
    lease.acquire()
    assert vanished
    assert lease.holder() == Holder("worker-a", os.getpid(), NOW + 600_000)


def test_a_lease_created_between_our_look_and_our_create_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another worker creates the lease after we saw none: we are told it is held."""
    real_link = os.link

    def racer(src: Any, dst: Any) -> None:
        plant(tmp_path, record("worker-b", 4242, NOW + 10_000))
        real_link(src, dst)

    monkeypatch.setattr(os, "link", racer)
    lease = Lease(str(tmp_path), "worker-a", clock=Clock())
    with pytest.raises(LeaseError, match="lease held by worker `worker-b`"):
        lease.acquire()


def test_the_steal_race_puts_a_refreshed_lease_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """We saw worker-b's lease expired, but b renewed it just before our rename:
    the renamed-aside lease is live and foreign, so it goes back and we fail."""
    plant(tmp_path, record("worker-b", 4242, NOW - 1))
    refreshed = record("worker-b", 4242, NOW + 600_000)
    real_rename = os.rename
    renames: list[tuple[str, str]] = []

    def rename(src: Any, dst: Any) -> None:
        if not renames:
            lease_file(tmp_path).write_bytes(refreshed)  # worker-b renews right now
        renames.append((os.path.basename(src), os.path.basename(dst)))
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(LeaseError) as info:
        Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()
    assert str(info.value).startswith(held_message("worker-b", 4242, NOW + 600_000))
    steal = f"lease.steal-{os.getpid()}"
    assert renames == [("lease", steal), (steal, "lease")]
    assert lease_file(tmp_path).read_bytes() == refreshed
    assert agent_dir(tmp_path) == ["lease"]


def test_a_stolen_lease_renewed_by_our_own_worker_is_deleted_and_retaken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The renamed-aside lease is live but ours (another process of this worker
    renewed it): not a conflict, so it is deleted and the exclusive create retried."""
    plant(tmp_path, record("worker-b", 4242, NOW - 1))
    real_rename = os.rename
    renames: list[str] = []

    def rename(src: Any, dst: Any) -> None:
        if not renames:
            lease_file(tmp_path).write_bytes(record("worker-a", 999_999, NOW + 600_000))
        renames.append(os.path.basename(dst))
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    lease = Lease(str(tmp_path), "worker-a", clock=Clock())
    lease.acquire()
    assert renames == [f"lease.steal-{os.getpid()}"]
    assert lease.holder() == Holder("worker-a", os.getpid(), NOW + 600_000)
    assert agent_dir(tmp_path) == ["lease"]


def test_repeated_contention_gives_up_after_three_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every steal finds the file already gone (another stealer won): retry, 3 at most."""
    data = record("worker-b", 4242, NOW - 1)
    plant(tmp_path, data)
    attempts: list[str] = []

    def rename(src: Any, dst: Any) -> None:
        attempts.append(src)
        raise FileNotFoundError(2, "No such file or directory", src)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(LeaseError) as info:
        Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()
    assert str(info.value) == "could not acquire lease after repeated contention; retry"
    assert len(attempts) == 3
    assert lease_file(tmp_path).read_bytes() == data


class _Watched:
    """``os`` for the lease module, checking after every call that the lease file,
    if present, holds a complete record: no reader may ever see a half-made lease."""

    def __init__(self, path: Path, seen: list[str]) -> None:
        self._path = path
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if not callable(real):
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            result = real(*args, **kwargs)
            try:
                data = self._path.read_bytes()
            except (FileNotFoundError, IsADirectoryError):
                return result
            try:
                json.loads(data)["expires_at_ms"]
            except (ValueError, KeyError, TypeError):
                self._seen.append(f"after os.{name}: {data!r}")
            return result

        return call


def test_a_lease_is_never_visible_half_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the exclusive create and the write, a concurrent reader of the lease
    must not find an empty file (it would report the lease corrupt and fail)."""
    seen: list[str] = []
    monkeypatch.setattr(lease_module, "os", _Watched(lease_file(tmp_path), seen))
    plant(tmp_path, record("worker-b", 4242, NOW - 1))
    Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()  # steal + create
    lease_file(tmp_path).unlink()
    Lease(str(tmp_path), "worker-a", clock=Clock()).acquire()  # plain create
    assert seen == []


# --- release ------------------------------------------------------------------------------


def test_release_deletes_only_our_own_lease(tmp_path: Path) -> None:
    clock = Clock()
    ours = Lease(str(tmp_path), "worker-a", clock=clock)
    ours.acquire()
    ours.release()
    assert not lease_file(tmp_path).exists()
    ours.release()  # absent: a no-op
    path = plant(tmp_path, record("worker-b", 4242, NOW + 10))
    ours.release()  # foreign: left alone
    assert path.read_bytes() == record("worker-b", 4242, NOW + 10)
    plant(tmp_path, record("worker-b", 4242, NOW - 10))
    ours.release()  # foreign and expired: still not ours to delete
    assert path.exists()
    plant(tmp_path, record("worker-a", 77, NOW - 10))
    ours.release()  # ours from another process, expired: ours
    assert not path.exists()


# --- through the command line ------------------------------------------------------------


def gasp(root: Path, *args: str, worker: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``git gasp ARGS`` in ``root`` as its own process."""
    env = dict(os.environ)
    env.pop("GASP_WORKER_ID", None)
    if worker is not None:
        env["GASP_WORKER_ID"] = worker
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return subprocess.run(["git", "gasp", *args], cwd=root, env=env, capture_output=True, text=True)


@pytest.fixture
def agent_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("GASP_WORKER_ID", raising=False)
    root = tmp_path / "agent"
    init_repo(str(root), "agent-one")
    return root


def snapshot_files(root: Path) -> dict[str, bytes]:
    return {
        rel: (root / rel).read_bytes()
        for rel in ("state/events.jsonl", "memory/facts.jsonl", "memory/active_memory.md")
    }


def test_run_start_and_close_in_separate_processes_are_one_worker(agent_repo: Path) -> None:
    started = gasp(agent_repo, "run", "start", "--task", "tidy up", "--json")
    assert started.returncode == 0, started.stderr
    worker = (agent_repo / ".agent" / "worker").read_text().strip()
    assert json.loads(started.stdout)["worker"] == worker
    held = json.loads(lease_file(agent_repo).read_bytes())
    assert held["worker_id"] == worker
    closed = gasp(agent_repo, "run", "close", "--outcome", "done")
    assert closed.returncode == 0, closed.stderr
    assert not lease_file(agent_repo).exists()  # released by the same worker
    assert (agent_repo / ".agent" / "worker").read_text().strip() == worker
    run_id = json.loads(started.stdout)["run_id"]
    assert f"Run-Id: {run_id}" in git(agent_repo, "log", "-1", "--format=%B")


@pytest.mark.parametrize("how", ["env", "option"])
@pytest.mark.parametrize(
    "command",
    [["fact", "add", "a fact from elsewhere"], ["run", "start", "--task", "second run"]],
    ids=["fact-add", "run-start"],
)
def test_a_second_worker_is_refused_while_a_run_holds_the_lease(
    agent_repo: Path, command: list[str], how: str
) -> None:
    started = gasp(agent_repo, "run", "start", "--task", "first run")
    assert started.returncode == 0, started.stderr
    holder = json.loads(lease_file(agent_repo).read_bytes())
    before = snapshot_files(agent_repo), lease_file(agent_repo).read_bytes()
    if how == "env":
        refused = gasp(agent_repo, *command, worker="other")
    else:
        refused = gasp(agent_repo, *command, "--worker", "other")
    assert refused.returncode == 1, refused.stderr
    expected = held_message(holder["worker_id"], holder["pid"], holder["expires_at_ms"])
    assert f"error: {expected}" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert (snapshot_files(agent_repo), lease_file(agent_repo).read_bytes()) == before


def test_run_start_is_refused_while_another_worker_holds_the_lease(agent_repo: Path) -> None:
    Lease(str(agent_repo), "holder").acquire()
    holder = json.loads(lease_file(agent_repo).read_bytes())
    before = snapshot_files(agent_repo)
    refused = gasp(agent_repo, "run", "start", "--task", "t", "--worker", "other")
    assert refused.returncode == 1, refused.stderr
    assert f"error: {held_message('holder', os.getpid(), holder['expires_at_ms'])}" in (
        refused.stderr
    )
    assert snapshot_files(agent_repo) == before
    assert not (agent_repo / ".agent" / "RUN").exists()
    # the holder itself may go on (same worker id: a renewal, not a conflict)
    assert gasp(agent_repo, "fact", "add", "mine", worker="holder").returncode == 0
