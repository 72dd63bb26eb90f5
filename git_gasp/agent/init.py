"""``git gasp init``: lay out a GASP agent repository (REFERENCE §9.1).

It creates only what is missing and never overwrites: in an existing
repository it adds the layout beside what is there, appends the local
control plane to ``.gitignore`` and the merge attributes to ``.gitattributes``
(``*.jsonl merge=union``, and whole-entry merges for the journal through the
``gasp-append`` driver it configures), and commits just the files it wrote.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Sequence
from typing import Any

import tomli_w

import git_gasp.agent.projecting as projecting
from git_gasp import git
from git_gasp.core.manifest import identity_hash
from git_gasp.errors import USAGE, GaspError
from git_gasp.store import writer
from git_gasp.store.runmarker import LOCAL_PATHS
from git_gasp.store.worktree import identity_files, refuse_escapes

_AGENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
# event and fact lines are unique, so git's union merge keeps them all; journal
# entries share lines ("- goal: -"), which union would interleave: they merge
# whole through git-gasp's driver (configured by init and hooks install)
# -text: append-only files check out byte for byte, whatever core.autocrlf says
ATTRIBUTES = (
    "*.jsonl merge=union -text",
    "journal/JOURNAL.md merge=gasp-append -text",
    "memory/active_memory.md merge=gasp-projection",
)


def manifest_text(agent_id: str, digest: str) -> str:
    return (
        "# AGENT\n\n"
        "```yaml\n"
        "spec_version: 1\n"
        f"agent_id: {agent_id}\n"
        f"identity_hash: {digest}\n"
        "executor: .agent/config.toml\n"
        "```\n\n"
        f"This repository is the durable state of the agent `{agent_id}`, kept in the GASP\n"
        "layout: `state/events.jsonl` is its append-only event log, `identity/` who it is\n"
        "(changed only with human approval; `identity_hash` above pins it), `skills/` what\n"
        "it can do, `memory/` what it has learned and `journal/` what it did.\n"
        "Any conformant runtime that clones it and folds the log resumes the same agent.\n"
    )


def config_text(provider: str | None, model: str | None, runtime: str | None) -> str:
    executor = {
        k: v for k, v in (("provider", provider), ("model", model), ("runtime", runtime)) if v
    }
    data: dict[str, Any] = {}
    if executor:
        data["executor"] = executor
    data["state"] = {"events": "state/events.jsonl"}
    data["gasp"] = {"snapshot_every": projecting.DEFAULT_SNAPSHOT_EVERY}
    return tomli_w.dumps(data)


def _append_lines(path: str, lines: Sequence[str]) -> bool:
    """Append the missing ``lines`` (exact, trimmed match); True if it wrote."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        text = ""
    have = {line.strip() for line in text.split("\n")}
    missing = [line for line in lines if line not in have]
    if not missing:
        return False
    prefix = "" if not text or text.endswith("\n") else "\n"
    writer.write_atomically(
        path, (text + prefix + "".join(f"{line}\n" for line in missing)).encode()
    )
    return True


def init_repo(
    directory: str,
    agent_id: str,
    identity: Sequence[str] = (),
    provider: str | None = None,
    model: str | None = None,
    runtime: str | None = None,
    commit: bool = True,
) -> list[str]:
    """Create the layout in ``directory``; returns the paths written."""
    _refuse_target(directory, agent_id)
    sources = _read_identity(identity)
    _prepare_repo(directory, commit)
    from git_gasp.store.mergedriver import configure_merge_driver

    configure_merge_driver(directory, None)
    written = _write_layout(directory, agent_id, sources, config_text(provider, model, runtime))
    if commit:
        _commit_layout(directory, agent_id, [*written, *_pinned_besides(directory, written)])
    return written


#: The files of the layout init writes when they are missing (besides identity/).
LAYOUT = (
    "AGENT.md",
    "skills/README.md",
    "state/events.jsonl",
    "memory/facts.jsonl",
    "journal/JOURNAL.md",
    ".agent/config.toml",
    "memory/active_memory.md",
    ".gitignore",
    ".gitattributes",
)


def present_layout(directory: str) -> list[str]:
    """The files of the layout already in ``directory`` (before ``init``): the
    identity files, then :data:`LAYOUT`'s. What init then did not write, it
    kept; ``.gitignore`` and ``.gitattributes`` among those it wrote, it
    added to."""
    try:
        identity = [name for name, _ in identity_files(directory, sizes_only=True)]
    except (OSError, GaspError):  # none yet (or unreadable: init refuses it itself)
        identity = []
    return [*identity, *(p for p in LAYOUT if os.path.lexists(os.path.join(directory, p)))]


def untracked(directory: str, paths: Sequence[str]) -> list[str]:
    """Those of ``paths`` (relative to ``directory``) git does not track: the
    files init kept that its commit left out (git-gasp commits only what it
    wrote, and the identity files AGENT.md's hash pins)."""
    if not paths:
        return []
    found = set(git.tracked(directory, [f":(literal){p}" for p in paths]))
    return [p for p in paths if p not in found]


def ignored_by_rules(directory: str, paths: Sequence[str]) -> list[str]:
    """Those of ``paths`` an ignore rule matches (tracked or not: ``git
    check-ignore --no-index``), for init to say it committed them anyway."""
    if not paths:
        return []
    got = git.attempt(directory, ["check-ignore", "--no-index", "--", *paths])
    found = set(got.out.decode("utf-8", "replace").splitlines()) if got.code == 0 else set()
    return [p for p in paths if p in found]


def _pinned_besides(directory: str, written: Sequence[str]) -> list[str]:
    """The identity files AGENT.md's hash covers that init found rather than
    wrote: the init commit carries them too, or a clone would lack what the
    manifest pins (check 6 fails on it)."""
    return [name for name, _ in identity_files(directory, sizes_only=True) if name not in written]


def _refuse_target(directory: str, agent_id: str) -> None:
    """A bad agent id, a target that is not a directory or is already an agent
    repository, or one whose layout leads out of it: refused before anything
    is written."""
    if not _AGENT_ID.fullmatch(agent_id):
        raise GaspError(
            f"agent id {agent_id!r} must be letters, digits, '.', '_' or '-'",
            "e.g. --agent-id my-agent",
            USAGE,
        )
    if os.path.lexists(directory) and not os.path.isdir(directory):
        # a file, a FIFO, a device, a dangling link: never made into a repository
        raise GaspError(f"{directory}: exists and is not a directory", "name a directory", USAGE)
    for existing in ("AGENT.md", "state/events.jsonl"):
        if os.path.lexists(os.path.join(directory, existing)):
            raise GaspError(
                f"{directory}: {existing} already exists — this is already an agent repository",
                "check it with: git gasp check",
            )
    if os.path.isdir(directory):
        refuse_escapes(directory)  # its memory/, state/... must not lead out of it


def _read_identity(identity: Sequence[str]) -> list[tuple[str, bytes]]:
    """The ``--identity`` files, as ``(file name, bytes)``."""
    sources = []
    for path in identity:
        try:
            with open(path, "rb") as fh:
                sources.append((os.path.basename(path), fh.read()))
        except OSError as exc:
            raise GaspError(f"--identity {path}: {exc.strerror}", None, USAGE) from None
    return sources


def missing_directories(directory: str) -> list[str]:
    """The directories ``directory`` needs that are not there yet, itself
    and its missing parents (as ``git init a/b/c`` makes them), outermost
    first, each absolute."""
    missing: list[str] = []
    path = os.path.abspath(directory)
    while not os.path.lexists(path) and path not in missing:
        missing.append(path)
        path = os.path.dirname(path)
    return missing[::-1]


def _prepare_repo(directory: str, commit: bool) -> None:
    """Make the directory (with its missing parents) and its git repository
    if missing; with ``commit``, refuse (undoing all of it) when git has no
    identity to commit with."""
    made_dirs = missing_directories(directory)
    os.makedirs(directory, exist_ok=True)
    made_repo = not _is_repo(directory)
    if made_repo:
        git.run(directory, ["init", "-q"])
    if commit:
        try:
            git.run(directory, ["var", "GIT_COMMITTER_IDENT"])
        except git.GitError:
            if made_repo:  # undone: "nothing was written" holds
                shutil.rmtree(os.path.join(directory, ".git"), ignore_errors=True)
            for made in reversed(made_dirs):
                with contextlib.suppress(OSError):
                    os.rmdir(made)
            raise GaspError(
                "git has no identity to make the first commit with; nothing was written",
                'set one: git config --global user.name "NAME"; '
                'git config --global user.email "EMAIL" (or use --no-commit)',
            ) from None


def _write_layout(
    directory: str, agent_id: str, sources: list[tuple[str, bytes]], config: str
) -> list[str]:
    """Write every missing file of the layout; the paths written."""
    written: list[str] = []

    def create(rel: str, data: bytes) -> None:
        path = os.path.join(directory, rel)
        if not os.path.lexists(path):
            writer.write_atomically(path, data)
            written.append(rel)

    if not sources and not _has_identity(directory):  # an identity there is the agent's own
        sources = [("IDENTITY.md", f"# Identity\n\nI am {agent_id}.\n".encode())]
    for name, data in sources:
        create(f"identity/{name}", data)
    digest = identity_hash(identity_files(directory))
    create("AGENT.md", manifest_text(agent_id, digest).encode())
    create("skills/README.md", b"# Skills\n\nOne directory per skill: `skills/<name>/SKILL.md`.\n")
    create("state/events.jsonl", b"")
    create("memory/facts.jsonl", b"")
    create("journal/JOURNAL.md", b"# Journal\n\n")
    create(".agent/config.toml", config.encode())
    if projecting.memory_is_ours(directory):  # one another writer made is kept, not committed
        written.append(projecting.regenerate_memory(directory))
    if _append_lines(os.path.join(directory, ".gitignore"), LOCAL_PATHS):
        written.append(".gitignore")
    if _append_lines(os.path.join(directory, ".gitattributes"), ATTRIBUTES):
        written.append(".gitattributes")
    return written


def _has_identity(directory: str) -> bool:
    """Whether ``identity/`` holds a file already (init then adds no placeholder)."""
    if not os.path.isdir(os.path.join(directory, "identity")):
        return False
    try:
        return bool(identity_files(directory, sizes_only=True))
    except OSError:
        return False


def _commit_layout(directory: str, agent_id: str, written: list[str]) -> None:
    # -f: these are the files init wrote, the layout a clone needs; an ignore
    # rule such as `*.md` is not meant for AGENT.md (git add refused them, and
    # init stopped with the layout written and half staged)
    git.run(directory, ["add", "-f", "--", *written])
    message = f"init agent {agent_id}\n\nGASP layout written by git-gasp.\n"
    try:
        git.run(directory, ["commit", "-q", "-F", "-", "--", *written], stdin=message.encode())
    except git.GitError as exc:
        raise GaspError(
            f"the layout is written and staged, but git could not commit it: {exc.reason()}",
            "fix that (e.g. git config user.name / user.email), then run: git commit",
        ) from None


def _is_repo(directory: str) -> bool:
    try:
        top = git.run(directory, ["rev-parse", "--show-toplevel"]).decode().strip()
    except git.GitError:
        return False
    return bool(top)


def init_text(
    present: list[str],
    written: list[str],
    kept: list[str],
    left_out: list[str],
    forced: Sequence[str] = (),
) -> str:
    """What init did to each file: created, added lines to (.gitignore,
    .gitattributes), kept as it was, which kept files are not committed, and
    which it committed though an ignore rule matches them (``forced``)."""
    import shlex

    lines = ["created " + ", ".join(p for p in written if p not in present)]
    added_to = [p for p in written if p in present]
    if added_to:
        lines.append(f"added lines to: {', '.join(added_to)}")
    if kept:
        lines.append(f"kept as they were: {', '.join(kept)}")
    if left_out:
        lines.append(
            f"not in the init commit (init commits only what it wrote): {', '.join(left_out)};"
            f" commit them with: git add -- {' '.join(map(shlex.quote, left_out))} && git commit"
        )
    if forced:
        lines.append(
            "committed though an ignore rule matches them (a clone needs them): "
            + ", ".join(forced)
        )
    return "\n".join(lines)
