"""Native hook shims: ``git gasp hooks install [--uninstall] [--server]``.

A shim is a small POSIX shell script in the directory ``git rev-parse
--git-path hooks`` names. It carries :data:`MARKER` so it is recognised as
ours; a hook that was there before is kept as ``<hook>.pre-gasp`` and run
first (with the same arguments and, for hooks that read stdin, a copy of
it); uninstalling puts it back. A shim runs ``git-gasp`` from ``PATH``, or
an interpreter pinned at install time (``--python``) for GUI clients whose
``PATH`` lacks it; when neither can be found it fails closed with a message.
It never prompts.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Sequence
from typing import NamedTuple

from git_gasp import git
from git_gasp.errors import USAGE, GaspError
from git_gasp.hooks.bypass import PENDING
from git_gasp.hooks.commitmsg import LOG_PATH, NEEDLES, NO_RUN_END
from git_gasp.hooks.names import SERVER_HOOKS, STDIN_HOOKS
from git_gasp.sessions.pushnotes import MARKERS
from git_gasp.store.mergedriver import RUN_MODULE, configure_merge_driver

MARKER = "# git-gasp hook shim v1"
CHAINED = ".pre-gasp"


class Installed(NamedTuple):
    hooks_dir: str
    hooks: tuple[str, ...]
    chained: tuple[str, ...]  # hooks that were there before and are kept, run first
    removed: tuple[str, ...] = ()


def hooks_dir(repo: str) -> str:
    """The hooks directory git uses, refusing ``core.hooksPath`` (it is shared
    or managed by another tool, so writing there is not ours to do)."""
    configured = git.config_value(repo, "core.hooksPath")
    if configured == os.devnull:
        raise GaspError(
            f"core.hooksPath is {configured}: hooks are turned off in this clone "
            "(git gasp restore does that, so nothing from the remote runs)",
            "to run git-gasp's hooks here: git config --unset core.hooksPath, then run this again",
            USAGE,
        )
    if configured:
        raise GaspError(
            f"core.hooksPath is set ({configured}); git gasp will not write hooks there",
            'add `git-gasp hooks run <hook> "$@"` to the hooks in that directory, '
            "use the pre-commit framework, or unset core.hooksPath",
            USAGE,
        )
    out = git.run(repo, ["rev-parse", "--git-path", "hooks"]).decode().strip()
    return out if os.path.isabs(out) else os.path.abspath(os.path.join(repo, out))


def shim(hook: str, python: str | None) -> str:
    """The shell script installed as ``hook``."""
    if python:
        run = f'{shlex.quote(python)} {RUN_MODULE} hooks run {hook} "$@"'
        gone = shlex.quote(f"{python} is gone")
        missing = f"[ -x {shlex.quote(python)} ] || {{ fail {gone}; }}"
    else:
        run = f'git-gasp hooks run {hook} "$@"'
        missing = 'command -v git-gasp >/dev/null 2>&1 || { fail "git-gasp is not on PATH"; }'
    server = " --server" if hook in SERVER_HOOKS else ""
    fix = f"reinstall with git gasp hooks install{server} --python /path/to/python"
    if not python:
        where = "the server's PATH" if server else "PATH"
        fix = f"put git-gasp on {where}, or {fix}"
    after = hook.startswith("post-")  # runs once the change is made: it refuses nothing
    consequence = "the change itself went through" if after else "fails closed"
    lines = [
        "#!/bin/sh",
        MARKER,
        "# Installed by `git gasp hooks install`; `--uninstall` removes it.",
        "fail() {",
        f'  echo "gasp: $1; the {hook} hook cannot run ({consequence})." >&2',
        f'  echo "gasp: hint: {fix}" >&2',
        "  exit 1",
        "}",
        missing,
        # where the shim lives, as dirname says, without starting it (a process a commit)
        "case $0 in */*) here=${0%/*} ;; *) here=. ;; esac",
        f'chained="$here/{hook}{CHAINED}"',
    ]
    if hook in STDIN_HOOKS:
        lines += [
            'input=$(mktemp "${TMPDIR:-/tmp}/gasp-hook.XXXXXX") || exit 1',
            "trap 'rm -f \"$input\"' EXIT",
            'cat > "$input" || { echo "gasp: cannot save the hook input" >&2; exit 1; }',
            'if [ -x "$chained" ]; then "$chained" "$@" < "$input" || exit $?; fi',
            *_NOTHING_TO_DO.get(hook, []),
            f'{run} < "$input"',
        ]
    else:
        lines += ['if [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi']
        lines += _NOTHING_TO_DO.get(hook, [])
        lines.append(f"exec {run}")
    return "\n".join(lines) + "\n"


#: a grep older than 3.6 prepends $GREP_OPTIONS to its arguments (-x, -m 0:
#: a needle present, yet no match), so the shims drop it before their grep
_NO_GREP_OPTIONS = "unset GREP_OPTIONS"

#: git runs these hooks on every commit, and they usually have nothing to do;
#: the shim then exits before starting Python, on a test that is true
#: whenever the hook would act (it may say "act" when the hook then does
#: nothing): prepare-commit-msg links a session only when $AGENT_SESSION,
#: an active live session or ``git config gasp.session`` names one;
#: commit-msg judges only a message holding one of
#: :data:`~git_gasp.hooks.commitmsg.NEEDLES` (case aside), or a log the
#: pre-commit hook did not see append no run.finished (its note
#: :data:`~git_gasp.hooks.commitmsg.NO_RUN_END`, keyed by both blob ids);
#: post-commit re-attaches notes only when HEAD's message holds one of
#: :data:`~git_gasp.sessions.pushnotes.MARKERS` (case aside); post-receive
#: records a bypass only when pre-receive left its record under
#: ``<git-common-dir>/gasp/bypass-pending/`` (:data:`~git_gasp.hooks.bypass.PENDING`).
#: Any doubt (no message file, git or grep failing) runs the hook.
_NOTHING_TO_DO = {
    "prepare-commit-msg": [
        "# nothing to link unless a session is named (git-gasp-hooks(1))",
        'if [ $# -ge 1 ] && [ -z "${AGENT_SESSION:-}" ]; then',
        "  case $1 in */*) sessions=${1%/*};; *) sessions=.;; esac",
        '  sessions="$sessions/gasp/active-sessions"',
        "  idle=yes",
        '  for f in "$sessions"/*.json "$sessions"/.*.json "$sessions"/.json; do',
        '    [ -e "$f" ] && idle=',
        "  done",
        '  if [ -n "$idle" ]; then',
        "    git config --get gasp.session >/dev/null 2>&1",
        "    [ $? -eq 1 ] && exit 0",
        "  fi",
        "fi",
    ],
    "commit-msg": [
        "# nothing to judge unless the message names a run or a session, or the",
        "# staged log may append a run.finished (git-gasp-hooks(1))",
        _NO_GREP_OPTIONS,
        "nothing_to_judge() {",
        "  LC_ALL=C grep -qiF" + "".join(f" -e {shlex.quote(m)}" for m in NEEDLES) + ' -- "$1"',
        "  [ $? -eq 1 ] || return 1",
        f"  logs=$(printf '%s\\n' :{LOG_PATH} HEAD:{LOG_PATH} | git cat-file --batch-check)"
        " || return 1",
        '  staged=${logs%%"$newline"*} head=${logs#*"$newline"}',
        '  case $staged in *" missing") return 0;; esac',
        '  case $head in *" missing") head=-;; *) head=${head%% *};; esac',
        '  [ "${staged%% *}" = "$head" ] && return 0',
        f'  read -r seen 2>/dev/null < "${{1%/*}}/{NO_RUN_END}" || return 1',
        '  [ "$seen" = "${staged%% *} $head" ]',
        "}",
        "newline='",
        "'",
        'if [ $# -ge 1 ] && nothing_to_judge "$1"; then exit 0; fi',
    ],
    "post-commit": [
        "# nothing to re-attach unless HEAD's message says so (git-gasp-hooks(1))",
        _NO_GREP_OPTIONS,
        "{ git cat-file commit HEAD 2>/dev/null || echo run-id; } |",
        "  LC_ALL=C grep -qiF" + "".join(f" -e {shlex.quote(m)}" for m in MARKERS),
        "[ $? -eq 1 ] && exit 0",
    ],
    "post-receive": [
        "# nothing to record unless pre-receive left a bypass record (git-gasp-hooks(1))",
        "if common=$(git rev-parse --git-common-dir 2>/dev/null); then",
        "  idle=yes",
        f'  for f in "$common/gasp/{PENDING}"/*.json; do',
        '    [ -e "$f" ] && idle=',
        "  done",
        '  [ -n "$idle" ] && exit 0',
        "fi",
    ],
}


def is_ours(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return MARKER.encode() in fh.read(4096)
    except OSError:
        return False


def interpreter_problem(python: str, repo: str, hooks: Sequence[str]) -> str | None:
    """Why ``python`` cannot run ``repo``'s ``hooks`` (it is missing, or
    cannot import git_gasp from where git runs them), or None when it can."""
    return git.import_problem(python, "git_gasp", hook_cwd(repo, hooks), safe_path=True)


def hook_cwd(repo: str, hooks: Sequence[str]) -> str:
    """Where git runs ``hooks``: a push's (pre-receive, post-receive) in the
    git directory; the others at the top of the work tree (of a bare
    repository: in its git directory)."""
    if any(hook in SERVER_HOOKS for hook in hooks):
        return git.repo_info(repo).git_dir
    try:
        top = git.run(repo, ["rev-parse", "--show-toplevel"]).decode().strip()
    except git.GitError:  # a bare repository
        top = ""
    return top or git.repo_info(repo).git_dir


def pinned_interpreter(path: str) -> str | None:
    """The interpreter a shim of ours runs (None: ``git-gasp`` on PATH)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return None
    for line in text.splitlines():
        if " -m git_gasp hooks run " in line:
            words = shlex.split(line)
            return words[1] if words[0] == "exec" else words[0]
    return None


def install(repo: str, hooks: Sequence[str], python: str | None) -> Installed:
    if python is not None:
        problem = interpreter_problem(python, repo, hooks)
        if problem is not None:  # hooks that would refuse every commit: not installed
            fix = (
                "name a Python 3.11 or newer that has git-gasp: --python /path/to/python3"
                if "older than Python 3.11" in problem
                else f"install git-gasp for it ({python} -m pip install git-gasp, or from a "
                "checkout), or name one that has it with --python"
            )
            raise GaspError(problem, fix, USAGE)
    directory = hooks_dir(repo)
    configure_merge_driver(repo, python)
    os.makedirs(directory, exist_ok=True)
    chained = []
    for hook in hooks:
        path = os.path.join(directory, hook)
        if os.path.lexists(path) and not is_ours(path):
            kept = path + CHAINED
            if os.path.lexists(kept):
                raise GaspError(
                    f"{path} is not a git-gasp shim and {kept} already exists",
                    "merge them by hand, then run git gasp hooks install again",
                    USAGE,
                )
            os.rename(path, kept)
            chained.append(hook)
        elif os.path.lexists(path + CHAINED):
            chained.append(hook)
        tmp = path + ".gasp-tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(shim(hook, python))
        os.chmod(tmp, os.stat(tmp).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        os.replace(tmp, path)
    return Installed(directory, tuple(hooks), tuple(chained))


def framework_hooks(done: Installed) -> list[str]:
    """The chained hooks the pre-commit framework wrote (its template says so)."""
    found = []
    for hook in done.chained:
        try:
            with open(os.path.join(done.hooks_dir, hook + CHAINED), "rb") as fh:
                head = fh.read(512)
        except OSError:
            continue
        if b"File generated by pre-commit" in head:
            found.append(hook)
    return found


def uninstall(repo: str, hooks: Sequence[str]) -> Installed:
    directory = hooks_dir(repo)
    removed, restored = [], []
    for hook in hooks:
        path = os.path.join(directory, hook)
        if not is_ours(path):
            continue
        os.unlink(path)
        removed.append(hook)
        if os.path.lexists(path + CHAINED):
            os.rename(path + CHAINED, path)
            restored.append(hook)
    return Installed(directory, (), tuple(restored), tuple(removed))


def _text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def status(repo: str, hooks: Sequence[str]) -> dict[str, str]:
    """Each hook: ``gasp`` (our shim), ``gasp+chained``, ``broken`` (our shim,
    whose pinned interpreter cannot run git-gasp), ``outdated`` (our shim as
    an older git-gasp wrote it), ``other``, ``absent``, or ``hooksPath`` when
    ``core.hooksPath`` sends git elsewhere."""
    git.repo_info(repo)  # not a repository: git's error
    if git.config_value(repo, "core.hooksPath"):
        return {hook: "hooksPath" for hook in hooks}
    directory = hooks_dir(repo)
    out = {}
    broken: dict[str, bool] = {}
    for hook in hooks:
        path = os.path.join(directory, hook)
        if is_ours(path):
            python = pinned_interpreter(path)
            if python is not None and python not in broken:
                broken[python] = interpreter_problem(python, repo, [hook]) is not None
            if python is not None and broken[python]:
                out[hook] = "broken"  # its interpreter cannot run git-gasp: it refuses all
            elif _text(path) != shim(hook, python):
                out[hook] = "outdated"  # an older git-gasp wrote it: it works, more slowly
            else:
                out[hook] = "gasp+chained" if os.path.lexists(path + CHAINED) else "gasp"
        else:
            out[hook] = "other" if os.path.lexists(path) else "absent"
    return out
