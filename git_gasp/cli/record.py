"""``git gasp record KIND …``: one subcommand per typed helper of the Python API.

The commands are built from :data:`git_gasp.agent.recording.KINDS`; each parses its
flags (and ``--payload-json``), makes one helper call and prints the id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from git_gasp.agent import recordarguments, recording
from git_gasp.agent.recordfields import Field, Kind
from git_gasp.cli.options import JSON, REPO, WORKER, emit, repo_root
from git_gasp.errors import OK


def _payload(kind: Kind) -> Callable[[Any], Any]:
    keys = ", ".join(dict.fromkeys(f.name.split(".")[0] for f in kind.fields))
    return click.option(
        "--payload-json",
        "payload_json",
        metavar="JSON",
        help=f"The arguments as one JSON object with keys {keys} (the Python API's "
        "argument names); flags override its keys.",
    )


@click.group()
def record() -> None:
    """Record one GASP event (and its ops pair) through a typed helper.

    Each KIND writes the payload and ops the reference runtime writes, chained
    into the open run; it is checked against the graph before anything is
    appended. Prints the recorded id (--json: {"id", "event_ids"}).
    """


_ALLOW_MISSING = click.option(
    "--allow-missing",
    is_flag=True,
    help="Record relations to ids no node has (refused by default: usually a typo, and "
    "the log keeps it forever).",
)


def _option(field: Field) -> Callable[[Any], Any]:
    if field.positional:
        return click.argument(field.dest, metavar=field.metavar, required=False)
    text = field.help + (" Required unless in --payload-json." if field.required else "")
    if field.type == "bool":
        off = "--failure" if field.flag == "--success" else f"--no-{field.flag[2:]}"
        return click.option(f"{field.flag}/{off}", field.dest, default=None, help=text)
    return click.option(
        field.flag,
        field.dest,
        metavar=field.metavar,
        type=float if field.type == "float" else str,
        multiple=field.multiple,
        help=text,
    )


def _command(kind: Kind) -> click.Command:
    def callback(
        repo: str | None,
        worker: str | None,
        as_json: bool,
        payload_json: str | None,
        allow_missing: bool,
        **flags: Any,
    ) -> int:
        kwargs = recordarguments.arguments(kind, payload_json, flags)
        made = recording.record(repo_root(repo), worker, kind, kwargs, allow_missing)
        emit(as_json, made._asdict(), made.id)
        return OK

    options = [*map(_option, kind.fields), _payload(kind), _ALLOW_MISSING, REPO, WORKER, JSON]
    for decorate in reversed(options):
        callback = decorate(callback)
    return click.command(kind.name, help=kind.help, short_help=kind.help.split(":")[0])(callback)


for _kind in recording.KINDS:
    record.add_command(_command(_kind))
