"""Onboarding an existing agent (issue 15), with real git: a generated history
with a real agent's shapes (benchmarks/onboarding.py) pushed whole to an
empty hooked server is accepted, its findings warned and summed up per rule;
the same shapes in a new commit are refused; ``gasp.rule.<name>`` levels at
repository and system scope; the grouped refusal; ``validate``'s levels.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from git_gasp.core import rules
from git_gasp.core.finding import Finding, Judged
from git_gasp.core.findinggroups import group
from tests.conftest import git, run_cli
from tests.test_hooks import bare_server, push

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import onboarding


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    repo = tmp_path / "agent"
    onboarding.build(repo)
    return repo


def _append_legacy(repo: Path, count: int = 1) -> None:
    with open(repo / "memory/facts.jsonl", "a", encoding="utf-8") as fh:
        for n in range(count):
            fh.write(onboarding.legacy_line(900 + n) + "\n")
    git(repo, "commit", "-q", "-am", "memory: an old-format line")


def _change_two_skills(repo: Path) -> None:
    for name in ("skill01", "skill02"):
        (repo / f"skills/{name}/SKILL.md").write_bytes(onboarding.skill(name, 9))
    git(repo, "commit", "-q", "-am", "skills: two at once")


ONBOARD = ("-o", "gasp.onboard", "HEAD:refs/heads/main")


def _onboarded(agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    server = bare_server(tmp_path, capsys)
    result = push(agent, f"file://{server}", *ONBOARD)
    assert result.returncode == 0, result.stderr
    return f"file://{server}"


def test_a_conformant_history_onboards_with_warnings_per_rule(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "check", "-C", str(agent))
    assert code == 0 and "conformant" in out
    server = bare_server(tmp_path, capsys)
    result = push(agent, f"file://{server}", "HEAD:refs/heads/main")
    assert result.returncode == 1  # without the option: new changes, refused, and how to onboard
    assert "git push --no-verify -o gasp.onboard <remote> <branch>" in result.stderr
    result = push(agent, f"file://{server}", *ONBOARD)
    assert result.returncode == 0, result.stderr
    lines = [line.rstrip() for line in result.stderr.splitlines() if "gasp" in line]
    seed = git(agent, "rev-parse", "--short=7", "HEAD~3").strip()
    assert any(f"233× [facts] {seed} memory/facts.jsonl:1–233 " in line for line in lines)
    assert sum("[skill]" in line and "warning:" in line for line in lines) == 3
    assert lines[-1].endswith(
        "gasp: 236 warnings (233 facts, 3 skill), not refused: history older than the hook "
        "(an onboarding push): git-gasp's own rules warn"
    )
    assert len(lines) == 5  # one summed-up facts line, three skill lines, the total
    assert git(server, "rev-parse", "refs/heads/main") == git(agent, "rev-parse", "HEAD")


@pytest.mark.parametrize("shape", [_append_legacy, _change_two_skills])
def test_each_shape_is_refused_in_a_new_commit(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: object
) -> None:
    url = _onboarded(agent, tmp_path, capsys)
    shape(agent)  # type: ignore[operator]
    result = push(agent, url, *ONBOARD)  # the option onboards only a first push
    assert result.returncode == 1
    assert "-o gasp.onboard ignored: this repository already holds history" in result.stderr
    assert "push rejected: 1 violation in 1 commit" in result.stderr
    assert "warning" not in result.stderr


def test_a_refusal_is_grouped_with_its_range_and_total(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _onboarded(agent, tmp_path, capsys)
    _append_legacy(agent, 5)
    result = push(agent, url, "HEAD:refs/heads/main")
    assert result.returncode == 1
    tip = git(agent, "rev-parse", "--short=7", "HEAD").strip()
    lines = [line.rstrip() for line in result.stderr.splitlines() if "gasp" in line]
    assert lines[0].startswith(
        f"remote: gasp: refs/heads/main 5× [facts] {tip} memory/facts.jsonl:236–240 "
        "not a fact in the GASP envelope (hint: "
    )
    assert "push rejected: 5 violations in 1 commit" in result.stderr
    assert sum("[facts]" in line for line in lines) == 1


def test_a_repository_level_turns_a_rule_to_a_warning_or_off(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _onboarded(agent, tmp_path, capsys)
    server = Path(url.removeprefix("file://"))
    git(server, "config", "gasp.rule.facts", "warn")
    _append_legacy(agent)
    result = push(agent, url, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    assert "gasp: warning: refs/heads/main " in result.stderr
    assert "1 warning (1 facts), not refused" in result.stderr
    git(server, "config", "gasp.rule.skill", "off")
    _change_two_skills(agent)
    result = push(agent, url, "HEAD:refs/heads/main")
    assert result.returncode == 0 and "gasp:" not in result.stderr, result.stderr


def test_a_system_level_applies_to_every_server_repository(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = _onboarded(agent, tmp_path, capsys)
    system = tmp_path / "gitconfig-system"
    system.write_text('[gasp "rule"]\n\tskill = warn\n')
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(system))
    _change_two_skills(agent)
    result = push(agent, url, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    assert "1 warning (1 skill), not refused" in result.stderr


def test_a_bad_level_or_a_protocol_rule_below_error_fails_closed(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _onboarded(agent, tmp_path, capsys)
    server = Path(url.removeprefix("file://"))
    _append_legacy(agent)
    for key, value, said in (
        ("gasp.rule.facts", "loud", "not one of error, warn, off"),
        ("gasp.rule.append-only", "warn", "a protocol rule is always an error"),
    ):
        git(server, "config", key, value)
        result = push(agent, url, "HEAD:refs/heads/main")
        assert result.returncode == 1 and said in result.stderr
        assert "Traceback" not in result.stderr
        git(server, "config", "--unset", key)


def test_credentials_stay_errors_in_an_onboarding_push(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert rules.level("secret", {}, history=True) == "error"
    assert rules.level("facts", {}, history=True) == "warn"
    assert rules.level("facts", {"facts": "error"}, history=True) == "error"
    assert rules.level("no-such-rule", {"no-such-rule": "off"}) == "error"
    assert rules.level("append-only", {"append-only": "off"}) == "error"


def test_validate_weighs_and_groups_and_keeps_every_finding(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "validate", "-C", str(agent))
    assert code == 1
    assert out.splitlines()[-1] == "4 commits: 236 violations"
    assert sum("[facts]" in line for line in out.splitlines()) == 1
    code, out, _ = run_cli(capsys, "validate", "--onboard", "-C", str(agent))
    assert code == 0 and out.splitlines()[-1] == "4 commits: ok"
    assert "236 warnings (233 facts, 3 skill)" in out
    code, out, _ = run_cli(capsys, "validate", "--all", "-C", str(agent))
    assert sum("[facts]" in line for line in out.splitlines()) == 233
    code, out, _ = run_cli(capsys, "validate", "--json", "--onboard", "-C", str(agent))
    doc = json.loads(out)
    assert doc["ok"] and len(doc["violations"]) == 236
    assert {v["level"] for v in doc["violations"]} == {"warn"}


def test_groups_keep_order_count_and_span() -> None:
    def at(line: int, rule: str = "facts", step: str = "a" * 40) -> Judged:
        return Judged(step, Finding("memory/facts.jsonl", line, rule, "m", "h"))

    found = [at(3), at(1), at(9, "skill"), at(7)]
    groups = group(found)
    assert [(g.rule, len(g.items)) for g in groups] == [("facts", 3), ("skill", 1)]
    assert groups[0].where() == "memory/facts.jsonl:1–7"
    assert groups[0].summary() == "3× [facts] aaaaaaa memory/facts.jsonl:1–7 m (hint: h)"


def test_a_refused_first_push_from_a_hooked_clone_says_how_to_onboard(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The client's pre-push judges the history as new changes; to a remote
    it knows nothing of, its refusal ends with how to onboard."""
    server = bare_server(tmp_path, capsys)
    code, _, err = run_cli(capsys, "hooks", "install", "--python", sys.executable, "-C", str(agent))
    assert code == 0, err
    git(agent, "remote", "add", "origin", str(server))
    result = push(agent, "origin", "HEAD:refs/heads/main")
    assert result.returncode == 1
    assert "push refused: 236 violations in 3 commits" in result.stderr
    hint = "git push --no-verify -o gasp.onboard origin <branch> (git-gasp-hooks(1), ONBOARDING"
    assert hint in result.stderr
    result = push(agent, "origin", "--no-verify", *ONBOARD)
    assert result.returncode == 0, result.stderr
    with open(agent / "memory/facts.jsonl", "a", encoding="utf-8") as fh:
        fh.write(onboarding.legacy_line(900) + "\n")
    git(agent, "commit", "-q", "--no-verify", "-am", "memory: an old-format line")
    result = push(agent, "origin", "HEAD:refs/heads/main")
    assert result.returncode == 1 and "push refused: 1 violation" in result.stderr
    assert "gasp.onboard" not in result.stderr  # the remote holds history now
