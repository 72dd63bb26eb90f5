"""The rehydration document (``--context FILE``), within a budget.

The document's sections, in order: its head, identity (the files the
identity hash does not cover apart, quoted), skills, active memory (quoted),
open goals, open runs, the latest runs, and open tasks. With a budget (see
:mod:`git_gasp.core.contextbudget`) they are given room by priority:
identity first, then skills, active memory, open goals and runs, then the
latest runs, and the open tasks last; a line at the end says what was cut.
Identity files' headings are pushed below the document's own (``# x``
becomes ``#### x`` under ``### <path>``); quoted texts keep theirs inside
their fence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from git_gasp.core.contextbudget import Section, cut_line, demote, fit
from git_gasp.core.restorereport import CLOSE_HINT, REPORT_FORMAT
from git_gasp.core.restoretext import _fenced, _line
from git_gasp.core.runlog import RunCommit

#: Lines of an embedded file that are its own headings go this many levels down.
DEMOTE = 3


def _identity(identity: Sequence[tuple[str, str]], unhashed: frozenset[str]) -> list[Section]:
    verified = tuple(
        f"{_line(f'### {path}')}\n\n{demote(text.rstrip(chr(10)), DEMOTE)}"
        for path, text in identity
        if path not in unhashed
    )
    sections = [Section("## Identity", verified, 1, "identity files", "none", True)]
    if unhashed:
        intro = (
            "AGENT.md's Locations table names these as identity, but `identity_hash` does not "
            "cover them: nothing verified them and no human gate guards their changes."
        )
        quoted = tuple(  # quoted: its own headings cannot pass for verified ones
            f"{_line(f'### {path}')}\n\n{_fenced(text)}"
            for path, text in identity
            if path in unhashed
        )
        sections.append(
            Section(
                "## Identity files the identity hash does not cover",
                (intro, *quoted),
                1,
                "unverified identity files",
                cuttable=True,
            )
        )
    return sections


def _open_work(report: Mapping[str, Any]) -> list[Section]:
    goals = tuple(
        _line(f"- goal `{g['id']}` ({g['status']}): {g['title'] or ''}")
        for g in report["open_goals"]
    )
    runs = [
        _line(
            f"- open run `{r['id']}`: {r['task'] or ''} — "
            + (f"close with: {CLOSE_HINT}" if r["close_with"] else "open at --at")
        )
        for r in report["open_runs"]
    ]
    runs += [
        _line(f"- stale run `{r['id']}` (started, never resumed): {r['task'] or ''}")
        for r in report["stale_runs"]
        if not r.get("finished")  # a finish without its ops pair: finished, not open work
    ]
    tasks = tuple(
        _line(f"- task `{t['id']}` ({t['status']}): {t['title'] or ''}")
        for t in report["open_tasks"]
    )
    return [
        Section("## Open goals", goals, 2, "open goals"),
        Section("## Open runs", tuple(runs), 2, "open runs"),
        Section("## Open tasks", tasks, 4, "open tasks"),
    ]


def context_markdown(
    report: Mapping[str, Any],
    identity: Sequence[tuple[str, str]],
    memory: str | None,
    runs: Sequence[RunCommit],
    unhashed: frozenset[str] = frozenset(),
    budget: int | None = None,
    tasks: Mapping[str, str] | None = None,
) -> str:
    """The document; ``budget`` (characters) bounds it, None does not;
    ``tasks``: each recent run's task (what it was asked), by run id."""
    head = (
        _line(f"# Agent context: {report['agent_id'] or 'unknown'}"),
        _line(
            f"Restored with git-gasp ({REPORT_FORMAT}); spec version {report['spec_version']}; "
            f"identity {'verified' if report['identity']['verified'] else 'NOT verified'}; "
            f"{report['fold']['events']} events folded."
        ),
    )
    skills = tuple(
        _line(f"- **{s['name']}** — {s['description']} (`{s['path']}`)")
        for s in report["skills"]["loaded"]
    )
    asked = tasks or {}
    recent = tuple(
        _line(
            f"- `{c.run_id}` ({c.date}, "
            + (f"commit {c.commit[:12]}" if c.commit else "finished in the log, no boundary commit")
            + f"): {c.outcome or '-'}"
            + (f" — {asked[c.run_id]}" if asked.get(c.run_id) else "")
        )
        for c in runs
    )
    work = _open_work(report)
    sections = [
        Section("", ("\n\n".join(head),), 0, "", empty=""),
        *_identity(identity, unhashed),
        Section("## Skills", skills, 2, "skills"),
        # the repository's text, quoted: its own headings cannot pass for this document's
        Section("## Active memory", (_fenced(memory),) if memory else (), 2, "", cuttable=True),
        work[0],
        work[1],
        Section("## Recent runs", recent, 3, "recent runs"),
        work[2],
    ]
    text, notes = fit(sections, budget)
    if notes and budget is not None:
        text += "\n" + cut_line(notes, budget) + "\n"
    return text
