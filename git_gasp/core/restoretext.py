"""The restore report for people, and the rehydration document (``--context``).

Every value from the repository is written on one line of its own (it cannot
start another: a forged heading, say), and its longer texts (identity files
the hash does not cover, active memory) are quoted in fences they cannot close.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from git_gasp.core.restorereport import CLOSE_HINT, REPORT_FORMAT, STALE_HINT
from git_gasp.core.runlog import RunCommit

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
    identity = report["identity"]
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
    lines += _fold_lines(report)
    lines += _open_lines(report)
    lines += _record_lines(report)
    lines.extend(f"warning: {w}" for w in report["warnings"])
    return "\n".join(_line(line) for line in lines)


def _fold_lines(report: Mapping[str, Any]) -> list[str]:
    """What was folded, from which snapshot (and how far it was trusted)."""
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
    graph = report["graph"]
    return [
        f"{'events folded:':<17}{fold['events']}"
        + (f" (through {fold['at']})" if fold["at"] else "")
        + seeded,
        *(f"{'snapshot unused:':<17}{note}" for note in fold["snapshot_notes"]),
        f"{'graph:':<17}{graph['nodes']} nodes, {graph['relations']} relations, "
        f"version {graph['version']}",
    ]


def _open_lines(report: Mapping[str, Any]) -> list[str]:
    """Open goals, open runs (with how to close them) and stale runs."""
    lines = [
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
    return lines


def _record_lines(report: Mapping[str, Any]) -> list[str]:
    """The last run, the patches' track record and the executor binding."""
    run = report["last_run"]
    patches = report["patches"]
    rate = patches["eval_pass_rate"]
    binding = report["executor"]["binding"]
    return [
        f"{'last run:':<17}"
        + (f"{run['run_id']} — {run['outcome'] or '-'} ({run['commit'][:12]})" if run else "none"),
        f"{'patches:':<17}{patches['proposed']} proposed, {patches['promoted']} promoted, "
        f"{patches['rejected']} rejected; eval pass rate "
        + (
            f"{rate:.0%} ({patches['evals_passed']}/{patches['evals']})"
            if rate is not None
            else "-"
        ),
        f"{'executor:':<17}"
        + (", ".join(f"{k} = {v}" for k, v in binding.items()) or "none")
        + (
            f" (changed: {', '.join(report['executor']['changed'])})"
            if report["executor"]["changed"]
            else ""
        ),
    ]


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
    out += _identity_section(identity, unhashed)
    out += ["## Skills", ""]
    for skill in report["skills"]["loaded"]:
        out.append(_line(f"- **{skill['name']}** — {skill['description']} (`{skill['path']}`)"))
    if not report["skills"]["loaded"]:
        out.append("none")
    # the repository's text, quoted: its own headings cannot pass for this document's
    out += ["", "## Active memory", "", _fenced(memory) if memory else "none", ""]
    out += _open_work_section(report)
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


def _identity_section(identity: Sequence[tuple[str, str]], unhashed: frozenset[str]) -> list[str]:
    """The identity files, those the hash does not cover apart (and quoted)."""
    out = ["", "## Identity", ""]
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
    return out


def _open_work_section(report: Mapping[str, Any]) -> list[str]:
    """Open goals and tasks, open runs and stale runs."""
    out = ["## Open goals and tasks", ""]
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
    return out
