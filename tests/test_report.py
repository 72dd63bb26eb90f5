"""``git gasp report``: the agent's page, opened in real headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .browser import open_page
from .conftest import run_cli
from .history import ARC

# the real-shaped history is built once per worker: keep its tests on one
pytestmark = pytest.mark.xdist_group("story-history")


@pytest.fixture(scope="module")
def page(story_history: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from git_gasp.cli.root import main

    out = tmp_path_factory.mktemp("report") / "agent.html"
    assert main(["report", "-C", str(story_history), "--out", str(out)]) == 0
    return out


def test_the_page_is_self_contained(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "<script" not in html.lower()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html, re.I)
    assert not re.search(r"url\(\s*['\"]?https?:", html, re.I)
    for section in ("Identity", "Skills", "Runs", "Patch track record", "Open goals and tasks",
                    "The last arcs", "Tokens per run"):  # fmt: skip
        assert f"<h2>{section}</h2>" in html
    assert f"git gasp lineage {ARC['fix']}" in html and "I am evolve" in html
    assert html.count("<svg") >= 6  # three charts and the last three arcs


def test_the_page_renders_in_a_browser_with_no_request(page: Path, tmp_path: Path) -> None:
    opened = open_page(page)
    assert opened.requests == [page.resolve().as_uri()]  # the document, nothing else
    assert opened.errors == []
    assert opened.title == "evolve — GASP agent"
    assert opened.png.startswith(b"\x89PNG") and len(opened.png) > 50_000
    (tmp_path / "shot.png").write_bytes(opened.png)


def test_a_page_that_fetches_is_caught(tmp_path: Path) -> None:
    """The check itself: a page that asks the network is seen asking."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><title>x</title><img src="http://192.0.2.1/x.png">')
    opened = open_page(bad)
    assert any(url.startswith("http://192.0.2.1/") for url in opened.requests)


def test_report_json_and_refusals(
    story_history: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run_cli(capsys, "report", "-C", str(story_history), "--json")
    value = json.loads(out)
    assert code == 0 and value["format"] == "git-gasp.report/1"
    assert len(value["runs"]) == 602 and value["arcs"][0]["root"] == ARC["fix"]
    assert sum(w["promoted"] for w in value["weeks"]) > 100
    code, _, err = run_cli(capsys, "report", "-C", str(tmp_path))
    assert code == 2 and "not an agent repository" in err
    code, _, err = run_cli(
        capsys, "report", "-C", str(story_history), "--out", "state/events.jsonl"
    )
    assert code == 2 and "error:" in err


def test_what_the_repository_holds_is_escaped(fixture_repo: Path, tmp_path: Path) -> None:
    from git_gasp.agent.api import Agent
    from git_gasp.cli.root import main

    with Agent.open(str(fixture_repo), worker="w") as agent:
        agent.record_goal(None, '</td><script>alert(1)</script> \x1b[31m "q" & <b>', "s")
    out = tmp_path / "page.html"
    assert main(["report", "-C", str(fixture_repo), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html and "\x1b" not in html
    assert (
        "&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt; \\x1b[31m &quot;q&quot; &amp; &lt;b&gt;"
        in html
    )
    assert "in run: run_42" in html  # the fixture's patch, in its run; the goal in none
    assert "in run: Make retry reliable" not in html


def test_the_track_record_shows_one_weeks_pass_rate_and_no_scale_without_patches() -> None:
    """One week of evals is a dot (a line needs two); with no patch promoted
    or rejected the bars have no scale, and the chart says so."""
    from git_gasp.view.charts import track_record
    from git_gasp.view.reportdata import Week

    svg = track_record([Week("2026-06-15", 0, 0, 6, 6)])
    assert svg.count("<circle") == 1 and "<polyline" not in svg
    assert "eval pass rate 100% (6 of 6)" in svg
    assert "no patch has been promoted or rejected yet" in svg
    assert not re.search(r">1</text>", svg)  # no "1" above and below the line
    two = track_record([Week("2026-06-15", 2, 1, 4, 2), Week("2026-06-22", 1, 0, 2, 2)])
    assert two.count("<circle") == 2 and "<polyline" in two
    assert ">2</text>" in two and "no patch has been" not in two
