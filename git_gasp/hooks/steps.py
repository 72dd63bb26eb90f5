"""What the hooks judge and by which policy: the staged index as a step
(:func:`index_step`), the warning for agents nested below the top, and the
repository's policy (``git config gasp.maxLineBytes``,
``gasp.commitTranscripts``). A commit's step comes from
:func:`git_gasp.sessions.notecommits.commit_steps`.
"""

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from git_gasp import git
from git_gasp.core.change import (
    DEFAULT_MAX_LINE_BYTES,
)
from git_gasp.core.finding import Finding, Judged, Step


class Policy(NamedTuple):
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    commit_transcripts: bool = False  # git config gasp.commitTranscripts


#: the policy's keys as git lists them (lowercase), for one look-up of both
_POLICY_KEYS = r"^gasp\.(committranscripts|maxlinebytes)$"


def policy_of(repo: str) -> Policy:
    """The repository's policy: ``git config gasp.maxLineBytes`` and
    ``gasp.commitTranscripts``. One ``git config`` process says which are set
    (usually neither); git reads each that is as its type (bool, int)."""
    present = {key for key, _ in git.config_entries(repo, _POLICY_KEYS)}
    transcripts = (
        "gasp.committranscripts" in present
        and git.config_value(repo, "gasp.commitTranscripts", "bool") == "true"
    )
    cap = max_line_bytes(repo) if "gasp.maxlinebytes" in present else DEFAULT_MAX_LINE_BYTES
    return Policy(cap, transcripts)


def max_line_bytes(repo: str) -> int:
    """The line-size cap: ``git config gasp.maxLineBytes`` (0 or less, or
    unset: the default)."""
    raw = git.config_value(repo, "gasp.maxLineBytes", "int")
    if raw is None:
        return DEFAULT_MAX_LINE_BYTES
    try:
        cap = int(raw)
    except ValueError:
        raise git.GitError(
            f"gasp.maxLineBytes is not a number ({raw!r})",
            "set it to a size in bytes: git config gasp.maxLineBytes 1048576",
        ) from None
    return cap if cap > 0 else DEFAULT_MAX_LINE_BYTES


def index_step(repo: str, state: git.RepoState | None = None) -> Step:
    """The staged index as a step: against HEAD, and while a merge is being
    committed (``git merge --no-commit``, a resolved conflict) against every
    parent the merge commit will have, as a merge commit is judged.
    ``state``: :func:`git.repo_state`, when the caller has it."""
    head, merging = git.head_and_merging(repo) if state is None else state[1:]
    if head is None:
        return Step("", (), frozenset(git.staged_paths(repo, None)))
    paths = git.staged_paths(repo, head)
    for other in merging:
        paths |= git.staged_paths(repo, other)
    return Step("", (head, *merging), frozenset(paths))


def nested_agents(paths: Iterable[str]) -> list[str]:
    """Directories below the top that ``paths`` show to hold an agent (an
    ``AGENT.md`` or a ``state/events.jsonl`` of their own): the rules judge
    the repository's top as the agent, so these are not judged."""
    found = set()
    for path in paths:
        for marker in ("/AGENT.md", "/state/events.jsonl"):
            if path.endswith(marker) and len(path) > len(marker):
                found.add(path[: -len(marker)])
    return sorted(found)


def nested_warning(paths: Iterable[str]) -> str | None:
    """The one warning line for :func:`nested_agents`, if any."""
    nested = nested_agents(paths)
    if not nested:
        return None
    shown = ", ".join(f"{d}/" for d in nested[:3]) + (" ..." if len(nested) > 3 else "")
    import shlex  # only to name a nested hook's command

    command = shlex.quote(nested[0])
    text = (
        f"gasp: warning: {shown} looks like an agent in a subdirectory; the hooks judge the "
        f"repository's top as the agent, not it (check it with: git gasp check {command})"
    )
    return text.replace("\n", "\\n").replace("\r", "\\r")


def without_line_breaks(steps: Sequence[Step]) -> tuple[list[Judged], list[Step]]:
    """A finding for each path with a line break, and the steps without them:
    such a path cannot be judged safely, so it is refused."""
    out: list[Judged] = []
    odd = [(s.name, p) for s in steps for p in s.paths if "\n" in p or "\r" in p]
    for name, path in odd:
        finding = Finding(
            repr(path)[1:-1],
            None,
            "path",
            "a path name contains a line break",
            "rename it: such a path cannot be judged safely, so it is refused",
        )
        out.append(Judged(name, finding))
    if not odd:
        return out, list(steps)
    clean = [
        s._replace(paths=frozenset(p for p in s.paths if "\n" not in p and "\r" not in p))
        for s in steps
    ]
    return out, clean
