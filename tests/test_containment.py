"""No command reads or writes outside the repository through a symlink the
repository holds (a hostile clone can commit ``memory/facts.jsonl -> /etc/passwd``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from git_gasp.store.worktree import escapes

from .conftest import commit_all
from .conftest import run_cli as main


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("root:x:0:0\n")
    return path


def relink(repo: Path, rel: str, target: Path) -> None:
    path = repo / rel
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


REFUSED = "is a symlink that leads outside the repository (refused)"


@pytest.mark.parametrize(
    "argv",
    [
        ("fact", "list"),
        ("fact", "add", "hello"),
        ("check",),
        ("fold",),
        ("status",),
        ("record", "goal", "--title", "g"),
        ("snapshot",),
    ],
    ids=lambda argv: " ".join(argv),
)
def test_a_facts_file_leading_out_is_neither_read_nor_written(
    argv: tuple[str, ...],
    work: Path,
    outside: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    relink(work, "memory/facts.jsonl", outside / "secret.txt")
    monkeypatch.chdir(work)
    code, out, err = main(capsys, *argv)
    assert code == 2, err
    assert f"memory/facts.jsonl {REFUSED}" in err and "root:x" not in out + err
    assert (outside / "secret.txt").read_text() == "root:x:0:0\n"


def test_restore_refuses_a_clone_whose_files_lead_out(
    work: Path, outside: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    relink(work, ".agent", outside)  # --model would write outside/config.toml
    commit_all(work, "control plane elsewhere")
    dest = tmp_path / "restored"
    code, _, err = main(capsys, "restore", work.as_uri(), str(dest), "--model", "m")
    assert code == 2 and f".agent {REFUSED}" in err
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert not dest.exists()  # a refused restore leaves nothing behind


def test_a_log_leading_to_a_device_is_refused_before_it_is_read(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    relink(work, "state/events.jsonl", Path("/dev/zero"))  # read whole: never ends
    for argv in (("check",), ("fold",), ("show", "goal_x"), ("lineage", "goal_x")):
        code, _, err = main(capsys, *argv, "-C", str(work))
        assert code == 2 and f"state/events.jsonl {REFUSED}" in err, argv


def test_escapes_covers_locations_and_listed_entries(work: Path, outside: Path) -> None:
    assert escapes(str(work)) == []
    relink(work, "snapshots/evil/graph.json", outside / "secret.txt")
    relink(work, ".agent/packs/p.json", outside / "secret.txt")
    os.symlink(outside, work / "notes")
    assert escapes(str(work), ["notes/identity.md", "identity"]) == [
        "notes/identity.md",
        ".agent/packs/p.json",
        "snapshots/evil/graph.json",
    ]
    inner = work / "state" / "alias.jsonl"
    os.symlink("events.jsonl", inner)  # a symlink that stays inside is fine
    assert "state/alias.jsonl" not in escapes(str(work))


def test_init_writes_nothing_through_a_symlink_leading_out(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "existing"
    repo.mkdir()
    os.symlink(outside, repo / "memory")
    code, _, err = main(capsys, "init", str(repo), "--agent-id", "a1")
    assert code == 2 and f"memory {REFUSED}" in err
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert sorted(p.name for p in repo.iterdir()) == ["memory"]


def test_an_event_id_is_never_a_path(work: Path, outside: Path) -> None:
    import json

    from git_gasp.agent.projecting import write_snapshot
    from git_gasp.core.projections import snapshot_dir_name

    hostile = f"../../../../../../../../{outside}/ABS".replace("//", "/")
    line = {
        "id": hostile, "schema_version": 1, "ts_ms": 1, "actor": {"kind": "agent", "id": "a"},
        "kind": "state.ops_applied", "payload": [], "causation_id": None, "correlation_id": None,
    }  # fmt: skip
    with (work / "state" / "events.jsonl").open("a") as fh:
        fh.write(json.dumps(line, separators=(",", ":")) + "\n")
    rel = write_snapshot(str(work))
    assert rel == f"snapshots/{snapshot_dir_name(hostile)}/graph.json"
    assert rel.startswith("snapshots/event-sha256-") and (work / rel).is_file()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert snapshot_dir_name("event_9f1c2b7e") == "event_9f1c2b7e"  # the convention otherwise
    assert snapshot_dir_name("..").startswith("event-sha256-")


def test_check_reads_no_tracked_facts_file_through_a_symlink(
    work: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "team").mkdir()
    os.symlink(outside / "secret.txt", work / "team" / "facts.jsonl")
    commit_all(work, "a facts file elsewhere")
    code, out, _ = main(capsys, "check", str(work))
    assert code == 1
    assert "team/facts.jsonl: working tree copy is a symlink that leads outside" in out
    assert "root:x" not in out


def test_a_gitignore_leading_out_is_refused(
    work: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    relink(work, ".gitignore", outside / "secret.txt")  # transcript add appends to it
    code, _, err = main(capsys, "status", "-C", str(work))
    assert code == 2 and f".gitignore {REFUSED}" in err


def test_hostile_local_state_is_one_line_errors(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    cases = [
        (".agent/RUN", deep, ".agent/RUN is corrupt"),
        (".agent/lease", deep, "is corrupt"),
        (".agent/worker", b"\xff\xfe", ".agent/worker is not UTF-8"),
    ]
    for rel, data, message in cases:
        path = work / rel
        before = path.read_bytes() if path.exists() else None
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        code, _, err = main(capsys, "record", "goal", "--title", "g", "-C", str(work))
        assert code in (1, 2) and message in err, (rel, err)
        if before is None:
            path.unlink()
        else:
            path.write_bytes(before)
    manifest = work / "AGENT.md"
    manifest.write_text(manifest.read_text() + "\n| Memory | mem\x00ory.md |\n")
    code, out, err = main(capsys, "status", "-C", str(work))
    assert code == 0, err
    assert "holds a control character (ignored)" in out


def test_prune_removes_a_snapshot_link_never_what_it_names(work: Path) -> None:
    from git_gasp.agent.projecting import prune_snapshots

    (work / "elsewhere").mkdir()
    (work / "elsewhere" / "graph.json").write_text("{}")
    os.symlink("../elsewhere", work / "snapshots" / "zz")
    assert "snapshots/zz" in prune_snapshots(str(work))
    assert (work / "elsewhere" / "graph.json").read_text() == "{}"
    assert not (work / "snapshots" / "zz").exists()


def test_transcripts_may_live_elsewhere_unless_the_repository_says_so(
    work: Path, outside: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    relink(work, "transcripts", outside)  # cold storage on another disk: a local choice
    assert main(capsys, "status", "-C", str(work))[0] == 0
    git_file = tmp_path / "t.jsonl"
    git_file.write_text('{"role":"user"}\n')
    run_id = next(
        line.split('"run_id":"')[1].split('"')[0]
        for line in (work / "state" / "events.jsonl").read_text().splitlines()
        if '"run.started"' in line
    )
    from .conftest import git

    code, _, err = main(capsys, "transcript", "add", run_id, str(git_file), "-C", str(work))
    assert code == 0, err  # written to cold storage through the local link
    assert git(work, "status", "--porcelain", "--", "transcripts") == ""  # and ignored
    assert [p.name for p in outside.iterdir() if p.name.endswith(".gz")]
    code, out, err = main(capsys, "notes", "verify", "-C", str(work))
    assert code == 0 and "digest match: transcripts/" in out and ", 0 missing" in out, out + err
    git(work, "add", "-f", "transcripts")  # committed by the repository: a trap
    code, _, err = main(capsys, "transcript", "add", run_id, str(git_file), "-C", str(work))
    assert code == 2 and "transcripts is a committed symlink" in err


def test_a_file_turned_into_a_link_out_after_the_open_is_not_written(
    work: Path, outside: Path
) -> None:
    from git_gasp.agent.api import Agent
    from git_gasp.agent.projecting import add_fact
    from git_gasp.errors import GaspError

    agent = Agent.open(str(work), worker="w")  # checked here...
    relink(work, "memory/facts.jsonl", outside / "secret.txt")  # ...then a pull, say
    with pytest.raises(GaspError) as caught:
        add_fact(agent, "after the pull", [])
    assert f"memory/facts.jsonl {REFUSED}" in caught.value.message
    assert (outside / "secret.txt").read_text() == "root:x:0:0\n"


def test_damaged_caches_are_misses_not_crashes(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    (work / ".git" / "gasp").mkdir(exist_ok=True)
    for name in ("seeds-v1.json", "check4-v1.json"):
        (work / ".git" / "gasp" / name).write_text(deep)
    assert main(capsys, "run", "status", "-C", str(work))[0] == 0
    assert main(capsys, "check", str(work))[0] == 0
    code, _, err = main(capsys, "record", "goal", "--payload-json", deep, "-C", str(work))
    assert code == 2 and "recursion" in err


def test_a_deep_escaped_line_is_a_finding_not_a_crash(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from .conftest import git

    with (work / "memory" / "facts.jsonl").open("a") as fh:
        fh.write('{"text":"\\\\u0041","x":' + "[" * 3000 + "]" * 3000 + "}\n")
    git(work, "add", "memory/facts.jsonl")
    code, out, err = main(capsys, "validate", "--staged", "-C", str(work))
    assert code == 1, err
    assert "memory/facts.jsonl:" in out + err
