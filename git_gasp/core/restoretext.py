"""The restore report for people, and the rehydration document (``--context``).

Every value from the repository is written on one line of its own (it cannot
start another: a forged heading, say), and its longer texts (identity files
the hash does not cover, active memory) are quoted in fences they cannot close.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from git_gasp.core.bounded import bounded, more
from git_gasp.core.restorereport import CLOSE_HINT, STALE_HINT

WARNINGS_SHOWN = 20  # the text shows this many warnings; --json has them all
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


def _plain(text: str, style: str) -> str:
    return text


def report_text(report: Mapping[str, Any], paint: Callable[[str, str], str] = _plain) -> str:
    """The report for people; ``paint`` marks what a terminal colours (see
    :func:`git_gasp.output.paint`): the identity's state, invalid skills,
    warnings."""
    identity = report["identity"]
    state = paint("verified", "good") if identity["verified"] else paint("NOT verified", "bad")
    lines = [
        f"{'agent:':<17}{report['agent_id'] or '-'}",
        f"{'spec version:':<17}{report['spec_version']}",
        f"{'identity:':<17}{state}" + (f" ({identity['hash']})" if identity["hash"] else ""),
        f"{'skills loaded:':<17}"
        + (
            bounded((s["name"] for s in report["skills"]["loaded"]), "git gasp skill list")
            or "none"
        ),
    ]
    for bad in report["skills"]["invalid"]:
        lines.append(
            paint(f"{'skill invalid:':<17}", "bad") + f"{bad['path']}: {'; '.join(bad['problems'])}"
        )
    lines += _fold_lines(report)
    checkout = report.get("checkout")
    if checkout:
        lines += [
            f"{'checked out:':<17}{checkout['commit']} (detached HEAD: the commit that holds "
            f"{checkout['event']}; identity, skills and memory are as they were then)",
            f"{'':<17}go on from it with: git switch -c NAME; "
            f"back to the newest: git checkout {checkout['head'][:12]}",
        ]
    lines += _open_lines(report)
    lines += _record_lines(report)
    warnings = report["warnings"]
    lines.extend(f"{paint('warning:', 'warn')} {w}" for w in warnings[:WARNINGS_SHOWN])
    if len(warnings) > WARNINGS_SHOWN:
        hidden = len(warnings) - WARNINGS_SHOWN
        lines.append(f"{paint('warning:', 'warn')} {more(hidden, 'git gasp status --json')}")
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
    goals = (f"{g['id']} ({g['status']})" for g in report["open_goals"])
    runs = (
        r["id"] + ("" if r["node"] else " (no run node for this start: no ops pair)")
        for r in report["open_runs"]
    )
    lines = [
        f"{'open goals:':<17}"
        + (
            bounded(goals, "git gasp nodes --kind goal --status Open --status InProgress") or "none"
        ),
        f"{'open runs:':<17}" + (bounded(runs, "git gasp status --json") or "none"),
    ]
    if any(r["close_with"] for r in report["open_runs"]):
        lines.append(f"{'':<17}close with: {CLOSE_HINT}")
    elif report["open_runs"]:
        lines.append(f"{'':<17}(open at --at; the log goes on after it)")
    return lines + _stale_lines(report)


def _stale_lines(report: Mapping[str, Any]) -> list[str]:
    """Stale runs: those the log finished (a run.finished without its ops
    pair) said apart, with their outcome, and no advice to abandon them."""
    stale = [r for r in report["stale_runs"] if not r.get("finished")]
    done = [r for r in report["stale_runs"] if r.get("finished")]
    lines = []
    if stale:
        listed = bounded((r["id"] for r in stale), "git gasp status --json")
        lines.append(f"{'stale runs:':<17}{listed} (marked started, but no runtime resumes them)")
        if not report["fold"].get("historical"):  # no advice to change the log, in the past
            lines.append(f"{'':<17}mark one finished with: {STALE_HINT}")
    if done:
        listed = bounded((_finished(r) for r in done), "git gasp status --json")
        label = "" if stale else "stale runs:"
        lines.append(
            f"{label:<17}{listed}: finished by a run.finished without its ops pair "
            "(the node still says started; nothing to close)"
        )
    return lines


def _finished(run: Mapping[str, Any]) -> str:
    outcome = run.get("outcome")
    name: str = run["id"]
    return name + (f" ({' '.join(outcome.split())[:80]})" if isinstance(outcome, str) else "")


def _record_lines(report: Mapping[str, Any]) -> list[str]:
    """The last run, the patches' track record and the executor binding."""
    run = report["last_run"]
    patches = report["patches"]
    rate = patches["eval_pass_rate"]
    binding = report["executor"]["binding"]
    return [
        f"{'last run:':<17}"
        + (
            f"{run['run_id']} — {run['outcome'] or '-'} "
            + (f"({run['commit'][:12]})" if run["commit"] else "(in the log; no boundary commit)")
            if run
            else "none"
        ),
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
