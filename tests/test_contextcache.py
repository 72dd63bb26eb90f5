"""The hooks' cache of log contexts (``<git-common-dir>/gasp/contexts-v1/``):
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
    cached.write_bytes(b'{"format":1,"lines":')
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
