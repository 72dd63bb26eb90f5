"""The audited bypass through real ``git push`` to a bare server with the
hooks installed (issue 16 item 5): who may bypass is what the server knows,
each accepted bypass is recorded under refs/notes/gasp-bypass, and a clone's
``git gasp check`` names it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import git
from .conftest import run_cli as main
from .test_hooks import append, commit, edit_line, goal_pair, push, served

REF = "refs/notes/gasp-bypass"
LOG = "state/events.jsonl"


def push_env(
    repo: Path, url: str, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """A push whose hook sees ``env`` (over file:// it inherits the pusher's)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("GL_USERNAME", "USER", "LOGNAME")}
    return subprocess.run(
        ["git", "-C", str(repo), "push", url, *args],
        capture_output=True,
        text=True,
        env={**clean, **env},
    )


def edited(work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
    """A served repository, and a commit in ``work`` the hook refuses."""
    url = served(work, tmp_path, capsys)
    edit_line(work)
    commit(work, "rewrite a line")
    return url, Path(url.removeprefix("file://"))


OPTION = ["-o", "gasp.bypass=INC-42 restore from backup"]


@pytest.mark.parametrize("variable", ["GL_USERNAME", "GITEA_PUSHER_NAME", "GASP_PUSHER"])
def test_a_listed_pusher_bypasses_and_the_bypass_is_recorded(
    variable: str, work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, server = edited(work, tmp_path, capsys)
    old = git(server, "rev-parse", "main").strip()
    git(server, "config", "--add", "gasp.bypassAllowed", "bob")
    git(server, "config", "--add", "gasp.bypassAllowed", "ann")
    result = push_env(work, url, {variable: "ann"}, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    assert f"bypass by ann ({variable}) (INC-42 restore from backup)" in result.stderr
    tip = git(work, "rev-parse", "HEAD").strip()
    assert git(server, "rev-parse", "main").strip() == tip
    (record,) = [
        json.loads(x) for x in git(server, "notes", "--ref", REF, "show", tip).splitlines()
    ]
    assert record["pusher"] == "ann" and record["via"] == variable
    assert record["reason"] == "INC-42 restore from backup"
    assert record["refs"] == [{"ref": "refs/heads/main", "old": old, "new": tip}]
    assert record["commits"] == [tip] and record["rules"] == ["append-only"]
    assert record["time"].endswith("Z")
    audit = [json.loads(x) for x in (server / "gasp" / "audit.log").read_text().splitlines()]
    assert [a["status"] for a in audit] == ["requested", "accepted"]
    assert not list((server / "gasp" / "bypass-pending").iterdir())


def test_an_unlisted_pusher_is_refused(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, server = edited(work, tmp_path, capsys)
    git(server, "config", "gasp.bypassAllowed", "ann")
    result = push_env(work, url, {"GL_USERNAME": "mallory"}, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode != 0
    assert "pusher mallory (GL_USERNAME) is not in gasp.bypassAllowed" in result.stderr
    assert git(server, "rev-parse", "main").strip() != git(work, "rev-parse", "HEAD").strip()
    assert git(server, "for-each-ref", REF) == ""
    assert not (server / "gasp" / "audit.log").exists()


def test_the_clients_user_never_counts(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, server = edited(work, tmp_path, capsys)
    git(server, "config", "gasp.bypassAllowed", "the-ceo")
    env = {"USER": "the-ceo", "LOGNAME": "the-ceo"}
    result = push_env(work, url, env, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode != 0
    assert "the server knows no pusher" in result.stderr and "USER never counts" in result.stderr
    assert git(server, "for-each-ref", REF) == ""
    assert not (server / "gasp" / "audit.log").exists()


def test_allow_bypass_alone_lets_no_one_through_and_false_turns_it_off(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, server = edited(work, tmp_path, capsys)
    git(server, "config", "gasp.allowBypass", "true")
    ann = {"GL_USERNAME": "ann"}
    result = push_env(work, url, ann, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode != 0
    assert "gasp.allowBypass alone no longer lets anyone bypass" in result.stderr
    assert "gasp.bypassAllowed" in result.stderr
    git(server, "config", "gasp.allowBypass", "false")
    git(server, "config", "gasp.bypassAllowed", "ann")
    result = push_env(work, url, ann, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode != 0 and "gasp.allowBypass is false" in result.stderr


def test_a_bypass_of_a_clean_push_is_not_recorded(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    server = Path(url.removeprefix("file://"))
    git(server, "config", "gasp.bypassAllowed", "ann")
    append(work, LOG, goal_pair("clean"))
    commit(work, "clean")
    result = push_env(work, url, {"GL_USERNAME": "ann"}, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    assert "bypass by" not in result.stderr
    assert git(server, "for-each-ref", REF) == ""


def test_only_the_server_writes_the_record(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    head = git(work, "rev-parse", "HEAD").strip()
    git(work, "notes", "--ref", REF, "add", "-m", '{"pusher": "forged"}', head)
    result = push(work, url, f"{REF}:{REF}")
    assert result.returncode != 0
    assert "only the server writes the record of audited bypasses" in result.stderr


def test_a_clones_check_names_the_bypass(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, server = edited(work, tmp_path, capsys)
    git(server, "config", "gasp.bypassAllowed", "ann")
    result = push_env(work, url, {"GL_USERNAME": "ann"}, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    tip = git(work, "rev-parse", "HEAD").strip()
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", url, str(clone))
    code, out, _ = main(capsys, "check", "-C", str(clone))
    assert code == 1
    assert f"fetch the server's record: git fetch origin {REF}:{REF}" in out
    git(clone, "fetch", "-q", "origin", f"{REF}:{REF}")
    code, out, _ = main(capsys, "check", "-C", str(clone))
    assert code == 1  # a bypass is an accepted violation, not a conforming history
    line = next(x for x in out.splitlines() if f"commit {tip[:7]}" in x)
    assert "edits existing lines" in line
    assert "pushed with an audited bypass by ann (GL_USERNAME)" in line
    assert '"INC-42 restore from backup"' in line and "refs/heads/main" in line
    assert "1 of these failures were let through by an audited bypass" in out
    code, out, _ = main(capsys, "check", "--json", "-C", str(clone))
    failures = next(c for c in json.loads(out)["checks"] if c["number"] == 4)["failures"]
    assert any("audited bypass by ann" in f for f in failures)


def test_a_forged_record_in_a_clone_explains_but_never_clears(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_line(work)
    commit(work, "rewrite a line")
    tip = git(work, "rev-parse", "HEAD").strip()
    record = {"time": "t", "pusher": "p", "via": "v", "reason": "r", "refs": [], "commits": [tip]}
    git(work, "notes", "--ref", REF, "add", "-m", json.dumps({**record, "rules": []}), tip)
    code, out, _ = main(capsys, "check", "-C", str(work))
    assert code == 1 and "audited bypass by p (v)" in out


def test_a_mixed_push_says_which_ref_refused_it(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    append(work, LOG, goal_pair("good"))
    commit(work, "good")
    git(work, "branch", "good")
    edit_line(work)
    commit(work, "bad")
    result = push(work, url, "good:refs/heads/good", "HEAD:refs/heads/bad")
    assert result.returncode != 0
    assert (
        "the push's 1 other ref refused only because of refs/heads/bad "
        "(git takes all of a push or none of it): push it without refs/heads/bad to land it"
    ) in result.stderr
    assert push(work, url, "good:refs/heads/good").returncode == 0


def test_a_bypassed_deletion_is_recorded_on_the_old_tip(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served(work, tmp_path, capsys)
    server = Path(url.removeprefix("file://"))
    append(work, LOG, goal_pair("side"))  # lines no other ref holds
    commit(work, "side")
    side = git(work, "rev-parse", "HEAD").strip()
    assert push(work, url, "HEAD:refs/heads/side").returncode == 0
    git(server, "config", "gasp.bypassAllowed", "ann")
    option = ["-o", "gasp.bypass=remove test branch"]
    result = push_env(work, url, {"GL_USERNAME": "ann"}, *option, ":refs/heads/side")
    assert result.returncode == 0, result.stderr
    (record,) = [
        json.loads(x) for x in git(server, "notes", "--ref", REF, "show", side).splitlines()
    ]
    assert record["refs"] == [{"ref": "refs/heads/side", "old": side, "new": "0" * 40}]
    # a second bypass adds a second note commit, appended to what is there
    edit_line(work)
    commit(work, "rewrite")
    result = push_env(work, url, {"GL_USERNAME": "ann"}, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    assert len(git(server, "rev-list", REF).split()) == 2


def test_one_tip_under_two_refs_gets_one_record(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, server = edited(work, tmp_path, capsys)
    git(server, "config", "gasp.bypassAllowed", "ann")
    refs = ["HEAD:refs/heads/main", "HEAD:refs/agents/backup"]
    result = push_env(work, url, {"GL_USERNAME": "ann"}, *OPTION, *refs)
    assert result.returncode == 0, result.stderr
    tip = git(work, "rev-parse", "HEAD").strip()
    (record,) = [
        json.loads(x) for x in git(server, "notes", "--ref", REF, "show", tip).splitlines()
    ]
    assert sorted(m["ref"] for m in record["refs"]) == ["refs/agents/backup", "refs/heads/main"]


def test_post_receive_starts_python_only_when_a_bypass_waits_to_be_recorded(
    work: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the shim's test in sh (install._NOTHING_TO_DO): a push that bypassed
    # nothing leaves no record for post-receive, so no interpreter starts
    url, server = edited(work, tmp_path, capsys)
    git(server, "config", "gasp.bypassAllowed", "ann")
    started = tmp_path / "started"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {started}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    shim = server / "hooks" / "post-receive"
    shim.write_text(shim.read_text().replace(sys.executable, str(wrapper)))
    git(work, "branch", "clean", "HEAD~1")
    assert push(work, url, "clean:refs/heads/clean").returncode == 0
    assert not started.exists()
    result = push_env(work, url, {"GL_USERNAME": "ann"}, *OPTION, "HEAD:refs/heads/main")
    assert result.returncode == 0, result.stderr
    assert "hooks run post-receive" in started.read_text()
    tip = git(work, "rev-parse", "HEAD").strip()
    assert json.loads(git(server, "notes", "--ref", REF, "show", tip))["pusher"] == "ann"
