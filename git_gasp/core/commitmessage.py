"""A commit message's trailers: a boundary commit names its run in
``Run-Id``, ``Goal`` and ``Outcome``; a ``Run-Id`` names a run the staged
log holds; ``Agent-Session`` values follow the grammar and carry no
credentials.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from git_gasp.core.event import Event
from git_gasp.core.finding import Finding
from git_gasp.core.secrets import find_secrets

if TYPE_CHECKING:
    from git_gasp.core.trailers import Trailer

SQUASHED = "Squashed commit of the following:"  # how git merge --squash starts its message


def trailer_findings(message: str, events: Iterable[Event], where: str) -> list[Finding]:
    """A commit that appends one ``run.finished`` (a boundary commit) carries
    exactly one ``Run-Id``, ``Goal`` and ``Outcome`` trailer naming that run
    and its outcome (in the final trailer block, as git parses it); every
    ``Agent-Session`` value follows the grammar. A commit that appends several
    runs' ends, or carries git's squash message, is a squash of boundary
    commits and is not held to the one-run rule. ``where`` names the message."""
    from git_gasp.core.trailers import parse_trailers

    trailers = parse_trailers(message)
    out = _session_findings(trailers, where)
    finished = [e for e in events if e.kind == "run.finished"]
    if len(finished) != 1 or SQUASHED in message:
        # none: not a boundary commit; several, or git's squash message: a squash
        # of boundary commits, whose runs the post-commit hook links by notes
        return out
    return out + _run_findings(trailers, finished[0], where)


RUN_EDGES = ("run.started", "run.finished")


def run_id_findings(
    message: str, appended: Iterable[Event], log: bytes, where: str
) -> list[Finding]:
    """Every ``Run-Id`` trailer names a run that the commit's ``appended``
    events start or finish, or that the staged ``log`` (the whole file)
    starts or finishes: an amend, a cherry-picked boundary commit, a close
    whose events an earlier commit took. A trailer naming no run would list
    a run no log holds (``git gasp runs`` marks it); the finding says which
    runs the log does hold. Git-gasp's own rule ``run-id``."""
    from git_gasp.core.trailers import parse_trailers, values

    named = [v.strip() for v in values(parse_trailers(message), "Run-Id")]
    if not named:
        return []
    here = _runs_of(appended)
    out: list[Finding] = []
    for run in named:
        if run in here or holds_run(log, run):
            continue
        message_ = (
            f"Run-Id {run!r} names no run the staged log starts or finishes ({_held(here, log)})"
        )
        hint = (
            "commit without the trailer; a run's boundary commit, trailers and all, "
            "comes from: git gasp run close --outcome TEXT"
        )
        out.append(Finding(where, None, "run-id", message_, hint))
    return out


def holds_run(log: bytes, run: str) -> bool:
    """``log`` has a ``run.started`` or ``run.finished`` of ``run`` (only the
    lines that name it as a JSON string are parsed)."""
    from git_gasp.core.log import parse_log

    needles = {json.dumps(run).encode(), json.dumps(run, ensure_ascii=False).encode()}
    if not any(n in log for n in needles):
        return False
    lines = [line for line in log.split(b"\n") if any(n in line for n in needles)]
    return run in _runs_of(parse_log(b"\n".join(lines) + b"\n").events)


def runs_held(log: bytes) -> list[str]:
    """The runs ``log`` starts or finishes, in the order it first names them."""
    from git_gasp.core.log import parse_log

    lines = [line for line in log.split(b"\n") if b'"run.' in line]
    return _runs_of(parse_log(b"\n".join(lines) + b"\n").events)


def _held(here: Sequence[str], log: bytes) -> str:
    """Which runs the staged log holds, for a refusal's message."""
    if here:
        return "this commit's log lines start or finish " + ", ".join(here)
    held = runs_held(log)
    if not held:
        return "the staged log holds no run"
    if len(held) == 1:
        return f"the staged log holds one run, {held[0]}; this commit adds to none"
    return f"the staged log holds {len(held)} runs, the newest {held[-1]}; this commit adds to none"


def _runs_of(events: Iterable[Event]) -> list[str]:
    out: list[str] = []
    for event in events:
        if event.kind in RUN_EDGES:
            run = _payload_str(event, "run_id")
            if run is not None and run not in out:
                out.append(run)
    return out


def _session_findings(trailers: Sequence[Trailer], where: str) -> list[Finding]:
    """Session trailers carry no credentials; ``Agent-Session`` values follow
    the grammar."""
    from git_gasp.core.trailers import SESSION_TRAILER_KEYS, is_session_ref, values

    out: list[Finding] = []
    for trailer in trailers:
        if trailer.key.lower() not in SESSION_TRAILER_KEYS:
            continue
        secrets = find_secrets(trailer.value)
        if secrets:
            out.append(
                Finding(
                    where,
                    None,
                    "trailer",
                    f"{trailer.key} looks like it holds {secrets[0].label} ({secrets[0].preview})",
                    "a session trailer names the session only; reword the commit "
                    "(git commit --amend) and revoke the credential",
                )
            )
    for value in values(trailers, "Agent-Session"):
        if not is_session_ref(value):
            out.append(
                Finding(
                    where,
                    None,
                    "trailer",
                    f"Agent-Session {value!r} is not "
                    "<agent>:[<namespace>:]<sessionId>[#<recordRef>]",
                    "name the session, not a URL (Agent-Session-Url may carry a link)",
                )
            )
    return out


def _run_findings(trailers: Sequence[Trailer], event: Event, where: str) -> list[Finding]:
    """A boundary commit's ``Run-Id``, ``Goal`` and ``Outcome`` trailers, one
    each, naming the run and outcome of its ``run.finished`` ``event``."""
    from git_gasp.core.trailers import values

    out: list[Finding] = []
    hint = "close runs with: git gasp run close --outcome TEXT (it writes these trailers)"
    expected = {
        "Run-Id": _payload_str(event, "run_id"),
        "Goal": None,
        "Outcome": _payload_str(event, "outcome"),
    }
    for key, want in expected.items():
        got = values(trailers, key)
        if len(got) != 1:
            message_ = (
                f"the commit closes run {expected['Run-Id']} and needs exactly one {key} "
                f"trailer (found {len(got)})"
            )
            out.append(Finding(where, None, "trailer", message_, hint))
        elif want is not None and _norm(got[0]) != _norm(want):
            message_ = f"{key} trailer is {got[0]!r} but the run.finished event says {want!r}"
            out.append(Finding(where, None, "trailer", message_, hint))
    return out


def _payload_str(event: Event, key: str) -> str | None:
    value = event.payload.get(key) if isinstance(event.payload, dict) else None
    return value if isinstance(value, str) else None


def _norm(text: str) -> str:
    return " ".join(text.split())
