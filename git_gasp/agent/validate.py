"""Checking a batch of new events against the current graph, before appending.

The rules are the conformance checks, applied to what is about to be written:
a strict fold of the new ops on the current graph skips nothing (check 2),
node kinds and relations are declared (check 3), causes point backwards and
roots have root kinds (check 5), a domain event's pair creates its entity
exactly once and an ops event never chains to an ops event (check 7).
No line may carry a credential (the hooks' ``secret`` rule): an append-only
file can never forget one, so it is refused before it is written.
A CreateNode for an id that already names a node is refused: re-creating it
would silently reset the node (its props, flags and artifacts) in every fold.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

from git_gasp.core.change import escapes_may_hide, line_secrets
from git_gasp.core.checks import PAIRED_KINDS, is_allowed_root
from git_gasp.core.event import OPS_APPLIED, Event
from git_gasp.core.fold import Folder
from git_gasp.core.jsonvalue import MAX_DEPTH, Json, depth, dumps, type_name
from git_gasp.core.ops import (
    AttachArtifact,
    CreateNode,
    CreateRelation,
    MarkStale,
    OpsError,
    TombstoneNode,
    UpdateNode,
    parse_ops,
)
from git_gasp.core.pack import Pack, vocabulary
from git_gasp.core.secretscreen import scan_lines
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import FINDINGS, USAGE, GaspError


class RefusedError(GaspError):
    """A batch that a fold would skip or a check would reject."""

    exit_code = FINDINGS


def choice(what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise GaspError(f"{what} must be one of {', '.join(allowed)} (got {value!r})", None, USAGE)


def tagged(value: Json, variants: dict[str, str | dict[str, str]], what: str) -> Json:
    """:func:`git_gasp.core.payloads.tagged`, refused as bad input."""
    from git_gasp.core.payloads import tagged as typed

    try:
        return typed(value, variants, what)
    except ValueError as exc:
        raise GaspError(
            f"{what} {_shown(value)}: {exc}",
            f"write one of the runtime's {what}s (git-gasp-record(1) lists them); "
            "a runtime could not read the patch otherwise",
            USAGE,
        ) from None


def _shown(value: Json) -> str:
    try:
        text = dumps(value) if depth(value) < MAX_DEPTH else "(nested too deep)"
    except (ValueError, TypeError, RecursionError):
        text = f"({type_name(value)})"
    return text if len(text) <= 80 else text[:77] + "..."


def depths(events: Sequence[Event], lines: bytes, what: str) -> None:
    """Refuse an event nested deeper than the log's parser reads (it would
    append a line that no command could read again). ``lines``, the encoded
    batch, rules most batches out at once: nesting needs its brackets."""
    if lines.count(b"[") + lines.count(b"{") <= MAX_DEPTH:
        return
    for event, line in zip(events, lines.split(b"\n"), strict=False):  # one line each
        if line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
            continue  # too few brackets to nest that deep
        if 1 + depth(event.payload) > MAX_DEPTH:
            raise GaspError(
                f"{what} not written: its payload nests deeper than {MAX_DEPTH - 1} levels",
                "flatten the metadata (every reader of the log would refuse that line)",
                USAGE,
            )


def unpaired_tail(last: tuple[str, str] | None, events: Sequence[Event], root: str) -> None:
    """Refuse to append after a domain event whose ops pair is missing (the
    first half of a batch a crash cut short), unless ``events`` start with
    that pair: whatever came next, the log would fail check 7 for good.
    The refusal names the way out (:func:`git_gasp.agent.unpaired.way_out`)."""
    if last is None or last[1] not in PAIRED_KINDS:
        return
    if events and events[0].kind == OPS_APPLIED and events[0].causation_id == last[0]:
        return
    from git_gasp.agent.unpaired import way_out

    raise RefusedError(
        f"the log ends with {last[1]} {last[0]} without its state.ops_applied (a batch cut short)",
        way_out(root),
    )


def batch(
    events: Sequence[Event], folder: Folder, ids: Mapping[str, str], packs: list[Pack]
) -> None:
    """Raise :class:`RefusedError` unless ``events`` may be appended as they are."""
    kinds, rels = vocabulary(packs)
    seen = dict(ids)
    created: set[str] = set()
    for event in events:
        cause = event.causation_id
        if cause is not None and cause not in seen:
            raise RefusedError(f"{event.kind}: causation_id {cause} names no earlier event")
        if cause is None and not is_allowed_root(event.kind):
            raise RefusedError(
                f"{event.kind} outside a run would be an invalid root event (check 5)",
                "start a run first: git gasp run start --task TEXT",
            )
        if event.id in seen:
            raise RefusedError(f"duplicate event id {event.id}")
        if event.kind in PAIRED_KINDS:
            entity = event.payload.get("id") if isinstance(event.payload, dict) else None
            if not isinstance(entity, str) or not entity.strip() or entity != entity.strip():
                raise RefusedError(
                    f"{event.kind} payload needs a string `id` without surrounding spaces"
                )
            if entity in folder.nodes:
                raise RefusedError(
                    f"`{entity}` already exists; recording it again would reset the node",
                    "choose a new id (or update it with a status change)",
                )
        if event.kind == OPS_APPLIED:
            if cause is not None and seen.get(cause) == OPS_APPLIED:
                raise RefusedError("an ops event may not be caused by another ops event (check 7)")
            _check_ops(event, folder, created, kinds, rels)
        seen[event.id] = event.kind


def _check_ops(
    event: Event,
    folder: Folder,
    created: set[str],
    kinds: frozenset[str],
    rels: frozenset[str],
) -> None:
    try:
        ops = parse_ops(event.payload)
    except OpsError as exc:
        raise RefusedError(f"ops do not parse: {exc}") from None
    for op in ops:
        if isinstance(op, CreateNode):
            if op.kind not in kinds:
                raise RefusedError(
                    f"node kind `{op.kind}` is not declared (check 3)",
                    "declare it in a pack under .agent/packs/",
                )
            if op.id in folder.nodes or op.id in created:
                raise RefusedError(
                    f"`{op.id}` already exists; creating it again would reset the node",
                    "choose a new id (or update it with UpdateNode / a status change)",
                )
            created.add(op.id)
        elif isinstance(op, CreateRelation):
            if op.rel not in rels:
                raise RefusedError(
                    f"relation `{op.rel}` is not declared (check 3)",
                    "declare it in a pack under .agent/packs/",
                )
        elif isinstance(op, UpdateNode | TombstoneNode | MarkStale | AttachArtifact):
            _needs(op.id, folder, created, type(op).__name__)


def _needs(node: str, folder: Folder, created: set[str], op: str) -> None:
    if node not in folder.nodes and node not in created:
        raise RefusedError(
            f"{op} names node `{node}`, which does not exist (a fold would skip it)",
            did_you_mean(node, folder.nodes) or "record the node first, or check the id",
        )


def secrets(rel: str, lines: bytes, what: str, scan: set[int] | None = None) -> None:
    """Refuse to append ``lines`` to the append-only ``rel`` when one carries a
    credential (the rule the hooks apply when they are committed): nothing is
    written, and the error names what held it. One screen of the whole batch
    (:func:`~git_gasp.core.secrets.lines_to_scan`, as the hooks run it) picks
    the lines to test: one with no rule's trigger and no JSON escape that could
    spell one (:func:`~git_gasp.core.change.escapes_may_hide`) holds none.
    ``scan``: that screen's lines when a caller had them found already
    (:class:`git_gasp.agent.screening.Screen`)."""
    text = lines.decode("utf-8", "replace")
    if scan is None:
        scan = scan_lines(lines)
    for i, raw in enumerate(text.split("\n")):
        if i not in scan and not escapes_may_hide(raw):
            continue
        for line in raw.splitlines():
            found = line_secrets(line)
            if not found:
                continue
            secret = found[0][1]
            raise GaspError(
                f"{rel}: {what} not written: it carries what looks like "
                f"{secret.label} ({secret.preview}) [{secret.rule}]",
                "an append-only file can never forget a secret: pass the credential by "
                "name (e.g. $GITHUB_TOKEN), never its value; nothing was written",
                FINDINGS,
            )


def utf8(what: str, value: str) -> None:
    """Refuse text that cannot be written as UTF-8 (bytes a shell passed that
    were not UTF-8 arrive as lone surrogates), before anything is written."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise GaspError(
            f"{what} is not valid UTF-8 text",
            "pass UTF-8 text: the terminal or script sent other bytes",
            USAGE,
        ) from None


def line_sizes(rel: str, lines: bytes, cap: int, what: str) -> None:
    """Refuse to append a line longer than ``cap`` bytes (the hooks'
    ``line-size`` rule, ``gasp.maxLineBytes``): nothing is written."""
    longest = max((len(line) for line in lines.split(b"\n")), default=0)
    if longest > cap:
        raise GaspError(
            f"{rel}: {what} not written: its line would be {longest:,} bytes, "
            f"over the {cap:,}-byte cap (gasp.maxLineBytes)",
            "keep large content out of the log: store it as an artifact (a file or "
            "URI with its digest) and record the reference",
            FINDINGS,
        )


# -- the Python API's arguments ---------------------------------------------------


F = TypeVar("F", bound=Callable[..., Any])


def typed_arguments(fn: F) -> F:
    """Check an API helper's arguments against its annotations before it
    runs: a title that is a number, evidence given as one string (which would
    become one relation per character), an owner that is not an Actor are
    :class:`GaspError` (exit 2), not a wrong line in an append-only log."""
    parameters = inspect.signature(fn).parameters
    positional = [
        name
        for name, p in parameters.items()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    hints: dict[str, Any] = {}

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not hints:
            hints.update(typing.get_type_hints(fn))
        # the arguments given (defaults are the helper's own): positional by
        # the signature's order, the rest by keyword (a wrong name is the
        # helper's TypeError, as without this check)
        if len(args) > len(positional) or set(kwargs) & set(positional[: len(args)]):
            return fn(*args, **kwargs)  # Python's own TypeError says what is wrong
        given = [*zip(positional, args, strict=False), *kwargs.items()]
        for name, value in given:
            hint = hints.get(name) if name in parameters else None
            if name != "self" and hint is not None and not _fits(value, hint):
                raise GaspError(
                    f"{fn.__name__}: `{name}` must be {_wanted(hint)}, not {type_name(value)}",
                    f"see help(git_gasp.agent.api.Agent.{fn.__name__})",
                    USAGE,
                )
            blank_text(fn.__name__, name, value)
        return fn(*args, **kwargs)

    return cast(F, wrapper)


# the arguments that name what a node or run is: a person reads them in every list
_NAMED_BY = {"title": "--title", "task": "--task"}
_COMMANDS = {"start_run": "run start", "propose_patch": "record patch"}


def blank_text(helper: str, name: str, value: object) -> None:
    """Refuse a title (or a run's task) that is empty or only whitespace: the
    log would keep a node no list can name."""
    flag = _NAMED_BY.get(name)
    if flag is None or not isinstance(value, str) or value.strip():
        return
    command = _COMMANDS.get(helper, "record " + helper.removeprefix("record_").replace("_", "-"))
    shown = "empty" if not value else f"only whitespace ({value!r})"
    raise GaspError(
        f"{helper}: `{name}` ({flag}) must say something, not be {shown}",
        f"give a one-line {name}, e.g. git gasp {command} {flag} 'Fix the flaky login test'",
        USAGE,
    )


def _fits(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any or hint is object:
        return True
    if origin in (types.UnionType, typing.Union):
        return any(_fits(value, arm) for arm in typing.get_args(hint))
    if hint is type(None) or hint is None:
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is float:  # an int is a float here, as in the annotations' sense; a bool is not
        return isinstance(value, float | int) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is str:  # str subclasses (StrEnum) too
        return isinstance(value, str)
    if origin in (collections.abc.Sequence, list, tuple):
        (item,) = typing.get_args(hint)[:1] or (Any,)
        return isinstance(value, list | tuple) and all(_fits(v, item) for v in value)
    if origin in (dict, collections.abc.Mapping):
        return isinstance(value, dict)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _wanted(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_wanted(arm) for arm in typing.get_args(hint))
    if hint is type(None):
        return "None"
    if origin in (collections.abc.Sequence, list, tuple):
        args = typing.get_args(hint)
        return f"a list of {_wanted(args[0])}" if args else "a list"
    if origin in (dict, collections.abc.Mapping):
        return "a dict"
    return getattr(hint, "__name__", str(hint))
