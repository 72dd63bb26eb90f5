"""What every command shares: the common options and how a command finds its repository."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from git_gasp import git, output
from git_gasp.errors import USAGE, GaspError
from git_gasp.store.worktree import refuse_escapes

_F = TypeVar("_F", bound=Callable[..., Any])

PATH = click.argument("path", required=False, type=click.Path(file_okay=False))
WORKER = click.option(
    "--worker",
    metavar="ID",
    envvar="GASP_WORKER_ID",
    help="Worker id holding the lease (default: $GASP_WORKER_ID, else this clone's own id).",
)
JSON = click.option(
    "--json", "as_json", is_flag=True, help="Print a JSON document instead of text."
)


def repo_option(help: str, exists: bool = True) -> Callable[[_F], _F]:
    """``-C``/``--repo PATH``, a directory (``exists``: one that is there)."""
    path = click.Path(exists=exists, file_okay=False)
    return click.option("-C", "--repo", "repo", metavar="PATH", type=path, help=help)


REPO = repo_option("The agent repository (default: the current one).")


class GuidedGroup(click.Group):
    """A group that answers a command a user guesses but it does not have
    (``hooks uninstall``, ``adapt install``) with the command that does it:
    ``instead`` maps the name to that hint (click's "Did you mean 'install'?"
    named the opposite, or nothing that works)."""

    def __init__(self, *args: Any, instead: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.instead = instead

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] in self.instead and self.get_command(ctx, args[0]) is None:
            name = f"{ctx.command_path} {args[0]}".replace("git-gasp", "git gasp", 1)
            raise GaspError(f"no command `{name}`", self.instead[args[0]], USAGE)
        return super().resolve_command(ctx, args)


#: ``-C`` of the commands that read or judge any repository (a code
#: repository, a server's bare one), not only an agent repository
ANY_REPO = repo_option("The repository (a work tree or a bare one; default: the current one).")


def not_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A directory argument that names something: ``""`` is refused (exit 2)."""
    if value is not None and not value.strip():
        raise click.BadParameter("is empty; name a directory", ctx, param)
    return value


def repo_root(repo: str | None) -> str:
    """:func:`agent_root`, for a command that reads or writes the agent's
    work tree: a bare repository is refused, naming how to get one."""
    root = agent_root(repo)
    refuse_bare(root)
    return root


def refuse_bare(root: str) -> None:
    """A bare repository has no work tree to hold an agent's files: say so
    (one ``git rev-parse``, only where no AGENT.md or state/ is)."""
    import shlex

    from git_gasp.errors import GaspError

    if os.path.exists(os.path.join(root, "AGENT.md")) or os.path.isdir(os.path.join(root, "state")):
        return
    got = git.attempt(root, ["rev-parse", "--is-bare-repository", "--absolute-git-dir"])
    bare, _, where = got.out.decode("utf-8", "surrogateescape").strip().partition("\n")
    if got.code != 0 or bare != "true":
        return
    ctx = click.get_current_context(silent=True)
    command = ctx.command_path if ctx is not None else "git gasp status"
    command = command.replace("git-gasp", "git gasp", 1)
    where = shlex.quote(where)
    raise GaspError(
        f"{where}: a bare repository: no work tree holds the agent's files",
        f"restore one from it and run the command there: git gasp restore {where} DIR && "
        f"cd DIR && {command} (its runs read as they are: git gasp runs -C {where})",
    )


def agent_repo_root(repo: str | None) -> str:
    """Like :func:`repo_root`, for read commands: refuses a directory that is not
    an agent repository instead of printing nothing."""
    from git_gasp.errors import GaspError

    root = repo_root(repo)
    if not os.path.exists(os.path.join(root, "AGENT.md")) and not os.path.isdir(
        os.path.join(root, "state")
    ):
        raise GaspError(
            f"{root}: not an agent repository (no AGENT.md or state/)",
            "run it in one, pass -C PATH, or create one with: git gasp init --agent-id ID",
        )
    return root


def open_agent(repo: str | None, worker: str | None) -> Any:
    from git_gasp.agent.api import Agent

    return Agent.open(repo_root(repo), worker=worker)


def emit(as_json: bool, value: dict[str, Any], text: str) -> None:
    if as_json:
        output.data_json(value)
    else:
        output.data(text)


def one_path(path: str | None, repo: str | None) -> str | None:
    if path is not None and repo is not None and path != repo:
        raise click.UsageError(f"two repositories: PATH {path} and -C {repo}; give one")
    return path if path is not None else repo


def agent_root(path: str | None) -> str:
    """An explicit PATH is taken literally (as the reference checker does);
    without one, the current directory, or the top of its work tree when the
    current directory is not itself an agent repository."""
    if path is not None:
        if not os.path.isdir(path):
            raise click.BadParameter(f"{path}: no such directory", param_hint="PATH")
        root = path
    elif os.path.exists("AGENT.md") or os.path.exists("state"):
        root = "."
    else:
        try:
            root = git.run(".", ["rev-parse", "--show-toplevel"]).decode().strip() or "."
        except git.GitError:
            root = "."
    refuse_escapes(root)  # no command follows the repository's symlinks out of it
    return root


DATE_HINT = "give a date as git log reads it, e.g. 2026-01-31, '2 weeks ago' or yesterday"


def git_date(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A ``--since``/``--until`` value git reads as a date (``git log`` takes
    any text, so ``--since garbage`` listed nothing and exited 0): else exit 2."""
    if value is None:
        return None
    problem = git.date_problem(value)
    if problem is not None:
        raise GaspError(f"--{param.name} {value!r} {problem}", DATE_HINT, USAGE)
    return value


def run_filters(what: str) -> Callable[[_F], _F]:
    """``-n``/``--max-count``, ``--since``/``--until``, ``--goal`` and ``--outcome`` for a
    list of ``what`` (runs, or run commits): the filters ``runs`` and ``sessions`` share."""

    def decorate(command: _F) -> _F:
        for option in reversed(
            (
                click.option(
                    "-n",
                    "--max-count",
                    "limit",
                    type=click.IntRange(min=0),
                    metavar="N",
                    help=f"Show at most N {what} (the newest).",
                ),
                click.option(
                    "--since",
                    metavar="DATE",
                    callback=git_date,
                    help=f"Only {what} after DATE (as git log reads it).",
                ),
                click.option(
                    "--until", metavar="DATE", callback=git_date, help=f"Only {what} before DATE."
                ),
                click.option(
                    "--goal", metavar="GOAL", help=f"Only {what} for GOAL: its id, or a title word."
                ),
                click.option(
                    "--outcome",
                    metavar="OUTCOME",
                    help=f"Only {what} with this outcome (any case).",
                ),
            )
        ):
            command = option(command)
        return command

    return decorate


def none_found(what: str, rev_range: str, chosen: dict[str, object]) -> str:
    """The line that says no ``what`` were found in ``rev_range``, naming the
    :func:`run_filters` given (``chosen``: option name -> value or None), so
    an empty answer is not read as an empty history."""
    import shlex

    given = [f"--{k} {shlex.quote(str(v))}" for k, v in chosen.items() if v is not None]
    return f"no {what} in {rev_range}" + (f" match {' '.join(given)}" if given else "")
