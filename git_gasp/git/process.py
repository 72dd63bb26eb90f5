"""Starting processes: git itself (:func:`run`, :func:`attempt`) and, for
the hook installer, a Python interpreter. A short git command runs through
:func:`git_gasp.git.spawn.capture`, which needs no :mod:`subprocess` (a hook's
imports stay small); what streams (:func:`run_showing`, the blob readers in
:mod:`git_gasp.git.objects`) uses subprocess, imported where it is used."""

import os
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from git_gasp.errors import USAGE, GaspError
from git_gasp.git.spawn import capture


class GitError(GaspError):
    """git failed or is missing: an environment problem, not a finding."""

    exit_code = USAGE

    def reason(self) -> str:
        """git's message on one line: see :func:`one_line`."""
        return one_line(self.message)

    def __str__(self) -> str:  # in an f-string too: one line (``message`` keeps git's text)
        return self.reason()


_SAID = ("fatal:", "error:")
_MOST_LINES = 3  # of git's message, on git-gasp's one line
_MOST_CHARS = 300


def one_line(text: str) -> str:
    """What git said as one line, its reason kept wherever git put it: its
    ``fatal:``/``error:`` lines without the prefix (what git printed before
    them, such as ``To <remote>`` or a foreign hook's chatter, and the advice
    after them dropped; a list indented under one, such as the paths a
    checkout would overwrite, joined to it), or, when it printed none (a
    hook that refused), its lines but ``hint:`` ones. At most three, joined
    by ``"; "``; control characters are escaped when printed."""
    lines = [raw.rstrip() for raw in text.replace("\r", "\n").splitlines()]
    kept: list[str] = []
    said = any(line.startswith(_SAID) for line in lines)
    under = False  # the line before was one git said (or its indented list)
    for line in lines:
        if said and line.startswith(_SAID):
            kept.append(line.partition(":")[2].strip())
            under = True
        elif said and under and line[:1] in (" ", "\t") and line.strip() and kept:
            kept[-1] += (" " if kept[-1].endswith(":") else ", ") + line.strip()
        else:
            under = False
            if not said and line.strip() and not line.startswith("hint:"):
                kept.append(line.strip())
    unique = [line for n, line in enumerate(kept) if line and line not in kept[:n]]
    more = len(unique) - _MOST_LINES
    joined = "; ".join(unique[:_MOST_LINES]) + (f" (and {more} more lines)" if more > 0 else "")
    if len(joined) > _MOST_CHARS:
        joined = joined[: _MOST_CHARS - 1].rstrip() + "…"
    return joined or "git failed"


def run(
    cwd: str,
    args: Sequence[str],
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    inherit: bool = True,
) -> bytes:
    """Run ``git -C cwd args``; raise :class:`GitError` with git's own message.

    ``env`` adds variables to the inherited environment (or, with
    ``inherit=False``, is the whole environment).
    """
    whole = ({**os.environ, **env} if inherit else dict(env)) if env is not None else None
    code, out, err = _git(cwd, args, stdin, whole)
    if code != 0:
        message = err.decode("utf-8", "replace").strip() or f"git {args[0]} failed"
        raise GitError(message)
    return out


def _git(
    cwd: str, args: Sequence[str], stdin: bytes | None, env: Mapping[str, str] | None
) -> tuple[int, bytes, bytes]:
    try:
        return capture(["git", "-C", cwd, *args], stdin, env)
    except OSError as exc:
        raise GitError(f"git failed to spawn: {exc}", "install git and put it on PATH") from None


def run_showing(cwd: str, args: Sequence[str], env: Mapping[str, str]) -> None:
    """Run ``git -C cwd args`` with ``env`` as its whole environment, its stderr
    passed on to ours as it comes (git's progress on a terminal); raise
    :class:`GitError` with git's ``fatal:``/``error:`` lines when it fails."""
    import subprocess
    import sys

    try:
        proc = subprocess.Popen(
            ["git", "-C", cwd, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=dict(env),
        )
    except OSError as exc:
        raise GitError(f"git failed to spawn: {exc}", "install git and put it on PATH") from None
    assert proc.stderr is not None
    kept = b""
    raw = getattr(sys.stderr, "buffer", None)  # git's bytes as they are, "\r" and all
    while chunk := os.read(proc.stderr.fileno(), 65536):
        kept = (kept + chunk)[-65536:]  # enough for git's last lines
        if raw is not None:
            sys.stderr.flush()
            raw.write(chunk)
            raw.flush()
        else:
            sys.stderr.write(chunk.decode("utf-8", "replace"))
    if proc.wait() != 0:
        lines = kept.decode("utf-8", "replace").replace("\r", "\n").splitlines()
        said = [line for line in lines if line.startswith(("fatal:", "error:"))]
        last = [line for line in lines if line.strip()][-1:]
        raise GitError("\n".join(said or last) or f"git {args[0]} failed")


class Completed(NamedTuple):
    code: int
    out: bytes
    err: bytes


def attempt(
    cwd: str, args: Sequence[str], stdin: bytes | None = None, env: Mapping[str, str] | None = None
) -> Completed:
    """Run ``git -C cwd args`` and return its status and output, whatever
    the status (for commands whose failure is an answer: a rejected push);
    ``env``, when given, is the whole environment."""
    return Completed(*_git(cwd, args, stdin, env))


def maintain(cwd: str) -> None:
    """``git maintenance run --auto --quiet``, which ``git commit`` runs after
    each commit, for a caller that made many commits with
    ``maintenance.auto=false``: once after the last. Its failure is not the
    caller's (``git commit`` ignores it too)."""
    import subprocess

    try:
        args = ["git", "-C", cwd, "maintenance", "run", "--auto", "--quiet"]
        subprocess.run(args, check=False, stdout=subprocess.DEVNULL)
    except OSError:
        pass


def scrubbed_env() -> dict[str, str]:
    """The inherited environment minus every ``GIT_*`` variable, for git
    commands on a repository of our own (never the one GIT_DIR names)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def import_problem(python: str, module: str, cwd: str, safe_path: bool = False) -> str | None:
    """Why interpreter ``python``, started in ``cwd`` (where git runs hooks),
    cannot import ``module`` (it is missing, or the import fails), or None
    when it can. ``safe_path``: as ``python -P`` (3.11+) imports it, with
    ``cwd`` kept off the module path (an interpreter too old for ``-P`` says
    so). Not git, but this module is the one place that starts processes."""
    import subprocess

    try:
        done = subprocess.run(
            [python, *(["-P"] if safe_path else []), "-c", f"import {module}"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=cwd,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"{python} does not run: {why}"
    if safe_path and "Unknown option: -P" in done.stderr:
        return f"{python} is older than Python 3.11, which git-gasp needs (it has no -P)"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"it exits {done.returncode}"]
        return f"{python} cannot import {module}: {lines[-1]}"
    return None
