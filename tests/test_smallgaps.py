"""Issue 16 item 8's gaps through real git: paths that differ from an agent
file only in case, and a new text/eol attribute on an append-only file,
refused at pre-commit and at push; ``check`` names the case collisions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from git_gasp.core.attributes import check_attributes
from git_gasp.core.pathcase import agent_spellings, collisions, misspelled

from .conftest import git
from .conftest import run_cli as main
from .test_hooks import bare_server, commit, push, served

LOG = "state/events.jsonl"


def hooks_installed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = main(capsys, "hooks", "install", "--python", sys.executable, "-C", str(repo))
    assert code == 0, err


def try_commit(repo: Path) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", "change"], capture_output=True, text=True
    )


# -- case -----------------------------------------------------------------------------


def test_misspelled_agent_paths_on_plain_values() -> None:
    spellings = agent_spellings([LOG, "memory/facts.jsonl", "journal/JOURNAL.md"])
    paths = [
        "STATE/events.jsonl",
        "state/Events.jsonl",
        "Identity/IDENTITY.md",
        "agent.md",
        "team/Facts.jsonl",
        "skills/retry/skill.md",
        "docs/identity.md",  # not an agent's file
        "state/events.jsonl",
        "skills/retry/notes.md",
    ]
    found = {f.path: f.message for f in misspelled(paths, spellings)}
    assert found == {
        "STATE/events.jsonl": "differs only in case from the agent's state",
        "state/Events.jsonl": "differs only in case from the agent's state/events.jsonl",
        "Identity/IDENTITY.md": "differs only in case from the agent's identity",
        "agent.md": "differs only in case from the agent's AGENT.md",
        "team/Facts.jsonl": "differs only in case from the agent's team/facts.jsonl",
        "skills/retry/skill.md": "differs only in case from the agent's skills/retry/SKILL.md",
    }
    hint = next(f.hint for f in misspelled(["STATE/events.jsonl"], spellings))
    assert "git mv STATE/events.jsonl state/events.jsonl" in hint
    tree = ["identity/IDENTITY.md", "identity/values.md"]
    (clash,) = collisions(["identity/Values.md"], [*tree, "identity/Values.md"])
    assert clash.path == "identity/Values.md" and "identity/values.md" in clash.message


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("STATE/events.jsonl", "differs only in case from the agent's state"),
        ("Identity/IDENTITY.md", "differs only in case from the agent's identity"),
        ("identity/identity.md", "differs only in case from identity/IDENTITY.md"),
        ("memory/Facts.jsonl", "differs only in case from the agent's memory/facts.jsonl"),
    ],
)
def test_a_case_colliding_agent_path_is_refused_at_commit_and_push(
    path: str, expected: str, work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    hooks_installed(work, capsys)
    source = work / ("identity/IDENTITY.md" if "identity" in path.lower() else LOG)
    (work / path).parent.mkdir(parents=True, exist_ok=True)
    (work / path).write_bytes(source.read_bytes())
    refused = try_commit(work)
    assert refused.returncode != 0
    assert f"{path}: [path] {expected}" in refused.stderr, refused.stderr
    commit(work, "case")  # --no-verify: the server judges it too
    result = push(work, url, "HEAD:refs/heads/main")
    assert result.returncode != 0
    assert f"{path}: [path] {expected}" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("STATE/events.jsonl", "differs only in case from the agent's state"),
        ("Identity/IDENTITY.md", "differs only in case from the agent's identity"),
        ("identity/identity.md", "differs only in case from identity/IDENTITY.md"),
    ],
)
def test_check_names_a_case_collision(
    path: str, expected: str, work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = main(capsys, "check", "-C", str(work))
    assert code == 0
    (work / path).parent.mkdir(parents=True, exist_ok=True)
    (work / path).write_bytes(b"x\n")
    commit(work, "case")
    code, out, _ = main(capsys, "check", "-C", str(work))
    assert code == 1
    assert "[FAIL] check 6" in out
    assert f"{path}: {expected}" in out


# -- text/eol -----------------------------------------------------------------------------


def test_new_line_ending_settings_on_plain_values() -> None:
    before = [{LOG: {}}]

    def found(attributes: dict[str, str]) -> list[str]:
        return [f.message for f in check_attributes(".gitattributes", before, [{LOG: attributes}])]

    assert found({"text": "auto"}) == [f"text=auto turns line-ending conversion on for {LOG}"]
    assert found({"text": "set"}) == [f"text turns line-ending conversion on for {LOG}"]
    assert found({"eol": "lf"}) == [f"eol=lf turns line-ending conversion on for {LOG}"]
    assert found({"text": "auto", "eol": "lf"}) == [
        f"eol=lf turns line-ending conversion on for {LOG}",
        f"text=auto turns line-ending conversion on for {LOG}",
    ]
    assert found({"text": "unset"}) == []
    assert found({"text": "unset", "eol": "lf"}) == []  # eol on -text is a no-op
    same = [{LOG: {"text": "auto"}}]
    assert check_attributes(".gitattributes", same, same) == []  # not new
    assert check_attributes(".gitattributes", (), [{LOG: {"text": "auto"}}]) == []  # arriving


def without_text_off(work: Path) -> None:
    """A repository whose logs were never marked -text (before init wrote it)."""
    (work / ".gitattributes").write_text("*.jsonl merge=union\n")
    commit(work, "attributes of an older agent")


@pytest.mark.parametrize("line", ["* text=auto", "state/*.jsonl eol=lf", "*.jsonl text"])
def test_a_new_text_or_eol_attribute_on_a_log_is_refused(
    line: str, work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    without_text_off(work)
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    assert push(work, f"file://{server}", "HEAD:refs/heads/main").returncode == 0
    code, _, err = main(
        capsys, "hooks", "install", "--server", "--python", sys.executable, "-C", str(server)
    )
    assert code == 0, err
    hooks_installed(work, capsys)
    with (work / ".gitattributes").open("a") as fh:
        fh.write(line + "\n")
    setting = line.split(" ", 1)[1]
    expected = f".gitattributes: [attributes] {setting} turns line-ending conversion on for {LOG}"
    refused = try_commit(work)
    assert refused.returncode != 0 and expected in refused.stderr, refused.stderr
    commit(work, "line endings")
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode != 0 and expected in result.stderr, result.stderr
    git(work, "reset", "-q", "--soft", "HEAD~1")
    with (work / ".gitattributes").open("a") as fh:
        fh.write("*.jsonl -text\njournal/JOURNAL.md -text\n")  # the hint: -text after it
    commit(work, "line endings, logs byte for byte")
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr


def test_a_new_text_attribute_on_a_log_already_off_is_still_the_back_on_finding(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bare_server(tmp_path, capsys)
    assert push(work, f"file://{server}", "HEAD:refs/heads/main").returncode == 0
    with (work / ".gitattributes").open("a") as fh:
        fh.write("* text=auto\n")
    commit(work, "line endings")
    result = push(work, f"file://{server}", "HEAD:refs/heads/main")
    assert "turns line-ending conversion back on for state/events.jsonl" in result.stderr
    assert "text=auto turns line-ending conversion on" not in result.stderr
