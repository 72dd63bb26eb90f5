"""The rules on an agent's other files in a change: identity/ and its hash
in AGENT.md, the Locations table, skills, transcripts and the local control
plane.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from git_gasp.core.event import Event
from git_gasp.core.finding import Finding
from git_gasp.core.manifest import declared_identity_hash

CONTROL_PLANE = (".agent/lease", ".agent/HEAD", ".agent/RUN", ".agent/worker")
IDENTITY_HINT = (
    "make identity changes with: git gasp identity commit --approved-by NAME --reason TEXT"
)
LOCATIONS_HINT = (
    "record the approval in the same commit: git gasp record decision --status Approved "
    "--decided-by user:NAME --reason TEXT, then commit it with AGENT.md"
)


def check_identity(
    identity_changed: bool,
    manifest_before: bytes | None,
    manifest_after: bytes | None,
    digest_after: str | None,
    appended: Iterable[Event],
    log_path: str,
) -> list[Finding]:
    """§9.7: identity/ changes only with its new hash in AGENT.md and an
    appended decision.created; the hash never changes on its own. The commit
    that creates ``AGENT.md`` (``manifest_before`` None) only needs the hash."""

    def declared(data: bytes | None) -> str | None:
        if data is None:
            return None
        return declared_identity_hash(data.decode("utf-8", "replace")).value

    before, after = declared(manifest_before), declared(manifest_after)
    if not identity_changed:
        if before != after and manifest_before is not None:
            return [
                Finding(
                    "AGENT.md",
                    _hash_line(manifest_after),
                    "identity",
                    "identity_hash changed but identity/ did not",
                    IDENTITY_HINT,
                )
            ]
        return []
    out: list[Finding] = []
    if digest_after is None or after != digest_after:
        message = "identity/ changed but AGENT.md's identity_hash is not its new digest" + (
            f" ({digest_after})" if digest_after else ""
        )
        out.append(
            Finding("AGENT.md", _hash_line(manifest_after), "identity", message, IDENTITY_HINT)
        )
    if manifest_before is not None and not any(approves(e) for e in appended):
        # (a new agent's first commit creates its identity; no decision to record)
        message = (
            "identity/ changed without an Approved decision.created by a person in the same commit"
        )
        out.append(Finding(log_path, None, "identity", message, IDENTITY_HINT))
    return out


def approves(event: Event) -> bool:
    """A person's approval: a ``decision.created`` whose status is
    ``Approved``, recorded by and ``decided_by`` an actor who is not an
    agent, as ``git gasp identity commit`` writes it. It lets the agent's
    identity or Locations change (a Rejected or Pending decision, or one an
    agent approved, does not)."""
    payload = event.payload
    if event.kind != "decision.created" or not isinstance(payload, dict):
        return False
    decided_by = payload.get("decided_by")
    return (
        payload.get("status") == "Approved"
        and event.actor.kind != "agent"
        and isinstance(decided_by, dict)
        and isinstance(decided_by.get("kind"), str)
        and decided_by.get("kind") != "agent"
    )


def check_locations(
    manifest_before: bytes | None,
    manifest_after: bytes | None,
    appended: Iterable[Event],
    log_path: str,
) -> list[Finding]:
    """Where the log, identity, skills, facts and journal live is part of who
    the agent is: a change to AGENT.md's Locations table needs a
    decision.created in the same commit, as an identity change does."""
    if manifest_before is None or manifest_after is None:
        return []
    from git_gasp.core.locations import parse_locations

    before, _ = parse_locations(manifest_before.decode("utf-8", "replace"))
    after, _ = parse_locations(manifest_after.decode("utf-8", "replace"))
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    if not changed or any(approves(e) for e in appended):
        return []
    message = (
        f"AGENT.md's Locations table changes {', '.join(changed)} "
        "without an Approved decision.created by a person"
    )
    return [Finding(log_path, None, "identity", message, LOCATIONS_HINT)]


def _hash_line(manifest: bytes | None) -> int | None:
    if manifest is None:
        return None
    for n, line in enumerate(manifest.split(b"\n"), 1):
        if line.strip().startswith(b"identity_hash:"):
            return n
    return None


def check_skills(
    changed: Sequence[str], skill_files: dict[str, bytes], renamed: bool = False
) -> list[Finding]:
    """At most one skill per commit (``renamed``: the two changed are one skill
    renamed, see :func:`git_gasp.core.skill.is_rename`); each changed
    ``SKILL.md`` (path -> bytes, as committed) has valid frontmatter."""
    from git_gasp.core.skill import check_skill, skill_of, skills_changed_together

    out: list[Finding] = []
    together = skills_changed_together(changed)
    if together and not (renamed and len(together) == 2):
        out.append(
            Finding(
                "skills/",
                None,
                "skill",
                f"{len(together)} skills change in one commit ({', '.join(together)})",
                "commit each skill change on its own (a rename that changes only the name is one)",
            )
        )
    for path, data in sorted(skill_files.items()):
        name = skill_of(path)
        if name is None:
            continue
        skill = check_skill(name, data)
        for problem in skill.problems:
            out.append(Finding(path, None, "skill", problem, "fix the SKILL.md frontmatter"))
    return out


def check_skill_manifests(without: Iterable[str]) -> list[Finding]:
    """Every skill directory a change leaves files in holds a ``SKILL.md``
    (``without``: the skills that do not)."""
    return [
        Finding(
            f"skills/{name}/SKILL.md",
            None,
            "skill",
            f"skill {name} has files but no SKILL.md",
            "give it a SKILL.md with name and description frontmatter (git gasp skill check)",
        )
        for name in sorted(without)
    ]


def check_transcripts(paths: Iterable[str]) -> list[Finding]:
    """Transcripts stay cold and local: ``transcripts/`` is never committed
    unless the repository opts in (``gasp.commitTranscripts``)."""
    return [
        Finding(
            path,
            None,
            "transcript",
            "transcripts stay local; notes and events carry their digests",
            f"git rm --cached {path} (or opt in: git config gasp.commitTranscripts true)",
        )
        for path in sorted(paths)
        if path.startswith("transcripts/")
    ]


def check_control_plane(paths: Iterable[str]) -> list[Finding]:
    """The local control plane is never committed."""
    return [
        Finding(
            path,
            None,
            "control-plane",
            "local run state is never committed",
            f"git rm --cached {path} (git gasp init lists it in .gitignore)",
        )
        for path in sorted(paths)
        if path in CONTROL_PLANE
    ]
