"""Lifting: the few GASP facts a raw transcript implies, and nothing invented.

A transcript has no goals, patches, evals or decisions; some of its records
imply them. Each rule can be turned off (``gasp.importLift``):

- ``eval``: a shell command matching a test/build pattern becomes
  ``eval.finished``, Passed or Failed from its exit code (a command whose
  exit the transcript does not show is not lifted; a Codex command still
  running is lifted from the exit a later ``write_stdin`` reads);
- ``patch``: the session's file edits become one ``patch.proposed`` (at
  the first edit) with the touched paths; later paths update it;
- ``commit``: a successful ``git commit`` whose output names the commit
  attaches a ``git.commit`` artifact to that patch;
- ``decision``: a permission denial becomes ``decision.created``
  (Rejected) on the denied call. An approval is never lifted: a
  transcript cannot tell a person's approval from a permissive mode.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from git_gasp.adapters.emitting import Emitter
from git_gasp.adapters.summaries import plain, summary
from git_gasp.core import payloads as P
from git_gasp.core import runpayloads as R

RULES = ("eval", "patch", "commit", "decision")
EVAL_PATTERNS = (
    r"\bpytest\b",
    r"\bpython3? -m (?:pytest|unittest)\b",
    r"\bcargo (?:test|build|check)\b",
    r"\bgo (?:test|build|vet)\b",
    r"\b(?:npm|pnpm|yarn|bun) (?:run )?(?:test|build)\b",
    r"\bmake (?:test|check|build)\b",
    r"\btox\b",
    r"\bmypy\b",
    r"\bruff check\b",
)
_RUNNING = re.compile(r"^Process running with session ID (\d+)$", re.MULTILINE)
_POLLED = re.compile(r'"session_id": (\d+)')  # a Codex write_stdin's arguments
_COMMIT = re.compile(r"^\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{7,40})\] (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class LiftConfig:
    rules: frozenset[str] = frozenset(RULES)
    eval_patterns: tuple[str, ...] = EVAL_PATTERNS

    def __post_init__(self) -> None:
        for pattern in self.eval_patterns:
            re.compile(pattern)  # a bad pattern is the caller's error, said early


class Lifter:
    """Applies the enabled rules while a projector walks one session."""

    def __init__(self, emitter: Emitter, config: LiftConfig) -> None:
        self.em = emitter
        self.config = config
        self._evals = [re.compile(p) for p in config.eval_patterns]
        self.patch_id = emitter.node("patch", "session-edits")
        self.paths: list[str] = []
        self._patch_open = emitter.exists(("session-edits",), "patch.proposed")
        self._running: dict[str, str] = {}  # a Codex session still running -> its command

    def shell(self, key: str, command: str, success: bool | None, output: str, ms: int) -> None:
        """A shell command that ran: maybe an eval, maybe a commit. A Codex
        command still running when it answered is lifted from the exit a later
        ``write_stdin`` on its session reads, as the command that started it."""
        polled = _POLLED.search(command) if command.startswith("{") else None
        if polled is not None:
            started = self._running.pop(polled.group(1), None)
            if started is None:
                return  # input to a session whose start this walk did not see
            command = started
        if success is None:
            if running := _RUNNING.search(output[:400]):
                self._running[running.group(1)] = command
            return
        if "eval" in self.config.rules and any(p.search(command) for p in self._evals):
            patch = self.patch_id if self._patch_open else None
            rec = P.evaluation(
                self.em.node("eval", key),
                summary(command, 500),
                "Passed" if success else "Failed",
                None,
                {"lifted_from": "shell command", "exit": "0" if success else "non-zero"},
                patch,
            )
            self.em.emit(rec, (key, "eval"), ms)
        if "commit" in self.config.rules and success and "git commit" in command:
            found = _COMMIT.search(output)
            if found is not None and self._patch_open:
                art = P.artifact(
                    "git.commit",
                    f"git:{found.group(1)}",
                    summary=summary(found.group(2), 200),
                    metadata={"lifted_from": "git commit output"},
                )
                self.em.emit(R.attachment(self.patch_id, art), (key, "commit"), ms)

    def edited(self, key: str, paths: Sequence[str], ms: int) -> None:
        """A file-editing call that succeeded, touching ``paths``."""
        if "patch" not in self.config.rules or not paths:
            return
        for path in paths:
            if path not in self.paths:
                self.paths.append(path)
        if self._patch_open:
            return
        rec = P.patch(
            self.patch_id,
            f"file edits of {self.em.agent} session {self.em.session}",
            summary("touched: " + ", ".join(self.paths)),
            P.actor_value(self.em.actor.kind, self.em.actor.id),
        )
        self.em.emit(rec, ("session-edits",), ms)
        self._patch_open = True

    def finish(self, ms: int) -> None:
        """Record the touched paths on the patch (again only when they changed)."""
        if not self._patch_open or not self.paths:
            return
        joined = "\0".join(self.paths).encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(joined).hexdigest()[:16]
        ops = [P.update_node(self.patch_id, {"touched_paths": plain(self.paths)})]
        self.em.emit(R.ops_only(ops), ("session-edits", digest), ms)

    def denied(self, key: str, node: str, reason: str, ms: int) -> None:
        """A permission denial of the call ``node``."""
        if "decision" not in self.config.rules:
            return
        rec = P.decision(
            self.em.node("decision", key),
            "Rejected",
            summary(reason, 500),
            P.actor_value("user", self.em.agent),
            {"lifted_from": "permission denial"},
            node,
        )
        self.em.emit(rec, (key, "decision"), ms)
