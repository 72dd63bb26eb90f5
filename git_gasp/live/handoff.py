"""``git gasp handoff --to claude-code|codex DIR``: the agent's state where that harness reads it.

The rehydration document (what ``restore --context`` writes: identity, the
skill index, active memory, open goals and tasks, the last runs and their
outcomes) goes to ``DIR/.gasp/handoff/CONTEXT.md`` and into the instructions
file the harness loads, inside a marked block that a re-run replaces and the
user's own text around it never touched: Claude Code's ``CLAUDE.md`` gets one
``@`` import line, Codex's ``AGENTS.md`` (which has no imports) the document
itself, within Codex's 32 KiB read of it. The skills become Agent Skills
folders (``.claude/skills/<name>/`` or ``.agents/skills/<name>/``); a folder of
that name that handoff did not write, or that was changed since, is left as
is. The report lists what was taken and what was not, each with its reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from typing import Any

from git_gasp.core.contextbudget import MIN_BUDGET
from git_gasp.errors import USAGE, GaspError
from git_gasp.live.settings import CLAUDE
from git_gasp.restore.restoring import describe
from git_gasp.restore.skills import declared_skills
from git_gasp.store.writer import write_atomically

HANDOFF = os.path.join(".gasp", "handoff")
CONTEXT = os.path.join(HANDOFF, "CONTEXT.md")
WRITTEN = os.path.join(HANDOFF, "skills.json")  # the skills handoff wrote, with digests
BEGIN = "<!-- git-gasp handoff: begin (git gasp handoff rewrites this block; write outside it) -->"
END = "<!-- git-gasp handoff: end -->"
CODEX_DOC_BYTES = 32 * 1024  # Codex reads this much of its AGENTS.md files (project_doc_max_bytes)
SKILLS_DIR = {CLAUDE: os.path.join(".claude", "skills"), "codex": os.path.join(".agents", "skills")}
CARRIED = "identity, skill index, active memory, open goals and tasks, recent runs"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise GaspError(f"{path}: cannot read: {why}", "fix or move it aside", USAGE) from None


def _write(path: str, text: str) -> bool:
    """Write ``text`` unless the file holds it already; whether it changed."""
    if _read(path) == text:
        return False
    try:
        write_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise GaspError(f"{path}: cannot write: {exc.strerror}", None, USAGE) from None
    return True


def with_block(text: str, body: str) -> str | None:
    """``text`` with git-gasp's marked block holding ``body`` (replaced where it
    was, else added at the end); None when the markers are broken."""
    block = f"{BEGIN}\n{body.rstrip()}\n{END}"
    start = text.find(BEGIN)
    if start < 0:
        if END in text:
            return None
        return f"{text.rstrip()}\n\n{block}\n" if text.strip() else f"{block}\n"
    end = text.find(END, start)
    if end < 0:
        return None
    return text[:start] + block + text[end + len(END) :]


def _outside_block(text: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    return text if start < 0 or end < start else text[:start] + text[end + len(END) :]


def _instructions_file(harness: str, dest: str) -> str:
    """The file the harness loads at the top of ``dest``."""
    if harness == CLAUDE:
        nested = os.path.join(dest, ".claude", "CLAUDE.md")
        top = os.path.join(dest, "CLAUDE.md")
        return nested if not os.path.exists(top) and os.path.isfile(nested) else top
    override = os.path.join(dest, "AGENTS.override.md")  # Codex reads it instead of AGENTS.md
    return override if os.path.isfile(override) else os.path.join(dest, "AGENTS.md")


def _budget(harness: str, path: str, budget: int | None) -> int | None:
    """Codex reads the first 32 KiB of AGENTS.md: the document gets the room left."""
    if harness == CLAUDE:
        return budget
    room = CODEX_DOC_BYTES - len(_outside_block(_read(path) or "").encode()) - 2 * len(BEGIN)
    return max(MIN_BUDGET, min(budget or room, room))


def _instructions(
    harness: str, dest: str, repo: str, document: str, report: dict[str, Any]
) -> None:
    path = _instructions_file(harness, dest)
    rel = os.path.relpath(os.path.join(dest, CONTEXT), os.path.dirname(path))
    intro = f"The agent's state, from its GASP repository {repo} (git gasp handoff):"
    body = f"{intro}\n@{rel}" if harness == CLAUDE else f"{intro}\n\n{document}"
    text = with_block(_read(path) or "", body)
    name = os.path.relpath(path, dest)
    if text is None:
        why = f"{name} has a git-gasp handoff marker without its pair: left as is (fix it by hand)"
        report["notTaken"].append({"kind": "instructions", "what": name, "reason": why})
        return
    changed = _write(path, text)
    how = f"import line @{rel}" if harness == CLAUDE else "the document inline"
    report["taken"].append(
        {
            "kind": "instructions",
            "what": name,
            "path": path,
            "changed": changed,
            "how": f"{how}, in a marked block",
            "carries": CARRIED,
        }
    )
    if harness != CLAUDE and len(text.encode()) > CODEX_DOC_BYTES:
        report["warnings"].append(
            f"{name} is over the {CODEX_DOC_BYTES >> 10} KiB Codex reads by default: "
            "raise project_doc_max_bytes in Codex's config.toml, or shorten the file"
        )


def _digest(top: str) -> str:
    """The regular files under ``top``, names and bytes (symlinks are not
    carried, so they are not counted either)."""
    out = hashlib.sha256()
    for base, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(base, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            out.update(os.path.relpath(path, top).encode() + b"\0")
            with open(path, "rb") as fh:
                out.update(hashlib.sha256(fh.read()).digest())
    return out.hexdigest()


def _copy(src: str, dest: str) -> list[str]:
    """Copy the skill's regular files to a fresh ``dest``; the symlinks left out."""
    left: list[str] = []
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = f"{dest}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)

    def ignore(folder: str, names: list[str]) -> list[str]:
        links = [n for n in names if os.path.islink(os.path.join(folder, n))]
        left.extend(os.path.relpath(os.path.join(folder, n), src) for n in links)
        return links

    shutil.copytree(src, tmp, ignore=ignore)
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)
    return left


def _written(dest: str) -> dict[str, str]:
    try:
        with open(os.path.join(dest, WRITTEN), "rb") as fh:
            value = json.loads(fh.read())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


def _skills(harness: str, dest: str, repo: str, report: dict[str, Any]) -> None:
    """Each valid skill as an Agent Skills folder, unless the user has one of that name."""
    written = _written(dest)
    for skill in declared_skills(repo):
        shown = f"{SKILLS_DIR[harness]}/{skill.directory}"
        if not skill.valid:
            why = "not a valid skill: " + "; ".join(skill.problems)
            report["notTaken"].append({"kind": "skill", "what": skill.directory, "reason": why})
            continue
        src = os.path.dirname(os.path.join(repo, *skill.path.split("/")))
        target = os.path.join(dest, SKILLS_DIR[harness], skill.directory)
        if os.path.lexists(target) and written.get(shown) != _safe_digest(target):
            why = f"{shown} is already there and is not the one handoff wrote: left as is"
            report["notTaken"].append({"kind": "skill", "what": skill.directory, "reason": why})
            continue
        changed = not os.path.lexists(target) or _digest(src) != _digest(target)
        try:
            left = _copy(src, target) if changed else []
        except OSError as exc:
            why = f"cannot write {shown}: {exc.strerror}"
            report["notTaken"].append({"kind": "skill", "what": skill.directory, "reason": why})
            continue
        for link in left:
            why = "a symlink: skills are carried as regular files only"
            report["notTaken"].append(
                {"kind": "skill file", "what": f"{shown}/{link}", "reason": why}
            )
        written[shown] = _digest(target)
        report["taken"].append(
            {"kind": "skill", "what": skill.directory, "path": target, "changed": changed}
        )
    if written:
        _write(os.path.join(dest, WRITTEN), json.dumps(written, indent=2, sort_keys=True) + "\n")


def _safe_digest(path: str) -> str | None:
    try:
        return _digest(path) if os.path.isdir(path) and not os.path.islink(path) else None
    except OSError:
        return None


def _not_carried(harness: str, restored: dict[str, Any]) -> list[dict[str, str]]:
    """The kinds of state another harness cannot take from a GASP agent."""
    other = "Claude Code" if harness == CLAUDE else "Codex"
    binding = restored.get("executor", {}).get("binding") or {}
    model = ", ".join(f"{k} {v}" for k, v in sorted(binding.items())) or "none bound"
    return [
        {
            "kind": "sessions",
            "what": "native sessions",
            "reason": f"{other} cannot resume another harness's session: the last runs and "
            "their outcomes are in the instructions instead",
        },
        {
            "kind": "settings",
            "what": f"executor binding ({model})",
            "reason": "the model is chosen in the harness itself (its --model / -m)",
        },
        {
            "kind": "tools",
            "what": "tools and MCP servers",
            "reason": "they are the harness's own configuration, not part of the agent repository",
        },
    ]


def handoff(harness: str, dest: str, repo: str, budget: int | None) -> dict[str, Any]:
    """Write the agent at ``repo`` into ``dest`` for ``harness``; the taken/notTaken report."""
    if not os.path.isdir(dest):
        raise GaspError(f"{dest}: no such directory", "create it, or name another DIR", USAGE)
    restored = describe(
        repo, local=True, budget=_budget(harness, _instructions_file(harness, dest), budget)
    )
    report: dict[str, Any] = {
        "format": "git-gasp.handoff/1",
        "to": harness,
        "dir": dest,
        "repo": repo,
        "taken": [],
        "notTaken": [],
        "warnings": list(restored.report.get("warnings", [])),
    }
    context = os.path.join(dest, CONTEXT)
    changed = _write(context, restored.context)
    if _read(os.path.join(dest, HANDOFF, ".gitignore")) is None:
        _write(os.path.join(dest, HANDOFF, ".gitignore"), "# written by git gasp handoff\n*\n")
    report["taken"].append(
        {
            "kind": "context",
            "what": CONTEXT,
            "path": context,
            "changed": changed,
            "carries": CARRIED,
            "chars": len(restored.context),
        }
    )
    _instructions(harness, dest, repo, restored.context, report)
    _skills(harness, dest, repo, report)
    report["notTaken"] += _not_carried(harness, restored.report)
    report["next"] = [f"git gasp adapt {harness} install --repo {repo}  # record the new session"]
    return report


def handoff_text(report: dict[str, Any]) -> str:
    lines = [f"handed {report['repo']} to {report['to']} in {report['dir']}", "taken:"]
    for t in report["taken"]:
        state = "written" if t.get("changed") else "unchanged"
        how = f" ({t['how']})" if "how" in t else ""
        lines.append(f"  {t['kind']:<13}{t['what']}{how}: {state}")
    lines.append("not taken:" if report["notTaken"] else "not taken: nothing")
    lines += [f"  {n['kind']:<13}{n['what']}: {n['reason']}" for n in report["notTaken"]]
    lines += [f"warning: {w}" for w in report["warnings"]]
    lines += [f"next: {n}" for n in report["next"]]
    return "\n".join(lines)
