"""Running one short command and collecting its output, without :mod:`subprocess`.

A hook starts a few short git processes on every commit and push. Importing
:mod:`subprocess` brings in :mod:`locale`, :mod:`threading` and :mod:`selectors`
as well, and that import cost a pre-commit hook about a twentieth of its time
(benchmarks, row m). :func:`capture` does what ``subprocess.run(argv,
input=..., capture_output=True)`` does for such a command. It starts the
process with :func:`os.posix_spawnp` and feeds its pipes in one :mod:`select`
poll loop. As with subprocess, the child gets SIGPIPE and SIGXFSZ back at their
defaults (Python ignores both), inherits no descriptor but its three standard
ones, and inherits our stdin when it is given none. The long-lived
``cat-file`` readers and anything that streams still use subprocess.
"""

from __future__ import annotations

import os
import select
import signal
from collections.abc import Mapping, Sequence

_CHUNK = 1 << 16
_RESET = tuple(getattr(signal, n) for n in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(signal, n))
_hidden = False  # whether inherited descriptors were made non-inheritable


def capture(
    argv: Sequence[str], stdin: bytes | None = None, env: Mapping[str, str] | None = None
) -> tuple[int, bytes, bytes]:
    """``(exit status, stdout, stderr)`` of ``argv`` run to its end, given
    ``stdin`` (None: our own stdin); ``env``: its whole environment (None: ours).
    A status below 0 is the signal that ended it, as subprocess reports it.
    OSError when it cannot be started (not found, not executable)."""
    _hide_inherited()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if stdin is not None else (-1, -1)
    actions = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    if stdin is not None:
        actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
    try:
        pid = os.posix_spawnp(
            argv[0],
            list(argv),
            os.environ if env is None else env,
            file_actions=actions,
            setsigdef=_RESET,
        )
    except BaseException:
        for fd in (out_r, out_w, err_r, err_w, in_r, in_w):
            if fd >= 0:
                os.close(fd)
        raise
    for fd in (out_w, err_w, in_r):
        if fd >= 0:
            os.close(fd)
    try:
        out, err = _pump(out_r, err_r, in_w, stdin or b"")
    except BaseException:
        os.kill(pid, signal.SIGKILL)  # interrupted: leave no git running, as subprocess
        os.waitpid(pid, 0)
        raise
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out, err


def _pump(out_r: int, err_r: int, in_w: int, data: bytes) -> tuple[bytes, bytes]:
    """Write ``data`` to ``in_w`` (then close it) while reading both outputs to
    their ends: neither side can fill a pipe and wait for the other."""
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    poller = select.poll()
    poller.register(out_r, select.POLLIN)
    poller.register(err_r, select.POLLIN)
    view, written = memoryview(data), 0
    if in_w >= 0:
        if data:
            os.set_blocking(in_w, False)
            poller.register(in_w, select.POLLOUT)
        else:
            os.close(in_w)
            in_w = -1
    open_fds = len(chunks) + (in_w >= 0)
    try:
        while open_fds:
            for fd, _ in poller.poll():
                if fd == in_w:
                    try:
                        written += os.write(in_w, view[written : written + _CHUNK])
                    except BrokenPipeError:  # it stopped reading: what it said still counts
                        written = len(view)
                    if written >= len(view):
                        poller.unregister(in_w)
                        os.close(in_w)
                        in_w, open_fds = -1, open_fds - 1
                    continue
                chunk = os.read(fd, _CHUNK)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    poller.unregister(fd)
                    open_fds -= 1
    finally:
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                os.close(fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _hide_inherited() -> None:
    """Make the descriptors this process inherited (beyond 0-2) non-inheritable,
    once: subprocess closes them in its children, posix_spawn would pass them on.
    Descriptors Python opens are non-inheritable already (PEP 446)."""
    global _hidden
    if _hidden:
        return
    _hidden = True
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            fd = int(name) if name.isdigit() else -1
            if fd > 2:
                try:
                    os.set_inheritable(fd, False)
                except OSError:
                    pass  # the listing's own descriptor, closed meanwhile
        return
