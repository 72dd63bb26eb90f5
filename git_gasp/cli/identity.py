"""``git gasp identity`` (hash, verify, commit) and ``git gasp skill`` (list, check)."""

from __future__ import annotations

import click

from git_gasp import output
from git_gasp.cli.options import JSON, REPO, WORKER, agent_repo_root, emit, repo_root
from git_gasp.errors import FINDINGS, OK


@click.group()
def identity() -> None:
    """Compute, verify and commit the identity hash (identity/ against AGENT.md)."""


@identity.command(name="hash")
@REPO
@JSON
def identity_hash_cmd(repo: str | None, as_json: bool) -> int:
    """Print the identity hash of identity/ (SHA-256 over its sorted files, as check 6)."""
    from git_gasp.restore.identity import compute

    digest = compute(repo_root(repo))
    emit(as_json, {"format": "git-gasp.identity-hash/1", "identity_hash": digest}, digest)
    return OK


@identity.command(name="verify")
@REPO
@JSON
def identity_verify(repo: str | None, as_json: bool) -> int:
    """Compare AGENT.md's identity_hash with the hash of identity/ (check 6)."""
    from git_gasp.restore.identity import APPROVE_HINT, verify

    result = verify(repo_root(repo))
    lines = [f"FAIL {f}" for f in result.failures] or [f"ok   {n}" for n in result.notes]
    lines.append(f"declared {result.declared or '-'}")
    lines.append(f"computed {result.computed or '-'}")
    value = {"format": "git-gasp.identity-verify/1", **result.to_value()}
    emit(as_json, value, "\n".join(lines))
    if not as_json and not result.ok and result.declared and result.computed:
        output.diag(f"hint: {APPROVE_HINT}")  # the hashes differ: the two ways out
    return OK if result.ok else FINDINGS


@identity.command(name="commit")
@click.option(
    "--approved-by", required=True, metavar="NAME", help="The human who approves the change."
)
@click.option("--reason", required=True, metavar="TEXT", help="Why identity/ changes.")
@REPO
@WORKER
@JSON
def identity_commit(
    approved_by: str, reason: str, repo: str | None, worker: str | None, as_json: bool
) -> int:
    """Commit the staged identity/ change with its new hash and an approval decision."""
    from git_gasp.agent.identity import commit_identity

    done = commit_identity(repo_root(repo), approved_by, reason, worker)
    text = (
        f"committed {done.commit[:12]}: identity_hash {done.identity_hash}, "
        f"{done.decision_id} approved by {done.approved_by}"
    ) + (" (committed already, by an earlier try)" if done.already else "")
    if done.locks:
        output.diag(f"warning: {done.locks}")
    emit(as_json, done._asdict(), text)
    return OK


@click.group()
def skill() -> None:
    """List and check the agent's skills (skills/<name>/SKILL.md, and the skills
    directories AGENT.md's Locations table names)."""


@skill.command(name="list")
@REPO
@JSON
def skill_list(repo: str | None, as_json: bool) -> int:
    """List every skill: name, description, path and whether it is valid."""
    from git_gasp.restore.repofiles import file_cap
    from git_gasp.restore.skills import declared_skills

    root = agent_repo_root(repo)
    skills = declared_skills(root, file_cap(root))
    lines = [
        f"{s.name or s.directory}\t{'valid' if s.valid else 'INVALID'}\t{s.path}\t"
        f"{s.description or '-'}"
        for s in skills
    ]
    value = {"format": "git-gasp.skills/1", "skills": [s.to_value() for s in skills]}
    emit(as_json, value, "\n".join(lines) or "no skills")
    return OK


@skill.command(name="check")
@REPO
@JSON
def skill_check(repo: str | None, as_json: bool) -> int:
    """Check every skill's SKILL.md (each skills location); exit 1 if any is invalid."""
    from git_gasp.restore.repofiles import file_cap
    from git_gasp.restore.skills import declared_skills

    root = agent_repo_root(repo)
    skills = declared_skills(root, file_cap(root))
    lines = []
    for s in skills:
        if s.valid:
            lines.append(f"ok   {s.path}")
        lines.extend(f"FAIL {s.path}: {p}" for p in s.problems)
    bad = sum(not s.valid for s in skills)
    lines.append(f"{len(skills)} skill(s), {bad} invalid")
    value = {
        "format": "git-gasp.skill-check/1",
        "skills": [s.to_value() for s in skills],
        "passed": bad == 0,
    }
    emit(as_json, value, "\n".join(lines))
    return OK if bad == 0 else FINDINGS
