"""``git config`` reads, and the identity git would commit as."""

from __future__ import annotations

from git_gasp.git.process import GitError, attempt


def config_value(path: str, key: str, kind: str | None = None) -> str | None:
    """``git config [--type=KIND] --get KEY``, or None when unset; a value
    git cannot read as KIND is an error (a policy never fails open)."""
    args = ["config", *([f"--type={kind}"] if kind else []), "--get", key]
    proc = attempt(path, args)
    if proc.code == 1:
        return None
    if proc.code != 0:
        message = proc.err.decode("utf-8", "replace").strip() or f"git config {key} failed"
        raise GitError(message, f"fix it with: git config {key} <{kind or 'value'}>")
    return proc.out.decode("utf-8", "replace").strip()


def config_entries(path: str, pattern: str) -> list[tuple[str, str]]:
    """``git config --get-regexp PATTERN``: every (key, value), keys lowercased."""
    got = attempt(path, ["config", "--get-regexp", pattern])
    if got.code == 1:
        return []
    if got.code != 0:
        raise GitError(got.err.decode("utf-8", "replace").strip() or "git config failed")
    out = []
    for line in got.out.decode("utf-8", "replace").split("\n"):
        if line:
            key, _, value = line.partition(" ")
            out.append((key.lower(), value))
    return out


def config_values(path: str, key: str) -> list[str]:
    """Every value of a multi-valued ``git config`` key (``--get-all``)."""
    got = attempt(path, ["config", "--get-all", key])
    if got.code == 1:
        return []
    if got.code != 0:
        raise GitError(got.err.decode("utf-8", "replace").strip() or f"git config {key} failed")
    return [v for v in got.out.decode("utf-8", "replace").split("\n") if v]


def date_problem(value: str) -> str | None:
    """Why git cannot read ``value`` as a date, or None when it can. ``git log
    --since`` takes any text (``garbage`` is "now", so a list comes out empty
    or whole without a word); this asks git's careful date parser, the one
    ``git config --type=expiry-date`` runs, which refuses what is not a date
    and takes what ``--since`` documents (``2026-01-31``, ``2 weeks ago``,
    ``yesterday``)."""
    if not value.strip() or "\n" in value:
        return "is not a date"
    got = attempt(".", ["-c", f"gasp.date={value}", "config", "--type=expiry-date", "gasp.date"])
    return None if got.code == 0 else "is not a date git reads"


def committer_ident(path: str) -> str | None:
    """The identity git would commit as (strict: no guessed host names), or None."""
    got = attempt(path, ["var", "GIT_COMMITTER_IDENT"])
    return got.out.decode("utf-8", "replace").strip() or None if got.code == 0 else None
