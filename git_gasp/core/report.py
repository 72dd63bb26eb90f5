"""Check reports: the seven checks' names, verdicts and the rendered report."""

from typing import Any, NamedTuple

CHECK_NAMES = {
    1: "envelope round-trip",
    2: "replay",
    3: "vocabulary",
    4: "append-only in git",
    5: "causation integrity",
    6: "restore",
    7: "domain↔ops consistency",
}
REPORT_FORMAT = "git-gasp.check/1"
# the fold semantics every verdict is computed with (REFERENCE §2.4, §11.14)
FOLD_SEMANTICS = "yoagent-state 0.5.2+ (lenient; skipped ops not counted)"


class CheckReport(NamedTuple):
    number: int
    failures: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return CHECK_NAMES[self.number]

    @property
    def passed(self) -> bool:
        return not self.failures


def failed(number: int, reason: str) -> CheckReport:
    return CheckReport(number, (reason,))


def render_text(reports: list[CheckReport], header: str) -> str:
    """The reference checker's output format, line for line."""
    out = [header]
    for report in reports:
        mark = "PASS" if report.passed else "FAIL"
        out.append(f"[{mark}] check {report.number} — {report.name}")
        out.extend(f"       note: {note}" for note in report.notes)
        out.extend(f"       {failure}" for failure in report.failures)
    if all(r.passed for r in reports):
        out.append("conformant: all checks passed")
    return "\n".join(out) + "\n"


def render_json(reports: list[CheckReport], repo: str, fixture: bool) -> dict[str, Any]:
    """The stable ``--json`` report (format ``git-gasp.check/1``, see git-gasp-check(1))."""
    return {
        "format": REPORT_FORMAT,
        "repo": repo,
        "fixture_facts": fixture,
        "fold": FOLD_SEMANTICS,
        "conformant": all(r.passed for r in reports),
        "checks": [
            {
                "number": r.number,
                "name": r.name,
                "passed": r.passed,
                "failures": list(r.failures),
                "notes": list(r.notes),
            }
            for r in reports
        ],
    }
