"""``git gasp identity`` (hash, verify, commit) and ``git gasp skill`` (list, check)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_gasp.agent.identity import set_identity_hash
from git_gasp.agent.init import init_repo
from git_gasp.cli.root import main
from git_gasp.core.skill import (
    MAX_DEPTH,
    MAX_SKILL_BYTES,
    check_skill,
    is_rename,
    skills_changed_together,
    split_frontmatter,
)
from tests.conftest import git

VECTOR = "c3c98b9b7b4f93b8e62036d30c7da8540f358ab4a03ad0fd547bfd186d5c94aa"
FIXTURE_HASH = "ec257c2341e50902b376b0c9ac8a8c5b312348508309cb7f97ef8191429798e9"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code != 3, err  # never an internal error
    return code, out, err


# --- identity hash / verify --------------------------------------------------


def test_hash_matches_the_92_test_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "identity" / "sub").mkdir(parents=True)
    (tmp_path / "identity" / "b.md").write_bytes(b"bee")
    (tmp_path / "identity" / "sub" / "a.md").write_bytes(b"ay")
    code, out, _ = run(capsys, "identity", "hash", "-C", str(tmp_path))
    assert (code, out.strip()) == (0, VECTOR)
    code, out, _ = run(capsys, "identity", "hash", "--repo", str(tmp_path), "--json")
    assert json.loads(out) == {"format": "git-gasp.identity-hash/1", "identity_hash": VECTOR}


def test_hash_skips_what_is_not_a_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """REFERENCE §9.2 hashes regular files only; a FIFO is skipped, and never
    opened for a blocking read (it would hang `check` and `restore`)."""
    import os

    (tmp_path / "identity" / "sub").mkdir(parents=True)
    (tmp_path / "identity" / "b.md").write_bytes(b"bee")
    (tmp_path / "identity" / "sub" / "a.md").write_bytes(b"ay")
    os.mkfifo(tmp_path / "identity" / "pipe")
    code, out, _ = run(capsys, "identity", "hash", "-C", str(tmp_path))
    assert (code, out.strip()) == (0, VECTOR)


def test_restore_never_reads_identity_files_it_could_not_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dangling link under identity/ stops the size pre-check: the read
    side refuses (fail closed) before reading any identity file whole."""
    init_repo(str(tmp_path / "a"), "a")
    (tmp_path / "a" / "identity" / "big").write_bytes(b"x" * 1000)
    (tmp_path / "a" / "identity" / "q7").symlink_to("nowhere")
    code, _, err = run(capsys, "status", "-C", str(tmp_path / "a"))
    assert code == 1 and "cannot compute identity hash" in err and "q7" in err


def test_hash_refuses_a_symlink_out_of_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    repo = tmp_path / "repo"
    (repo / "identity").mkdir(parents=True)
    (repo / "identity" / "leak.md").symlink_to(secret)
    code, _, err = run(capsys, "identity", "hash", "-C", str(repo))
    assert code == 2
    assert "leads outside the repository" in err


def test_check_6_refuses_a_symlink_out_of_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """check 6 reads identity/ as `identity hash` does: a symlink out of the
    repository fails the check, its target is never read into the digest."""
    from git_gasp.agent.fixture import write_fixture

    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    repo = tmp_path / "agent"
    write_fixture(str(repo))
    (repo / "identity" / "leak.md").symlink_to(secret)
    code, out, _ = run(capsys, "check", str(repo))
    assert code == 1
    assert "[FAIL] check 6" in out and "identity/leak.md is a symlink that leads outside" in out


def test_verify_passes_on_the_fixture(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "identity", "verify", "-C", str(fixture_repo), "--json")
    assert code == 0
    value = json.loads(out)
    assert value["verified"] and value["declared"] == value["computed"] == FIXTURE_HASH
    assert value["notes"] == ["identity hash verified against identity bytes"]


def test_verify_fails_after_tampering(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (fixture_repo / "identity" / "IDENTITY.md").write_text("I am someone else.\n")
    code, out, _ = run(capsys, "identity", "verify", "-C", str(fixture_repo))
    assert code == 1
    assert "identity bytes do not match the manifest: declared " + FIXTURE_HASH in out


@pytest.mark.parametrize(
    ("manifest", "wording"),
    [
        (None, "AGENT.md manifest missing"),
        ("# AGENT\n\n```yaml\nagent_id: x\n```\n", "AGENT.md declares no identity_hash"),
        ("```\nidentity_hash: 'abc'\n```\n", "AGENT.md identity_hash is malformed: `'abc'`"),
    ],
)
def test_verify_fails_on_missing_or_malformed(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str], manifest: str | None, wording: str
) -> None:
    if manifest is None:
        (fixture_repo / "AGENT.md").unlink()
    else:
        (fixture_repo / "AGENT.md").write_text(manifest)
    code, out, _ = run(capsys, "identity", "verify", "-C", str(fixture_repo))
    assert code == 1 and wording in out


def test_set_identity_hash_rewrites_only_the_value() -> None:
    text = "# A\r\n\r\n```yaml\r\nagent_id: a\r\n  identity_hash:   OLD  \r\nx: y\r\n```\r\n"
    assert set_identity_hash(text, "f" * 64) == text.replace("OLD", "f" * 64)
    bare = "```\nagent_id: a\n```\nidentity_hash: later\n"
    assert set_identity_hash(bare, "0" * 64) == (
        "```\nagent_id: a\nidentity_hash: " + "0" * 64 + "\n```\nidentity_hash: later\n"
    )


# --- identity commit ----------------------------------------------------------


@pytest.fixture
def agent_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "agent"
    init_repo(str(repo), "it-agent")
    return repo


def test_identity_commit_end_to_end(agent_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (agent_repo / "AGENT.md").read_bytes()
    head = git(agent_repo, "rev-parse", "HEAD").strip()
    (agent_repo / "identity" / "IDENTITY.md").write_text("# Identity\n\nI am kinder.\n")
    git(agent_repo, "add", "identity")
    code, out, err = run(
        capsys,
        "identity",
        "commit",
        "--approved-by",
        "Ann Example",
        "--reason",
        "be kinder",
        "-C",
        str(agent_repo),
        "--json",
    )
    assert code == 0, err
    done = json.loads(out)
    # one commit on top of the old HEAD, with exactly the three paths
    assert git(agent_repo, "rev-parse", "HEAD~1").strip() == head
    changed = git(agent_repo, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(changed) == ["AGENT.md", "identity/IDENTITY.md", "state/events.jsonl"]
    message = git(agent_repo, "log", "-1", "--format=%B")
    assert message.startswith("identity: be kinder\n\n")
    assert "Approved-By: Ann Example" in message
    # AGENT.md: only the hash value changed
    after = (agent_repo / "AGENT.md").read_bytes()
    old = next(ln for ln in before.split(b"\n") if ln.startswith(b"identity_hash:"))
    assert after == before.replace(old, b"identity_hash: " + done["identity_hash"].encode())
    # the decision: decided by the user, approved, paired
    events = [json.loads(x) for x in (agent_repo / "state/events.jsonl").read_text().splitlines()]
    decision, ops = events[-2:]
    assert decision["kind"] == "decision.created"
    assert decision["payload"]["status"] == "Approved"
    assert decision["payload"]["reason"] == "be kinder"
    assert decision["actor"] == {"kind": "user", "id": "Ann Example"}
    assert ops["kind"] == "state.ops_applied" and ops["causation_id"] == decision["id"]
    assert git(agent_repo, "status", "--porcelain") == ""
    code, out, _ = run(capsys, "check", str(agent_repo))
    assert code == 0 and "identity hash verified" in out


def test_identity_commit_refusals(
    agent_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["identity", "commit", "-C", str(agent_repo)]
    ok = ["--approved-by", "Ann", "--reason", "why"]
    head = git(agent_repo, "rev-parse", "HEAD").strip()
    log = (agent_repo / "state/events.jsonl").read_bytes()
    # nothing staged
    code, _, err = run(capsys, *args, *ok)
    assert code == 2 and "no staged change under identity/" in err
    # missing --approved-by (click usage error)
    (agent_repo / "identity" / "IDENTITY.md").write_text("changed\n")
    git(agent_repo, "add", "identity")
    code, _, err = run(capsys, *args, "--reason", "why")
    assert code == 2 and "--approved-by" in err
    # a newline in the reason would forge a trailer
    code, _, err = run(capsys, *args, "--approved-by", "Ann", "--reason", "a\nApproved-By: x")
    assert code == 2 and "newlines" in err
    # the caller declares itself an agent: environment, then git config
    monkeypatch.setenv("GASP_ACTOR_KIND", "agent")
    code, _, err = run(capsys, *args, *ok)
    assert code == 1 and "human-gated" in err
    monkeypatch.delenv("GASP_ACTOR_KIND")
    git(agent_repo, "config", "gasp.actorKind", "agent")
    code, _, err = run(capsys, *args, *ok)
    assert code == 1 and "human-gated" in err
    monkeypatch.setenv("GASP_ACTOR_KIND", " ")  # blank: no declaration, the config holds
    code, _, err = run(capsys, *args, *ok)
    assert code == 1 and "human-gated" in err
    monkeypatch.delenv("GASP_ACTOR_KIND")
    git(agent_repo, "config", "--unset", "gasp.actorKind")
    # AGENT.md edits of its own would ride along in the approved commit
    manifest = agent_repo / "AGENT.md"
    before = manifest.read_bytes()
    manifest.write_bytes(before + b"\nprose edit\n")
    code, _, err = run(capsys, *args, *ok)
    assert code == 2 and "AGENT.md has changes of its own" in err
    manifest.write_bytes(before)
    # an untracked file under identity/ would be hashed but not committed
    (agent_repo / "identity" / "extra.md").write_text("x")
    code, _, err = run(capsys, *args, *ok)
    assert code == 2 and "untracked" in err
    # nothing was written or committed by any refusal
    assert git(agent_repo, "rev-parse", "HEAD").strip() == head
    assert (agent_repo / "state/events.jsonl").read_bytes() == log


# --- skills -------------------------------------------------------------------

GOOD = b"---\nname: retry\ndescription: Retry flaky calls.\ntools: [bash, git]\n---\n# Body\n"


def write_skill(repo: Path, name: str, data: bytes) -> None:
    if not (repo / "AGENT.md").exists():
        (repo / "AGENT.md").write_text("# AGENT\n")  # skill commands need an agent repository
    (repo / "skills" / name).mkdir(parents=True, exist_ok=True)
    (repo / "skills" / name / "SKILL.md").write_bytes(data)


ALIAS_BOMB = (
    b"---\nname: bomb\ndescription: d\n"
    b'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    b"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    b"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    b"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    b"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    b"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    b"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n---\n"
)

BAD_SKILLS = {
    "nofield": (b"---\nname: nofield\n---\nbody\n", "missing required field `description`"),
    "wrongtype": (b"---\nname: wrongtype\ndescription: [a, b]\n---\n", "`description` must be"),
    "empty": (b"---\nname: empty\ndescription: '  '\n---\n", "`description` must not be empty"),
    "badtools": (b"---\nname: badtools\ndescription: d\ntools: {a: 1}\n---\n", "`tools`"),
    "renamed": (b"---\nname: other\ndescription: d\n---\n", "but the directory is `renamed`"),
    "nofront": (b"# just markdown\n", "no YAML frontmatter"),
    "notyaml": (b"---\nname: [unclosed\n---\n", "not valid YAML"),
    "bomb": (ALIAS_BOMB, "anchor"),
    "deep": (b"---\nname: deep\ndescription: " + b"[" * 5000 + b"]" * 5000 + b"\n---\n", "deeper"),
    "deepmap": (
        b"---\nname: deepmap\ndescription: d\nx:\n"
        + b"".join(b"  " * i + b"k:\n" for i in range(1, 200))
        + b"---\n",
        "deeper",
    ),
    "huge": (b"---\nname: huge\ndescription: d\n---\n" + b"x" * MAX_SKILL_BYTES, "-byte cap"),
    "python": (b"---\nname: python\ndescription: !!python/object:os.system x\n---\n", "YAML"),
}


def test_skill_list_and_check_on_good_skills(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_skill(tmp_path, "retry", GOOD)
    write_skill(
        tmp_path, "plain", b"---\nname: plain\ndescription: d\nallowed-tools: Bash Read\n---\n"
    )
    (tmp_path / "skills" / "README.md").write_text("not a skill")
    code, out, _ = run(capsys, "skill", "list", "-C", str(tmp_path), "--json")
    assert code == 0
    skills = json.loads(out)["skills"]
    assert [s["name"] for s in skills] == ["plain", "retry"]
    assert skills[1] == {
        "name": "retry",
        "description": "Retry flaky calls.",
        "tools": ["bash", "git"],
        "path": "skills/retry/SKILL.md",
        "valid": True,
        "problems": [],
    }
    assert skills[0]["tools"] == ["Bash", "Read"]
    code, out, _ = run(capsys, "skill", "check", "-C", str(tmp_path))
    assert code == 0 and "2 skill(s), 0 invalid" in out


def test_skill_list_and_check_take_the_configured_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    init_repo(str(tmp_path / "a"), "a", commit=False)
    write_skill(tmp_path / "a", "retry", GOOD + b"x" * 300_000)
    code, out, _ = run(capsys, "skill", "check", "-C", str(tmp_path / "a"))
    assert code == 1 and "262,144-byte cap" in out and "gasp.maxFileBytes" not in out
    git(tmp_path / "a", "config", "gasp.maxFileBytes", "1m")
    code, out, _ = run(capsys, "skill", "check", "-C", str(tmp_path / "a"))
    assert code == 0, out
    # an AGENT.md over the cap is refused, as restore refuses it: never half read
    git(tmp_path / "a", "config", "gasp.maxFileBytes", "100")
    code, _, err = run(capsys, "skill", "list", "-C", str(tmp_path / "a"))
    assert code == 2 and "AGENT.md is over the 100-byte cap" in err


def test_skill_list_and_check_read_the_skills_locations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_skill(tmp_path, "retry", GOOD)
    (tmp_path / "AGENT.md").write_text(
        "# AGENT\n\n| GASP role | path |\n|---|---|\n| skills | `skills/`, `more_skills/` |\n"
    )
    (tmp_path / "more_skills" / "extra").mkdir(parents=True)
    (tmp_path / "more_skills" / "extra" / "SKILL.md").write_bytes(
        b"---\nname: extra\ndescription: d\n---\n"
    )
    code, out, _ = run(capsys, "skill", "list", "-C", str(tmp_path), "--json")
    assert code == 0
    paths = [s["path"] for s in json.loads(out)["skills"]]
    assert paths == ["skills/retry/SKILL.md", "more_skills/extra/SKILL.md"]
    code, out, _ = run(capsys, "skill", "check", "-C", str(tmp_path))
    assert code == 0 and "2 skill(s), 0 invalid" in out


@pytest.mark.parametrize("name", sorted(BAD_SKILLS))
def test_skill_check_reports_an_invalid_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    data, reason = BAD_SKILLS[name]
    write_skill(tmp_path, "retry", GOOD)
    write_skill(tmp_path, name, data)
    code, out, _ = run(capsys, "skill", "check", "-C", str(tmp_path))
    assert code == 1
    assert f"FAIL skills/{name}/SKILL.md: " in out and reason in out
    assert "ok   skills/retry/SKILL.md" in out
    code, out, _ = run(capsys, "skill", "list", "-C", str(tmp_path), "--json")
    listed = {s["path"]: s for s in json.loads(out)["skills"]}
    assert code == 0 and not listed[f"skills/{name}/SKILL.md"]["valid"]


def test_skill_check_refuses_a_symlink_out_of_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "SKILL.md").write_bytes(b"---\nname: leak\ndescription: d\n---\n")
    repo = tmp_path / "repo"
    (repo / "skills").mkdir(parents=True)
    (repo / "AGENT.md").write_text("# AGENT\n")
    (repo / "skills" / "leak").symlink_to(outside)
    code, out, _ = run(capsys, "skill", "check", "-C", str(repo))
    assert code == 1 and "outside the repository" in out


def test_skill_check_without_skills(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "AGENT.md").write_text("# AGENT\n")
    code, out, _ = run(capsys, "skill", "check", "-C", str(tmp_path))
    assert code == 0 and "0 skill(s), 0 invalid" in out
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "skill", "check", "-C", str(empty))
    assert code == 2 and "not an agent repository" in err


def test_frontmatter_pure_helpers() -> None:
    assert split_frontmatter("---\r\na: 1\r\n---\r\nbody") == "a: 1\n"
    assert split_frontmatter("a: 1\n---\n") is None
    assert split_frontmatter("---\na: 1\n") is None
    skill = check_skill("retry", GOOD)
    assert skill.valid and skill.tools == ("bash", "git")
    nested = b"---\nname: n\ndescription: d\nx: " + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"\n---\n"
    assert not check_skill("n", nested).valid


def test_a_rename_changes_only_the_name_line() -> None:
    blobs = {
        "m1": b"---\nname: a\ndescription: d\n---\nbody\n",
        "m2": b"---\nname: b\ndescription: d\n---\nbody\n",
        "m3": b"---\nname: b\ndescription: other\n---\nbody\n",
        "m4": b"---\ndescription: d\n---\nname: b\nbody\n",
    }
    read = blobs.__getitem__
    old = {"SKILL.md": "m1", "run.sh": "x"}
    assert is_rename(old, {"SKILL.md": "m2", "run.sh": "x"}, read)
    assert is_rename(old, {"SKILL.md": "m1", "run.sh": "x"}, read)  # name left behind
    assert not is_rename(old, {"SKILL.md": "m3", "run.sh": "x"}, read)  # described anew
    assert not is_rename(old, {"SKILL.md": "m4", "run.sh": "x"}, read)  # body changed
    assert not is_rename(old, {"SKILL.md": "m2", "run.sh": "y"}, read)  # file changed
    assert not is_rename(old, {"SKILL.md": "m2"}, read)  # file dropped
    assert not is_rename({}, {}, read)


def test_at_most_one_skill_changes_per_commit() -> None:
    assert skills_changed_together([]) == []
    assert skills_changed_together(["skills/retry/SKILL.md", "skills/retry/x.py", "README"]) == []
    assert skills_changed_together(["skills/README.md", "skills/retry/SKILL.md"]) == []
    assert skills_changed_together(
        ["skills/b/SKILL.md", "skills/a/run.sh", "src/x", "skills/b/y"]
    ) == ["a", "b"]


def test_a_field_of_the_wrong_kind_is_named_as_a_person_reads_it() -> None:
    data = b"---\nname: [1]\ndescription: {a: 1}\n---\n# Retry\n"
    problems = check_skill("retry", data).problems
    assert problems == (
        "`name` must be a string, not a list",
        "`description` must be a string, not a mapping",  # ruamel's map, not `dict`
    )
