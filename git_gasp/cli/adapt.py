"""``git gasp adapt``: install, remove and report the live hooks of Claude Code
and Codex (``adapt claude-code|codex install|uninstall``, ``adapt status``), and
``git gasp handoff``: the agent's state written where a harness reads it."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from git_gasp.cli.adaptlive import flush as live_flush
from git_gasp.cli.adaptlive import hook as live_hook
from git_gasp.cli.importing import agent_repo, agent_repo_option
from git_gasp.cli.options import JSON, GuidedGroup, emit, repo_option
from git_gasp.errors import OK

_VERSION = click.option(
    "--agent-version",
    "agent_version",
    metavar="VERSION",
    default=None,
    help="Install the events of this harness version (default: the version seen last, "
    "else the newest transcript's, else the newest events).",
)


_F = TypeVar("_F", bound=Callable[..., Any])


def _scope(harness: str, choices: tuple[str, ...], default: str) -> Callable[[_F], _F]:
    return click.option(
        "--scope",
        type=click.Choice(choices),
        default=default,
        show_default=True,
        help=f"Which {harness} hooks file: {', '.join(choices)}.",
    )


_INSTEAD = {
    verb: f"name the harness: git gasp adapt claude-code {verb} (or: git gasp adapt codex {verb})"
    for verb in ("install", "uninstall")
}


@click.group(cls=GuidedGroup, instead=_INSTEAD)
def adapt() -> None:
    """Record Claude Code and Codex as they work: their hooks, installed and reported."""


@adapt.group(name="claude-code")
def claude_code() -> None:
    """Claude Code's hooks (settings.json): install or uninstall git-gasp's."""


@adapt.group(name="codex")
def codex() -> None:
    """Codex's hooks (hooks.json): install or uninstall git-gasp's."""


def _install_text(report: dict[str, Any]) -> str:
    events = report["events"]
    count = sum(len(v) for k, v in events.items() if k != "removed")
    done = ", ".join(f"{len(events[k])} {k}" for k in ("added", "updated", "unchanged", "removed"))
    version = report["version"]
    if version["version"]:
        known = f"the events of {report['harness']} {version['version']} ({version['from']})"
    else:  # no version given, seen or in a transcript yet
        known = "the events of the newest version (--agent-version VERSION for an older one)"
    lines = [
        f"{report['harness']}: {count} hooks in {report['file']} ({done}), "
        f"recording into {report['repo']}; {known}"
    ]
    return "\n".join([*lines, *(f"note: {n}" for n in report["notes"])])


def _uninstall_text(report: dict[str, Any]) -> str:
    if not report["removed"]:
        return f"{report['harness']}: nothing of git-gasp in {report['file']}"
    count = len(report["removed"])
    return f"{report['harness']}: removed git-gasp's hooks of {count} events from {report['file']}"


def _commands(group: click.Group, harness: str, scopes: tuple[str, ...], default: str) -> None:
    @group.command(name="install")
    @_scope(harness, scopes, default)
    @agent_repo_option("the hooks record into")
    @_VERSION
    @JSON
    def install(scope: str, repo: str | None, agent_version: str | None, as_json: bool) -> int:
        """Merge git-gasp's hook entries into the harness's hooks file (others' kept)."""
        from git_gasp.live.install import install as do_install

        root = os.path.abspath(agent_repo(repo, "to record into"))
        report = do_install(harness, scope, root, os.getcwd(), os.environ, agent_version)
        emit(as_json, report, _install_text(report))
        return OK

    @group.command(name="uninstall")
    @_scope(harness, scopes, default)
    @JSON
    def uninstall(scope: str, as_json: bool) -> int:
        """Remove git-gasp's hook entries only (idempotent)."""
        from git_gasp.live.install import uninstall as do_uninstall

        report = do_uninstall(harness, scope, os.getcwd(), os.environ)
        emit(as_json, report, _uninstall_text(report))
        return OK


_commands(claude_code, "claude-code", ("project", "local", "user"), "local")
_commands(codex, "codex", ("project", "user"), "project")
adapt.add_command(live_hook)
adapt.add_command(live_flush)


@adapt.command(name="status")
@repo_option(
    "Also report this agent repository (its version seen, its handler errors).", exists=False
)
@JSON
def status(repo: str | None, as_json: bool) -> int:
    """Report each agent's hooks: where, for which agent repository, version seen,
    last handler errors, drift."""
    from git_gasp.live.status import status as read_status
    from git_gasp.live.status import status_text

    extra = os.path.abspath(repo) if repo else None
    report = read_status(os.getcwd(), os.environ, extra)
    emit(as_json, report, status_text(report))
    return OK


@click.command(name="handoff")
@click.option(
    "--to",
    "to",
    type=click.Choice(["claude-code", "codex"]),
    required=True,
    help="The harness to hand the agent to.",
)
@click.argument("directory", required=False, type=click.Path(file_okay=False), metavar="[DIR]")
@agent_repo_option(
    "to hand off, read only (DIR is written)",
    "$GASP_AGENT_REPO, else gasp.agentRepo, else the current directory when it is one",
)
@click.option(
    "--budget",
    "budget",
    metavar="CHARS",
    type=click.IntRange(min=0),
    default=None,
    help="Bound the rehydration document to CHARS characters (default 24,000; 0: no bound).",
)
@JSON
def handoff(
    to: str, directory: str | None, repo: str | None, budget: int | None, as_json: bool
) -> int:
    """Write the agent's state where the harness reads it, in DIR (default: here):
    the rehydration document in CLAUDE.md or AGENTS.md (a marked block, the
    user's text kept), the skills as Agent Skills folders; report what was
    taken and what was not, with the reason."""
    from git_gasp.cli.restore import _budget
    from git_gasp.live.handoff import handoff as do_handoff
    from git_gasp.live.handoff import handoff_text

    root = os.path.abspath(agent_repo(repo, "to hand off", here=True))
    dest = os.path.abspath(directory or ".")
    report = do_handoff(to, dest, root, _budget(budget))
    emit(as_json, report, handoff_text(report))
    return OK
