"""``git gasp notes``: link commits to agent sessions with notes under
``refs/notes/agent-sessions`` (add, show, list, verify, setup, sync)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import click

from git_gasp import output
from git_gasp.cli.options import ANY_REPO, JSON, GuidedGroup
from git_gasp.errors import FINDINGS, OK

FORMAT = "git-gasp.notes/1"


def _repo(repo: str | None) -> str:
    return repo or "."


def _record(rec: Any) -> dict[str, Any]:
    return {k: v for k, v in rec._asdict().items() if v is not None}


def _describe(rec: Any) -> str:
    extra = [f"{k}={v}" for k, v in _record(rec).items() if k not in ("v", "kind", "session")]
    return " ".join([f"{rec.kind:<10}", rec.session, *extra])


_SYNC = "notes travel both ways with: git gasp notes sync [REMOTE] (fetch, merge, push)"


@click.group(cls=GuidedGroup, instead=dict.fromkeys(("push", "pull", "fetch"), _SYNC))
def notes() -> None:
    """Link commits to agent sessions: notes under refs/notes/agent-sessions.

    A note holds references and sha256 digests only, never transcripts.
    """


@notes.command(name="add")
@click.argument("commit")
@click.option(
    "--session",
    required=True,
    metavar="REF",
    help="The Agent-Session reference <agent>:[<namespace>:]<sessionId>[#<recordRef>].",
)
@click.option(
    "--transcript",
    "transcripts",
    multiple=True,
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False),
    help="Record FILE's sha256 digest and size, never its bytes (repeatable).",
)
@click.option(
    "--run", "run_id", metavar="ID", help="Record the run: its event range and the log digest."
)
@ANY_REPO
@JSON
def add(
    commit: str,
    session: str,
    transcripts: tuple[str, ...],
    run_id: str | None,
    repo: str | None,
    as_json: bool,
) -> int:
    """Add records to COMMIT's note (a union with what is there)."""
    from git_gasp.sessions import notes as sessionnotes

    root = _repo(repo)
    oid = sessionnotes.commit_id(root, commit)
    records = sessionnotes.records_for(root, oid, session, transcripts, run_id)
    before = set((sessionnotes.read_note(root, oid) or b"").splitlines())
    after = sessionnotes.add_records(root, oid, records)
    added = len(set(after.splitlines()) - before)
    if run_id and not any(r.kind == "run" and r.events for r in records):
        output.diag(f"warning: run {run_id} is not in {oid[:12]}'s event log; no event range")
    if as_json:
        output.data_json({"format": FORMAT, "commit": oid, "added": added, "note": after.decode()})
    else:
        n = len(after.splitlines())
        output.data(f"noted {oid[:12]}: {added} new record{'s' * (added != 1)}, {n} in all")
    return OK


@notes.command(name="show")
@click.argument("commit", default="HEAD")
@ANY_REPO
@JSON
def show(commit: str, repo: str | None, as_json: bool) -> int:
    """Show COMMIT's note (default HEAD), one record per line."""
    from git_gasp.core.notes import parse_note
    from git_gasp.sessions import notes as sessionnotes

    root = _repo(repo)
    oid = sessionnotes.commit_id(root, commit)
    note = sessionnotes.read_note(root, oid, fetched=True)  # as sessions and who read it
    records, problems = parse_note(note or b"")
    if as_json:
        output.data_json(
            {
                "format": FORMAT,
                "commit": oid,
                "note": None if note is None else note.decode("utf-8", "replace"),
                "records": [_record(r) for r in records],
                "problems": [str(p) for p in problems],
            }
        )
        return OK
    if note is None:
        output.data(f"no note on {oid[:12]}")
        return OK
    output.data(f"commit {oid}")
    for rec in records:
        output.data("  " + _describe(rec))
    for problem in problems:
        output.data(f"  problem: {problem}")
    return OK


@notes.command(name="list")
@click.argument("rev_range", metavar="[REV-RANGE]", default="HEAD")
@ANY_REPO
@JSON
def list_(rev_range: str, repo: str | None, as_json: bool) -> int:
    """List the commits in REV-RANGE (default HEAD) that have a note, newest first."""
    from git_gasp.core.notes import parse_note
    from git_gasp.sessions import notes as sessionnotes

    rows: list[dict[str, Any]] = []
    for commit, note in sessionnotes.noted(_repo(repo), rev_range, fetched=True):
        records = parse_note(note)[0]
        sessions = list(dict.fromkeys(r.session for r in records))
        runs = list(dict.fromkeys(r.run for r in records if r.run))
        rows.append({"commit": commit, "records": len(records), "sessions": sessions, "runs": runs})
    if as_json:
        output.data_json({"format": FORMAT, "range": rev_range, "commits": rows})
        return OK
    for row in rows:
        n = row["records"]
        line = f"{row['commit'][:12]} {n} record{'s' * (n != 1)}"
        line += "  sessions: " + ", ".join(row["sessions"])
        output.data(line + ("  runs: " + ", ".join(row["runs"]) if row["runs"] else ""))
    if not rows:
        output.diag(f"no commit in {rev_range} has a note")
    return OK


@notes.command(name="verify")
@click.argument("rev_range", metavar="[REV-RANGE]", default="HEAD")
@ANY_REPO
@JSON
def verify(rev_range: str, repo: str | None, as_json: bool) -> int:
    """Recompute the digests the notes in REV-RANGE (default HEAD) record.

    Transcript digests from the files (in the work tree, else in the commit),
    log digests and run event ranges from the commit's state/events.jsonl.
    Exit 1 on a mismatch or a malformed note; a missing file is reported only.
    """
    from git_gasp.sessions import verification

    reports = verification.verify(_repo(repo), rev_range)
    counts = Counter(v.status for r in reports for v in r.records)
    bad = counts["mismatch"] > 0 or any(r.problems for r in reports)
    if as_json:
        value = {
            "format": FORMAT,
            "range": rev_range,
            "ok": not bad,
            "counts": {s: counts[s] for s in ("match", "mismatch", "missing", "n/a")},
            "notes": [
                {
                    "commit": r.commit,
                    "problems": list(r.problems),
                    "records": [
                        {
                            "record": _record(v.record),
                            "status": v.status,
                            "checks": [c._asdict() for c in v.checks],
                        }
                        for v in r.records
                    ],
                }
                for r in reports
            ],
        }
        output.data_json(value)
        return FINDINGS if bad else OK
    for r in reports:
        for problem in r.problems:
            output.data(f"{r.commit[:12]} note {problem}")
        for v in r.records:
            details = "; ".join(f"{c.what} {c.status}: {c.detail}" for c in v.checks)
            what = f"{r.commit[:12]} {v.record.kind} {v.record.session} {v.record.run or ''}"
            output.data(f"{what.rstrip()}: {v.status}" + (f" ({details})" if details else ""))
    summary = ", ".join(f"{counts[s]} {s}" for s in ("match", "mismatch", "missing", "n/a"))
    output.data(f"{len(reports)} note{'s' * (len(reports) != 1)}: {summary}")
    return FINDINGS if bad else OK


@notes.command(name="setup")
@click.argument("remote", required=False)
@ANY_REPO
@JSON
def setup(remote: str | None, repo: str | None, as_json: bool) -> int:
    """Make notes survive amend and rebase, merge cleanly, and fetch from REMOTE.

    Sets notes.rewriteRef (added next to any other), notes.rewriteMode (when
    unset) and notes.agent-sessions.mergeStrategy to cat_sort_uniq, and adds the fetch
    refspec into refs/notes/remotes/REMOTE/agent-sessions (default origin;
    skipped when there is no origin).
    """
    from git_gasp.sessions import sync as notesync

    done = notesync.setup(_repo(repo), remote)
    fetch = [s for s in done if s.key.endswith(".fetch")]
    if as_json:
        remote_name = fetch[0].key.split(".")[1] if fetch else None
        settings = [s._asdict() for s in done]
        output.data_json({"format": FORMAT, "remote": remote_name, "settings": settings})
        return OK
    for s in done:
        output.data(f"{s.action:<8} {s.key} = {s.value}")
    if not fetch:
        output.diag("no remote origin: no fetch refspec added (run: git gasp notes setup REMOTE)")
    return OK


@notes.command(name="sync")
@click.argument("remote", default="origin")
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    metavar="N",
    help="Fetch, merge and push again up to N times when the push is rejected.",
)
@click.option(
    "--drop-strays",
    is_flag=True,
    help="First remove files in the local notes tree that are not notes (one commit).",
)
@ANY_REPO
@JSON
def sync(remote: str, retries: int, drop_strays: bool, repo: str | None, as_json: bool) -> int:
    """Fetch REMOTE's notes (default origin), merge them and push the union, never forcing."""
    from git_gasp.sessions import sync as notesync

    root = _repo(repo)
    if drop_strays:
        for name in notesync.drop_strays(root):
            shown = name if name.isprintable() else repr(name)[1:-1]
            output.diag(f"dropped {shown} from the notes (not a note)")
    done = notesync.sync(root, remote, retries, say=output.diag)
    if as_json:
        output.data_json({"format": FORMAT, **done._asdict()})
        return OK
    fetched = f"fetched {done.fetched[:12]}" if done.fetched else "no notes there yet"
    merged = f"merge: {done.merge}"
    if done.pushed:
        pushed = f"pushed {done.tip[:12] if done.tip else ''}"
        pushed += f" (attempt {done.attempts})" if done.attempts > 1 else ""
    else:
        pushed = "nothing to push" if done.tip is None else "up to date"
    output.data(f"notes sync {remote}: {fetched}; {merged}; {pushed}")
    return OK
