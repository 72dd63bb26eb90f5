"""Runs in the commit history: the ``git log`` format that asks git for the
boundary trailers (REFERENCE §8), and the pure parsing and rendering of its
output.

git itself parses the trailers, so they are read as git reads them: only the
final trailer block of a message counts, keys match case-insensitively, and
folded values are unfolded. A commit is a run when that block has a
``Run-Id`` trailer; if a key repeats, the first value is the run's (a
boundary commit carries exactly one of each) and every ``Agent-Session``
value is kept.
"""

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, NamedTuple

RUNS_FORMAT = "git-gasp.runs/1"
TRAILER_KEYS = ("Run-Id", "Goal", "Outcome", "Agent-Session")
_FIELD = "\x00"  # between the fields of one commit
_VALUE = "\x1f"  # between the values of one trailer key
_RECORD = "\x1e"  # after each commit

#: ``git log --format=`` for :func:`parse_run_log`: commit, subject, strict
#: ISO author date, then each key's trailer values.
LOG_FORMAT = (
    "%H%x00%s%x00%aI"
    + "".join(f"%x00%(trailers:key={k},valueonly,unfold,separator=%x1f)" for k in TRAILER_KEYS)
    + "%x1e"
)


class RunCommit(NamedTuple):
    commit: str
    run_id: str
    goal: str | None
    outcome: str | None
    sessions: tuple[str, ...]
    subject: str
    date: str  # author date, strict ISO 8601


class RunLogError(ValueError):
    """Output that is not what :data:`LOG_FORMAT` produces."""


def _values(field: str) -> list[str]:
    return [v for v in field.split(_VALUE) if v]


def parse_run_log(text: str) -> list[RunCommit]:
    """The runs in ``git log --format=LOG_FORMAT`` output, in log order;
    commits without a ``Run-Id`` trailer are left out."""
    runs: list[RunCommit] = []
    for record in text.split(_RECORD):
        record = record.lstrip("\n")
        if not record:
            continue
        fields = record.split(_FIELD)
        if len(fields) != 3 + len(TRAILER_KEYS):
            raise RunLogError(f"unexpected git log record: {record[:80]!r}")
        commit, subject, date, run_ids, goals, outcomes, sessions = fields
        ids = _values(run_ids)
        if not ids:
            continue
        goal, outcome = _values(goals), _values(outcomes)
        runs.append(
            RunCommit(
                commit,
                ids[0],
                goal[0] if goal else None,
                outcome[0] if outcome else None,
                tuple(_values(sessions)),
                subject,
                date,
            )
        )
    return runs


NOT_IN_LOG = "(not in the log)"


def runs_to_value(
    rev_range: str, runs: Sequence[RunCommit], unknown: Collection[str] = ()
) -> dict[str, Any]:
    """The ``--json`` document; ``in_log`` is false for a run the log lacks."""
    listed = [{**r._asdict(), "in_log": r.run_id not in unknown} for r in runs]
    return {"format": RUNS_FORMAT, "range": rev_range, "runs": listed}


def select_runs(
    runs: Sequence[RunCommit],
    goal: str | None = None,
    outcome: str | None = None,
    limit: int | None = None,
    titles: Mapping[str, str] | None = None,
) -> list[RunCommit]:
    """The runs whose goal is ``goal`` (its id, or a word of its title, any
    case) and whose outcome is ``outcome`` (any case), the first ``limit``."""
    titles = titles or {}
    wanted = goal.lower() if goal else None
    found: list[RunCommit] = []
    for r in runs:
        if limit is not None and len(found) >= limit:
            break
        if outcome is not None and (r.outcome or "").lower() != outcome.lower():
            continue
        if wanted is not None and r.goal != goal:
            if wanted not in titles.get(r.goal or "", "").lower():
                continue
        found.append(r)
    return found


def missing_runs(runs: Sequence[RunCommit], log: bytes) -> set[str]:
    """The run ids of ``runs`` that ``log`` (the newest run commit's, which
    holds every earlier line) never names as a JSON string.

    "Names" is "holds the bytes of ``json.dumps(run_id)``". For an id whose
    JSON has no quote inside, that is: some bytes between two consecutive
    quotes of the log are its JSON's inside, so the log is read once for all
    of them (not once per run: hundreds of runs over a log of megabytes)."""
    needles = {r.run_id: json.dumps(r.run_id).encode("utf-8")[1:-1] for r in runs}
    plain = {inside for inside in needles.values() if b'"' not in inside}
    found = _between_quotes(log, plain)
    return {
        run_id
        for run_id, inside in needles.items()
        if (inside not in found if inside in plain else b'"' + inside + b'"' not in log)
    }


def _between_quotes(log: bytes, wanted: set[bytes], step: int = 1 << 20) -> set[bytes]:
    """The members of ``wanted`` that some bytes between two consecutive
    double quotes of ``log`` equal, the log split about ``step`` bytes at a
    time (each piece from a quote to a quote, so no pair of quotes is cut)."""
    found: set[bytes] = set()
    start = log.find(b'"')
    while start != -1 and len(found) < len(wanted):
        end = log.find(b'"', start + step) if start + step < len(log) else -1
        piece = log[start : end + 1] if end != -1 else log[start:]
        found |= wanted.intersection(piece.split(b'"')[1:-1])
        start = end
    return found


def _plain(text: str, style: str) -> str:
    return text


def runs_to_text(
    runs: Sequence[RunCommit],
    titles: Mapping[str, str] | None = None,
    paint: Callable[[str, str], str] = _plain,
    tone: Callable[[str | None], str] | None = None,
    unknown: Collection[str] = (),
) -> str:
    """One line per run: commit, date, run id, goal (its title when
    ``titles`` has it), outcome, and a mark for a run the log lacks (a trailer
    naming no run); sessions indented below."""
    lines: list[str] = []
    for r in runs:
        goal = r.goal or "-"
        if titles and r.goal is not None and r.goal in titles:
            title = " ".join(titles[r.goal].split())
            goal = title if len(title) <= 32 else title[:31] + "…"
        outcome = r.outcome or "-"
        if tone is not None:
            outcome = paint(outcome, tone(r.outcome))
        mark = f"  {paint(NOT_IN_LOG, 'bad')}" if r.run_id in unknown else ""
        lines.append(
            f"{paint(r.commit[:12], 'warn')}  {r.date}  {r.run_id}  {goal}  {outcome}{mark}"
        )
        lines.extend(f"    session {s}" for s in r.sessions)
    return "\n".join(lines)


def logged_runs(log: bytes) -> set[str]:
    """The run ids the ``run.started`` events of ``log`` name (one or more
    logs one after another). Only lines holding that text or a ``\\u``
    escape are parsed; a line that is no event counts nothing."""
    # here, not at the top: the hooks import this module, and these two
    # modules are no part of what a hook needs (test_hook_entry)
    from git_gasp.core.log import parse_log
    from git_gasp.core.resume import RUN_STARTED, run_id_of

    wanted = [line for line in log.split(b"\n") if b'"run.started"' in line or b"\\u" in line]
    events = parse_log(b"\n".join(wanted)).events if wanted else ()
    found = {run_id_of(e) for e in events if e.kind == RUN_STARTED}
    return {r for r in found if r is not None}


def unclosed_note(count: int) -> str:
    """What ``runs`` adds when no commit is a run but the log records
    ``count`` runs: a history seeded or imported in bulk (hundreds of events
    in one commit) has no boundary commits, and is not empty."""
    return (
        f": no commit there has a Run-Id trailer, though its log records {count} "
        f"run{'' if count == 1 else 's'} (written without boundary commits, e.g. in one seed "
        "commit); `git gasp nodes --kind run` lists them"
    )
