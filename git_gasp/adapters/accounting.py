"""The I/O side of ``git gasp usage``: the log, the range's runs, the pricing table.

The counts come from the agent repository's log as the work tree holds it,
read in one pass: only the lines that can be model events are parsed; no
transcript is read or projected again.
With a REV-RANGE, only the runs whose boundary commits (``Run-Id``
trailers) are in the range count. ``--by commit`` names each run's latest
boundary commit. A pricing table is the user's own JSON file (USD per
million tokens, per model and field); its cost is always an estimate.
"""

from __future__ import annotations

import json
import os
from typing import Any

from git_gasp import git
from git_gasp.adapters.usage import FIELDS, estimate, group
from git_gasp.core.log import parse_log
from git_gasp.errors import USAGE, GaspError

EVENTS = os.path.join("state", "events.jsonl")
PRICING_HINT = (
    'write it as {"MODEL": {"input": 3, "output": 15, "cache_creation": 3.75, '
    '"cache_read": 0.3}} (USD per million tokens; see `man git-gasp-usage`)'
)


def read_usage(root: str, rev_range: str | None, by: str, pricing: str | None) -> dict[str, Any]:
    try:
        with open(os.path.join(root, EVENTS), "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        data = b""
    except OSError as exc:
        raise GaspError(f"{EVENTS}: cannot read: {exc.strerror}") from None
    events = list(parse_log(_model_lines(data)).events)
    commits = _boundary_commits(root, rev_range or "HEAD")
    if rev_range is not None:
        events = [e for e in events if e.correlation_id in commits]
    rows = group(events, by, commits.get)
    value: dict[str, Any] = {
        "format": "git-gasp.usage/1",
        "range": rev_range,
        "by": by,
        "rows": rows,
        "totals": {f: sum(r[f] for r in rows) for f in (*FIELDS, "total")},
    }
    if pricing is not None:
        value["unpriced_models"] = estimate(rows, _prices(pricing))
        value["cost_is_estimate"] = True
    return value


def _model_lines(data: bytes) -> bytes:
    """The lines of the log that can hold a ``model.called`` or ``model.finished``
    event (the only ones usage counts): those spelling ``model.``, and any with
    a ``\\u`` escape, which could spell it otherwise. The rest is not parsed."""
    kept = [line for line in data.split(b"\n") if b"model." in line or b"\\u" in line]
    return b"\n".join(kept) + b"\n" if kept else b""


def _boundary_commits(root: str, rev_range: str) -> dict[str, str]:
    """Run id -> the latest commit in ``rev_range`` whose Run-Id names it."""
    if git.head(root) is None:
        return {}
    try:
        out = git.run(
            root, ["log", "--format=%H%x00%(trailers:key=Run-Id,valueonly)%x01", rev_range, "--"]
        )
    except git.GitError as exc:
        raise GaspError(
            f"{rev_range}: not a revision range: {exc.reason()}", git.RANGE_HINT, USAGE
        ) from None
    found: dict[str, str] = {}
    for entry in out.decode("utf-8", "replace").split("\x01"):
        sha, _, runs = entry.strip().partition("\x00")
        for run in runs.split():
            found.setdefault(run.strip(), sha)
    return found


def _prices(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError) as exc:
        raise GaspError(f"{path}: not a JSON pricing table: {exc}", PRICING_HINT, USAGE) from None
    if not isinstance(value, dict):
        raise GaspError(f"{path}: a pricing table is an object of models", PRICING_HINT, USAGE)
    for model, price in value.items():
        if not isinstance(price, dict):
            continue  # not a price: the model is listed as unpriced
        for field in FIELDS:
            amount = price.get(field, 0)
            if isinstance(amount, bool) or not isinstance(amount, (int, float)):
                bad = f"{json.dumps(amount)[:40]} is not a number"
            elif not 0 <= amount < float("inf"):
                bad = f"{amount} is not a price"
            else:
                continue
            where = f"{path}: {json.dumps(model)}.{field}"
            raise GaspError(f"{where}: {bad}", PRICING_HINT, USAGE)
    return value


def usage_text(report: dict[str, Any]) -> str:
    by = report["by"]
    model = "" if by == "model" else f"{'model':<28} "  # by model: one column of it
    head = f"{by:<40} {model}" + " ".join(f"{f:>14}" for f in (*FIELDS, "total"))
    lines = [head]
    for row in report["rows"]:
        cells = " ".join(f"{row[f]:>14,}" for f in (*FIELDS, "total"))
        cost = f"  ~${row['cost_estimate']:.4f} (estimate)" if "cost_estimate" in row else ""
        shown = "" if by == "model" else f"{row['model'][:28]:<28} "
        lines.append(f"{str(row[by])[:40]:<40} {shown}{cells}{cost}")
    totals = report["totals"]
    blank = "" if by == "model" else f"{'':<28} "
    lines.append(f"{'total':<40} {blank}" + " ".join(f"{totals[f]:>14,}" for f in totals))
    if not report["rows"]:
        lines.append("(no imported token usage)")
    return "\n".join(lines)
