"""``git gasp report``: an agent's page, one self-contained HTML file.

Everything is inline (styles, charts as SVG) and the page runs no script; its
Content-Security-Policy forbids every fetch (``default-src 'none'``), so
opening it makes no network request. Text from the repository is escaped.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

from git_gasp import __version__
from git_gasp.core import nodefields as nf
from git_gasp.view import charts
from git_gasp.view.markup import esc as escape
from git_gasp.view.reportdata import OPEN_SHOWN, ReportData
from git_gasp.view.svglineage import lineage_svg

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 0 auto; max-width: 1000px; padding: 24px; color: #1f2328; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px;
     border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.muted { color: #656d76; } .good { color: #2d6a4f; } .bad { color: #b3261e; }
pre { background: #f6f8fa; padding: 10px; border-radius: 6px; white-space: pre-wrap;
      max-height: 320px; overflow: auto; font-size: 12px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
td, th { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eaeef2; }
.legend span { margin-right: 14px; } .arc { overflow-x: auto; margin-bottom: 16px; }
code { font-size: 12px; }
"""


def _section(title: str, *parts: str) -> str:
    return f"<section><h2>{escape(title)}</h2>{''.join(parts)}</section>"


def _identity(data: ReportData) -> str:
    files = "".join(
        f"<h3><code>{escape(path)}</code></h3><pre>{escape(text)}</pre>"
        for path, text in data.identity
    )
    rows = "".join(
        f"<tr><td><code>{escape(name)}</code></td><td>{escape(desc)}</td>"
        f"<td>{'' if valid else '<span class=bad>invalid</span>'}</td></tr>"
        for name, desc, valid in data.skills
    )
    skills = f"<table><tr><th>skill</th><th>description</th><th></th></tr>{rows}</table>"
    return _section("Identity", files or "<p class=muted>no identity files</p>") + _section(
        "Skills", skills if data.skills else "<p class=muted>no skills</p>"
    )


def _runs(data: ReportData) -> str:
    outcomes = Counter(r.outcome or "open" for r in data.runs)
    summary = ", ".join(f"{n} {escape(k)}" for k, n in outcomes.most_common())
    legend = (
        "<p class=legend><span class=good>■ promoted, done</span>"
        "<span class=muted>■ observed, proposed, open</span>"
        "<span class=bad>■ rejected, failed</span></p>"
    )
    return _section(
        "Runs",
        f"<p>{len(data.runs)} runs: {summary}</p>",
        legend,
        charts.timeline(data.runs),
    )


def _record(data: ReportData) -> str:
    promoted = sum(w.promoted for w in data.weeks)
    rejected = sum(w.rejected for w in data.weeks)
    evals = sum(w.evals for w in data.weeks)
    passed = sum(w.passed for w in data.weeks)
    rate = f"{100 * passed / evals:.0f}%" if evals else "no evals"
    return _section(
        "Patch track record",
        f"<p><span class=good>{promoted} promoted</span>, "
        f"<span class=bad>{rejected} rejected</span>;"
        f" eval pass rate {rate} ({passed} of {evals}). Per week: promoted above the line,"
        " rejected below, the pass rate as the blue line.</p>",
        charts.track_record(data.weeks),
    )


def _open(data: ReportData) -> str:
    rows = "".join(
        f"<tr><td><code>{escape(i)}</code></td><td>{escape(k)}</td><td>{escape(s)}</td>"
        f"<td>{escape(nf.shorten(t, 90))}</td></tr>"
        for i, k, s, t in data.open_items[:OPEN_SHOWN]
    )
    hidden = data.open_total - min(len(data.open_items), OPEN_SHOWN)
    more = (
        f"<p class=muted>… and {hidden} more (see <code>git gasp nodes --kind goal --kind task"
        " --status Open</code>)</p>"
        if hidden > 0
        else ""
    )
    table = f"<table><tr><th>id</th><th>kind</th><th>status</th><th>title</th></tr>{rows}</table>"
    return _section("Open goals and tasks", table if rows else "<p class=muted>none open</p>", more)


def _arcs(data: ReportData) -> str:
    drawn = []
    for n, arc in enumerate(data.arcs):
        root = arc.nodes[0]
        head = f"<p><code>git gasp lineage {escape(arc.root)}</code> — "
        head += f"{escape(nf.label(root.node, root.id, 60))}</p>"
        svg = lineage_svg(arc, data.node_runs, data.run_tasks, n)
        drawn.append(f"<div class=arc>{head}{svg}</div>")
    return _section(
        "The last arcs", "".join(drawn) or "<p class=muted>no patch has been decided yet</p>"
    )


def _tokens(data: ReportData) -> str:
    total = sum(r.tokens for r in data.runs)
    return _section(
        "Tokens per run",
        f"<p>{total:,} tokens recorded by model calls' usage.</p>",
        charts.tokens(data.runs),
    )


def render(data: ReportData, now: dt.datetime | None = None) -> str:
    """The whole page."""
    made = (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    kinds = ", ".join(f"{n} {escape(k)}" for k, n in data.counts.items())
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{escape(data.agent)} — GASP agent</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(data.agent)}</h1><p class=muted>{kinds}. "
        f"Made by git-gasp {escape(__version__)} on {made}.</p>"
        + _identity(data)
        + _runs(data)
        + _record(data)
        + _open(data)
        + _arcs(data)
        + _tokens(data)
        + "</body></html>\n"
    )
