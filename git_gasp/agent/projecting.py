"""Writing the projections: facts, active memory, the journal, snapshots."""

from __future__ import annotations

import json
import os
import shutil

import git_gasp.agent.validate as validate
from git_gasp import git
from git_gasp.agent.api import Agent
from git_gasp.agent.ids import new_id
from git_gasp.core.executorconfig import parse_toml
from git_gasp.core.fold import fold
from git_gasp.core.log import describe_error, gc_paused, parse_log
from git_gasp.core.projections import (
    MEMORY_MARKER,
    Fact,
    FactsFile,
    active_memory,
    fact_line,
    journal_entry,
    line_count_through,
    parse_facts,
    seal_matches,
    snapshot_bytes,
    snapshot_dir_name,
    snapshot_record,
)
from git_gasp.core.suggest import did_you_mean
from git_gasp.errors import FINDINGS, USAGE, GaspError
from git_gasp.store import seeding, writer
from git_gasp.store.lease import now_ms
from git_gasp.store.worktree import MAX_SNAPSHOT_BYTES, os_error

FACTS_PATH = "memory/facts.jsonl"
MEMORY_PATH = "memory/active_memory.md"
JOURNAL_PATH = "journal/JOURNAL.md"
CONFIG_PATH = ".agent/config.toml"
DEFAULT_SNAPSHOT_EVERY = 1000
_RECORD_FIRST = "a snapshot folds events: record some first, e.g. git gasp run start --task TEXT"


def read_facts(root: str) -> FactsFile:
    try:
        with open(os.path.join(root, FACTS_PATH), encoding="utf-8") as fh:
            return parse_facts(fh.read())
    except FileNotFoundError:
        return FactsFile((), ())
    except OSError as exc:
        raise GaspError(f"{FACTS_PATH}: cannot read: {os_error(exc)}", None, USAGE) from None
    except UnicodeDecodeError:
        raise GaspError(
            f"{FACTS_PATH}: cannot read: not UTF-8", "git gasp check reports the lines", USAGE
        ) from None


def regenerate_memory(root: str) -> str:
    """Rewrite ``memory/active_memory.md`` from the facts, when it is
    git-gasp's to write (:func:`memory_is_ours`); returns its path."""
    path = os.path.join(root, MEMORY_PATH)
    if not memory_is_ours(root):
        return MEMORY_PATH  # the agent's own synthesis: left as it is
    text = active_memory(read_facts(root)).encode("utf-8")
    try:
        with open(path, "rb") as fh:
            unchanged = fh.read() == text
    except OSError:
        unchanged = False
    if not unchanged:
        writer.write_atomically(path, text)
    return MEMORY_PATH


def memory_is_ours(root: str) -> bool:
    """``memory/active_memory.md`` is git-gasp's to write: it is missing, it
    starts with the header git-gasp writes (its marker), or ``git config
    gasp.activeMemory generate`` says so. A file another writer made (an
    agent's own synthesis) is left alone."""
    try:
        with open(os.path.join(root, MEMORY_PATH), "rb") as fh:
            head = fh.read(len(MEMORY_MARKER))
    except FileNotFoundError:
        return True
    except OSError as exc:
        raise GaspError(f"{MEMORY_PATH}: cannot read: {os_error(exc)}", None, USAGE) from None
    if head == MEMORY_MARKER:
        return True
    return git.config_value(root, "gasp.activeMemory") == "generate"


KEPT_SAID = "said-kept-memory"  # under <git-common-dir>/gasp/: the notice was printed


def first_kept_notice(root: str) -> bool:
    """True once per repository: the first time a close leaves an active
    memory that is not git-gasp's alone, it says so (and how to opt in);
    ``<git-common-dir>/gasp/said-kept-memory`` remembers that it did. An
    exclusive create, so of two racing closes one says it. A repository
    where the file cannot be written says it every time rather than never."""
    common = seeding.common_dir(root)
    if common is None:
        return True
    path = os.path.join(common, "gasp", KEPT_SAID)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        return False
    except OSError:
        return True
    return True


def add_fact(
    agent: Agent, text: str, derived_from: list[str], supersedes: str | None = None
) -> Fact:
    """Append a fact (validated: the ids it names exist) and refresh active memory."""
    if not text.strip():
        raise GaspError("a fact needs text", 'e.g. git gasp fact add "TEXT"', USAGE)
    validate.utf8("the fact's text", text)
    memory = read_facts(agent.root)
    fact_ids = {f.id for f in memory.facts}
    for ref in derived_from:
        if ref not in fact_ids and not agent.knows(ref):
            message = f"--derived-from {ref}: no event, node or fact has that id"
            raise GaspError(message, "list them: git gasp nodes, git gasp fact list", USAGE)
    _check_supersedes(memory, supersedes)
    fact = Fact(new_id("fact"), now_ms(), text, tuple(derived_from), supersedes)
    line = (fact_line(fact) + "\n").encode("utf-8")
    validate.secrets(FACTS_PATH, line, "the fact")
    validate.line_sizes(FACTS_PATH, line, agent.max_line_bytes, "the fact")
    agent.lease.acquire()
    with writer.locked(os.path.join(agent.root, FACTS_PATH), agent.root) as facts:
        if supersedes is not None:  # again under the lock: another process may have just
            current = facts.read_from(0).decode("utf-8", "replace")
            _check_supersedes(parse_facts(current), supersedes)
        facts.write(line)
    try:
        regenerate_memory(agent.root)
    except OSError as exc:  # the fact is recorded: say so, so that it is not added twice
        raise GaspError(
            f"recorded {fact.id}, but {MEMORY_PATH} could not be rewritten: {exc.strerror or exc}",
            "do not add the fact again; the next fact add or run close rewrites the file",
        ) from None
    return fact


def _check_supersedes(memory: FactsFile, supersedes: str | None) -> None:
    """A fact supersedes a known fact that nothing superseded yet (a chain, not a fork)."""
    if supersedes is None:
        return
    if supersedes not in {f.id for f in memory.facts}:
        raise GaspError(f"unknown fact: {supersedes}", "list facts with: git gasp fact list")
    later = [f.id for f in memory.facts if f.supersedes == supersedes]
    if later:
        raise GaspError(
            f"fact {supersedes} is already superseded by {later[0]}",
            f"supersede the latest one: git gasp fact supersede {later[-1]} TEXT",
        )


def task_of(agent: Agent, run_id: str) -> str:
    """The task a run was started with ("-" when none)."""
    node = agent.graph.nodes.get(run_id)
    props = node.props if node is not None else None
    task = props.get("task") if isinstance(props, dict) else None
    return task if isinstance(task, str) else "-"


def append_journal(agent: Agent, run_id: str, goal: str | None, outcome: str, task: str) -> str:
    """Append the run's entry once, in one write. A retried close does not add
    a second: this run's uncommitted entry from an earlier attempt (whole, or
    cut short by a crash) is written again as it is now; text after a whole
    one is kept, an entry edited by hand is left as it is, and committed
    bytes are never touched."""
    path = os.path.join(agent.root, JOURNAL_PATH)
    header = f"## Run {run_id}:".encode()
    entry = journal_entry(run_id, goal, outcome, task, agent.graph, agent.run_events(run_id))
    data = entry.encode("utf-8")
    with writer.locked(path, agent.root) as journal:
        existing = journal.read_from(0)
        if existing.endswith(data):
            return JOURNAL_PATH  # a retried close: written already
        # an earlier attempt at this close left this run's entry (whole, or
        # cut short by a crash, even inside its heading): it is written again
        # as it is now, and whatever follows a whole one is kept
        at = _line_start(existing, header)
        if at is None:
            at = _cut_short(existing, data)
        rest = b""
        if at is not None:
            if at < git.committed_size(agent.root, JOURNAL_PATH):
                return JOURNAL_PATH  # a commit holds it: append-only, left alone
            tail = existing[at:]
            whole = _entry_length(tail)
            if whole is not None:
                rest = tail[whole:]
            elif tail.endswith(b"\n") and not data.startswith(tail):
                return JOURNAL_PATH  # neither whole nor a crash's cut: edited by hand, kept
            journal.truncate(at)
        journal.write((data if journal.size() else b"# Journal\n\n" + data) + rest)
    return JOURNAL_PATH


def _entry_length(tail: bytes) -> int | None:
    """The length of the whole journal entry ``tail`` starts with (a heading,
    a blank line, ``- `` lines, a blank line), or None if it was cut short."""
    first = tail.find(b"\n")
    if first < 0 or tail[first + 1 : first + 2] != b"\n":
        return None
    at = first + 2
    while tail.startswith(b"- ", at):
        end = tail.find(b"\n", at)
        if end < 0:
            return None
        at = end + 1
    return at + 1 if tail[at : at + 1] == b"\n" else None


def _cut_short(existing: bytes, data: bytes) -> int | None:
    """Where the first part of ``data`` that ends ``existing`` starts (a write
    of it a crash cut short), at the start of a line; None if there is none."""
    at = max(0, len(existing) - len(data) + 1)
    while at < len(existing):
        if (at == 0 or existing[at - 1] == 0x0A) and data.startswith(existing[at:]):
            return at
        at = existing.find(b"\n", at) + 1
        if at == 0:
            return None
    return None


def _line_start(data: bytes, prefix: bytes) -> int | None:
    """Where the last line starting with ``prefix`` starts, if any."""
    at = data.rfind(b"\n" + prefix)
    if at >= 0:
        return at + 1
    return 0 if data.startswith(prefix) else None


def snapshot_every(root: str) -> int:
    """``[gasp] snapshot_every`` in ``.agent/config.toml`` (events; 0 = never)."""
    try:
        with open(os.path.join(root, CONFIG_PATH), "rb") as fh:
            config = parse_toml(fh.read().decode("utf-8"))
    except FileNotFoundError:
        return DEFAULT_SNAPSHOT_EVERY
    except OSError as exc:
        raise GaspError(f"{CONFIG_PATH}: cannot read: {os_error(exc)}", None, USAGE) from None
    except ValueError as exc:
        raise GaspError(f"{CONFIG_PATH}: cannot read: {exc}", None, USAGE) from None
    table = config.get("gasp", {})
    value = table.get("snapshot_every", DEFAULT_SNAPSHOT_EVERY) if isinstance(table, dict) else None
    if type(value) is not int or value < 0:
        raise GaspError(f"{CONFIG_PATH}: [gasp] snapshot_every must be a whole number", None, USAGE)
    return value


def prune_snapshots(root: str) -> list[str]:
    """Remove the snapshots whose integrity record no longer matches the log
    (a merge or rebase put other lines before their end) or cannot be read;
    they are projections, written again on cadence. Returns the directories
    removed, as repo-relative paths."""
    base = os.path.join(root, "snapshots")
    try:
        log = writer.read_consistent(os.path.join(root, "state", "events.jsonl"))
        names = sorted(os.listdir(base)) if os.path.isdir(base) else []
    except OSError as exc:
        raise GaspError(f"cannot read the log or snapshots/: {exc.strerror}") from None
    removed = []
    for name in names:
        path = os.path.join(base, name, "graph.json")
        if not os.path.isfile(path):
            continue
        if not seal_matches(log, _integrity_of(path)):
            entry = os.path.join(base, name)
            if os.path.islink(entry):
                os.unlink(entry)  # the link, never what it names
            else:
                shutil.rmtree(entry)
            removed.append(f"snapshots/{name}")
    return removed


def _integrity_of(path: str) -> object:
    """A snapshot's integrity record: from the file's end when git-gasp wrote
    it, else from the whole file (None if it cannot be read, or is over the
    cap check 2 applies)."""
    try:
        record = seeding.integrity_at_end(path)
        if record is not None:
            return record
        if os.path.getsize(path) > MAX_SNAPSHOT_BYTES:
            return None
        with open(path, "rb") as fh:
            value = json.loads(fh.read())
    except (OSError, ValueError, RecursionError):
        return None
    return value.get("integrity") if isinstance(value, dict) else None


def write_snapshot(root: str, at: str | None = None, agent: Agent | None = None) -> str:
    """Write ``snapshots/<event-id>/graph.json`` for the log (through ``at``).

    With ``agent`` (a close, under the run lock), when the file holds exactly
    the bytes the agent last read or appended, the snapshot is the agent's own
    fold of them, remembered as verified in this clone with its prefix's event
    ids: the next open seeds from it without folding or reading the prefix."""
    if at is None and agent is not None:
        data = agent.log_bytes()
        if _file_is(os.path.join(root, "state", "events.jsonl"), data):
            return _snapshot_of(root, data, agent)
    try:
        with open(os.path.join(root, "state", "events.jsonl"), "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise GaspError(
            f"state/events.jsonl: cannot read: {exc.strerror}",
            "run this in an agent repository, or pass -C PATH",
        ) from None
    log = parse_log(data)
    if log.errors:
        raise GaspError(
            describe_error("state/events.jsonl", log.errors[0]),
            "a snapshot needs a log that parses: a torn last line is dropped by "
            "git gasp repair; git gasp check names the rest",
            FINDINGS,
        )
    events = log.events
    if at is not None:
        ends = [i for i, e in enumerate(events) if e.id == at]
        if not ends:
            hint = did_you_mean(at, [e.id for e in events])
            raise GaspError(f"unknown event id: {at}", hint or "--at takes an event id", USAGE)
        events = events[: ends[0] + 1]
    if not events:
        raise GaspError("the log is empty: nothing to snapshot", _RECORD_FIRST, USAGE)
    graph = fold(events).graph
    last = events[-1].id
    record = snapshot_record(data, graph, last, line_count_through(data, len(events)))
    rel = f"snapshots/{snapshot_dir_name(last)}/graph.json"
    writer.write_atomically(os.path.join(root, rel), snapshot_bytes(record))
    return rel


def _file_is(path: str, data: bytes) -> bool:
    try:
        if os.path.getsize(path) != len(data):
            return False
        with open(path, "rb") as fh:
            return fh.read() == data
    except OSError:
        return False


def _snapshot_of(root: str, data: bytes, agent: Agent) -> str:
    """The snapshot of all of ``data``, the log ``agent`` folded."""
    events = agent.recent_events()
    if not events:
        raise GaspError("the log is empty: nothing to snapshot", _RECORD_FIRST, USAGE)
    lines = data.count(b"\n")
    if data.endswith(b"\n") and data.count(b"\n{") + data.startswith(b"{") == lines:
        total = through = lines  # every line starts with "{": none is blank
    else:
        total = sum(1 for raw in data.split(b"\n") if raw.strip())
        through = line_count_through(data, total)
    last = events[-1].id
    with gc_paused():  # the graph's value: tens of thousands of acyclic dicts
        record = snapshot_record(data, agent.graph, last, through)
    rel = f"snapshots/{snapshot_dir_name(last)}/graph.json"
    raw = snapshot_bytes(record)
    writer.write_atomically(os.path.join(root, rel), raw)
    offset = len(data)
    seed = seeding.Seed(rel, "", offset, total, last, os.path.join(root, rel), True, raw)
    seeding.remember(common := seeding.common_dir(root), seed)
    if (ids := agent.event_ids()) is not None and len(ids) == total:  # no id twice
        seeding.remember_ids(common, seed, ids)
    return rel


def snapshot_due(root: str, event_ids: list[str]) -> bool:
    """Whether ``snapshot_every`` events have passed since the latest snapshot.

    Snapshot directories are named by the id of their last event, so the
    latest one is found from the names alone, without reading any graph.
    """
    every = snapshot_every(root)
    if every <= 0 or not event_ids:
        return False
    base = os.path.join(root, "snapshots")
    names = set(os.listdir(base)) if os.path.isdir(base) else set()
    latest = -1
    if names:
        for index in range(len(event_ids) - 1, -1, -1):
            if snapshot_dir_name(event_ids[index]) in names:
                latest = index
                break
    return len(event_ids) - 1 - latest >= every
