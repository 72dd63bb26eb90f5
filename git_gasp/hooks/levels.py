"""The levels the repository gives git-gasp's own rules (``git config
gasp.rule.<name>``, any scope; :mod:`git_gasp.core.rules` holds the rules)
and how a hook settles its findings with them: warnings printed, errors
returned to refuse with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from git_gasp import git
from git_gasp.core import rules
from git_gasp.core.finding import Judged
from git_gasp.errors import USAGE, GaspError
from git_gasp.hooks.protocol import ZERO, report_refs, warnings_total


def configured(repo: str) -> dict[str, rules.Level]:
    """Every ``gasp.rule.<name>`` git config sets (a bad value is an error:
    a policy never fails open)."""
    entries = git.config_entries(repo, r"^gasp\.rule\.")
    try:
        return rules.parse_levels(entries)
    except ValueError as exc:
        name = str(exc).split(" ", 1)[0].rstrip(":")
        hint = f"set it to error, warn or off: git config {name} warn (git-gasp-hooks(1))"
        raise GaspError(str(exc), hint, USAGE) from None


def is_empty(repo: str, under: str = "refs/") -> bool:
    """The repository holds no refs ``under`` yet (in a pre-receive, the
    pushed refs are not there yet)."""
    got = git.attempt(repo, ["for-each-ref", "--count=1", "--format=%(refname)", under])
    return got.code == 0 and not got.out.strip()


ONBOARD = "gasp.onboard"
ONBOARD_HINT = (
    "an existing agent's history, older than the hook? onboard it in one push to this "
    "empty repository: git push --no-verify -o gasp.onboard <remote> <branch> "
    "(git-gasp-hooks(1), ONBOARDING AN EXISTING AGENT)"
)


FIRST_PUSH_HINT = (
    "an existing agent's history, older than the hook, going to a new empty server? "
    "onboard it in one push: git push --no-verify -o gasp.onboard {remote} <branch> "
    "(git-gasp-hooks(1), ONBOARDING AN EXISTING AGENT)"
)


def onboarding_takes(repo: str, errors: Sequence[tuple[str | None, Judged]]) -> bool:
    """An onboarding push would take what ``errors`` refuse: each is of a rule
    whose level for history is below error (a protocol rule, a credential
    or a rule the repository sets to error refuses an onboarding push too,
    so naming one would not help)."""
    judged = [j for _, j in errors]
    return bool(judged) and not rules.weigh(judged, configured(repo), True).errors


def first_push_hint(
    repo: str,
    remote: str | None,
    theirs: Sequence[str],
    errors: Sequence[tuple[str | None, Judged]],
    out: TextIO,
) -> None:
    """pre-push, refusing: when the remote has nothing yet (every pushed
    ref new, no remote-tracking ref of it) and an onboarding push would take
    it, say how to onboard a history."""
    if not theirs or any(t and t not in ZERO for t in theirs):
        return
    if not onboarding_takes(repo, errors):
        return
    if remote and not is_empty(repo, f"refs/remotes/{remote}/"):
        return
    out.write(f"gasp: {FIRST_PUSH_HINT.format(remote=remote or '<remote>')}\n")


def onboarding(options: Sequence[str], empty: bool, out: TextIO) -> bool:
    """A push judged as history older than the hook: ``-o gasp.onboard``
    to a repository that holds no refs yet (later pushes are new changes)."""
    if ONBOARD not in options:
        return False
    if not empty:
        out.write(
            f"gasp: -o {ONBOARD} ignored: this repository already holds history "
            "(only the first push onboards one)\n"
        )
        return False
    return True


def settle(
    repo: str,
    found: Sequence[tuple[str | None, Judged]],
    out: TextIO,
    history: bool = False,
) -> list[tuple[str | None, Judged]]:
    """Weigh ``found`` by the rules' levels, print the warnings (grouped,
    then their total) and return the errors, with their refs."""
    if not found:
        return []
    refs = {id(judged): ref for ref, judged in found}
    verdict = rules.weigh([judged for _, judged in found], configured(repo), history)
    errors = [(refs[id(j)], j) for j in verdict.errors]
    warnings = [(refs[id(j)], j) for j in verdict.warnings]
    report_refs(warnings, out, warning=True)
    warnings_total([j for _, j in warnings], out, history)
    return errors


def push_errors(
    repo: str, found: Sequence[tuple[str | None, Judged]], options: Sequence[str], out: TextIO
) -> list[tuple[str | None, Judged]]:
    """What refuses a push the server judged: its warnings printed, its
    errors reported (an empty repository's first refusal says how to
    onboard, when onboarding would take the push) and returned."""
    if not found:
        return []
    empty = is_empty(repo)
    history = onboarding(options, empty, out)
    errors = settle(repo, found, out, history)
    report_refs(errors, out)
    if errors and empty and not history and onboarding_takes(repo, errors):
        out.write(f"gasp: {ONBOARD_HINT}\n")
    return errors
