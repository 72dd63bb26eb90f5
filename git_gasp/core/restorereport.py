"""What ``git gasp restore`` and ``git gasp status`` read and report, as pure functions.

* :func:`parse_manifest`: the first fenced block of ``AGENT.md`` as YAML
  (ruamel.yaml safe mode, after the same screen skills get: no anchors or
  aliases, bounded depth and node count), with the spec MAJOR version check.
* :func:`set_executor_values`: the careful textual edit of
  ``.agent/config.toml`` behind ``--model`` / ``--provider``.
* :func:`build_report`, :func:`report_text`, :func:`context_markdown`: the
  report (format ``git-gasp.restore/1``) and the rehydration document.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from git_gasp.core.graph import Graph
from git_gasp.core.manifest import MAX_MANIFEST_BYTES, first_fenced_block
from git_gasp.core.resume import ResumedRun
from git_gasp.core.runlog import RunCommit
from git_gasp.core.skill import Skill, SkillError
from git_gasp.core.skill import _screen as screen_yaml

REPORT_FORMAT = "git-gasp.restore/1"
MAX_CONFIG_BYTES = 1024 * 1024
SUPPORTED_MAJOR = 1
CLOSED_GOAL = ("Satisfied", "Abandoned")
CLOSED_TASK = ("Done", "Abandoned")
CLOSE_HINT = "git gasp run close --outcome TEXT (or: git gasp run abandon --reason TEXT)"
STALE_HINT = (
    "git gasp record ops --json-ops "
    '\'[{"UpdateNode":{"id":"RUN","props":{"status":"finished","outcome":"abandoned"}}}]\''
)


class ManifestError(ValueError):
    """Why AGENT.md cannot be used (one line); ``exit_code`` 2 (bad input)."""


class Manifest(NamedTuple):
    spec_version: object
    agent_id: str | None
    executor: str | None
    fields: dict[str, Any]


def _major(value: object) -> int | None:
    if type(value) is int:
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)*", value.strip()):
        return int(value.strip().split(".")[0])
    return None


def _shown(value: object) -> str:
    """A value from a hostile file, for a one-line message: short, never an
    error (an integer of thousands of digits has no repr)."""
    try:
        text = repr(value)
    except ValueError:
        return "a number too long to show"
    return text if len(text) <= 60 else text[:57] + "..."


def parse_manifest(data: bytes, cap: int | None = None) -> Manifest:
    """The manifest block of ``AGENT.md``; :class:`ManifestError` if it is
    missing, hostile, not a mapping, or declares a spec MAJOR version other
    than :data:`SUPPORTED_MAJOR`. ``cap`` replaces :data:`MAX_MANIFEST_BYTES`."""
    limit = MAX_MANIFEST_BYTES if cap is None else cap
    if len(data) > limit:
        raise ManifestError(f"AGENT.md is over the {limit:,}-byte cap")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise ManifestError("AGENT.md is not valid UTF-8") from None
    block = first_fenced_block(text)
    if block is None:
        raise ManifestError("AGENT.md has no fenced YAML block (spec_version, agent_id, ...)")
    source = "\n".join(block) + "\n"
    try:
        screen_yaml(source)
        value = YAML(typ="safe").load(source)
    except SkillError as exc:
        raise ManifestError(
            "AGENT.md manifest block: " + str(exc).replace("frontmatter ", "", 1)
        ) from None
    except (YAMLError, RecursionError, ValueError, TypeError) as exc:
        first = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise ManifestError(f"AGENT.md manifest block is not valid YAML: {first}") from None
    if not isinstance(value, dict):
        # the reference reads the first fenced block, whatever its language
        raise ManifestError(
            "AGENT.md manifest block is not a YAML mapping (the first fenced block of "
            "AGENT.md is the manifest; check 6 reads only it)"
        )
    if "spec_version" not in value:
        raise ManifestError("AGENT.md declares no spec_version")
    spec = value["spec_version"]
    major = _major(spec)
    if major != SUPPORTED_MAJOR:
        raise ManifestError(
            f"AGENT.md declares spec_version {_shown(spec)}: this git-gasp reads GASP spec "
            f"major version {SUPPORTED_MAJOR} only"
        )
    agent_id = value.get("agent_id")
    executor = value.get("executor")
    return Manifest(
        spec,
        agent_id if isinstance(agent_id, str) else None,
        executor if isinstance(executor, str) else None,
        {str(k): v for k, v in value.items()},
    )


# -- the executor binding edit ---------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_VALUE = r"(\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s#]*)"


def _key_line(key: str) -> re.Pattern[str]:
    quoted = rf"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')"
    return re.compile(rf"^(\s*{quoted}\s*=\s*){_VALUE}(.*)$")


_EXECUTOR = r"""(?:executor|"executor"|'executor')"""
_TABLES = re.compile(r"^\s*\[\[")  # an array-of-tables header ends a table too


def _set_dotted(lines: list[str], values: Mapping[str, str], newline: str) -> str:
    """The top-level ``executor.<key> = ...`` lines (before the first table
    header) with ``values`` set; a missing key goes after the last of them.
    An inline table (``executor = {...}``) is no such line: the caller's
    check then refuses the edit."""
    top = next(
        (i for i, ln in enumerate(lines) if _HEADER.match(ln.rstrip("\r")) or _TABLES.match(ln)),
        len(lines),
    )
    cr = "\r" if newline == "\r\n" else ""
    for key, value in values.items():
        name = rf"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')"
        pattern = re.compile(rf"^(\s*{_EXECUTOR}\s*\.\s*{name}\s*=\s*){_VALUE}(.*)$")
        done = False
        for i in range(top):
            bare = lines[i][:-1] if lines[i].endswith("\r") else lines[i]
            match = pattern.match(bare)
            if match:
                kept = match.group(3) + lines[i][len(bare) :]
                lines[i] = match.group(1) + toml_string(value) + kept
                done = True
                break
        if not done:
            dotted = [i for i in range(top) if re.match(rf"^\s*{_EXECUTOR}\s*\.", lines[i])]
            if any(re.match(rf"^\s*{_EXECUTOR}\s*=", lines[i]) for i in range(top)):
                raise ValueError(
                    "the executor table is an inline table (executor = {...}); "
                    "it cannot be edited line by line"
                )
            at = dotted[-1] + 1 if dotted else top
            lines.insert(at, f"executor.{key} = {toml_string(value)}{cr}")
            top += 1
    return "\n".join(lines)


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string."""
    return json.dumps(value, ensure_ascii=False)


_OUT_OF_RANGE = "an integer outside the 64-bit range TOML allows"


def parse_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads`` for a file from a repository: any failure (bad
    syntax, an integer too long to convert, nesting past the stack) is one
    ``ValueError`` with a short message."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise ValueError(_OUT_OF_RANGE) from None
        raise ValueError(" ".join(str(exc).split())[:200]) from None
    stack: list[object] = [value]
    while stack:  # TOML integers are 64-bit; tomllib takes any size
        item = stack.pop()
        if type(item) is int and not -(2**63) <= item < 2**63:
            raise ValueError(_OUT_OF_RANGE)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


def set_executor_values(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each key of ``values`` set under ``[executor]``: only the
    value of an existing line changes (its comment and every other byte stay);
    a missing key is added after the table's last key line; a missing table is
    appended. Raises ValueError if the result does not parse as TOML with
    exactly those values changed."""
    if not values:
        return text
    before = parse_toml(text)
    if isinstance(before.get("executor"), list):
        raise ValueError("executor is an array of tables ([[executor]]); edit it by hand")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split("\n")
    start = end = None
    for i, line in enumerate(lines):
        match = _HEADER.match(line.rstrip("\r"))
        named = match.group(1).strip() if match else ""
        if match and start is None and named in ("executor", '"executor"', "'executor'"):
            start = i
        elif (match or _TABLES.match(line)) and start is not None and end is None:
            end = i
    if start is None and isinstance(before.get("executor"), dict):
        # dotted keys at the top (``executor.model = "m"``): edited as such
        result = _set_dotted(lines, values, newline)
    elif start is None:
        tail = "" if text.endswith("\n") or not text else newline
        added = "".join(f"{k} = {toml_string(v)}{newline}" for k, v in values.items())
        gap = newline if text.strip() else ""
        result = f"{text}{tail}{gap}[executor]{newline}{added}"
    else:
        end = len(lines) if end is None else end
        for key, value in values.items():
            pattern = _key_line(key)
            for i in range(start + 1, end):
                bare = lines[i][:-1] if lines[i].endswith("\r") else lines[i]
                match = pattern.match(bare)
                if match:
                    lines[i] = (
                        match.group(1) + toml_string(value) + match.group(3) + lines[i][len(bare) :]
                    )
                    break
            else:
                last = start
                for i in range(start + 1, end):
                    content = lines[i].strip()
                    if content and not content.startswith("#"):
                        last = i
                cr = "\r" if newline == "\r\n" else ""
                lines.insert(last + 1, f"{key} = {toml_string(value)}{cr}")
                end += 1
        result = "\n".join(lines)
    after = parse_toml(result)
    expected = dict(before)
    executor = dict(expected.get("executor", {}))
    executor.update(values)
    expected["executor"] = executor
    if after != expected:
        raise ValueError("the edit would change more than the executor values")
    return result


# -- the report -------------------------------------------------------------------


class FoldInfo(NamedTuple):
    events: int
    at: str | None
    seeded_from: str | None  # the snapshot directory name, when one seeded the fold
    seeded_events: int  # events the snapshot covered (0 when none)
    verified_by: str | None  # "fold of prefix" or "cache"
    snapshot_notes: tuple[str, ...]  # snapshots not used, and why
    resumed: ResumedRun | None = None  # the run a runtime opening this log resumes
    complete: bool = True  # the whole log (--at named none, or its last event)

    @property
    def historical(self) -> bool:
        """A fold that stops before the log's end: a view of the past."""
        return self.at is not None and not self.complete


class RestoreInputs(NamedTuple):
    root: str
    url: str | None
    manifest: Manifest
    identity_verified: bool
    identity_notes: tuple[str, ...]
    identity_hash: str | None
    skills: Sequence[Skill]
    fold: FoldInfo
    graph: Graph
    runs: Sequence[RunCommit]
    config: dict[str, Any]
    config_path: str
    locations: dict[str, tuple[str, ...]]
    warnings: Sequence[str]
    config_changed: Sequence[str]


# The report shows props as text: a value that is not a string (a hostile
# one can be nested thousands deep) is shown as None, never rendered.


def _text(props: object, key: str) -> str | None:
    value = props.get(key) if isinstance(props, dict) else None
    return value if isinstance(value, str) else None


def _status(props: object) -> str | None:
    return _text(props, "status")


def _title(props: object) -> str | None:
    return _text(props, "title") or _text(props, "task") or _text(props, "summary")


def _open_nodes(graph: Graph, kind: str, closed: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for node_id in sorted(graph.nodes):
        node = graph.nodes[node_id]
        if node.kind != kind or node.tombstoned:
            continue
        status = _status(node.props)
        if status not in closed:
            out.append({"id": node_id, "title": _title(node.props), "status": status})
    return out


def _run_task(graph: Graph, run_id: str) -> object:
    node = graph.nodes.get(run_id)
    return _text(node.props, "task") if node is not None else None


def _open_runs(
    graph: Graph, resumed: ResumedRun | None, historical: bool = False
) -> list[dict[str, Any]]:
    """The open run, as a runtime opening the log resumes it (REFERENCE:
    at most one), with or without a node: a start whose ops pair was never
    written has none, and is still the run to close. ``historical`` (a fold
    through ``--at``): open then, so no advice to close it now."""
    if resumed is None:
        return []
    node = graph.nodes.get(resumed.run_id)
    started = (
        node is not None
        and node.kind == "run"
        and not node.tombstoned
        and _status(node.props) == "started"
    )
    return [
        {
            "id": resumed.run_id,
            "task": resumed.task if resumed.task is not None else _run_task(graph, resumed.run_id),
            "node": started,  # a run node, status "started", stands for it
            "close_with": None if historical else CLOSE_HINT,
        }
    ]


def _stale_runs(graph: Graph, resumed: ResumedRun | None) -> list[dict[str, Any]]:
    """Run nodes still ``started`` that no runtime resumes: a later run
    started after them, or their finish was written without its ops pair."""
    out = []
    for node_id in sorted(graph.nodes):
        node = graph.nodes[node_id]
        if resumed is not None and node_id == resumed.run_id:
            continue
        if node.kind == "run" and not node.tombstoned and _status(node.props) == "started":
            out.append({"id": node_id, "task": _run_task(graph, node_id)})
    return out


def _track_record(graph: Graph) -> dict[str, Any]:
    patches = [n for n in graph.nodes.values() if n.kind == "patch" and not n.tombstoned]
    evals = [n for n in graph.nodes.values() if n.kind == "eval" and not n.tombstoned]
    decided = [_status(e.props) for e in evals if _status(e.props) in ("Passed", "Failed", "Error")]
    passed = sum(1 for s in decided if s == "Passed")
    items = []
    for patch in sorted(patches, key=lambda n: n.id):
        out = [r for r in graph.relations if r.from_ == patch.id]
        props = patch.props if isinstance(patch.props, dict) else {}

        def status_of(node_id: str) -> object:
            node = graph.nodes.get(node_id)
            return _status(node.props) if node is not None else None

        items.append(
            {
                "id": patch.id,
                "title": _text(props, "title"),
                "status": _status(props),
                "references_commit": _text(props, "references_commit"),
                "advances": [r.to for r in out if r.rel == "advances"],
                "evals": [
                    {"id": r.to, "status": status_of(r.to)} for r in out if r.rel == "validated_by"
                ],
                "decisions": [
                    {"id": r.to, "rel": r.rel, "status": status_of(r.to)}
                    for r in out
                    if r.rel in ("approved_by", "rejected_by")
                ],
            }
        )
    return {
        "items": items,
        "proposed": len(patches),
        "promoted": sum(1 for p in patches if _status(p.props) == "Promoted"),
        "rejected": sum(1 for p in patches if _status(p.props) == "Rejected"),
        "evals": len(evals),
        "evals_passed": passed,
        "eval_pass_rate": round(passed / len(decided), 4) if decided else None,
    }


def _scalar(value: object) -> object:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def build_report(inputs: RestoreInputs) -> dict[str, Any]:
    """The ``git-gasp.restore/1`` document."""
    graph = inputs.graph
    executor = inputs.config.get("executor", {})
    run = inputs.runs[0] if inputs.runs else None
    return {
        "format": REPORT_FORMAT,
        "directory": inputs.root,
        "url": inputs.url,
        "agent_id": inputs.manifest.agent_id,
        "spec_version": _scalar(inputs.manifest.spec_version),
        "identity": {
            "verified": inputs.identity_verified,
            "hash": inputs.identity_hash,
            "notes": list(inputs.identity_notes),
        },
        "skills": {
            "loaded": [
                {"name": s.name, "description": s.description, "path": s.path}
                for s in inputs.skills
                if s.valid
            ],
            "invalid": [
                {"path": s.path, "problems": list(s.problems)} for s in inputs.skills if not s.valid
            ],
        },
        "fold": {
            "at": inputs.fold.at,
            "events": inputs.fold.events,
            "seeded": inputs.fold.seeded_from is not None,
            "snapshot": inputs.fold.seeded_from,
            "snapshot_events": inputs.fold.seeded_events,
            "snapshot_verified_by": inputs.fold.verified_by,
            "snapshot_notes": list(inputs.fold.snapshot_notes),
            "historical": inputs.fold.historical,
        },
        "graph": {
            "nodes": len(graph.nodes),
            "relations": len(graph.relations),
            "version": graph.version,
        },
        "open_goals": _open_nodes(graph, "goal", CLOSED_GOAL),
        "open_tasks": _open_nodes(graph, "task", CLOSED_TASK),
        "open_runs": _open_runs(graph, inputs.fold.resumed, inputs.fold.historical),
        "stale_runs": _stale_runs(graph, inputs.fold.resumed),
        "last_run": (
            {"run_id": run.run_id, "outcome": run.outcome, "commit": run.commit, "goal": run.goal}
            if run
            else None
        ),
        "patches": _track_record(graph),
        "executor": {
            "config": inputs.config_path,
            "binding": {str(k): _scalar(v) for k, v in executor.items()}
            if isinstance(executor, dict)
            else {},
            "changed": list(inputs.config_changed),
        },
        "locations": {k: list(v) for k, v in inputs.locations.items()},
        "warnings": list(inputs.warnings),
    }


_BREAKS = re.compile("[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _line(text: str) -> str:
    """One line of a report or of the context document: a value from the
    repository cannot start another (a forged heading, say), and a name
    that is not UTF-8 (a lone surrogate) is written as its escape."""
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return _BREAKS.sub(" ", text).rstrip()


def _fenced(text: str) -> str:
    """``text`` as a fenced block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def report_text(report: Mapping[str, Any]) -> str:
    """The report for people."""
    fold = report["fold"]
    trusted = {
        "integrity record": "its integrity record matches the log; its graph was not compared "
        "with the log (--verify-snapshot compares it)",
        "cache": "its graph was compared with the log by this clone",
    }.get(fold["snapshot_verified_by"], f"verified by {fold['snapshot_verified_by']}")
    seeded = (
        f" (seeded from snapshot {fold['snapshot']}: {fold['snapshot_events']} events; {trusted})"
        if fold["seeded"]
        else " (no snapshot seeded the fold)"
    )
    identity = report["identity"]
    graph = report["graph"]
    patches = report["patches"]
    rate = patches["eval_pass_rate"]
    binding = report["executor"]["binding"]
    lines = [
        f"{'agent:':<17}{report['agent_id'] or '-'}",
        f"{'spec version:':<17}{report['spec_version']}",
        f"{'identity:':<17}{'verified' if identity['verified'] else 'NOT verified'}"
        + (f" ({identity['hash']})" if identity["hash"] else ""),
        f"{'skills loaded:':<17}"
        + (", ".join(s["name"] for s in report["skills"]["loaded"]) or "none"),
    ]
    for bad in report["skills"]["invalid"]:
        lines.append(f"{'skill invalid:':<17}{bad['path']}: {'; '.join(bad['problems'])}")
    lines += [
        f"{'events folded:':<17}{fold['events']}"
        + (f" (through {fold['at']})" if fold["at"] else "")
        + seeded,
        *(f"{'snapshot unused:':<17}{note}" for note in fold["snapshot_notes"]),
        f"{'graph:':<17}{graph['nodes']} nodes, {graph['relations']} relations, "
        f"version {graph['version']}",
        f"{'open goals:':<17}"
        + (", ".join(f"{g['id']} ({g['status']})" for g in report["open_goals"]) or "none"),
        f"{'open runs:':<17}"
        + (
            ", ".join(
                r["id"] + ("" if r["node"] else " (no run node for this start: no ops pair)")
                for r in report["open_runs"]
            )
            or "none"
        ),
    ]
    if any(r["close_with"] for r in report["open_runs"]):
        lines.append(f"{'':<17}close with: {CLOSE_HINT}")
    elif report["open_runs"]:
        lines.append(f"{'':<17}(open at --at; the log goes on after it)")
    if report["stale_runs"]:
        lines.append(
            f"{'stale runs:':<17}{', '.join(r['id'] for r in report['stale_runs'])}"
            " (marked started, but no runtime resumes them)"
        )
        if not report["fold"].get("historical"):  # no advice to change the log, in the past
            lines.append(f"{'':<17}mark one finished with: {STALE_HINT}")
    run = report["last_run"]
    lines.append(
        f"{'last run:':<17}"
        + (f"{run['run_id']} — {run['outcome'] or '-'} ({run['commit'][:12]})" if run else "none")
    )
    lines.append(
        f"{'patches:':<17}{patches['proposed']} proposed, {patches['promoted']} promoted, "
        f"{patches['rejected']} rejected; eval pass rate "
        + (
            f"{rate:.0%} ({patches['evals_passed']}/{patches['evals']})"
            if rate is not None
            else "-"
        )
    )
    lines.append(
        f"{'executor:':<17}"
        + (", ".join(f"{k} = {v}" for k, v in binding.items()) or "none")
        + (
            f" (changed: {', '.join(report['executor']['changed'])})"
            if report["executor"]["changed"]
            else ""
        )
    )
    lines.extend(f"warning: {w}" for w in report["warnings"])
    return "\n".join(_line(line) for line in lines)


def context_markdown(
    report: Mapping[str, Any],
    identity: Sequence[tuple[str, str]],
    memory: str | None,
    runs: Sequence[RunCommit],
    unhashed: frozenset[str] = frozenset(),
) -> str:
    """The rehydration document ``--context FILE`` writes; identity files in
    ``unhashed`` (which the identity hash does not cover) go apart."""
    out = [_line(f"# Agent context: {report['agent_id'] or 'unknown'}"), ""]
    out.append(
        _line(
            f"Restored with git-gasp ({REPORT_FORMAT}); spec version {report['spec_version']}; "
            f"identity {'verified' if report['identity']['verified'] else 'NOT verified'}; "
            f"{report['fold']['events']} events folded."
        )
    )
    out += ["", "## Identity", ""]
    for path, text in identity:
        if path not in unhashed:
            out += [_line(f"### {path}"), "", text.rstrip("\n"), ""]
    if unhashed:
        out += [
            "## Identity files the identity hash does not cover",
            "",
            "AGENT.md's Locations table names these as identity, but `identity_hash` does not "
            "cover them: nothing verified them and no human gate guards their changes.",
            "",
        ]
        for path, text in identity:
            if path in unhashed:  # quoted: its own headings cannot pass for verified ones
                out += [_line(f"### {path}"), "", _fenced(text), ""]
    out += ["## Skills", ""]
    for skill in report["skills"]["loaded"]:
        out.append(_line(f"- **{skill['name']}** — {skill['description']} (`{skill['path']}`)"))
    if not report["skills"]["loaded"]:
        out.append("none")
    # the repository's text, quoted: its own headings cannot pass for this document's
    out += ["", "## Active memory", "", _fenced(memory) if memory else "none", ""]
    out += ["## Open goals and tasks", ""]
    items = [("goal", g) for g in report["open_goals"]] + [
        ("task", t) for t in report["open_tasks"]
    ]
    for kind, item in items:
        out.append(_line(f"- {kind} `{item['id']}` ({item['status']}): {item['title'] or ''}"))
    if not items:
        out.append("none")
    for run in report["open_runs"]:
        advice = f"close with: {CLOSE_HINT}" if run["close_with"] else "open at --at"
        out.append(_line(f"- open run `{run['id']}`: {run['task'] or ''} — {advice}"))
    for run in report["stale_runs"]:
        out.append(
            _line(f"- stale run `{run['id']}` (started, never resumed): {run['task'] or ''}")
        )
    out += ["", "## Recent runs", ""]
    for commit in runs:
        out.append(
            _line(
                f"- `{commit.run_id}` ({commit.date}, commit {commit.commit[:12]}): "
                f"{commit.outcome or '-'}"
            )
        )
    if not runs:
        out.append("none")
    return "\n".join(out) + "\n"
