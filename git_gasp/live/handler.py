"""``git-gasp adapt hook claude-code|codex --repo R``: the hook handler's fast path.

:func:`git_gasp.entry.main` sends this shape here without loading click or
the command line: the handler runs on every tool call of the agent, so it
imports almost nothing (``os``, ``sys``, ``time``; ``json`` only when a
payload's ``session_id`` cannot be read with a plain byte search).

Whatever happens it prints nothing and exits 0 (adapters.md §1.4: exit 2
would block the agent, stdout would enter the model's context); an internal
error goes to ``errors.log`` (:mod:`~git_gasp.live.spool`), which ``git gasp
adapt status`` shows. The payload is spooled as is; then:

- ``SessionStart``: the session is recorded as active (for commit linkage),
  the rehydration document is printed in the hook protocol's form
  (:mod:`~git_gasp.live.rehydrate`), and a detached flush closes any older
  session of the same workspace still open (the lazy close);
- ``Stop``, ``SubagentStop``: a detached ``adapt flush --session ID``
  projects the spool and the transcript's new lines;
- ``SessionEnd``: the same with ``--close`` (the boundary commit).

Detached means a new session with its standard streams on ``/dev/null``, so
the agent never waits for it. ``GASP_LIVE_FLUSH=off`` spools only.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

from git_gasp.live import spool

FLUSHED_AT = ("Stop", "SubagentStop")
CLOSED_AT = ("SessionEnd",)


def main(argv: Sequence[str]) -> int:
    """``argv`` is ``adapt hook HARNESS [--repo R]``; always returns 0."""
    started = time.monotonic()  # a session start's wait counts from here
    harness, event, live = "?", None, None
    try:
        harness, repo = _arguments(argv)
        live = spool.live_dir(repo)
        data = sys.stdin.buffer.read()
        event = field(data, b"hook_event_name")
        session = field(data, b"session_id")
        spool.write_payload(live, harness, session, data)
        _after(repo, harness, event, session, data, started)
    except BaseException as exc:  # nothing may reach the agent
        if live is None:
            live = _fallback_live(argv)
        if live is not None:
            spool.log_error(live, harness, event, f"{type(exc).__name__}: {exc}")
    return 0


def _arguments(argv: Sequence[str]) -> tuple[str, str]:
    args = list(argv[2:])
    if not args or args[0] not in spool.HARNESSES:
        raise ValueError(f"adapt hook takes one of {', '.join(spool.HARNESSES)}, not {args[:1]}")
    harness, rest = args[0], args[1:]
    repo = "."
    while rest:
        arg = rest.pop(0)
        if arg == "--repo" and rest:
            repo = rest.pop(0)
        elif arg.startswith("--repo="):
            repo = arg[len("--repo=") :]
        else:
            raise ValueError(f"adapt hook: unexpected argument {arg!r}")
    return harness, os.path.abspath(repo)


def _fallback_live(argv: Sequence[str]) -> str | None:
    """Where to log when the arguments themselves were the trouble."""
    try:
        args = list(argv)
        repo = args[args.index("--repo") + 1] if "--repo" in args else "."
        return spool.live_dir(os.path.abspath(repo))
    except (ValueError, IndexError, OSError):
        return None


def field(data: bytes, key: bytes) -> str | None:
    """A top-level string field of the payload: a byte search when the key
    occurs once, before any nested object, with a plain value; else JSON."""
    token = b'"' + key + b'"'
    at = data.find(token)
    if at < 0:
        return None
    first = data.find(b"{")
    nested = data.find(b"{", first + 1)
    if data.count(token) == 1 and not 0 <= nested < at:
        i = at + len(token)
        while data[i : i + 1] in (b" ", b"\t", b"\r", b"\n"):
            i += 1
        if data[i : i + 1] == b":":
            i += 1
            while data[i : i + 1] in (b" ", b"\t", b"\r", b"\n"):
                i += 1
            if data[i : i + 1] == b'"':
                end = data.find(b'"', i + 1)
                value = data[i + 1 : end]
                if end > 0 and b"\\" not in value:
                    return value.decode("utf-8", "replace")
    return _json_field(data, key.decode())


def _json_field(data: bytes, key: str) -> str | None:
    import json

    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def _after(
    repo: str, harness: str, event: str | None, session: str | None, data: bytes, started: float
) -> None:
    """What an event does once its payload is spooled."""
    flush = os.environ.get("GASP_LIVE_FLUSH", "") != "off"
    if event == "SessionStart":
        from git_gasp.live import rehydrate

        text = rehydrate.session_start(repo, harness, data, started + rehydrate.WAIT)
        if text:  # bytes: the locale's encoding may not be UTF-8
            sys.stdout.buffer.write(text.encode("utf-8"))
            sys.stdout.buffer.flush()
        if flush:
            detach(["adapt", "flush", "--repo", repo])
    elif flush and session and event in FLUSHED_AT:
        detach(["adapt", "flush", "--repo", repo, "--session", session])
    elif flush and session and event in CLOSED_AT:
        detach(["adapt", "flush", "--repo", repo, "--session", session, "--close"])


def detach(args: Sequence[str]) -> None:
    """Run ``python -P -m git_gasp ARGS`` detached (:func:`spool.in_background`):
    ``-P``, so that a ``git_gasp/`` folder in the project the agent works in
    (this process's directory) cannot stand in for the installed package."""
    argv = [sys.executable, "-P", "-m", "git_gasp", *args]
    spool.in_background(lambda: os.execv(sys.executable, argv))
