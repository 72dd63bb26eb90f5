"""The hook commands: ``hooks install``, ``hooks status``, ``hooks run`` and
``validate``."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from git_gasp import output
from git_gasp.cli.options import ANY_REPO, JSON, GuidedGroup
from git_gasp.core.finding import Judged
from git_gasp.errors import FINDINGS, OK, USAGE, GaspError
from git_gasp.hooks import install as hookinstall
from git_gasp.hooks.dispatch import HOOK_NAMES
from git_gasp.hooks.names import CLIENT_HOOKS, SERVER_HOOKS


def _repo(repo: str | None) -> str:
    return repo or "."


_INSTEAD = {
    "uninstall": (
        "remove git-gasp's hooks with: git gasp hooks install --uninstall "
        "(with --server for a bare repository's)"
    ),
    "remove": "remove git-gasp's hooks with: git gasp hooks install --uninstall",
}


@click.group(cls=GuidedGroup, instead=_INSTEAD)
def hooks() -> None:
    """Enforce GASP at commit and push time: install and run git-gasp's hooks."""


@hooks.command()
@click.option(
    "--uninstall", is_flag=True, help="Remove git-gasp's shims and restore chained hooks."
)
@click.option(
    "--server",
    is_flag=True,
    help="Install the server hooks (pre-receive, post-receive) into a bare repository, "
    "and turn on receive.advertisePushOptions for the audited bypass.",
)
@click.option(
    "--python",
    "python",
    metavar="PATH",
    default=None,
    help="Run hooks with this Python interpreter (absolute path) instead of git-gasp "
    "from PATH, e.g. for GUI clients whose PATH lacks it.",
)
@click.option(
    "--pin",
    is_flag=True,
    help="Pin the interpreter running this command (shorthand for --python "
    "with its absolute path).",
)
@ANY_REPO
@JSON
def install(
    uninstall: bool, server: bool, python: str | None, pin: bool, repo: str | None, as_json: bool
) -> int:
    """Write git-gasp's hook shims into the repository's hooks directory.

    Existing hooks are kept as HOOK.pre-gasp and run first. Refuses when
    core.hooksPath is set.
    """
    from git_gasp import git

    root = _repo(repo)
    names = SERVER_HOOKS if server else CLIENT_HOOKS
    if pin and python is not None:
        raise click.UsageError("--pin and --python both choose the interpreter; give one")
    if pin:
        python = sys.executable
    if python is not None and not os.path.isabs(python):
        raise click.BadParameter(f"{python} is not an absolute path", param_hint="--python")
    if uninstall:
        done = hookinstall.uninstall(root, names)
        verb = "removed"
        listed = done.removed
    else:
        done = hookinstall.install(root, names, python)
        framework = hookinstall.framework_hooks(done)
        if framework:
            output.diag(
                f"warning: {', '.join(framework)} chain the pre-commit framework's hooks: "
                "every change is judged twice if its config uses git-gasp too; use one or "
                "the other (git gasp hooks install --uninstall)"
            )
        if server:
            git.run(root, ["config", "receive.advertisePushOptions", "true"])
        _warn_of_the_other_side(root, server)
        verb = "installed"
        listed = done.hooks
    if as_json:
        value: dict[str, Any] = {
            "format": "git-gasp.hooks/1",
            "hooks_dir": done.hooks_dir,
            "action": "uninstall" if uninstall else "install",
            "hooks": list(listed),
            "chained": list(done.chained),  # kept and run first; on uninstall: restored
        }
        output.data_json(value)
        return OK
    if not listed:
        output.data(
            f"no git-gasp hooks to {'remove' if uninstall else 'install'} in {done.hooks_dir}"
        )
    for hook in listed:
        output.data(f"{verb} {hook} in {done.hooks_dir}")
    for hook in done.chained:
        note = "kept as " + hook + ".pre-gasp and run first" if not uninstall else "restored"
        output.data(f"  existing {hook} hook {note}")
    return OK


def _warn_of_the_other_side(root: str, server: bool) -> None:
    """Server hooks in a work tree's repository, or commit hooks in a bare one:
    installed, but a hook git never runs there."""
    from git_gasp import git

    bare = git.run(root, ["rev-parse", "--is-bare-repository"]).decode().strip() == "true"
    if server and not bare:
        output.diag("warning: not a bare repository; server hooks run only on pushes to it")
    elif bare and not server:
        output.diag(
            "warning: a bare repository: its commit hooks never run (nothing is committed in "
            "it); to judge pushes to it: git gasp hooks install --server"
        )


@hooks.command()
@click.option("--server", is_flag=True, help="Show the server hooks instead of the client hooks.")
@ANY_REPO
@JSON
def status(server: bool, repo: str | None, as_json: bool) -> int:
    """Show which hooks are git-gasp's shims, someone else's, or absent."""
    names = SERVER_HOOKS if server else CLIENT_HOOKS
    found = hookinstall.status(_repo(repo), names)
    if as_json:
        output.data_json({"format": "git-gasp.hooks/1", "hooks": found})
    else:
        for hook, state in found.items():
            output.data(f"{hook:20} {state}")
    return OK


@hooks.command(context_settings={"ignore_unknown_options": True})
@click.argument("hook", type=click.Choice(HOOK_NAMES))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@ANY_REPO
def run(hook: str, args: tuple[str, ...], repo: str | None) -> int:
    """Run one hook now, as git would (what the shims and the pre-commit framework call).

    pre-commit and post-commit take no arguments; prepare-commit-msg takes
    the message file, its source and commit; commit-msg takes the message
    file; post-rewrite takes the command (amend or rebase) and reads git's
    old/new lines on stdin; pre-push takes the remote name and URL and reads
    git's ref lines on stdin; pre-receive and post-receive read git's ref
    lines on stdin. Violations are printed one per line; the exit status is
    1 when the hook rejects.
    """
    from git_gasp.hooks.dispatch import run_hook

    run_hook(_repo(repo), hook, args)
    return OK


@hooks.command(name="merge-driver")
@click.argument("base", type=click.Path(dir_okay=False))
@click.argument("ours", type=click.Path(dir_okay=False))
@click.argument("theirs", type=click.Path(dir_okay=False))
@click.argument("path", required=False, default="")
@click.option(
    "--projection",
    is_flag=True,
    help="The gasp-projection driver (the active memory) instead of gasp-append.",
)
def merge_driver(base: str, ours: str, theirs: str, path: str, projection: bool) -> int:
    """The gasp-append merge driver: git runs it as `%O %A %B %P` for files
    whose merge attribute is gasp-append (the journal).

    When both sides only appended to BASE, OURS becomes ours followed by what
    theirs appended, each side's entries whole; otherwise it is a conflict
    (exit 1) and OURS is left as it was. With --projection (the active
    memory): OURS is kept when all three are git-gasp's, the next fact add
    or run close rewriting it from the merged facts; else a text merge.
    """
    from git_gasp.core.appendonly import merge_appends
    from git_gasp.core.projections import memory_merges_as_ours
    from git_gasp.store.worktree import regular_file

    def read(name: str) -> bytes:
        try:
            data = regular_file(name)
        except OSError as exc:
            raise GaspError(f"{name}: {exc.strerror}", None, USAGE) from None
        if data is None:  # git passes temporary files; /dev/zero would never end
            raise GaspError(f"{name}: not a regular file", "git passes the driver files", USAGE)
        return data

    if projection:
        if memory_merges_as_ours(read(base), read(ours), read(theirs)):
            return OK  # OURS is the result, as it stands
        return _text_merge(base, ours, theirs, path)
    merged = merge_appends(read(base), read(ours), read(theirs))
    if merged is None:
        output.diag(f"gasp: {path or ours}: a side did more than append; resolve it by hand")
        return FINDINGS
    with open(ours, "wb") as fh:
        fh.write(merged)
    return OK


def _text_merge(base: str, ours: str, theirs: str, path: str) -> int:
    """git's own line merge into OURS (conflict markers where the sides
    differ): exit 1 when it left conflicts."""
    from git_gasp import git

    label = path or ours
    args = ["merge-file", "-L", f"ours:{label}", "-L", "base", "-L", f"theirs:{label}"]
    got = git.attempt(".", [*args, "--", ours, base, theirs])
    if got.code < 0 or got.code > 127:
        raise GaspError(f"git merge-file failed on {label}", None, USAGE)
    return OK if got.code == 0 else FINDINGS


@click.command()
@click.argument("rev_range", metavar="[REV-RANGE]", required=False)
@click.option("--staged", is_flag=True, help="Validate the staged index against HEAD instead.")
@click.option("--all", "show_all", is_flag=True, help="Print every finding, none summed up.")
@click.option(
    "--onboard", is_flag=True, help="Judge as history older than the hook (an onboarding push)."
)
@ANY_REPO
@JSON
def validate(
    rev_range: str | None,
    staged: bool,
    show_all: bool,
    onboard: bool,
    repo: str | None,
    as_json: bool,
) -> int:
    """Judge changes with the hooks' validator, without a hook.

    REV-RANGE (default: HEAD) selects commits as git rev-list does, e.g.
    origin/main..HEAD in CI; each is judged against its parents.
    """
    from git_gasp import git
    from git_gasp.hooks import changes
    from git_gasp.hooks.steps import index_step, nested_warning
    from git_gasp.sessions.notecommits import commit_steps

    root = _repo(repo)
    if staged and rev_range is not None:
        raise click.UsageError("--staged judges the index; it takes no REV-RANGE")
    if staged:
        steps = [index_step(root)]
    elif rev_range is None and git.head(root) is None:
        git.repo_info(root)  # not a repository at all: git's error
        steps = []  # no commits yet: nothing to judge
    else:
        try:
            walk = git.commit_walk(root, [rev_range or "HEAD", "--"])
        except git.GitError as exc:
            raise git.GitError(exc.message, git.RANGE_HINT) from None
        steps = commit_steps(root, walk)
    found = changes.judge(root, steps)
    warning = nested_warning(p for s in steps for p in s.paths)
    if warning:
        output.diag(warning)
    what = "staged change" if staged else f"{len(steps)} commit{'s' * (len(steps) != 1)}"
    return _verdict(root, found, (len(steps), what), show_all, onboard, as_json)


def _verdict(
    root: str,
    found: list[Judged],
    changes: tuple[int, str],
    show_all: bool,
    onboard: bool,
    as_json: bool,
) -> int:
    """Print validate's findings by level (git-gasp-validate(1)); its exit code."""
    from git_gasp.core import rules
    from git_gasp.hooks.levels import configured
    from git_gasp.hooks.protocol import warnings_total

    levels = configured(root)
    verdict = rules.weigh(found, levels, onboard)
    if as_json:
        level = {id(j): "error" for j in verdict.errors} | {id(j): "warn" for j in verdict.warnings}
        output.data_json(
            {
                "format": "git-gasp.validate/1",
                "changes": changes[0],
                "ok": not verdict.errors,
                "violations": [
                    {"commit": j.step or None, **j.finding._asdict(), "level": level[id(j)]}
                    for j in found
                    if id(j) in level
                ],
            }
        )
        return FINDINGS if verdict.errors else OK
    from git_gasp.hooks.protocol import report

    for judged_list, warn in ((verdict.errors, False), (verdict.warnings, True)):
        if show_all:
            for judged in judged_list:
                report([judged], sys.stdout, warning=warn)
        else:
            report(judged_list, sys.stdout, warning=warn)
    warnings_total(verdict.warnings, sys.stdout, onboard)
    n = len(verdict.errors)
    output.data(f"{changes[1]}: {'ok' if not n else f'{n} violation' + 's' * (n != 1)}")
    return FINDINGS if verdict.errors else OK
