"""A commit message's trailers: a boundary commit names its run in
``Run-Id``, ``Goal`` and ``Outcome``; ``Agent-Session`` values follow the
grammar and carry no credentials.
"""

from __future__ import annotations

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
