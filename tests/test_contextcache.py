"""The hooks' cache of log contexts (``<git-common-dir>/gasp/contexts-v2/``):
a context built by parsing a whole version is kept at once, a damaged file is
a miss, and what orjson cannot write the standard library still can."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from git_gasp.core import jsonvalue
from git_gasp.core.jsonvalue import cache_bytes
from git_gasp.core.logcontext import context_of
from git_gasp.hooks.contextcache import CONTEXTS_DIR, load_context

from .conftest import git, log_path

LOG = "state/events.jsonl"


def _pre_commit(repo: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "git_gasp", "hooks", "run", "pre-commit"]
    return subprocess.run(cmd, cwd=repo, capture_output=True, text=True)


def test_a_parsed_version_is_kept_even_when_the_commit_is_refused(fixture_repo: Path) -> None:
    head_log = git(fixture_repo, "rev-parse", f"HEAD:{LOG}").strip()
    with log_path(fixture_repo).open("ab") as fh:
        fh.write(b'{"not":"an event"}\n')
    git(fixture_repo, "add", LOG)
    refused = _pre_commit(fixture_repo)
    assert refused.returncode == 1, refused.stderr
    common = str(fixture_repo / ".git")
    cached = fixture_repo / ".git" / "gasp" / CONTEXTS_DIR / f"{head_log}.json"
    assert cached.is_file()
    loaded = load_context(common, head_log)
    data = subprocess.run(
        ["git", "-C", str(fixture_repo), "cat-file", "blob", head_log],
        capture_output=True,
        check=True,
    ).stdout
    assert loaded is not None and loaded.to_value() == context_of(data).to_value()
    # a damaged file is a miss: the version is parsed again, the verdict the same
    cached.write_bytes(b'{"format":2,"lines":')
    assert load_context(common, head_log) is None
    again = _pre_commit(fixture_repo)
    assert (again.returncode, again.stderr) == (1, refused.stderr)
    assert load_context(common, head_log) is not None


def test_cache_bytes_read_back_as_the_value_whichever_writer_wrote_them() -> None:
    jsonvalue._accelerate()
    plain = {"format": 1, "lines": 2, "kinds": {"ev_1": "run.started"}, "nodes": ["n"]}
    odd = {"format": 1, "lines": 1, "kinds": {"ev_\ud800": "note"}, "nodes": ["é"]}
    for value in (plain, odd):  # orjson refuses a lone surrogate; json escapes it
        assert json.loads(cache_bytes(value)) == value


def _blob(repo: Path, oid: str) -> bytes:
    done = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", oid], capture_output=True)
    return done.stdout


def test_a_grown_log_is_kept_as_a_delta_on_a_whole_context(fixture_repo: Path) -> None:
    from git_gasp.agent.api import Agent
    from git_gasp.hooks import contextcache

    common = str(fixture_repo / ".git")
    folder = fixture_repo / ".git" / "gasp" / CONTEXTS_DIR
    oids = []
    for round_ in range(40):
        with Agent.open(str(fixture_repo), worker="w") as agent:
            agent.record_observation(None, f"round {round_}", "a long history grows")
        git(fixture_repo, "add", LOG)
        assert _pre_commit(fixture_repo).returncode == 0
        git(fixture_repo, "commit", "-q", "--no-verify", "-m", f"round {round_}")
        oids.append(git(fixture_repo, "rev-parse", f"HEAD:{LOG}").strip())
    kinds = []
    for oid in oids[-contextcache._KEEP_CONTEXTS // 2 :]:
        loaded = load_context(common, oid)
        assert loaded is not None
        assert loaded.to_value() == context_of(_blob(fixture_repo, oid)).to_value()
        value = json.loads((folder / f"{oid}.json").read_bytes())
        kinds.append("base" in value)
    assert any(kinds)  # most are deltas
    whole = [oid for oid in oids if (folder / f"{oid}.json").is_file()]
    assert any(b'"base"' not in (folder / f"{o}.json").read_bytes() for o in whole)
    # a delta whose base is gone is a miss, never a wrong context
    delta = next(o for o in reversed(oids) if b'"base"' in (folder / f"{o}.json").read_bytes())
    base = json.loads((folder / f"{delta}.json").read_bytes())["base"]
    (folder / f"{base}.json").unlink()
    assert load_context(common, delta) is None
