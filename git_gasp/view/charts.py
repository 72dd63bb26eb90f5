"""The agent page's charts as plain inline SVG: the runs on a time line
coloured by outcome, the patch track record per week (promoted above the
line, rejected below, the eval pass rate as a line), and tokens per run.

No script and no external resource: every chart is one ``<svg>`` element
whose hover texts are SVG ``<title>`` elements.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from git_gasp.core.nodefields import outcome_tone
from git_gasp.view.markup import esc as escape
from git_gasp.view.reportdata import RunRow, Week

WIDTH = 960
INK = {"good": "#2d6a4f", "bad": "#b3261e", "open": "#8a94a0"}
PASS = "#1d4ed8"


def _day(ts_ms: int) -> str:
    return dt.datetime.fromtimestamp(ts_ms / 1000, dt.UTC).strftime("%Y-%m-%d")


def _svg(height: int, body: Sequence[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="{escape(label)}">'
        + "".join(body)
        + "</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "start", size: int = 11) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="#444">{escape(text)}</text>'
    )


def timeline(runs: Sequence[RunRow]) -> str:
    """One mark per run at its start time, coloured by its outcome."""
    timed = [r for r in runs if r.started_ms is not None]
    if not timed:
        return _svg(30, [_text(0, 20, "no runs yet")], "runs")
    lo = min(r.started_ms or 0 for r in timed)
    hi = max(r.started_ms or 0 for r in timed)
    span = max(hi - lo, 1)
    left, inner = 10, WIDTH - 20
    body = [f'<line x1="{left}" y1="46" x2="{left + inner}" y2="46" stroke="#ccc"/>']
    for r in timed:
        x = left + inner * ((r.started_ms or 0) - lo) / span
        tone = outcome_tone(r.outcome)
        tip = f"{r.id}: {r.task} ({r.outcome or 'open'})"
        body.append(
            f'<rect x="{x - 1.5:.1f}" y="{12 if tone == "good" else 24 if tone == "open" else 36}" '
            f'width="3" height="10" fill="{INK[tone]}"><title>{escape(tip)}</title></rect>'
        )
    body += [_text(left, 62, _day(lo)), _text(left + inner, 62, _day(hi), "end")]
    return _svg(68, body, "runs over time, by outcome")


_UNDECIDED = "no patch has been promoted or rejected yet"


def track_record(weeks: Sequence[Week]) -> str:
    """Per week: promoted patches up, rejected down; the eval pass rate on top."""
    if not weeks:
        return _svg(30, [_text(0, 20, _UNDECIDED)], "patches")
    decided = max(max(w.promoted for w in weeks), max(w.rejected for w in weeks))
    top = max(decided, 1)
    left, inner, mid, half = 40, WIDTH - 60, 150, 60
    step = inner / len(weeks)
    bar = max(min(step * 0.7, 28), 2)
    body = [
        f'<line x1="{left}" y1="{mid}" x2="{left + inner}" y2="{mid}" stroke="#999"/>',
        _text(left - 6, 24, "100%", "end"),
    ]
    if decided:  # the bars' scale, up and down; none when no patch was decided
        body += [
            _text(left - 6, mid - half + 4, str(top), "end"),
            _text(left - 6, mid + half + 4, str(top), "end"),
        ]
    else:
        body.append(_text(left, mid - 8, _UNDECIDED))
    points = []
    for i, w in enumerate(weeks):
        x = left + i * step + (step - bar) / 2
        up, down = half * w.promoted / top, half * w.rejected / top
        tip = f"week of {w.start}: {w.promoted} promoted, {w.rejected} rejected"
        body.append(
            f'<rect x="{x:.1f}" y="{mid - up:.1f}" width="{bar:.1f}" height="{up:.1f}" '
            f'fill="{INK["good"]}"><title>{escape(tip)}</title></rect>'
        )
        body.append(
            f'<rect x="{x:.1f}" y="{mid:.1f}" width="{bar:.1f}" height="{down:.1f}" '
            f'fill="{INK["bad"]}"><title>{escape(tip)}</title></rect>'
        )
        if w.evals:  # a dot each week (one week is a line of no length), joined
            cx, cy = x + bar / 2, 20 + 60 * (1 - w.passed / w.evals)
            points.append(f"{cx:.1f},{cy:.1f}")
            rate = f"week of {w.start}: eval pass rate {100 * w.passed / w.evals:.0f}%"
            body.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="{PASS}">'
                f"<title>{escape(rate)} ({w.passed} of {w.evals})</title></circle>"
            )
    if len(points) > 1:
        body.append(
            f'<polyline points="{" ".join(points)}" fill="none" stroke="{PASS}" stroke-width="2">'
            "<title>eval pass rate per week</title></polyline>"
        )
    body += [
        _text(left, mid + half + 22, f"week of {weeks[0].start}"),
        _text(left + inner, mid + half + 22, f"week of {weeks[-1].start}", "end"),
    ]
    return _svg(mid + half + 30, body, "patch track record per week")


def tokens(runs: Sequence[RunRow]) -> str:
    """Tokens (input and output) each run's model calls spent, in run order."""
    spent = [r for r in runs if r.tokens]
    if not spent:
        return _svg(30, [_text(0, 20, "no run has recorded token usage")], "tokens")
    top = max(r.tokens for r in spent)
    left, inner, height = 60, WIDTH - 70, 90
    step = inner / len(spent)
    body = [_text(left - 6, 14, f"{top:,}", "end"), _text(left - 6, height + 10, "0", "end")]
    for i, r in enumerate(spent):
        h = height * r.tokens / top
        body.append(
            f'<rect x="{left + i * step:.1f}" y="{10 + height - h:.1f}" '
            f'width="{max(step * 0.8, 0.6):.2f}" height="{h:.1f}" fill="#6b7280">'
            f"<title>{escape(f'{r.id}: {r.tokens:,} tokens')}</title></rect>"
        )
    return _svg(height + 20, body, "tokens per run")
