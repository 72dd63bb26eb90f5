"""What every hook shares: git's input (stdin lines, ``<old> <new> <ref>``
updates, the all-zero id), one report line per finding, and the rejection.

Every hook prints one line per violation to stderr and exits 1 when it
rejects, 0 when all is well (silently).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import NamedTuple, TextIO

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


def report(findings: Sequence[Judged], out: TextIO, ref: str | None = None) -> None:
    # GitLab shows a pre-receive line in its web UI when it starts GL-HOOK-ERR:
    lead = "GL-HOOK-ERR: " if os.environ.get("GL_ID") else ""
    for judged in findings:
        prefix = f"{ref} " if ref else ""
        if judged.step:
            prefix += f"{judged.step[:7]} "
        out.write(visible(lead + _line(judged.finding, prefix)) + "\n")


def done(findings: Sequence[Judged], what: str) -> None:
    if findings:
        commits = len({j.step for j in findings if j.step})
        where = f" in {commits} commit{'s' * (commits != 1)}" if commits else ""
        n = len(findings)
        raise Rejected(f"{what}: {n} violation{'s' * (n != 1)}{where}", RULES_HINT)


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
