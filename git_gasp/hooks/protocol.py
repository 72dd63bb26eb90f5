"""What every hook shares: git's input (stdin lines, ``<old> <new> <ref>``
updates, the all-zero id), the report of findings (one line each, or one
per kind when there are many: :mod:`git_gasp.core.findinggroups`), and the
rejection.

Every hook prints its violations to stderr and exits 1 when it rejects, 0
when all is well (silently, unless a rule set to warn found something).
"""

import os
import sys
from collections.abc import Iterable, Sequence
from typing import NamedTuple, TextIO

from git_gasp.core import findinggroups as groups
from git_gasp.core.finding import Finding, Judged
from git_gasp.errors import FINDINGS, GaspError
from git_gasp.output import visible

ZERO = frozenset({"0" * 40, "0" * 64})
RULES_HINT = "git-gasp-hooks(1) lists the rules"


class Rejected(GaspError):
    """A hook that found violations (exit 1); they were already printed."""

    exit_code = FINDINGS


def _line(finding: Finding, prefix: str = "") -> str:
    where = finding.where()
    return f"gasp: {prefix}{where}: [{finding.rule}] {finding.message} (hint: {finding.hint})"


def report(
    findings: Sequence[Judged], out: TextIO, ref: str | None = None, warning: bool = False
) -> None:
    """One line per finding; a kind (rule and hint) with more than a few
    findings is summed up in one line (:mod:`git_gasp.core.findinggroups`)."""
    report_refs([(ref, j) for j in findings], out, warning)


def report_refs(
    found: Sequence[tuple[str | None, Judged]], out: TextIO, warning: bool = False
) -> None:
    """:func:`report` for findings each under its own ref (a push's)."""
    # GitLab shows a pre-receive line in its web UI when it starts GL-HOOK-ERR:
    lead = "GL-HOOK-ERR: " if os.environ.get("GL_ID") and not warning else ""
    kind = "warning: " if warning else ""
    refs = {id(j): ref for ref, j in found}
    for group in groups.group([j for _, j in found]):
        if len(group.items) > groups.SHOWN_ONE_BY_ONE:
            ref = refs[id(group.first)]
            prefix = f"{kind}{ref} " if ref else kind
            out.write(visible(f"{lead}gasp: {prefix}{group.summary()}") + "\n")
            continue
        for judged in group.items:
            ref = refs[id(judged)]
            prefix = f"{kind}{ref} " if ref else kind
            if judged.step:
                prefix += f"{judged.step[:7]} "
            out.write(visible(lead + _line(judged.finding, prefix)) + "\n")


def warnings_total(warnings: Sequence[Judged], out: TextIO, history: bool = False) -> None:
    """The one line after the warnings: how many, per rule, and what they mean."""
    if not warnings:
        return
    counts = ", ".join(f"{n} {rule}" for rule, n in groups.per_rule(warnings).items())
    n = len(warnings)
    why = (
        "history older than the hook (an onboarding push): git-gasp's own rules warn"
        if history
        else "git-gasp's own rules set to warn (git config gasp.rule.<name>)"
    )
    out.write(f"gasp: {n} warning{'s' * (n != 1)} ({counts}), not refused: {why}\n")


def done(findings: Sequence[Judged], what: str, again: str | None = None) -> None:
    """Refuse when there are findings; ``again`` names the command that judges
    the same change again, each finding on its line, before the rules' page."""
    if findings:
        commits = len({j.step for j in findings if j.step})
        where = f" in {commits} commit{'s' * (commits != 1)}" if commits else ""
        n = len(findings)
        hint = f"judge it again with: {again}; {RULES_HINT}" if again else RULES_HINT
        raise Rejected(f"{what}: {n} violation{'s' * (n != 1)}{where}", hint)


class Update(NamedTuple):
    old: str
    new: str
    ref: str


def read_updates(lines: Iterable[str]) -> list[Update]:
    updates = []
    for n, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise GaspError(f"pre-receive input line {n} is not '<old> <new> <ref>': {line!r}")
        updates.append(Update(*fields))
    return updates


def stdin_lines() -> list[str]:
    return sys.stdin.read().splitlines()
