"""What the benchmarks print: the table of rows and the notes under it.

:func:`render` lays out the rows (target, measured, baseline, ratio,
verdict); :func:`report` adds the environment and, per row measured, a note
saying how its numbers were taken, from the details each row returned.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from close_rows import CLOSE_PHASES
from fold_rows import BREAKDOWN_PARTS
from harness import TARGETS, MiB, Row, fmt_s
from import_rows import note as note_k


def render(rows: list[Row]) -> str:
    head = Row("", "benchmark", "target", "measured", "baseline", "ratio", "verdict")
    table = [head, *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = []
    for n, r in enumerate(table):
        lines.append("  ".join(f"{c:<{w}}" for c, w in zip(r, widths, strict=True)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def environment() -> dict[str, Any]:
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "python": platform.python_version(),
        "git": git,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "loadavg_at_end": os.getloadavg(),
        "install": _install_kind(),
    }


def _install_kind() -> str:
    """How the hooks' interpreter finds git-gasp: from site-packages (``pip
    install .``) or from a source tree (``pip install -e``, whose path finder
    every interpreter's start loads, ``python -c pass`` too)."""
    probe = "import git_gasp; print(git_gasp.__file__)"
    where = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd="/"
    ).stdout.strip()
    if not where:
        return "nowhere (git_gasp does not import)"
    return "regular (pip install .)" if "-packages" in where else "editable (pip install -e)"


def report(rows: list[Row], details: dict[str, Any], env: dict[str, Any], quick: bool) -> str:
    out = [render(rows), ""]
    if quick:
        out.append("QUICK MODE: sizes reduced (60 commits, 100k events); verdicts are indicative.")
    out.append(
        f"environment: Python {env['python']}, {env['git']}, {env['cpus']} CPUs, git-gasp "
        f"installed {env.get('install', '?')}; "
        f"load average at start {env['loadavg_at_start'][0]:.2f}, at end "
        f"{env['loadavg_at_end'][0]:.2f} (other work on the machine skews timings)"
    )
    for key, notes in _NOTES:
        if key in details:
            out.extend(notes(details[key]))
    return "\n".join(out)


def _note_a(a: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"a: median of {a['runs']} in-process runs after 2 warm-ups (best "
        f"{fmt_s(a['best'])}); {a['events']:,} events, {a['bytes']:,} bytes -> "
        f"{a['nodes']:,} nodes, {a['relations']:,} relations, version {a['version']:,}"
    )
    return out


def _note_repo(r: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"repo: {r['commits']} commits, final log {r['log_bytes']:,} bytes / "
        f"{r['log_events']:,} events, ~{r['versions_bytes_approx'] / 1e9:.2f} GB of "
        f"log versions in history"
    )
    return out


def _note_h(h: dict[str, Any]) -> list[str]:
    out: list[str] = []
    pc, pr = h["pre_commit"], h["pre_receive"]
    out.append(
        f"h: warm = HEAD's log context cached by the previous commit's hook; cold (no "
        f"cache, first commit after a clone): {fmt_s(pc['large']['cold'])} on 600 "
        f"commits, {fmt_s(pc['small']['cold'])} on 10. i: medians of runs pushing to a "
        f"hooked and a plain server in turn; the first push (no cached context on the "
        f"server) added {fmt_s(pr['one_added_cold'])}. j: median of 3, alternating."
    )
    return out


def _note_b(b: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"b: ours = `git gasp check PATH --no-cache` (all seven checks), median of "
        f"{b['ours']['runs']} runs after 1 warm-up (best {fmt_s(b['ours']['best'])}); "
        f"baseline = reference check 4 ONLY (3 paths, one `git show` per commit), "
        + (
            "single run"
            if b["baseline"]["runs"] == 1
            else f"median of {b['baseline']['runs']} runs"
        )
        + ", same repo, same run"
    )
    return out


def _note_c(c: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"c: median of {c['runs']} rounds of (append one run commit, time "
        f"`git gasp check PATH`) on a clone whose cache was warmed first "
        f"(best {fmt_s(c['best'])})"
    )
    return out


def _notes_d(d: dict[str, Any]) -> list[str]:
    out: list[str] = []
    st = d["stages_mib"]
    out.append(
        f"d': one fresh process, parse_log given {d['input']}; "
        f"peak ru_maxrss {d['maxrss'] / MiB:,.0f} MiB, "
        f"total {d['seconds']:.1f} s; staged maxrss: "
        + ", ".join(
            f"{k} {v['maxrss_mib']:,} MiB (+{v['adds_mib']:,}, {v['seconds']} s)"
            for k, v in st.items()
        )
    )
    if "breakdown" in d:
        bd = d["breakdown"]
        pe, ex = bd["per_event_bytes"], bd["extrapolated_mib"]
        out.append(
            f"   live memory by part (tracemalloc on the first "
            f"{bd['measured_on_events']:,} events, scaled to the full log): "
            + ", ".join(
                f"{BREAKDOWN_PARTS[k]} {ex[k]:,} MiB ({pe[k]:,} B/event)" for k in BREAKDOWN_PARTS
            )
        )
    return out


def _note_d_stream(ds: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"d: `git gasp fold PATH --json` (stream_events + Folder, line by line), one "
        f"process: peak ru_maxrss {ds['maxrss_mib']:,.0f} MiB, {ds['seconds']:.1f} s "
        f"wall"
    )
    return out


def report_record(e: dict[str, Any]) -> list[str]:
    durable, fast = e["durable"], e["no_fsync"]
    return [
        f"e: in this process, on a clone of the row-b repository ({e['log_events_before']:,} "
        f"events, {e['log_bytes_before'] / 1e6:.1f} MB; Agent.open took "
        f"{fmt_s(e['open_seconds'])}): start_run, {e['warmup_batches']} warm-up calls, then "
        f"{e['rounds']} rounds x {e['batches_per_round']} helper calls per mode, modes "
        f"alternating; medians. Calls alternate record_observation / record_goal, each one "
        f"batch of {e['events_per_batch']:.0f} events (~{e['bytes_per_event']:.0f} B/event) "
        f"appended under the lock; file system {e['fs']}; load {e['loadavg']:.2f}; I/O "
        f"pressure (PSI some avg10) {fmt_psi(e['io_pressure'][0])} before, "
        f"{fmt_psi(e['io_pressure'][1])} after",
        f"   durable: {durable['fsyncs_per_batch']:g} fsyncs per batch ("
        + ", ".join(f"{k} {v:g}" for k, v in e["fsync_callers_per_batch"].items())
        + f"); Lease.acquire, which every append calls, is {durable['lease_share']:.0%} "
        f"of the time",
        f"   e' (informational, NOT durable): os.fsync patched to a no-op; Lease.acquire "
        f"(its temp files, link/rename) is still {fast['lease_share']:.0%} of the time",
    ]


def fmt_psi(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def report_close(f: dict[str, Any]) -> list[str]:
    s, big = f["small"], f["large"]

    def loads(d: dict[str, Any]) -> str:
        return "/".join(f"{x:.2f}" for x in d["loadavg"])

    out = [
        f"f: `git gasp run close --outcome ...` as a whole process (bytecode cached, as "
        f"installed). Per history: a clone; the snapshots the cadence ([gasp] snapshot_every) "
        f"would have taken, written and committed ({s['snapshots']} / {big['snapshots']}); one "
        f"warm-up round (first close {fmt_s(s['first_close'])} / {fmt_s(big['first_close'])}: "
        f"it writes memory/active_memory.md and the compressed-log cache); then "
        f"{big['runs_timed']} rounds of (`git gasp run start`, an observation and a tool call "
        f"through the Python API - not timed - then time the close), the two histories' rounds "
        f"interleaved, median. {s['runs']} runs: {s['log_events']:,} events, "
        f"{s['log_bytes'] / 1e6:.2f} MB, best {fmt_s(s['best'])}, load {loads(s)}; "
        f"{big['runs']} runs: {big['log_events']:,} events, {big['log_bytes'] / 1e6:.2f} MB, "
        f"best {fmt_s(big['best'])}, load {loads(big)}",
        f"   where a close's time goes (one more round each, instrumented, fresh `python -c`; "
        f"ms, {s['runs']} runs -> {big['runs']} runs):",
    ]
    out.extend(_close_phase_lines(s, big))
    prof = big.get("profile")
    if prof and not (big["median"] <= TARGETS["f"] and f["ratio"] <= TARGETS["f_ratio"]):
        out.extend(_close_profile_lines(big["runs"], prof))
    return out


def _close_phase_lines(s: dict[str, Any], big: dict[str, Any]) -> list[str]:
    """Where one close's time goes, 10 runs -> 600 runs, phase by phase (ms)."""
    out: list[str] = []
    sp, bp = s["phases"], big["phases"]
    lines = [
        ("python start-up + exit", sp["startup"], bp["startup"], 0, 0, 0),
        ("imports (git_gasp.cli.root, click, ...)", sp["imports"], bp["imports"], 0, 0, 0),
    ]
    subcommands = sorted(
        {k for k in [*sp["phases"], *bp["phases"]] if k.startswith("git ")},
        key=lambda k: -bp["phases"].get(k, [0, 0.0])[1],
    )
    for label, key, indent in CLOSE_PHASES:
        a = sp["phases"].get(key, [0, 0.0])
        b = bp["phases"].get(key, [0, 0.0])
        lines.append(("  " * indent + label, a[1], b[1], a[0], b[0], 1))
        if key == "git":
            for sub in subcommands:
                a = sp["phases"].get(sub, [0, 0.0])
                b = bp["phases"].get(sub, [0, 0.0])
                lines.append((f"  {sub}", a[1], b[1], a[0], b[0], 1))
    lines.append(("whole process (this round)", sp["wall"], bp["wall"], 0, 0, 0))
    width = max(len(x[0]) for x in lines)
    for label, a, b, na, nb, counted in lines:
        calls = f"  ({na} -> {nb} calls)" if counted and (na > 1 or nb > 1) else ""
        out.append(
            f"     {label:<{width}}  {a * 1000:7.1f}  {b * 1000:7.1f}  "
            f"({(b - a) * 1000:+.1f}){calls}"
        )
    return out


def _close_profile_lines(runs: int, prof: dict[str, Any]) -> list[str]:
    """The cProfile of one more close on the large history."""
    out: list[str] = []
    out.append(
        f"   cProfile of one more close, {runs} runs ({prof['total'] * 1000:.0f} ms "
        f"under the profiler); git_gasp functions by cumulative time:"
    )
    for e in prof["by_cumtime"]:
        out.append(
            f"     {e['cumtime'] * 1000:7.1f} ms cum  {e['tottime'] * 1000:6.1f} ms own  "
            f"{e['ncalls']:>6}x  {e['function']}"
        )
    out.append("   by own time (all functions):")
    for e in prof["by_tottime"]:
        out.append(f"     {e['tottime'] * 1000:7.1f} ms own  {e['ncalls']:>6}x  {e['function']}")
    return out


def _note_real(r: dict[str, Any]) -> list[str]:
    return ["real-shaped " + _note_repo(r)[0] + " (rows l, r, s)"]


def _note_check(o: dict[str, Any]) -> list[str]:
    return [
        f"r: check --no-cache and the floor alternating, 1 warm-up each; check {o['check']} s, "
        f"floor {o['floor']} s ({o['floor_versions']} versions, "
        f"{o['floor_bytes'] / 1e9:.2f} GB read); load {[round(x, 1) for x in o['loadavg']]}",
        f"r': warm check after each of {len(o['warm'])} appended run commits: {o['warm']} s",
        f"r, r': CPU seconds (user+system, whole process trees): check {o['check_cpu']}, "
        f"floor {o['floor_cpu']}, warm {o['warm_cpu']}",
    ]


def _note_push(p: dict[str, Any]) -> list[str]:
    return [
        f"s: whole-history pushes after a warm-up round, hooked {p['hooked']} s, "
        f"plain {p['plain']} s; CPU seconds (every process of the push) hooked "
        f"{p['hooked_cpu']}, plain {p['plain_cpu']}; load at the end {p['loadavg']:.1f}"
    ]


def _note_l(d: dict[str, Any]) -> list[str]:
    return [
        f"l: rounds [hooked, plain] s: {d['refs']['all']}; CPU s: {d['refs']['cpu']}",
        f"l': rounds [hooked, plain] s: {d['forced']['all']}; CPU s: {d['forced']['cpu']}",
    ]


# the notes of each row measured (a key of the details), in the order printed
_NOTES: tuple[tuple[str, Callable[[dict[str, Any]], list[str]]], ...] = (
    ("a", _note_a),
    ("repo", _note_repo),
    ("h", _note_h),
    ("b", _note_b),
    ("c", _note_c),
    ("d", _notes_d),
    ("d_stream", _note_d_stream),
    ("e", report_record),
    ("f", report_close),
    ("k", note_k),
    ("real_repo", _note_real),
    ("l", _note_l),
    ("r", _note_check),
    ("s", _note_push),
)
