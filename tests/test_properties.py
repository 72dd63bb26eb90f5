"""Property tests: random and mutated inputs against the parser, the fold and the checks.

Two families of properties:

1. Robustness — nothing but the documented error escapes: ``parse_log`` never
   raises, ``fold`` raises only ``FoldError``, ``parse_graph`` only
   ``GraphError``, ``parse_pack`` only ``PackError``; ``run_all`` always returns
   the seven reports 1..7; ``git-gasp check``/``fold`` exit 0, 1 or 2 and never
   print a traceback.
2. Soundness — a check never passes what the reference rejects. The expected
   verdicts come from a small *independent* oracle below, written from
   REFERENCE.md (§1, §2, §3.2-3.3, §6, §9.2, §10, Appendix A), not from
   git_gasp's code. The canonical fixture's ten lines are mutated (truncation,
   duplicate keys, unknown/missing keys, bad types, causation and order changes,
   kinds and statuses, identity bytes, snapshots, packs) and every verdict is
   compared with the oracle's.

Tests that run the checks share one git repository per test function (the
``fixture_repo`` fixture); each example resets the work tree first.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import shutil
import stat
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import event as observe
from hypothesis import strategies as st

from git_gasp.agent.fixture import fixture_files
from git_gasp.check.conformance import run_all
from git_gasp.cli import root as cli
from git_gasp.core.fold import FoldError, fold, merge
from git_gasp.core.graph import GraphError, graph_to_value, parse_graph
from git_gasp.core.jsonvalue import equal
from git_gasp.core.log import ParsedLog, parse_log
from git_gasp.core.pack import PackError, parse_pack
from git_gasp.core.report import CheckReport

# ---------------------------------------------------------------------------
# settings: every test is bounded so the whole file stays well under a minute

_HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
# GASP_PROPERTY_SCALE=10 searches ten times harder (default: fast, for CI)
_SCALE = max(1, int(os.environ.get("GASP_PROPERTY_SCALE", "1") or 1))


def bounded(n: int) -> Any:
    return settings(
        max_examples=n * _SCALE, deadline=None, database=None, suppress_health_check=_HEALTH
    )


# ---------------------------------------------------------------------------
# the canonical fixture

FIXTURE = fixture_files()
LOG_BYTES = FIXTURE["state/events.jsonl"]
LOG_TEXT = LOG_BYTES.decode("utf-8")
LINES = LOG_TEXT.split("\n")[:-1]
assert LOG_TEXT.endswith("\n") and len(LINES) == 10
IDS = [json.loads(line)["id"] for line in LINES]
OPS_LINES = [i for i, line in enumerate(LINES) if json.loads(line)["kind"] == "state.ops_applied"]


def fixture_events() -> list[dict[str, Any]]:
    """Fresh, mutable copies of the fixture's ten events."""
    return [json.loads(line) for line in LINES]


def dump(value: Any) -> str:
    """Compact JSON, non-ASCII raw (how the runtime writes lines)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


# ===========================================================================
# The oracle: the reference rules, restated from REFERENCE.md.
# ===========================================================================

ENVELOPE = (
    "id", "schema_version", "ts_ms", "actor", "kind", "payload", "causation_id", "correlation_id",
)  # fmt: skip
OPS_KIND = "state.ops_applied"
# §10.2 check 3 baseline vocabulary
KINDS = frozenset(
    {
        "goal", "task", "run", "observation", "failure", "hypothesis", "patch", "eval",
        "decision", "model_call", "tool_call", "frame", "project_snapshot", "policy", "behavior",
    }
)  # fmt: skip
RELS = frozenset(
    {
        "serves", "blocks", "advances", "observes", "explains", "addresses", "modifies",
        "validated_by", "approved_by", "rejected_by", "produced_by", "derived_from",
        "depends_on", "supersedes", "contained_in_frame", "forked_from", "references",
    }
)  # fmt: skip
# §10.2 check 7 paired kinds
PAIRED = {
    "goal.created": "goal", "task.created": "task", "observation.created": "observation",
    "failure.observed": "failure", "hypothesis.created": "hypothesis",
    "patch.proposed": "patch", "eval.finished": "eval", "decision.created": "decision",
    "frame.created": "frame",
}  # fmt: skip
# Rust char::is_whitespace = Unicode White_Space (Appendix A: not Python's str.strip set)
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)
U32 = 2**32 - 1
U64 = 2**64 - 1
I64 = (-(2**63), 2**63 - 1)


class Bad(Exception):
    """The oracle's "the reference refuses this"."""


class Obj(dict):  # type: ignore[type-arg]
    """A parsed JSON object (last duplicate wins) that keeps every (key, value) pair."""

    pairs: list[tuple[str, Any]]


def _obj(pairs: list[tuple[str, Any]]) -> Obj:
    obj = Obj(pairs)
    obj.pairs = pairs
    return obj


def _no_constant(name: str) -> Any:
    raise Bad(f"{name} is not JSON")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise Bad("number out of range")
    return value


def _int(text: str) -> int | float:
    # serde_json has no big integers: beyond i64/u64 a literal is read as f64
    digits = text.lstrip("-")
    if len(digits) > 400:  # far beyond f64 range either way
        raise Bad("number out of range")
    value = int(text)
    if value == 0 and text.startswith("-"):
        return -0.0  # serde_json reads `-0` as the float -0.0
    return value if I64[0] <= value <= U64 else _float(text)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _strings_ok(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_strings_ok(k) and _strings_ok(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_strings_ok(v) for v in value)
    return True


def ojson(text: str) -> Any:
    """serde_json's view of a JSON text (Appendix A); raises Bad."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_obj,
            parse_constant=_no_constant,
            parse_float=_float,
            parse_int=_int,
        )
    except (ValueError, RecursionError) as exc:
        raise Bad(str(exc)) from None
    if _depth(value) > 127:  # serde_json's recursion limit of 128
        raise Bad("recursion limit")
    if not _strings_ok(value):  # unpaired surrogate escapes
        raise Bad("lone surrogate")
    return value


def jeq(a: Any, b: Any) -> bool:
    """§1.3 structural equality: int, float and bool are three distinct kinds."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(jeq(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(jeq(x, y) for x, y in zip(a, b, strict=True))
    if _kind(a) != _kind(b):
        return False
    return bool(a == b)


def _kind(value: Any) -> str:
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str")):
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_int(value: Any, lo: int, hi: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def _dups(obj: Obj) -> set[str]:
    keys = [k for k, _ in obj.pairs]
    return {k for k in keys if keys.count(k) > 1}


def actor_parses(actor: Any) -> bool:
    """§1.1/1.2: ActorRef {kind, id} strings; a duplicated kind/id is an error."""
    return (
        isinstance(actor, Obj)
        and not (_dups(actor) & {"kind", "id"})
        and _is_str(actor.get("kind"))
        and _is_str(actor.get("id"))
    )


def event_parses(value: Any) -> bool:
    """§1.2: what the typed Event parser accepts."""
    if not isinstance(value, Obj) or _dups(value) & set(ENVELOPE):
        return False
    if any(key not in value for key in ENVELOPE[:6]):
        return False
    return (
        _is_str(value["id"])
        and _is_int(value["schema_version"], 0, U32)
        and _is_int(value["ts_ms"], *I64)
        and actor_parses(value["actor"])
        and _is_str(value["kind"])
        and all(value.get(k) is None or _is_str(value.get(k)) for k in ENVELOPE[6:])
    )


def envelope_passes(value: Any) -> bool:
    """§10.2 check 1 for one line: exactly the eight keys, parses, round-trips."""
    return (
        isinstance(value, dict)
        and set(value) == set(ENVELOPE)
        and event_parses(value)
        and set(value["actor"]) == {"kind", "id"}
    )


def olines(text: str) -> list[str]:
    """§10.1: split on \\n, drop one trailing \\r, drop blank lines."""
    out = []
    for raw in text.split("\n"):
        raw = raw[:-1] if raw.endswith("\r") else raw
        if raw.strip(WHITESPACE):
            out.append(raw)
    return out


_S, _ANY, _OPT, _ART = "str", "any", "opt", "artifact"
OP_FIELDS = {
    "CreateNode": (("id", _S), ("kind", _S), ("props", _ANY)),
    "UpdateNode": (("id", _S), ("props", _ANY)),
    "TombstoneNode": (("id", _S), ("reason", _S)),
    "CreateRelation": (("from", _S), ("rel", _S), ("to", _S), ("props", _ANY)),
    "DeleteRelation": (("from", _S), ("rel", _S), ("to", _S)),
    "MarkStale": (("id", _S), ("reason", _S)),
    "AttachArtifact": (("id", _S), ("artifact", _ART)),
}
ART_FIELDS = (("kind", _S), ("uri", _S), ("hash", _OPT), ("summary", _OPT), ("metadata", _ANY))


def ostruct(body: Any, fields: tuple[tuple[str, str], ...]) -> dict[str, Any] | None:
    """A serde-derived struct: a map (required fields, absent Option -> null,
    unknown keys ignored) or, as serde also allows, an array of all fields."""
    if isinstance(body, list):
        if len(body) != len(fields):
            return None
        items: dict[str, Any] = dict(zip([n for n, _ in fields], body, strict=True))
    elif isinstance(body, dict):
        items = body
    else:
        return None
    out: dict[str, Any] = {}
    for name, shape in fields:
        if name not in items:
            if shape != _OPT:
                return None
            out[name] = None
            continue
        value = items[name]
        if shape == _S and not _is_str(value):
            return None
        if shape == _OPT and not (value is None or _is_str(value)):
            return None
        if shape == _ART:
            value = ostruct(value, ART_FIELDS)
            if value is None:
                return None
        out[name] = value
    return out


def oops(payload: Any) -> list[tuple[str, dict[str, Any]]] | None:
    """§2.1: an ops payload is an array of one-key objects naming a variant."""
    if not isinstance(payload, list):
        return None
    out = []
    for item in payload:
        if not isinstance(item, dict) or len(item) != 1:
            return None
        ((name, body),) = item.items()
        if name not in OP_FIELDS:
            return None
        fields = ostruct(body, OP_FIELDS[name])
        if fields is None:
            return None
        out.append((name, fields))
    return out


def omerge(target: Any, patch: Any) -> Any:
    """§2.3 deep merge: objects merge key by key, anything else replaces; null sets."""
    if isinstance(target, dict) and isinstance(patch, dict):
        out = {k: copy.deepcopy(v) for k, v in target.items()}
        for key, value in patch.items():
            out[key] = omerge(out.get(key), value)
        return out
    return copy.deepcopy(patch)


def ofold(events: list[Any]) -> tuple[dict[str, Any], int]:
    """§2.3/§2.4 (0.5.2+): the graph in §3.1 layout and the number of skipped ops.

    Raises Bad for a malformed ops payload."""
    nodes: dict[str, dict[str, Any]] = {}
    relations: list[dict[str, Any]] = []
    version = skipped = 0
    for event in events:
        if event["kind"] != OPS_KIND:
            continue
        ops = oops(event["payload"])
        if ops is None:
            raise Bad("invalid event payload for state.ops_applied")
        for name, f in ops:
            if name == "CreateNode":
                nodes[f["id"]] = {
                    "id": f["id"], "kind": f["kind"], "props": copy.deepcopy(f["props"]),
                    "stale": False, "tombstoned": False, "artifacts": [],
                }  # fmt: skip
            elif name == "CreateRelation":
                relations.append({k: copy.deepcopy(f[k]) for k in ("from", "rel", "to", "props")})
            elif name == "DeleteRelation":
                triple = (f["from"], f["rel"], f["to"])
                relations = [r for r in relations if (r["from"], r["rel"], r["to"]) != triple]
            else:
                node = nodes.get(f["id"])
                if node is None:
                    skipped += 1
                    continue
                if name == "UpdateNode":
                    node["props"] = omerge(node["props"], f["props"])
                elif name == "TombstoneNode":
                    node["tombstoned"] = True
                    node["props"] = omerge(node["props"], {"tombstone_reason": f["reason"]})
                elif name == "MarkStale":
                    node["stale"] = True
                    node["props"] = omerge(node["props"], {"stale_reason": f["reason"]})
                else:
                    node["artifacts"].append(copy.deepcopy(f["artifact"]))
            version += 1
    return {"nodes": nodes, "relations": relations, "version": version}, skipped


def causation_ok(events: list[Any]) -> bool:
    """§10.2 check 5."""
    seen: set[str] = set()
    for event in events:
        cause, kind = event.get("causation_id"), event["kind"]
        if cause is not None:
            if cause not in seen:
                return False
        elif not (kind.endswith(".created") or kind.endswith(".started") or kind == OPS_KIND):
            return False
        if event["id"] in seen:
            return False
        seen.add(event["id"])
    return True


def vocabulary_ok(events: list[Any], kinds: frozenset[str] = KINDS) -> bool:
    """§10.2 check 3 (baseline vocabulary, or extended by packs)."""
    for event in events:
        if event["kind"] != OPS_KIND:
            continue
        ops = oops(event["payload"])
        if ops is None:
            return False
        for name, f in ops:
            if name == "CreateNode" and f["kind"] not in kinds:
                return False
            if name == "CreateRelation" and f["rel"] not in RELS:
                return False
    return True


def pairing_ok(events: list[Any]) -> bool:
    """§10.2 check 7."""
    for event in events:
        expected = PAIRED.get(event["kind"])
        if expected is None:
            continue
        payload = event["payload"]
        entity = payload.get("id") if isinstance(payload, dict) else None
        if not _is_str(entity):
            return False
        claimants = [
            e for e in events if e["kind"] == OPS_KIND and e.get("causation_id") == event["id"]
        ]
        if not claimants:
            return False
        creators = 0
        for claimant in claimants:
            ops = oops(claimant["payload"])
            if ops is None:
                return False
            for name, f in ops:
                if name != "CreateNode" or f["id"] != entity:
                    continue
                creators += 1
                if f["kind"] != expected:
                    return False
                props = f["props"]
                if "status" in payload and isinstance(props, dict) and "status" in props:
                    if not jeq(payload["status"], props["status"]):
                        return False
        if creators != 1:
            return False
    kinds_by_id = {e["id"]: e["kind"] for e in events}
    for event in events:
        cause = event.get("causation_id")
        if event["kind"] == OPS_KIND and cause is not None and kinds_by_id.get(cause) == OPS_KIND:
            return False
    return True


def append_only_ok(raw: bytes | None) -> bool:
    """§10.2 check 4 for a repo whose only commit is the fixture: the work tree
    log must be readable UTF-8 and extend the committed text."""
    if raw is None:
        return False
    try:
        return raw.decode("utf-8").startswith(LOG_TEXT)
    except UnicodeDecodeError:
        return False


def oracle_verdicts(raw: bytes | None) -> dict[int, bool]:
    """Expected pass/fail of all seven checks for a log (bytes, None = absent)
    in an otherwise pristine fixture repository (no snapshots, no packs)."""
    v4 = append_only_ok(raw)
    try:
        text = raw.decode("utf-8") if raw is not None else None
    except UnicodeDecodeError:
        text = None
    if text is None:
        return {1: False, 2: False, 3: False, 4: v4, 5: False, 6: False, 7: False}
    values = []
    for line in olines(text):
        try:
            values.append(ojson(line))
        except Bad:
            values.append(Bad)
    v1 = all(envelope_passes(v) for v in values)
    if not all(event_parses(v) for v in values):
        return {1: v1, 2: False, 3: False, 4: v4, 5: False, 6: False, 7: False}
    try:
        ofold(values)
        folds = True
    except Bad:
        folds = False
    return {
        1: v1,
        2: folds,
        3: vocabulary_ok(values),
        4: v4,
        5: causation_ok(values),
        6: folds,
        7: pairing_ok(values),
    }


def physical_lines(data: bytes) -> list[bytes]:
    """§3.2: physical lines with their terminators; an unterminated tail counts."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    return out + ([parts[-1]] if parts[-1] else [])


def ograph(value: Any) -> dict[str, Any] | None:
    """§3.1: parse a snapshot graph (all fields required, extras ignored) into
    the same shape ``ofold`` produces; None if it does not parse."""
    if not isinstance(value, dict) or any(
        k not in value for k in ("nodes", "relations", "version")
    ):
        return None
    if not isinstance(value["nodes"], dict) or not isinstance(value["relations"], list):
        return None
    if not _is_int(value["version"], 0, U64):
        return None
    nodes = {}
    for key, node in value["nodes"].items():
        if not isinstance(node, dict) or any(
            k not in node for k in ("id", "kind", "props", "stale", "tombstoned", "artifacts")
        ):
            return None
        if not (_is_str(node["id"]) and _is_str(node["kind"])):
            return None
        if not (isinstance(node["stale"], bool) and isinstance(node["tombstoned"], bool)):
            return None
        if not isinstance(node["artifacts"], list):
            return None
        artifacts = []
        for art in node["artifacts"]:
            if not isinstance(art, dict):
                return None
            parsed = ostruct(art, ART_FIELDS)
            if parsed is None:
                return None
            artifacts.append(parsed)
        nodes[key] = {**{k: node[k] for k in ("id", "kind", "props", "stale", "tombstoned")}}
        nodes[key]["artifacts"] = artifacts
    relations = []
    for rel in value["relations"]:
        if not isinstance(rel, dict) or any(k not in rel for k in ("from", "rel", "to", "props")):
            return None
        if not all(_is_str(rel[k]) for k in ("from", "rel", "to")):
            return None
        relations.append({k: rel[k] for k in ("from", "rel", "to", "props")})
    return {"nodes": nodes, "relations": relations, "version": value["version"]}


def snapshot_ok(data: bytes, log: bytes) -> bool:
    """§10.2 check 2 for one snapshots/<name>/graph.json; §3.3 comparison."""
    try:
        value = ojson(data.decode("utf-8"))
    except (UnicodeDecodeError, Bad):
        return False
    if not isinstance(value, dict) or "graph" not in value or "integrity" not in value:
        return False
    integrity = value["integrity"]
    count = integrity.get("line_count") if isinstance(integrity, dict) else None
    sha = integrity.get("sha256") if isinstance(integrity, dict) else None
    if not _is_int(count, 0, U64) or not _is_str(sha):
        return False
    lines = physical_lines(log)
    if count == 0 or count > len(lines):
        return False
    prefix = b"".join(lines[:count])
    if hashlib.sha256(prefix).hexdigest() != sha:
        return False
    try:
        events = [ojson(line) for line in olines(prefix.decode("utf-8"))]
    except Bad:
        return False
    if not all(event_parses(e) for e in events):
        return False
    event_id = integrity.get("event_id")
    if _is_str(event_id) and (not events or events[-1]["id"] != event_id):
        return False
    graph = ograph(value["graph"])
    if graph is None:
        return False
    try:
        folded, _ = ofold(events)
    except Bad:
        return False
    return jeq(graph, folded)


def _struct_ok(obj: Any, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> bool:
    """A struct parsed straight from text: a map holding every required field;
    a duplicated *field* is an error, duplicated unknown keys are ignored."""
    return (
        isinstance(obj, Obj)
        and not (_dups(obj) & set(required + optional))
        and all(k in obj for k in required)
    )


def _strs(value: Any) -> bool:
    return isinstance(value, list) and all(_is_str(v) for v in value)


def _opt_str(obj: dict[str, Any], key: str) -> bool:
    return obj.get(key) is None or _is_str(obj.get(key))


def pack_ok(value: Any) -> bool:
    """§6: a well-formed Pack, as serde reads it straight from the file's text
    (Appendix A). Map entries (object_types, relation_types) are deserialized
    one by one, so a duplicated map key's earlier value must be well-formed too."""
    top = ("id", "name", "version", "object_types", "relation_types", "policies", "prompts",
           "settings")  # fmt: skip
    if not _struct_ok(value, top):
        return False
    if not all(_is_str(value[k]) for k in ("id", "name", "version")):
        return False
    if not (_strs(value["policies"]) and _strs(value["prompts"])):
        return False
    objects, relations = value["object_types"], value["relation_types"]
    if not (isinstance(objects, Obj) and isinstance(relations, Obj)):
        return False
    for _, obj in objects.pairs:
        if not _struct_ok(obj, ("kind", "required_props"), ("description",)):
            return False
        if not (
            _is_str(obj["kind"]) and _strs(obj["required_props"]) and _opt_str(obj, "description")
        ):
            return False
    for _, rel in relations.pairs:
        if not _struct_ok(rel, ("rel", "from_kinds", "to_kinds"), ("description",)):
            return False
        if not (_is_str(rel["rel"]) and _strs(rel["from_kinds"]) and _strs(rel["to_kinds"])):
            return False
        if not _opt_str(rel, "description"):
            return False
    return True


def oidentity_hash(files: dict[str, bytes]) -> str:
    """§9.2 recipe: sha256 over path + "\\n" + bytes, paths sorted by raw bytes."""
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.encode("utf-8")):
        digest.update(path.encode("utf-8") + b"\n" + files[path])
    return digest.hexdigest()


def declared_hash(manifest: bytes) -> str | None:
    """§9.2: the first fenced block's first ``identity_hash:`` line, trimmed and
    lowercased, if it is exactly 64 hex digits (None = absent or malformed)."""
    block: list[str] | None = None
    for line in manifest.decode("utf-8").split("\n"):
        line = line[:-1] if line.endswith("\r") else line
        if line.strip(WHITESPACE).startswith("```"):
            if block is not None:
                break
            block = []
        elif block is not None:
            block.append(line)
    for line in block or []:
        text = line.strip(WHITESPACE)
        if text.startswith("identity_hash:"):
            value = text[len("identity_hash:") :].strip(WHITESPACE).lower()
            ok = len(value) == 64 and all(c in "0123456789abcdef" for c in value)
            return value if ok else None
    return None


def facts_ok(graph: dict[str, Any]) -> bool:
    """§10.4 / §10.2 check 6 with --fixture: the four facts of the canonical fixture."""
    nodes, relations = graph["nodes"], graph["relations"]

    def prop(node: str, key: str) -> Any:
        props = nodes[node]["props"] if node in nodes else None
        return props.get(key) if isinstance(props, dict) else None

    def edge(source: str, rel: str, target: str) -> bool:
        return any((r["from"], r["rel"], r["to"]) == (source, rel, target) for r in relations)

    def is_text(value: Any, text: str) -> bool:
        return isinstance(value, str) and value == text

    return (
        "goal_retry" in nodes
        and edge("patch_9", "advances", "goal_retry")
        and is_text(prop("patch_9", "status"), "Promoted")
        and is_text(prop("patch_9", "references_commit"), "abc1234")
        and edge("patch_9", "validated_by", "eval_5")
        and is_text(prop("eval_5", "status"), "Passed")
        and edge("patch_9", "approved_by", "decision_3")
        and is_text(prop("decision_3", "status"), "Approved")
    )


def parsed_events(raw: bytes) -> list[Any] | None:
    """The log's events if every line parses (§10.1), else None."""
    try:
        values = [ojson(line) for line in olines(raw.decode("utf-8"))]
    except (UnicodeDecodeError, Bad):
        return None
    return values if all(event_parses(v) for v in values) else None


PRISTINE = oracle_verdicts(LOG_BYTES)
assert all(PRISTINE.values())
FIXTURE_HASH = oidentity_hash({"identity/IDENTITY.md": FIXTURE["identity/IDENTITY.md"]})
assert declared_hash(FIXTURE["AGENT.md"]) == FIXTURE_HASH


# ===========================================================================
# The repository under test
# ===========================================================================


_UMASK = os.umask(0)
os.umask(_UMASK)
_FILE_MODE, _DIR_MODE = 0o666 & ~_UMASK, 0o777 & ~_UMASK  # what a new file or directory gets
_FIXTURE_DIRS = {str(p) for rel in FIXTURE for p in Path(rel).parents if str(p) != "."}


def reset(repo: Path) -> None:
    """Restore the fixture work tree (the commit and .git are left alone).

    What the work tree holds afterwards is what removing everything and
    writing the fixture again gives: each file of the fixture with its bytes
    and a new file's mode, its directories with a new directory's, nothing
    else. Only what differs is removed and written again (an example mostly
    changes the log): on this project's test machines every unlink and rmdir
    costs about two milliseconds."""
    _prune(repo, "")
    for rel, data in FIXTURE.items():
        path = repo / rel
        if not os.path.lexists(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def _prune(directory: Path, rel: str) -> None:
    """Remove what in ``directory`` (``rel`` in the work tree) is not the fixture's."""
    for entry in os.scandir(directory):
        name = rel + entry.name
        if name == ".git":
            continue
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISDIR(mode):
            if name in _FIXTURE_DIRS and stat.S_IMODE(mode) == _DIR_MODE:
                _prune(Path(entry.path), name + "/")
            else:
                shutil.rmtree(entry.path)
            continue
        kept = stat.S_ISREG(mode) and stat.S_IMODE(mode) == _FILE_MODE and name in FIXTURE
        if not (kept and Path(entry.path).read_bytes() == FIXTURE[name]):
            os.unlink(entry.path)


def write(repo: Path, rel: str, data: bytes | str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def checks(repo: Path) -> dict[int, CheckReport]:
    """run_all, asserting its shape: exactly seven reports numbered 1..7."""
    reports = run_all(str(repo))
    assert [r.number for r in reports] == [1, 2, 3, 4, 5, 6, 7]
    return {r.number: r for r in reports}


def verdicts(reports: dict[int, CheckReport]) -> dict[int, bool]:
    return {n: r.passed for n, r in reports.items()}


def check_log(repo: Path, text: str | bytes) -> dict[int, CheckReport]:
    """Reset, write ``text`` as the work tree log, run the checks, and compare
    every verdict with the oracle's."""
    reset(repo)
    raw = text.encode("utf-8") if isinstance(text, str) else text
    write(repo, "state/events.jsonl", raw)
    reports = checks(repo)
    expected = oracle_verdicts(raw)
    observe(
        "failing checks: " + (",".join(str(n) for n, ok in expected.items() if not ok) or "none")
    )
    assert verdicts(reports) == expected, reports
    if expected[2]:  # §10.2 check 2: one note per skipped op, plus "no snapshots/"
        _, skipped = ofold(parsed_events(raw) or [])
        assert len(reports[2].notes) == skipped + 1, reports[2]
    return reports


# ===========================================================================
# Strategies
# ===========================================================================

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**65)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
# a character class is drawn with st.text (one choice per string), not st.from_regex
# (one per character): the same values as the regex in each comment
LOWER, WORD = string.ascii_lowercase, string.ascii_letters + string.digits + "_"
words = st.builds(str.__add__, st.sampled_from(LOWER), st.text(LOWER + "_", max_size=11))
# ^ [a-z][a-z_]{0,11}
hex_digests = st.binary(min_size=32, max_size=32).map(bytes.hex)  # [0-9a-f]{64}


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (dict keys / list indices) inside ``value``, the root excluded."""
    out = []
    if isinstance(value, dict):
        for key, child in value.items():
            out.append((*prefix, key))
            out += paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out.append((*prefix, index))
            out += paths(child, (*prefix, index))
    return out


def get_at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    out = copy.deepcopy(value)
    get_at(out, path[:-1])[path[-1]] = new
    return out


def deleted(value: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(value)
    del get_at(out, path[:-1])[path[-1]]
    return out


@st.composite
def edited_log(draw: st.DrawFn) -> bytes:
    """The fixture log with a few character- or line-level edits."""
    text = LOG_TEXT
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["delete", "insert", "replace", "dup", "drop", "append"]))
        lines = text.split("\n")
        if action in ("dup", "drop") and len(lines) > 1:
            i = draw(st.integers(0, len(lines) - 2))
            lines[i : i + 1] = [lines[i], lines[i]] if action == "dup" else []
            text = "\n".join(lines)
            continue
        if action == "append":
            text += draw(st.text(max_size=40))
            continue
        pos = draw(st.integers(0, max(len(text) - 1, 0)))
        chars = draw(
            st.text(
                alphabet=st.sampled_from('{}[]":,0123456789.-e \\nulrtaxE\r\n'),
                min_size=1,
                max_size=3,
            )
            | st.text(min_size=1, max_size=3)
        )
        if action == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 4)) :]
        elif action == "insert":
            text = text[:pos] + chars + text[pos:]
        else:
            text = text[:pos] + chars + text[pos + len(chars) :]
    return text.encode("utf-8")


@st.composite
def semantic_log(draw: st.DrawFn) -> bytes:
    """The fixture's events with a few JSON-level edits (values replaced or
    deleted anywhere, lines dropped, duplicated or moved): mostly parseable."""
    events: list[Any] = fixture_events()
    for _ in range(draw(st.integers(1, 3))):
        action = draw(
            st.sampled_from(["replace", "replace", "delete", "drop", "dup", "move", "id"])
        )
        i = draw(st.integers(0, len(events) - 1))
        if action == "replace":
            path = draw(st.sampled_from(paths(events[i])))
            new = draw(st.sampled_from(IDS) | words | json_values | ops)
            events[i] = replaced(events[i], path, new)
        elif action == "delete":
            nested = [p for p in paths(events[i]) if len(p) > 1]
            events[i] = deleted(events[i], draw(st.sampled_from(nested)))
        elif action == "drop" and len(events) > 1:
            del events[i]
        elif action == "dup":
            events.insert(draw(st.integers(0, len(events))), copy.deepcopy(events[i]))
        elif action == "move":
            events.insert(draw(st.integers(0, len(events) - 1)), events.pop(i))
        elif action == "id":
            events[i]["id"] = draw(st.sampled_from(IDS) | st.text(max_size=3))
    return join([dump(e) for e in events]).encode("utf-8")


ids_pool = st.sampled_from(["e1", "e2", "e3", "event_01", "event_02"])
nodes_pool = st.sampled_from(["a", "b", "c", "goal_retry"])
props = (
    st.dictionaries(st.sampled_from(["status", "title", "x"]), json_values, max_size=3)
    | json_values
)


def _variant(name: str, fields: dict[str, Any]) -> Any:
    return st.fixed_dictionaries(fields).map(lambda body: {name: body})


artifacts = st.fixed_dictionaries(
    {"kind": st.text(max_size=4), "uri": st.text(max_size=4), "metadata": json_values},
    optional={"hash": st.none() | st.text(max_size=4), "summary": st.none() | st.text(max_size=4)},
)
ops = st.one_of(
    _variant(
        "CreateNode",
        {
            "id": nodes_pool,
            "kind": st.sampled_from(["goal", "patch", "eval", "vibe"]),
            "props": props,
        },
    ),
    _variant("UpdateNode", {"id": nodes_pool, "props": props}),
    _variant("TombstoneNode", {"id": nodes_pool, "reason": st.text(max_size=4)}),
    _variant("MarkStale", {"id": nodes_pool, "reason": st.text(max_size=4)}),
    _variant(
        "CreateRelation",
        {
            "from": nodes_pool,
            "rel": st.sampled_from(["advances", "serves", "vibes_with"]),
            "to": nodes_pool,
            "props": props,
        },
    ),
    _variant(
        "DeleteRelation",
        {"from": nodes_pool, "rel": st.sampled_from(["advances", "serves"]), "to": nodes_pool},
    ),
    _variant("AttachArtifact", {"id": nodes_pool, "artifact": artifacts}),
)
domain_kinds = st.sampled_from([*PAIRED, "run.started", "run.finished", "tool.called"])


@st.composite
def envelopes(draw: st.DrawFn) -> dict[str, Any]:
    """Envelope-shaped objects: mostly well-typed, sometimes not, keys sometimes
    missing or extra; small id pools so causation and pairing interact."""
    is_ops = draw(st.booleans())
    clean = draw(st.integers(0, 3)) > 0  # most envelopes are well-typed

    def odd(good: Any, bad: Any) -> Any:
        return good if clean else good | bad

    event: dict[str, Any] = {
        "id": draw(ids_pool),
        "schema_version": draw(odd(st.just(1), st.integers(-1, 2**33) | json_values)),
        "ts_ms": draw(odd(st.integers(0, 2**40), st.integers(2**63 - 1, 2**64) | json_values)),
        "actor": draw(
            odd(
                st.fixed_dictionaries({"kind": st.just("agent"), "id": st.just("a")}),
                st.fixed_dictionaries(
                    {"kind": st.just("agent"), "id": st.just("a"), "x": json_values}
                )
                | json_values,
            )
        ),
        "kind": OPS_KIND if is_ops else draw(domain_kinds),
        "payload": draw(st.lists(ops, max_size=3) | json_values)
        if is_ops
        else draw(
            st.fixed_dictionaries(
                {"id": nodes_pool},
                optional={"status": st.sampled_from(["Open", "Done"]) | json_values},
            )
            | json_values
        ),
        "causation_id": draw(odd(st.none() | ids_pool, json_values)),
        "correlation_id": draw(st.none() | st.text(max_size=3)),
    }
    if not clean:
        for key in draw(st.lists(st.sampled_from(ENVELOPE), max_size=2)):
            event.pop(key, None)
    if draw(st.integers(0, 9)) == 0:
        event[draw(st.text(max_size=4))] = draw(json_values)
    return event


@st.composite
def envelope_logs(draw: st.DrawFn) -> bytes:
    events = draw(st.lists(envelopes(), min_size=1, max_size=5))
    return join([dump(e) for e in events]).encode("utf-8")


hostile_texts = st.one_of(
    st.text(),
    st.text(
        alphabet=st.characters(categories=["Cs", "Zs", "Cc", "Ll"]), max_size=30
    ),  # lone surrogates too
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: '{"a":' * n),
    st.builds(lambda n: '{"ts_ms":' + "9" * n + "}", st.integers(15, 320)),
    json_values.map(dump),
    st.lists(json_values.map(dump), max_size=4).map("\n".join),
    edited_log().map(lambda b: b.decode("utf-8")),
    semantic_log().map(lambda b: b.decode("utf-8")),
    envelope_logs().map(lambda b: b.decode("utf-8")),
)
random_logs = st.one_of(
    edited_log(),
    semantic_log(),
    envelope_logs(),
    st.text().map(lambda t: (LOG_TEXT + t).encode("utf-8")),  # pure appends
    st.text().map(str.encode),
    st.binary(max_size=60),
    st.binary(max_size=20).map(lambda b: LOG_BYTES + b),
    st.lists(json_values.map(dump), max_size=4).map(lambda ls: join(ls).encode("utf-8")),
)

# ===========================================================================
# 1. Robustness: no unexpected exception escapes
# ===========================================================================


@bounded(300)
@given(text=hostile_texts)
def test_parse_log_never_raises(text: str) -> None:
    parsed = parse_log(text)
    assert isinstance(parsed, ParsedLog)
    lines = olines(text)  # §10.1 non-blank lines, as the oracle splits them
    assert len(parsed.events) + len(parsed.errors) == len(lines)
    assert parsed.ok == (not parsed.errors)
    if parsed.errors:
        assert parsed.envelope_failures, "an unparseable line always fails check 1"
    torn = [error for error in parsed.errors if error.torn]
    assert len(torn) <= 1 and (not torn or torn[0] is parsed.errors[-1]), "only the last"
    if torn and _strings_ok(text):  # then it is the last non-blank line
        assert torn[0].line.text == lines[-1]


def _ops_event_line(payload: Any, n: int) -> str:
    return dump(
        {
            "id": f"e{n}", "schema_version": 1, "ts_ms": n, "actor": {"kind": "agent", "id": "a"},
            "kind": OPS_KIND, "payload": payload, "causation_id": None, "correlation_id": None,
        }
    )  # fmt: skip


near_ops = st.lists(ops, max_size=4).flatmap(
    lambda good: st.one_of(
        st.just(good),
        st.tuples(st.sampled_from(paths(good) or [()]), json_values).map(
            lambda pv: replaced(good, pv[0], pv[1]) if pv[0] else pv[1]
        ),
        st.sampled_from(paths(good) or [()]).map(lambda p: deleted(good, p) if p else good),
    )
)


@bounded(150)
@given(payloads=st.lists(near_ops | json_values, min_size=1, max_size=4))
def test_fold_raises_only_fold_error(payloads: list[Any]) -> None:
    log = parse_log(join([_ops_event_line(p, n) for n, p in enumerate(payloads)]))
    assert log.ok
    try:
        result = fold(log.events)
    except FoldError:
        malformed = True
    else:
        malformed = False
        assert result.graph.version == result.ops - len(result.skipped)
    # a fold fails exactly when some ops payload is malformed (§2.3)
    assert malformed == any(oops(ojson(dump(p))) is None for p in payloads)


def _fixture_graph_value(k: int = 10) -> dict[str, Any]:
    return ofold([ojson(line) for line in LINES[:k]])[0]


near_graphs = st.integers(1, 10).flatmap(
    lambda k: st.one_of(
        st.just(_fixture_graph_value(k)),
        st.tuples(st.sampled_from(paths(_fixture_graph_value(k))), json_values).map(
            lambda pv, k=k: replaced(_fixture_graph_value(k), *pv)
        ),
        st.sampled_from(paths(_fixture_graph_value(k))).map(
            lambda p, k=k: deleted(_fixture_graph_value(k), p)
        ),
    )
)


@bounded(150)
@given(value=near_graphs | json_values)
def test_parse_graph_raises_only_graph_error(value: Any) -> None:
    try:
        parse_graph(value)
    except GraphError:
        pass


PACK_FIELDS = ("id", "name", "version", "object_types", "relation_types", "policies", "prompts",
               "settings")  # fmt: skip
object_types = st.fixed_dictionaries(
    {"kind": st.text(max_size=5), "required_props": st.lists(st.text(max_size=4), max_size=3)},
    optional={"description": st.none() | st.text(max_size=5), "prop_docs": json_values},
)
relation_types = st.fixed_dictionaries(
    {
        "rel": st.text(max_size=5),
        "from_kinds": st.lists(st.text(max_size=4), max_size=2),
        "to_kinds": st.lists(st.text(max_size=4), max_size=2),
    },
    optional={"description": st.none() | st.text(max_size=5)},
)
well_formed_packs = st.fixed_dictionaries(
    {
        "id": st.text(max_size=5),
        "name": st.text(max_size=5),
        "version": st.text(max_size=5),
        "object_types": st.dictionaries(words, object_types, max_size=2),
        "relation_types": st.dictionaries(words, relation_types, max_size=2),
        "policies": st.lists(st.text(max_size=4), max_size=2),
        "prompts": st.lists(st.text(max_size=4), max_size=2),
        "settings": json_values,
    },
    optional={"extra": json_values},
)


@st.composite
def random_packs(draw: st.DrawFn) -> Any:
    """Well-formed packs, packs with one value replaced or key deleted anywhere,
    and arbitrary objects over the pack's field names."""
    pack = draw(well_formed_packs)
    choice = draw(st.integers(0, 3))
    if choice == 1:
        return replaced(pack, draw(st.sampled_from(paths(pack))), draw(json_values))
    if choice == 2:
        return deleted(pack, draw(st.sampled_from(paths(pack))))
    if choice == 3:
        return draw(
            st.dictionaries(st.sampled_from(PACK_FIELDS) | st.text(max_size=4), json_values)
        )
    return pack


@bounded(200)
@given(text=random_packs().map(dump) | hostile_texts)
def test_parse_pack_raises_only_pack_error(text: str) -> None:
    try:
        parse_pack(text)
    except PackError:
        pass


# --- whole-repository robustness: run_all and the command line -------------

DAMAGE = (
    "none", "log_missing", "log_dir", "log_dangling_symlink", "snapshots_file",
    "snapshot_graph_dir", "snapshot_garbage", "packs_file", "pack_garbage",
    "identity_file", "identity_loop", "identity_missing", "agent_md_dir", "agent_md_binary",
)  # fmt: skip


def damage(repo: Path, kind: str, blob: bytes) -> None:
    """Structural damage to an agent repository's work tree."""
    if kind == "log_missing":
        (repo / "state/events.jsonl").unlink()
    elif kind == "log_dir":
        (repo / "state/events.jsonl").unlink()
        (repo / "state/events.jsonl").mkdir()
    elif kind == "log_dangling_symlink":
        (repo / "state/events.jsonl").unlink()
        (repo / "state/events.jsonl").symlink_to("nowhere")
    elif kind == "snapshots_file":
        write(repo, "snapshots", blob)
    elif kind == "snapshot_graph_dir":
        (repo / "snapshots/x/graph.json").mkdir(parents=True)
    elif kind == "snapshot_garbage":
        write(repo, "snapshots/x/graph.json", blob)
    elif kind == "packs_file":
        write(repo, ".agent/packs", blob)
    elif kind == "pack_garbage":
        write(repo, ".agent/packs/x.json", blob)
    elif kind == "identity_file":
        shutil.rmtree(repo / "identity")
        write(repo, "identity", blob)
    elif kind == "identity_loop":
        (repo / "identity/loop").symlink_to(".")
    elif kind == "identity_missing":
        shutil.rmtree(repo / "identity")
    elif kind == "agent_md_dir":
        (repo / "AGENT.md").unlink()
        (repo / "AGENT.md").mkdir()
    elif kind == "agent_md_binary":
        write(repo, "AGENT.md", blob)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


@bounded(60)
@given(log=random_logs, kind=st.sampled_from(DAMAGE), blob=st.binary(max_size=30))
def test_run_all_returns_seven_reports(
    fixture_repo: Path, log: bytes, kind: str, blob: bytes
) -> None:
    reset(fixture_repo)
    write(fixture_repo, "state/events.jsonl", log)
    damage(fixture_repo, kind, blob)
    reports = checks(fixture_repo)
    raw = _read(fixture_repo / "state/events.jsonl")
    assert reports[4].passed == append_only_ok(raw)
    if raw is None or kind == "log_dangling_symlink":
        assert not reports[1].passed
    if kind == "none":
        assert verdicts(reports) == oracle_verdicts(raw)
    if kind in ("identity_file", "identity_missing", "agent_md_dir"):
        assert not reports[6].passed


@bounded(40)
@given(log=random_logs, kind=st.sampled_from(DAMAGE), blob=st.binary(max_size=30))
def test_cli_exit_codes(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str], log: bytes, kind: str, blob: bytes
) -> None:
    reset(fixture_repo)
    write(fixture_repo, "state/events.jsonl", log)
    damage(fixture_repo, kind, blob)
    capsys.readouterr()
    check_code = cli.main(["check", str(fixture_repo)])
    fold_code = cli.main(["fold", str(fixture_repo)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert check_code in (0, 1, 2), err
    assert fold_code in (0, 1, 2), err
    if kind == "none":
        expected = oracle_verdicts(log)
        assert check_code == (0 if all(expected.values()) else 1)
        # fold: 2 = log unreadable, 1 = log does not parse or fold, 0 = folded
        try:
            text = log.decode("utf-8")
        except UnicodeDecodeError:
            assert fold_code == 2
        else:
            try:
                values = [ojson(line) for line in olines(text)]
                assert all(event_parses(v) for v in values)
                ofold(values)
            except (Bad, AssertionError):
                assert fold_code == 1
            else:
                assert fold_code == 0


@bounded(12)
@given(digits=st.integers(310, 4400), where=st.sampled_from(["log", "pack", "snapshot"]))
@example(digits=4301, where="log")  # minimal failing examples (bug 1 in the report)
@example(digits=4301, where="pack")
@example(digits=4301, where="snapshot")
def test_overlong_integer_literal_is_a_parse_error(
    fixture_repo: Path, capsys: pytest.CaptureFixture[str], digits: int, where: str
) -> None:
    """serde_json reads an integer literal beyond u64 as f64; with more than ~309
    digits that is out of range, a parse error (Appendix A). It must be reported
    as a failing check, never escape as an exception (CPython's int() refuses
    more than 4300 digits)."""
    number = "1" * digits
    reset(fixture_repo)
    if where == "log":
        line = LINES[9].replace('"ts_ms":1739000000501', f'"ts_ms":{number}')
        write(fixture_repo, "state/events.jsonl", join([*LINES[:9], line]))
        parsed = parse_log(join([*LINES[:9], line]))
        assert not parsed.ok
    elif where == "pack":
        text = '{"id":' + number + "}"
        write(fixture_repo, ".agent/packs/x.json", text)
        with pytest.raises(PackError):
            parse_pack(text)
    else:
        snap = dump(seal(10)).replace('"line_count":10', f'"line_count":{number}')
        write(fixture_repo, "snapshots/event_10/graph.json", snap)
    failing = {"log": 1, "pack": 3, "snapshot": 2}[where]
    reports = checks(fixture_repo)
    assert not reports[failing].passed
    capsys.readouterr()
    code = cli.main(["check", str(fixture_repo)])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err, err


# ===========================================================================
# 2. Soundness: mutations of the canonical fixture, verdicts vs the oracle
# ===========================================================================


@bounded(40)
@given(i=st.integers(0, 9), data=st.data())
def test_truncated_line_fails_check_1(fixture_repo: Path, i: int, data: st.DataObject) -> None:
    cut = data.draw(st.integers(1, len(LINES[i]) - 1))
    keep_tail = data.draw(st.booleans())
    lines = [*LINES[:i], LINES[i][:cut], *(LINES[i + 1 :] if keep_tail else [])]
    text = "\n".join(lines) + data.draw(st.sampled_from(["", "\n", "\n\n", "\n \n"]))
    reports = check_log(fixture_repo, text)
    assert not reports[1].passed


@bounded(300)
@given(
    i=st.integers(0, 9),
    cut=st.integers(0, 10**6),
    keep_tail=st.booleans(),
    tail=st.sampled_from(["", "\n", "\n\n", "\n \n"]),
)
# regression: a last line cut inside a number, '..."score":1.' (serde: EOF while parsing a value)
@example(i=7, cut=LINES[7].index('"score":1.0') + len('"score":1.') - 1, keep_tail=False, tail="")
# regression: a last line cut inside a string, '{"id":"eve', must be torn (serde: EOF while
# parsing a string); git_gasp before 200a1b7 reported it as not torn
@example(i=9, cut=9, keep_tail=False, tail="\n")
def test_truncated_final_line_is_torn(i: int, cut: int, keep_tail: bool, tail: str) -> None:
    """§8 / §10: a last line cut mid-JSON is a torn final line; any other bad line is not."""
    cut = 1 + cut % (len(LINES[i]) - 1)
    lines = [*LINES[:i], LINES[i][:cut], *(LINES[i + 1 :] if keep_tail else [])]
    parsed = parse_log("\n".join(lines) + tail)
    assert [e.line.text for e in parsed.errors] == [LINES[i][:cut]]
    is_last = i == 9 or not keep_tail  # the cut line is the last non-blank line
    assert parsed.errors[0].torn == is_last, (LINES[i][:cut][-20:], parsed.errors[0].message)


def _insert_key(line: str, key: str, value: Any, front: bool, actor: bool) -> str:
    """Insert ``"key":value`` textually into the envelope (or its actor) object,
    as its first or last member (duplicates survive, unlike a dict round-trip)."""
    member = f"{dump(key)}:{dump(value)}"
    if actor:
        start = line.index('"actor":{') + len('"actor":{')
        end = line.index("}", start)
        if front:
            return line[:start] + member + "," + line[start:]
        return line[:end] + "," + member + line[end:]
    if front:
        return "{" + member + "," + line[1:]
    return line[:-1] + "," + member + "}"


@bounded(40)
@given(
    i=st.integers(0, 9),
    key=st.sampled_from([*ENVELOPE, "actor.kind", "actor.id"]),
    value=json_values,
    front=st.booleans(),
)
def test_duplicate_envelope_or_actor_key_fails_check_1(
    fixture_repo: Path, i: int, key: str, value: Any, front: bool
) -> None:
    actor = key.startswith("actor.")
    name = key.removeprefix("actor.")
    original = json.loads(LINES[i])
    assume(not jeq(value, original["actor"][name] if actor else original[name]))
    reports = check_log(
        fixture_repo,
        join([*LINES[:i], _insert_key(LINES[i], name, value, front, actor), *LINES[i + 1 :]]),
    )
    assert not reports[1].passed


@bounded(40)
@given(
    i=st.integers(0, 9),
    key=st.sampled_from([*ENVELOPE, "actor.kind", "actor.id"]),
    noise=st.text(max_size=4).filter(lambda k: k not in ENVELOPE),
    same=st.booleans(),
    value=json_values,
)
@example(i=0, key="id", noise="", same=True, value=None)  # minimal failing example (bug 3)
def test_duplicate_field_behind_another_duplicate_key(
    fixture_repo: Path, i: int, key: str, noise: str, same: bool, value: Any
) -> None:
    """§1.2: a duplicated envelope/actor field is a parse error even when an
    unrelated key was duplicated earlier in the same object."""
    actor = key.startswith("actor.")
    name = key.removeprefix("actor.")
    original = json.loads(LINES[i])
    if same:
        value = original["actor"][name] if actor else original[name]
    if actor:
        assume(noise not in ("kind", "id"))
    line = _insert_key(LINES[i], noise, 1, True, actor)
    line = _insert_key(line, noise, 2, True, actor)
    line = _insert_key(line, name, value, False, actor)
    reports = check_log(fixture_repo, join([*LINES[:i], line, *LINES[i + 1 :]]))
    assert not reports[1].passed
    for n in (2, 3, 5, 6, 7):  # the log does not fully parse (§10.1)
        assert not reports[n].passed, (n, line)


@bounded(40)
@given(
    i=st.integers(0, 9),
    key=st.text(max_size=8).filter(lambda k: k not in ENVELOPE),
    value=json_values,
    data=st.data(),
)
def test_unknown_top_level_key_fails_check_1(
    fixture_repo: Path, i: int, key: str, value: Any, data: st.DataObject
) -> None:
    items = list(json.loads(LINES[i]).items())
    items.insert(data.draw(st.integers(0, len(items))), (key, value))
    reports = check_log(fixture_repo, join([*LINES[:i], dump(dict(items)), *LINES[i + 1 :]]))
    assert not reports[1].passed
    assert all(reports[n].passed for n in (2, 3, 5, 6, 7))  # unknown keys still parse (§1.2)


@bounded(40)
@given(i=st.integers(0, 9), key=st.sampled_from(ENVELOPE))
def test_missing_envelope_key_fails_check_1(fixture_repo: Path, i: int, key: str) -> None:
    events = fixture_events()
    del events[i][key]
    reports = check_log(fixture_repo, join([dump(e) for e in events]))
    assert not reports[1].passed


@bounded(40)
@given(
    i=st.integers(0, 9),
    ts=st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.booleans()
    | st.none()
    | st.integers(2**63, 2**66)
    | st.integers(-(2**66), -(2**63) - 1),
)
def test_ts_ms_not_an_i64_fails_check_1(fixture_repo: Path, i: int, ts: Any) -> None:
    events = fixture_events()
    events[i]["ts_ms"] = ts
    reports = check_log(fixture_repo, join([dump(e) for e in events]))
    assert not reports[1].passed


@bounded(30)
@given(
    i=st.integers(0, 9),
    key=st.sampled_from(["ts_ms", "schema_version"]),
    number=st.sampled_from(["0", "-0", "0.0", "-0.0", "1e3", "1E0", "-1", "4294967296", "01"]),
)
@example(i=0, key="ts_ms", number="-0")  # serde_json reads -0 as a float: not an i64
def test_number_literal_kinds_in_typed_fields(
    fixture_repo: Path, i: int, key: str, number: str
) -> None:
    """§1.1 / Appendix A: ts_ms must be a JSON integer in i64 and schema_version
    one in u32; floats (including serde's -0), negatives and overflow fail."""
    value = json.loads(LINES[i])[key]
    line = LINES[i].replace(f'"{key}":{value}', f'"{key}":{number}', 1)
    reports = check_log(fixture_repo, join([*LINES[:i], line, *LINES[i + 1 :]]))
    # JSON integers here: no fraction/exponent, no leading zero; and not serde's float -0
    integer = number.lstrip("-").isdigit() and number not in ("-0", "01")
    in_range = integer and (0 <= int(number) <= U32 if key == "schema_version" else True)
    assert reports[1].passed == in_range


@bounded(40)
@given(i=st.integers(0, 9), data=st.data())
def test_causation_not_earlier_fails_check_5(
    fixture_repo: Path, i: int, data: st.DataObject
) -> None:
    cause = data.draw(st.sampled_from(IDS[i:]) | st.text(max_size=10))
    assume(cause not in IDS[:i])
    events = fixture_events()
    events[i]["causation_id"] = cause
    reports = check_log(fixture_repo, join([dump(e) for e in events]))
    assert not reports[5].passed


@bounded(45)
@given(pair=st.lists(st.integers(0, 9), min_size=2, max_size=2, unique=True))
def test_swapped_lines_follow_causation_and_pairing(fixture_repo: Path, pair: list[int]) -> None:
    i, j = sorted(pair)
    lines = list(LINES)
    lines[i], lines[j] = lines[j], lines[i]
    reports = check_log(fixture_repo, join(lines))  # 5 and 7 exactly as the oracle says
    events = [json.loads(line) for line in lines]
    position = {e["id"]: n for n, e in enumerate(events)}
    cause_after_effect = any(
        e["causation_id"] is not None and position[e["causation_id"]] > n
        for n, e in enumerate(events)
    )
    if cause_after_effect:
        assert not reports[5].passed


@bounded(40)
@given(i=st.sampled_from(OPS_LINES), kind=words | st.text(max_size=8))
def test_undeclared_create_node_kind_fails_check_3(fixture_repo: Path, i: int, kind: str) -> None:
    assume(kind not in KINDS)
    events = fixture_events()
    create = events[i]["payload"][0]["CreateNode"]
    create["kind"] = kind
    reports = check_log(fixture_repo, join([dump(e) for e in events]))
    assert not reports[3].passed
    assert not reports[7].passed  # every fixture CreateNode is a paired one


@bounded(40)
@given(i=st.sampled_from(OPS_LINES), status=st.text(max_size=10) | json_values)
def test_contradicting_paired_status_fails_check_7(fixture_repo: Path, i: int, status: Any) -> None:
    events = fixture_events()
    props = events[i]["payload"][0]["CreateNode"]["props"]
    assume(not jeq(status, props["status"]))
    props["status"] = status
    reports = check_log(fixture_repo, join([dump(e) for e in events]))
    assert not reports[7].passed


def _identity_files(repo: Path) -> dict[str, bytes]:
    base = repo / "identity"
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()}


def _expect_identity(repo: Path, reports: dict[int, CheckReport]) -> None:
    manifest = (repo / "AGENT.md").read_bytes()
    ok = declared_hash(manifest) == oidentity_hash(_identity_files(repo))
    assert reports[6].passed == ok
    assert all(reports[n].passed for n in (1, 2, 3, 4, 5, 7))


HASH_AT = FIXTURE["AGENT.md"].index(b"identity_hash: ") + len(b"identity_hash: ")


@bounded(40)
@given(flips=st.lists(st.tuples(st.integers(0, 63), st.integers(0, 6)), min_size=1, max_size=3))
def test_identity_hash_flip_fails_check_6(fixture_repo: Path, flips: list[tuple[int, int]]) -> None:
    manifest = bytearray(FIXTURE["AGENT.md"])
    for pos, bit in flips:
        manifest[HASH_AT + pos] ^= 1 << bit  # ASCII stays ASCII: the manifest stays UTF-8
    # a no-op mutation (e.g. only the case of a hex letter changed) is filtered out
    assume(declared_hash(bytes(manifest)) != FIXTURE_HASH)
    reset(fixture_repo)
    write(fixture_repo, "AGENT.md", bytes(manifest))
    reports = checks(fixture_repo)
    assert not reports[6].passed
    _expect_identity(fixture_repo, reports)


@bounded(40)
@given(
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 7)), max_size=3),
    inserted=st.binary(max_size=4),
    extra=st.none()
    | st.tuples(
        st.from_regex(r"[a-z]{1,6}(/[a-z]{1,6})?\.md", fullmatch=True), st.binary(max_size=8)
    ),
)
def test_identity_bytes_change_fails_check_6(
    fixture_repo: Path, flips: list[tuple[int, int]], inserted: bytes, extra: Any
) -> None:
    original = FIXTURE["identity/IDENTITY.md"]
    data = bytearray(original)
    for pos, bit in flips:
        data[pos % len(data)] ^= 1 << bit
    data[len(data) // 2 : len(data) // 2] = inserted
    assume(bytes(data) != original or extra is not None)
    reset(fixture_repo)
    write(fixture_repo, "identity/IDENTITY.md", bytes(data))
    if extra is not None:
        write(fixture_repo, f"identity/{extra[0]}", extra[1])
    reports = checks(fixture_repo)
    assert not reports[6].passed
    _expect_identity(fixture_repo, reports)


def seal(k: int) -> dict[str, Any]:
    """A valid snapshot record for the first k fixture lines (§3.2), from the oracle fold."""
    prefix = "".join(line + "\n" for line in LINES[:k]).encode("utf-8")
    return {
        "graph": _fixture_graph_value(k),
        "integrity": {
            "event_id": IDS[k - 1],
            "line_count": k,
            "sha256": hashlib.sha256(prefix).hexdigest(),
        },
    }


SNAPSHOT_MUTATIONS = (
    "none", "line_count", "sha256", "sha256_upper", "event_id", "drop_event_id", "reseal",
    "replace", "delete", "extra_key", "version", "score_int", "rename_node", "swap_relations",
    "garbage",
)  # fmt: skip


@st.composite
def snapshot_files(draw: st.DrawFn) -> tuple[bytes, str]:
    k = draw(st.integers(1, 10))
    snap = seal(k)
    graph, integrity = snap["graph"], snap["integrity"]
    how = draw(st.sampled_from(SNAPSHOT_MUTATIONS))
    if how == "line_count":
        integrity["line_count"] = draw(st.integers(-2, 13) | json_values)
    elif how == "sha256":
        integrity["sha256"] = draw(hex_digests | json_values)
    elif how == "sha256_upper":
        integrity["sha256"] = integrity["sha256"].upper()
    elif how == "event_id":
        integrity["event_id"] = draw(st.sampled_from(IDS) | json_values)
    elif how == "drop_event_id":
        del integrity["event_id"]
    elif how == "reseal":  # integrity of another prefix, graph of this one
        other = seal(draw(st.integers(1, 10)))
        snap["integrity"] = other["integrity"]
    elif how == "replace":
        path = draw(st.sampled_from(paths(snap)))
        snap = replaced(snap, path, draw(json_values))
    elif how == "delete":
        snap = deleted(snap, draw(st.sampled_from(paths(snap))))
    elif how == "extra_key":
        dicts = [()] + [p for p in paths(snap) if isinstance(get_at(snap, p), dict)]
        get_at(snap, draw(st.sampled_from(dicts)))[draw(st.text(max_size=4))] = draw(json_values)
    elif how == "version":
        graph["version"] = draw(st.integers(-1, 12) | json_values)
    elif how == "score_int" and "eval_5" in graph["nodes"]:
        graph["nodes"]["eval_5"]["props"]["score"] = 1  # 1 vs 1.0 (§1.3)
    elif how == "rename_node" and graph["nodes"]:
        old = draw(st.sampled_from(sorted(graph["nodes"])))
        graph["nodes"][draw(st.text(max_size=4))] = graph["nodes"].pop(old)
    elif how == "swap_relations" and len(graph["relations"]) > 1:
        a, b = draw(
            st.lists(
                st.integers(0, len(graph["relations"]) - 1), min_size=2, max_size=2, unique=True
            )
        )
        graph["relations"][a], graph["relations"][b] = graph["relations"][b], graph["relations"][a]
    if how == "garbage":
        return draw(st.binary(max_size=30)), how
    return dump(snap).encode("utf-8"), how


@bounded(60)
@given(
    snaps=st.lists(snapshot_files(), min_size=1, max_size=2),
    names=st.lists(  # [A-Za-z0-9_]{1,10}
        st.text(WORD, min_size=1, max_size=10), min_size=3, max_size=3, unique=True
    ),
    junk=st.booleans(),
)
def test_snapshots_pass_only_when_they_match_the_fold(
    fixture_repo: Path, snaps: list[tuple[bytes, str]], names: list[str], junk: bool
) -> None:
    reset(fixture_repo)
    for name, (data, _) in zip(names, snaps, strict=False):
        write(fixture_repo, f"snapshots/{name}/graph.json", data)
    if junk:  # entries without graph.json are only notes (§10.2)
        (fixture_repo / "snapshots" / names[2]).mkdir()
    reports = checks(fixture_repo)
    expected = all(snapshot_ok(data, LOG_BYTES) for data, _ in snaps)
    observe(f"snapshots valid: {expected}")
    if all(how == "none" for _, how in snaps):
        assert expected, "the oracle's own snapshots must verify"
    assert reports[2].passed == expected, [(how, data[:300]) for data, how in snaps]
    assert all(reports[n].passed for n in (1, 3, 4, 5, 6, 7))


@bounded(60)
@given(pack=random_packs())
def test_random_pack_passes_check_3_only_if_well_formed(fixture_repo: Path, pack: Any) -> None:
    reset(fixture_repo)
    text = dump(pack)
    write(fixture_repo, ".agent/packs/x.json", text)
    reports = checks(fixture_repo)
    observe(f"well-formed pack: {pack_ok(ojson(text))}")
    assert reports[3].passed == pack_ok(ojson(text)), text
    assert all(reports[n].passed for n in (1, 2, 4, 5, 6, 7))


def dump_pairs(value: Any) -> str:
    """JSON text where an object may be a list of (key, value) pairs (duplicates kept)."""
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{dump(k)}:{dump_pairs(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return dump_pairs(Pairs(value.items()))
    if isinstance(value, list):
        return "[" + ",".join(dump_pairs(v) for v in value) + "]"
    return dump(value)


class Pairs(list):  # type: ignore[type-arg]
    """An object written as its pairs, in order."""


def _pack_check(repo: Path, text: str) -> bool:
    reset(repo)
    write(repo, ".agent/packs/x.json", text)
    reports = checks(repo)
    assert all(reports[n].passed for n in (1, 2, 4, 5, 6, 7))
    return reports[3].passed


@bounded(40)
@given(pack=well_formed_packs, data=st.data())
def test_pack_duplicate_struct_field_fails_check_3(
    fixture_repo: Path, pack: dict[str, Any], data: st.DataObject
) -> None:
    """Appendix A: a pack parsed straight from text errors on a duplicate struct field."""
    value = Pairs(pack.items())
    if pack["object_types"] and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(pack["object_types"])))
        entry = pack["object_types"][key]
        field = data.draw(
            st.sampled_from(sorted(set(entry) & {"kind", "required_props", "description"}))
        )
        types = {k: v for k, v in pack["object_types"].items()}
        types[key] = Pairs([*entry.items(), (field, entry[field])])
        value = Pairs([(k, types if k == "object_types" else v) for k, v in pack.items()])
    else:
        field = data.draw(st.sampled_from(PACK_FIELDS))
        value.append((field, pack[field]))
    text = dump_pairs(value)
    assert not pack_ok(ojson(text))
    assert not _pack_check(fixture_repo, text)


@bounded(40)
@given(pack=well_formed_packs, kind=words, first=json_values | object_types)
@example(
    pack={
        "id": "", "name": "", "version": "", "object_types": {}, "relation_types": {},
        "policies": [], "prompts": [], "settings": None,
    },
    kind="a",
    first=None,
)  # fmt: skip  # minimal failing example (bug 4 in the report)
def test_pack_duplicate_map_entry_is_validated(
    fixture_repo: Path, pack: dict[str, Any], kind: str, first: Any
) -> None:
    """serde deserializes every entry of ``object_types`` from the text, so an
    earlier value of a duplicated kind must itself be an ObjectType (§6, Appendix A)."""
    entries = Pairs(
        [(kind, first), *pack["object_types"].items(), (kind, {"kind": kind, "required_props": []})]
    )
    value = Pairs([(k, entries if k == "object_types" else v) for k, v in pack.items()])
    text = dump_pairs(value)
    assert _pack_check(fixture_repo, text) == pack_ok(ojson(text)), text


@bounded(40)
@given(pack=well_formed_packs, key=st.text(max_size=5), a=json_values, b=json_values)
@example(
    pack={
        "id": "", "name": "", "version": "", "object_types": {}, "relation_types": {},
        "policies": [], "prompts": [], "settings": None,
    },
    key="",
    a=None,
    b=None,
)  # fmt: skip  # minimal failing example (divergence 5 in the report)
def test_pack_duplicate_unknown_key_is_ignored(
    fixture_repo: Path, pack: dict[str, Any], key: str, a: Any, b: Any
) -> None:
    """§6: unknown keys are ignored, so duplicating one is not an error either."""
    assume(key not in PACK_FIELDS)
    text = dump_pairs(Pairs([*pack.items(), (key, a), (key, b)]))
    assert pack_ok(ojson(text))
    assert _pack_check(fixture_repo, text)


@bounded(80)
@given(log=edited_log() | semantic_log() | semantic_log() | envelope_logs())
def test_random_log_verdicts_match_the_oracle(fixture_repo: Path, log: bytes) -> None:
    """Differential: every verdict on an arbitrarily edited log equals the oracle's."""
    check_log(fixture_repo, log)


@bounded(60)
@given(log=edited_log() | semantic_log() | envelope_logs(), cut=st.integers(0, 12))
def test_check_resumed_from_the_log_memo_equals_a_full_pass(
    fixture_repo: Path, log: bytes, cut: int
) -> None:
    """A check that goes on from the memo of a pass over the log's first
    lines (:mod:`git_gasp.check.logmemo`) gives every report a full pass gives."""
    from git_gasp.check.logmemo import LogMemo

    reset(fixture_repo)
    ends = [i + 1 for i, byte in enumerate(log) if byte == 0x0A]
    prefix = log[: ends[min(cut, len(ends) - 1)]] if ends else b""
    write(fixture_repo, "state/events.jsonl", prefix)
    first = run_all(str(fixture_repo))
    assert first == run_all(str(fixture_repo), use_cache=False)
    write(fixture_repo, "state/events.jsonl", log)
    memo = LogMemo(str(fixture_repo / ".git"), str(fixture_repo / "state/events.jsonl"))
    with open(fixture_repo / "state/events.jsonl", "rb") as fh:
        resumed = memo.resume(fh)[0] is not None
    observe(f"resumed: {resumed}")
    assert run_all(str(fixture_repo)) == run_all(str(fixture_repo), use_cache=False)


@bounded(40)
@given(log=semantic_log())
def test_fixture_facts_match_the_oracle(fixture_repo: Path, log: bytes) -> None:
    """§10.4: with --fixture, check 6 passes iff the log folds and the four facts hold."""
    reset(fixture_repo)
    write(fixture_repo, "state/events.jsonl", log)
    reports = {r.number: r for r in run_all(str(fixture_repo), fixture=True)}
    events = parsed_events(log)
    try:
        expected = events is not None and facts_ok(ofold(events)[0])
    except Bad:
        expected = False
    observe(f"facts hold: {expected}")
    assert reports[6].passed == expected, reports[6]


def _line_with_payload(payload_text: str) -> str:
    """event_06 (an unpaired tool.called) with its payload replaced verbatim."""
    value = json.loads(LINES[5])
    value["payload"] = "__PAYLOAD__"
    return dump(value).replace('"__PAYLOAD__"', payload_text)


@bounded(20)
@given(n=st.integers(118, 136), opener=st.sampled_from(["[", '{"a":']))
@example(n=126, opener="[")  # the deepest line serde_json accepts: 127 levels
@example(n=127, opener="[")  # one more level: recursion limit
def test_nesting_limit_follows_serde_json(fixture_repo: Path, n: int, opener: str) -> None:
    """Appendix A: serde_json refuses JSON nested deeper than its limit (128)."""
    closer = "]" if opener == "[" else "}"
    line = _line_with_payload(opener * n + "1" + closer * n)
    reports = check_log(fixture_repo, join([*LINES[:5], line, *LINES[6:]]))
    assert reports[1].passed == (n + 1 <= 127)  # the envelope is one more level


@bounded(30)
@given(hi=st.integers(0xD800, 0xDFFF), lo=st.none() | st.integers(0xD800, 0xDFFF))
def test_lone_surrogate_escapes_are_not_json(fixture_repo: Path, hi: int, lo: int | None) -> None:
    """Appendix A: serde_json rejects unpaired UTF-16 surrogate escapes."""
    escape = f"\\u{hi:04x}" + (f"\\u{lo:04x}" if lo is not None else "")
    line = _line_with_payload('{"id":"tool_1","tool":"cargo' + escape + ' test"}')
    reports = check_log(fixture_repo, join([*LINES[:5], line, *LINES[6:]]))
    paired = lo is not None and hi <= 0xDBFF and lo >= 0xDC00
    assert reports[1].passed == paired


@bounded(30)
@given(
    extra=st.lists(
        st.tuples(
            st.integers(0, 10),
            st.text(alphabet="\t \x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u2028\u3000", max_size=3),
        ),
        min_size=1,
        max_size=3,
    ),
    crlf=st.booleans(),
)
def test_blank_lines_are_rust_whitespace(
    fixture_repo: Path, extra: list[tuple[int, str]], crlf: bool
) -> None:
    """§10.1 / Appendix A: blank = empty after Rust's trim (Unicode White_Space,
    which does not include \\x1c-\\x1f); one trailing \\r per line is dropped."""
    lines = list(LINES)
    for at, text in extra:
        lines.insert(at % (len(lines) + 1), text)
    text = "".join(line + ("\r\n" if crlf else "\n") for line in lines)
    reports = check_log(fixture_repo, text)
    blank = all(not t.strip(WHITESPACE) for _, t in extra)  # \\r is whitespace too
    observe(f"all inserted lines blank: {blank}")
    assert all(reports[n].passed for n in (1, 2, 3, 5, 6, 7)) == blank


@bounded(40)
@given(pair=st.sampled_from(OPS_LINES), a=json_values, data=st.data())
def test_status_comparison_is_structural(
    fixture_repo: Path, pair: int, a: Any, data: st.DataObject
) -> None:
    """§10.2 check 7 / §1.3: statuses are compared as JSON values, type-strictly."""
    wrapped = [a]
    numbers = _swap_candidates(wrapped)
    candidates = [st.just(copy.deepcopy(a)), json_values]
    if numbers:
        path = data.draw(st.sampled_from(numbers))
        old = get_at(wrapped, path)
        flipped = float(old) if not isinstance(old, bool) else int(old)
        candidates.append(st.just(replaced(wrapped, path, flipped)[0]))
    b = data.draw(st.one_of(candidates))
    events = fixture_events()
    domain = next(e for e in events if e["id"] == events[pair]["causation_id"])
    domain["payload"]["status"] = a
    events[pair]["payload"][0]["CreateNode"]["props"]["status"] = b
    reports = check_log(fixture_repo, join([dump(e) for e in events]))
    # compare as serde reads the log (an integer beyond i64/u64 becomes a float)
    assert reports[7].passed == jeq(ojson(dump(a)), ojson(dump(b)))


# ===========================================================================
# 3. The fold, merge and equality
# ===========================================================================


@bounded(30)
@given(k=st.integers(0, 10), shuffle=st.randoms(use_true_random=False), permute=st.booleans())
def test_fold_version_counts_applied_ops(k: int, shuffle: Any, permute: bool) -> None:
    lines = list(LINES)
    if permute:
        shuffle.shuffle(lines)
    lines = lines[:k]
    result = fold(parse_log(join(lines)).events)
    expected, skipped = ofold([ojson(line) for line in lines])
    parsed = [json.loads(x) for x in lines]
    total = sum(len(oops(e["payload"]) or []) for e in parsed if e["kind"] == OPS_KIND)
    assert result.graph.version == expected["version"] == total - skipped
    assert result.graph.version == result.ops - len(result.skipped)
    assert jeq(graph_to_value(result.graph), expected)


@bounded(150)
@given(payloads=st.lists(st.lists(ops, max_size=4), min_size=1, max_size=5))
def test_fold_matches_the_oracle(payloads: list[Any]) -> None:
    lines = [_ops_event_line(p, n) for n, p in enumerate(payloads)]
    events = parse_log(join(lines)).events
    before = copy.deepcopy([e.payload for e in events])
    result = fold(events)
    expected, skipped = ofold([ojson(line) for line in lines])
    assert jeq(graph_to_value(result.graph), expected)
    assert len(result.skipped) == skipped
    assert result.graph.version == expected["version"]
    assert jeq([e.payload for e in events], before), "fold mutated its input events"


@bounded(300)
@given(target=json_values, patch=json_values)
def test_merge_never_mutates_its_inputs(target: Any, patch: Any) -> None:
    target_copy, patch_copy = copy.deepcopy(target), copy.deepcopy(patch)
    result = merge(target, patch)
    assert jeq(target, target_copy) and jeq(patch, patch_copy)
    assert jeq(result, omerge(target_copy, patch_copy))


def _swap_candidates(value: Any) -> list[tuple[Any, ...]]:
    """Paths to ints and bools (bool is an int subclass in Python)."""
    return [p for p in paths(value) if type(get_at(value, p)) in (int, bool)]


@bounded(300)
@given(value=json_values | st.integers() | st.booleans(), data=st.data())
def test_equal_is_type_strict(value: Any, data: st.DataObject) -> None:
    assert equal(value, copy.deepcopy(value))
    wrapped = [value]  # so the root itself can be swapped too
    targets = _swap_candidates(wrapped)
    assume(targets)
    path = data.draw(st.sampled_from(targets))
    old = get_at(wrapped, path)
    if isinstance(old, bool):
        new: Any = data.draw(st.sampled_from([int(old), float(old)]))
    else:
        new = data.draw(st.sampled_from([float(old), True, False]))
    swapped = replaced(wrapped, path, new)
    assert not equal(wrapped, swapped)
    assert not equal(swapped, wrapped)
    assert not jeq(wrapped, swapped)


def test_oracle_agrees_on_the_pristine_fixture(fixture_repo: Path) -> None:
    """Sanity: the untouched fixture passes every check, as the oracle says."""
    reports = checks(fixture_repo)
    assert verdicts(reports) == PRISTINE
    assert os.path.isfile(fixture_repo / "AGENT.md")
