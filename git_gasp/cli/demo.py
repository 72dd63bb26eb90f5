"""``git gasp demo``: the main job on built-in data."""

from __future__ import annotations

import click

from git_gasp import output
from git_gasp.cli.options import not_empty
from git_gasp.errors import FINDINGS, OK


@click.command()
@click.argument(
    "directory",
    metavar="[DIR]",
    required=False,
    type=click.Path(file_okay=False),
    callback=not_empty,
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document instead of text.")
def demo(directory: str | None, as_json: bool) -> int:
    """Record two agent runs in DIR (default: a new temporary directory) and check them.

    Run 1's patch passes its eval and is promoted, run 2's fails and is
    rejected; each run ends in a boundary commit. Exit 0 if all seven checks
    pass, 1 otherwise. The directory is kept.
    """
    from git_gasp.agent.demo import run_demo

    result = run_demo(directory)
    if as_json:
        output.data_json(result.to_value())
    else:
        output.data(result.to_text())
    return OK if result.passed else FINDINGS
