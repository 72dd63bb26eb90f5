"""``git gasp completion SHELL``: the shell completion script, from click's own
mechanism (the script calls ``git-gasp`` back with ``_GIT_GASP_COMPLETE`` set).

For bash the script also defines ``_git_gasp``, the function git's own bash
completion calls for ``git gasp <TAB>``, so both spellings complete.
"""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from git_gasp import output
from git_gasp.errors import OK

PROG = "git-gasp"
COMPLETE_VAR = "_GIT_GASP_COMPLETE"

# git's completion (git-completion.bash) calls _git_<command> for `git <command>`;
# this hands it to click's function with the words as `git-gasp ...` would have them
_GIT_BASH = """
_git_gasp() {
    local COMP_WORDS=("git-gasp" "${words[@]:2}")
    local COMP_CWORD=$((cword - 1))
    _git_gasp_completion git-gasp
}
"""


def script(shell: str, cli: click.Command) -> str:
    cls = get_completion_class(shell)
    assert cls is not None  # the choice below admits only click's shells
    source = cls(cli, {}, PROG, COMPLETE_VAR).source()
    return source + (_GIT_BASH if shell == "bash" else "")


@click.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> int:
    """Print the shell completion script for SHELL (bash, zsh or fish).

    Load it in the shell's start-up file, for example
    eval "$(git gasp completion bash)" in ~/.bashrc.
    """
    output.data(script(shell, ctx.find_root().command))
    return OK
