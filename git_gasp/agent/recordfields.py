"""What a ``git gasp record KIND`` takes: one :class:`Kind` per typed helper of
:class:`git_gasp.agent.api.Agent`, listing its :class:`Field` s (the Python
argument, also the ``--payload-json`` key; the flag; the value type; the help
text), and the fields and kinds that several event families share.
"""

from __future__ import annotations

from typing import NamedTuple


class Field(NamedTuple):
    """One argument of a helper. ``name`` is the Python argument (a dotted
    ``parent.key`` sets one key of an object argument); ``flag`` is ``--x``
    or an upper-case positional metavar."""

    name: str
    flag: str
    type: str  # str float bool json object actor strs objects ops artifacts project
    help: str
    required: bool = False
    multiple: bool = False
    choices: tuple[str, ...] = ()

    @property
    def dest(self) -> str:
        return self.name.replace(".", "__")

    @property
    def metavar(self) -> str:
        if self.positional:
            return self.flag
        if self.choices:
            return "STATUS"
        named = {"actor": "KIND:ID", "float": "NUMBER"}
        if self.type in JSON_TYPES:
            return "JSON"
        ids = {"goal", "explains", "patch", "target", "parent", "observed_in", "evidence"}
        return named.get(self.type) or (
            "ID" if self.name in ids or "_id" in self.name or self.name == "causation" else "TEXT"
        )

    @property
    def positional(self) -> bool:
        return not self.flag.startswith("-")


class Kind(NamedTuple):
    name: str  # the subcommand
    method: str  # the Agent helper
    help: str
    fields: tuple[Field, ...]
    id_from: str | None = None  # print this argument instead of the helper's result


JSON_TYPES = {"json", "object", "objects", "ops", "artifacts", "project"}


def id_field(name: str, what: str, prefix: str) -> Field:
    return Field(name, "--id", "str", f"The {what} id (default: a new {prefix}_<32 hex>).")


TITLE = Field("title", "--title", "str", "A one-line title.", required=True)
SUMMARY = Field("summary", "--summary", "str", "A longer description (default: empty).")
METADATA = Field("metadata", "--metadata-json", "json", "Free-form JSON metadata (default: {}).")
ARTIFACTS = Field(
    "artifacts",
    "--artifact-json",
    "artifacts",
    'An artifact to attach, as JSON {"kind","uri","hash","summary","metadata"}; '
    "kind and uri are required (repeatable).",
    multiple=True,
)


def actor_field(name: str, flag: str, role: str) -> Field:
    return Field(name, flag, "actor", f"{role}, as KIND:ID (default: the agent).")


def status_field(allowed: tuple[str, ...], default: str | None = None) -> Field:
    text = f"One of {', '.join(allowed)}" + (f" (default: {default})." if default else ".")
    return Field("status", "--status", "str", text, required=default is None, choices=allowed)


def status_kind(entity: str, allowed: tuple[str, ...]) -> Kind:
    return Kind(
        f"{entity}-status",
        f"update_{entity}_status",
        f"Set a {entity}'s status: {entity}.status_changed + UpdateNode {{status, "
        "status_reason}. Needs an open run; the node must exist. Prints the "
        f"{entity} id.",
        (
            Field(f"{entity}_id", "--id", "str", f"The {entity} to update.", required=True),
            status_field(allowed),
            Field("reason", "--reason", "str", "Why the status changed (default: null)."),
        ),
        id_from=f"{entity}_id",
    )
