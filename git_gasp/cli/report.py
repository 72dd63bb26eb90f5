"""``git gasp report``: the agent's page."""

from __future__ import annotations

import sys

import click

from git_gasp import output
from git_gasp.cli.options import JSON, REPO, agent_repo_root
from git_gasp.errors import OK, USAGE, GaspError


@click.command()
@REPO
@click.option(
    "-o",
    "--out",
    "out",
    metavar="FILE.html",
    default=None,
    help="Write the page to FILE.html (default: stdout when it is not a terminal; - for stdout).",
)
@JSON
def report(repo: str | None, out: str | None, as_json: bool) -> int:
    """Write the agent's page: one self-contained HTML file (identity, skills,
    runs by outcome, the patch track record, open goals and tasks, the last
    arcs' lineage, tokens per run), with no script and no network at view time."""
    from git_gasp.view import reportdata, reportpage

    root = agent_repo_root(repo)
    if out is None and not as_json and sys.stdout.isatty():
        raise GaspError(
            "the page is HTML: name a file for it",
            "git gasp report --out agent.html (or redirect stdout, or --out -)",
            USAGE,
        )
    data = reportdata.gather(root)
    if as_json:
        output.data_json(reportdata.report_value(data))
        return OK
    page = reportpage.render(data)
    if out in (None, "-"):
        sys.stdout.write(page)
        return OK
    from git_gasp.store import outfile

    outfile.write(out, page.encode("utf-8"), root)
    output.diag(f"wrote {out}")
    return OK
