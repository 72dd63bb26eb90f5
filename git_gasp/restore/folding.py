"""``git gasp fold``: read a repository's log and fold it (or a prefix of it)."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

from git_gasp.core.event import Event
from git_gasp.core.fold import Folder, FoldError, FoldResult
from git_gasp.core.graph import graph_to_value
from git_gasp.core.log import LogReadError, describe_error, gc_paused, stream_events
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store import worktree
from git_gasp.store.logfile import check_size, max_log_bytes, open_regular

FOLD_FORMAT = "git-gasp.fold/1"


class FoldSummary(NamedTuple):
    result: FoldResult
    at: str | None
    strict: bool

    def to_value(self) -> dict[str, Any]:
        graph = self.result.graph
        return {
            "format": FOLD_FORMAT,
            "at": self.at,
            "strict": self.strict,
            "events": self.result.events,
            "ops": self.result.ops,
            "nodes": len(graph.nodes),
            "relations": len(graph.relations),
            "version": graph.version,
            "skipped": [
                {
                    "event_id": s.event_id,
                    "index": s.batch_index,
                    "op": s.op,
                    "node": s.node,
                    "reason": s.reason,
                }
                for s in self.result.skipped
            ],
            "node_kinds": dict(sorted(Counter(n.kind for n in graph.nodes.values()).items())),
            "relation_kinds": dict(sorted(Counter(r.rel for r in graph.relations).items())),
        }

    def to_text(self) -> str:
        v = self.to_value()
        lines = [
            f"{key + ':':<16}{v[key]}" for key in ("events", "ops", "nodes", "relations", "version")
        ]
        lines.append(f"{'skipped ops:':<16}{len(v['skipped'])}")
        for skip in self.result.skipped:
            lines.append(
                f"  {skip.event_id}: {skip.op} at batch index {skip.batch_index} — {skip.reason}"
            )
        for title, counts in (
            ("node kinds:", v["node_kinds"]),
            ("relation kinds:", v["relation_kinds"]),
        ):
            shown = ", ".join(f"{k} {n}" for k, n in counts.items()) or "none"
            lines.append(f"{title:<16}{shown}")
        if self.at:
            lines.insert(0, f"{'through:':<16}{self.at}")
        return "\n".join(lines)


def _log_error(message: str, torn: bool) -> GaspError:
    hint = (
        "run `git gasp repair`: it removes the partial last line (the bytes after the "
        "final newline) and keeps a backup; no committed line changes"
        if torn
        else "`git gasp check` names every bad line; the log is append-only: fix the writer, "
        "never edit committed lines"
    )
    return GaspError(message, hint, FINDINGS)


def fold_repo(
    repo: str,
    at: str | None = None,
    strict: bool = False,
    on_event: Callable[[Event], None] | None = None,
) -> FoldSummary:
    """Fold ``repo``'s log, streaming it line by line (bounded memory);
    ``on_event`` sees each event folded, in order."""
    path = os.path.join(repo, worktree.EVENTS_PATH)
    folder = Folder(strict)
    found = at is None
    seen: list[str] = []  # event ids, for a "did you mean" on an unknown --at
    try:
        fd = open_regular(path, worktree.EVENTS_PATH)
        with os.fdopen(fd, "rb") as fh, gc_paused():
            check_size(fd, worktree.EVENTS_PATH, max_log_bytes(repo))
            for event in stream_events(fh):
                folder.apply(event)
                if on_event is not None:
                    on_event(event)
                if at is not None:
                    seen.append(event.id)
                if event.id == at:
                    found = True
                    break
    except OSError as exc:
        raise GaspError(
            f"{worktree.EVENTS_PATH}: cannot read {path}: {worktree.os_error(exc)}",
            "run this in an agent repository, or pass its path",
        ) from None
    except LogReadError as exc:
        if exc.error is None:
            raise GaspError(
                f"{worktree.EVENTS_PATH}: cannot read {path}: {exc.message}",
                f"see what changed there: git diff -- {worktree.EVENTS_PATH}",
            ) from None
        raise _log_error(describe_error(worktree.EVENTS_PATH, exc.error), exc.error.torn) from None
    except FoldError as exc:
        raise GaspError(
            f"fold failed at event {exc.event_id}: {exc.msg}",
            "without --strict, ops on missing nodes are skipped and reported"
            if strict
            else "see every finding with: git gasp check",
            FINDINGS,
        ) from None
    if not found:
        raise GaspError(
            f"unknown event id: {at}",
            did_you_mean(at or "", seen)
            or f"--at takes the `id` of an event in {worktree.EVENTS_PATH}",
            USAGE,
        )
    return FoldSummary(folder.result(), at, strict)


def graph_text(summary: FoldSummary) -> str:
    """The graph in the reference layout with sorted keys, so folds diff cleanly."""
    return json.dumps(
        graph_to_value(summary.result.graph), indent=2, sort_keys=True, ensure_ascii=False
    )


def write_graph(summary: FoldSummary, dest: str, root: str) -> None:
    """Write :func:`graph_text` to ``dest`` (see :mod:`git_gasp.store.outfile`:
    never over one of the repository's own files at ``root``)."""
    from git_gasp.store import outfile

    outfile.write(dest, (graph_text(summary) + "\n").encode("utf-8"), root)
