"""The event log as text: line splitting, blank lines, parsing, torn tails.

Two numberings exist (REFERENCE §11.28): checker messages count *non-blank*
lines, the store's errors count *physical* lines. :class:`LogLine` carries both.
"""

import contextlib
import functools
import gc
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from git_gasp.core.event import (
    ENVELOPE_KEYS,
    Event,
    EventError,
    event_from_value,
    event_to_value,
    plain_event,
)
from git_gasp.core.jsonvalue import (
    Json,
    JsonError,
    Parser,
    accelerated,
    bom_said,
    equal,
    loads_canonical,
)

# Rust's char::is_whitespace (Unicode White_Space); str.strip() would also
# strip \x1c-\x1f, which Rust keeps.
RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


class LogLine(NamedTuple):
    number: int  # 1-based among non-blank lines (checker numbering)
    physical: int  # 1-based physical line number (store numbering)
    text: str


class LineError(NamedTuple):
    line: LogLine
    message: str
    torn: bool  # the last line, cut off mid-JSON: a crash mid-append


class ParsedLog(NamedTuple):
    line_count: int  # non-blank lines
    events: tuple[Event, ...]  # parsed events, in order (all lines if no errors)
    errors: tuple[LineError, ...]
    unterminated: bool  # the file does not end with "\n"
    envelope_failures: tuple[str, ...]  # check 1's findings, in line order

    @property
    def ok(self) -> bool:
        return not self.errors


def log_lines(text: str) -> list[LogLine]:
    """Split on ``\\n`` only (never ``str.splitlines``), drop blank lines."""
    out: list[LogLine] = []
    index = 0
    for number, raw in enumerate(text.split("\n"), 1):
        if raw.endswith("\r"):
            raw = raw[:-1]
        if raw.strip(RUST_WHITESPACE):
            index += 1
            out.append(LogLine(index, number, raw))
    return out


_ENVELOPE_SET = frozenset(ENVELOPE_KEYS)


_ASCII_SPACE = b" \t\n\r\x0b\x0c"


_ID_START = b'{"id":"'
_ID_END = b'","schema_version":'
_LINE_ID = re.compile(rb'\n\{"id":"([^"\\\n]*)","schema_version":')
_FIRST_ID = re.compile(_LINE_ID.pattern[2:])  # the same at the very start


def canonical_ids(data: bytes) -> set[str] | None:
    """The event ids of a log known to parse (a verified snapshot's prefix), read
    from each line's start as git-gasp and the runtime write it
    (``{"id":"...","schema_version":``), without parsing the lines; None when
    a non-blank line does not start so (an escaped id, keys in another order):
    then only a parse says. A line that parses holds no second ``id`` (the
    envelope's keys are unique), so its first one is its id."""
    if data.endswith(b"\n"):  # the usual log: every line an event, found in one pass
        first = _FIRST_ID.match(data)
        # the first line on its own: prefixing "\n" would copy the whole log
        found = [first[1], *_LINE_ID.findall(data)] if first else []
        if len(found) == data.count(b"\n"):
            # one decode of them all (an id holds no "\n"), not one an id
            return set(b"\n".join(found).decode("utf-8", "surrogatepass").split("\n"))
    ids: set[str] = set()
    start = len(_ID_START)
    for raw in data.split(b"\n"):
        if not raw.startswith(_ID_START):
            if raw.strip(_ASCII_SPACE):
                return None
            continue
        end = raw.find(b'"', start)
        if end < 0 or not raw.startswith(_ID_END, end) or b"\\" in raw[start:end]:
            return None
        ids.add(raw[start:end].decode("utf-8", "surrogatepass"))
    return ids


def parse_log(text: str | bytes) -> ParsedLog:
    """Parse every non-blank line once: typed events, line errors, check 1."""
    with gc_paused():
        return _parse_log(text)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    Parsing and folding allocate tens of thousands of dicts and tuples and no
    reference cycles; the collector's repeated passes over them cost about a
    third of the time and free nothing. Afterwards the objects built are
    moved straight to the oldest generation (``freeze`` then ``unfreeze``
    splice lists, they traverse nothing), so the first young collection does
    not walk them all once more either; a full collection still sees them.
    Not when the host program has frozen objects itself (``gc.freeze`` before
    forking workers, say): those stay frozen.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:  # never thaw what the host program froze
                gc.freeze()
                gc.unfreeze()
            gc.enable()


#: below this many bytes a log is read by the exact parser alone, unless
#: orjson is loaded already: loading it costs a hook more (~15 ms) than the
#: exact parser takes for this much (~40 us a line); both read every line alike
EXACT_BELOW = 128 * 1024


def _parse_log(text: str | bytes) -> ParsedLog:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    reader = LogReader(fast=len(data) >= EXACT_BELOW or accelerated())
    events = tuple(reader.events(data.split(b"\n")))
    return reader.parsed(events, data)


def split_lines(data: bytes) -> Iterator[bytes]:
    """``data.split(b"\n")`` one line at a time (never a list of them all)."""
    start, size = 0, len(data)
    while start <= size:
        end = data.find(b"\n", start)
        end = size if end < 0 else end
        yield data[start:end]
        start = end + 1


class LogReader:
    """:func:`parse_log` one line at a time: :meth:`events` yields each
    line's event as it is parsed, keeping the line errors and check 1's
    findings; a caller may keep of each event only what it needs.

    ``fast=False`` reads every line with the exact parser, never orjson's
    canonical fast path: the same events, errors and findings (a property
    test holds them equal), without loading orjson."""

    def __init__(self, fast: bool = True) -> None:
        self.fast = fast
        self.parser = Parser()
        self.errors: list[LineError] = []
        self.envelope: list[str] = []
        self.count = 0
        self._cut_last = False  # the last non-blank line so far failed as cut-off JSON

    # long: one loop, the hot path of every full read of a log
    def events(self, raw_lines: Iterable[bytes], first: int = 1) -> Iterator[Event]:
        """The events of ``raw_lines`` (the log split on ``\n``, from its line
        number ``first``), in order."""
        parser, errors, envelope = self.parser, self.errors, self.envelope
        canonical = loads_canonical if self.fast else _not_canonical
        for number, raw in enumerate(raw_lines, first):
            if raw[-1:] == b"\r":
                raw = raw[:-1]
            if raw[:1] != b"{" or raw[-1:] != b"}":
                if not raw.strip(_ASCII_SPACE) or not _decode(raw).strip(RUST_WHITESPACE):
                    continue
            self.count += 1
            count = self.count
            self._cut_last = False
            value = canonical(raw)
            if type(value) is dict:
                event = plain_event(value)
                if event is not None:
                    yield event
                    if value.keys() != _ENVELOPE_SET or not _plain_actor(value):
                        envelope.extend(_envelope_findings(count, value, event, None))
                    continue
            line = LogLine(count, number, _decode(raw))
            try:
                value = parser.loads(line.text)
            except JsonError as exc:
                said = bom_said(line.text, exc.msg)
                errors.append(LineError(line, said, False))
                envelope.append(f"line {line.number}: not JSON: {said}")
                self._cut_last = exc.at_end
                continue
            try:
                event = event_from_value(value, parser)
            except EventError as exc:
                errors.append(LineError(line, exc.msg, False))
                envelope.extend(_envelope_findings(line.number, value, None, exc.msg))
                continue
            yield event
            if not (type(value) is dict and value.keys() == _ENVELOPE_SET and _plain_actor(value)):
                envelope.extend(_envelope_findings(line.number, value, event, None))

    def parsed(self, events: tuple[Event, ...], data: bytes) -> ParsedLog:
        """The :class:`ParsedLog` of ``data``, once :meth:`events` has read it
        all (``events``: what the caller kept of them)."""
        if self._cut_last:
            self.errors[-1] = self.errors[-1]._replace(torn=True)
            self._cut_last = False
        unterminated = bool(data) and not data.endswith(b"\n")
        return ParsedLog(self.count, events, tuple(self.errors), unterminated, tuple(self.envelope))


def _not_canonical(raw: bytes) -> None:
    """The fast path turned off: every line goes to the exact parser."""
    return None


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def _plain_actor(value: dict[str, Json]) -> bool:
    actor = value["actor"]
    return type(actor) is dict and len(actor) == 2


def _envelope_findings(n: int, value: Json, event: Event | None, error: str | None) -> list[str]:
    """Check 1 for one line that is not plainly a well-formed envelope."""
    if type(value) is not dict:
        return [f"line {n}: not a JSON object"]
    assert isinstance(value, dict)
    out = [f"line {n}: missing envelope field `{key}`" for key in ENVELOPE_KEYS if key not in value]
    out += [
        f"line {n}: unknown top-level field `{key}`" for key in value if key not in _ENVELOPE_SET
    ]
    if event is None:
        out.append(f"line {n}: not a valid envelope: {error}")
    elif not equal(event_to_value(event), value):
        out.append(f"line {n}: does not round-trip structurally")
    return out


def describe_error(path: str, error: LineError) -> str:
    """The store's wording: ``<path>:<physical line>: corrupt event: <err>``."""
    text = f"{path}:{error.line.physical}: corrupt event: {error.message}"
    if error.torn:
        text += " (torn final line — likely a crash mid-append; truncate the last line to recover)"
    return text


def physical_line_count(data: bytes) -> int:
    """Lines as ``split_inclusive('\\n')`` counts them (an unterminated tail counts)."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


_LINES_AT_ONCE = 65535  # a regex repetition bound, well below re's limit


def physical_prefix(data: bytes, count: int) -> bytes:
    """The first ``count`` physical lines of ``data``, terminators included."""
    if count >= physical_line_count(data):
        return data  # all of it (a snapshot of the whole log, at each close)
    end = _lines_end(data, count, _n_event_lines)
    if end is None:
        end = _lines_end(data, count, _n_lines)
    return data if end is None else data[:end]


def prefix_span(data: bytes, count: int) -> tuple[int, int] | None:
    """``(length, events)`` of the first ``count`` physical lines of ``data``:
    their length in bytes and how many of them are non-blank; None when
    ``data`` has fewer lines. Cheaper than :func:`physical_prefix` plus
    :func:`events_in` when every line starts with ``{``, as event lines do."""
    end = _lines_end(data, count, _n_event_lines)
    if end is not None:
        return end, count  # every line starts with "{": none is blank
    prefix = physical_prefix(data, count)
    if len(prefix) == len(data) and physical_line_count(data) < count:
        return None
    return len(prefix), events_in(prefix)


def _lines_end(data: bytes, count: int, pattern: Callable[[int], re.Pattern[bytes]]) -> int | None:
    """Where the first ``count`` lines (each ending in ``\\n``) matching
    ``pattern`` end, or None."""
    end = 0
    while count > 0:
        step = min(count, _LINES_AT_ONCE)
        match = pattern(step).match(data, end)
        if match is None:
            return None
        end = match.end()
        count -= step
    return end


@functools.lru_cache(maxsize=64)
def _n_lines(count: int) -> re.Pattern[bytes]:
    return re.compile(rb"(?:[^\n]*\n){%d}" % count)


@functools.lru_cache(maxsize=64)
def _n_event_lines(count: int) -> re.Pattern[bytes]:
    """``count`` lines that each start with ``{`` (about twice as fast to match)."""
    return re.compile(rb"(?:\{[^\n]*\n){%d}" % count)


# A blank line between two newlines: only whitespace in Rust's sense (ASCII
# whitespace, or the UTF-8 encodings of the Unicode White_Space characters).
_BLANK_LINE = re.compile(
    rb"\n(?:[ \t\r\x0b\x0c]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]"
    rb"|\xe2\x81\x9f|\xe3\x80\x80)*(?=\n)"
)


def events_in_prefix(data: bytes, count: int) -> int:
    """How many non-blank lines the first ``count`` physical lines hold."""
    return events_in(physical_prefix(data, count))


def events_in(prefix: bytes) -> int:
    """How many non-blank lines ``prefix`` (whole physical lines) holds."""
    if not prefix:
        return 0
    framed = b"\n" + (prefix if prefix.endswith(b"\n") else prefix + b"\n")
    return physical_line_count(prefix) - len(_BLANK_LINE.findall(framed))


class LogReadError(ValueError):
    """The first line of a log that cannot be read or parsed (streaming reads)."""

    def __init__(self, message: str, error: LineError | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.error = error


def stream_events(raw_lines: Iterable[bytes]) -> Iterator[Event]:
    """Parse a log given as raw physical lines (e.g. a binary file object).

    Nothing but the current line is held, so a log of any size can be folded
    in bounded memory. Raises :class:`LogReadError` at the first bad line.
    """
    parser = Parser()
    lines = iter(raw_lines)
    for number, raw in enumerate(lines, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            # the reference's wording, with where: the line and the byte in it
            where = f"line {number}, byte {exc.start + 1}"
            raise LogReadError(f"stream did not contain valid UTF-8 ({where})") from None
        text = text[:-1] if text.endswith("\n") else text
        text = text[:-1] if text.endswith("\r") else text
        if not text.strip(RUST_WHITESPACE):
            continue
        try:
            yield event_from_value(parser.loads(text), parser)
        except (JsonError, EventError) as exc:
            cut = isinstance(exc, JsonError) and exc.at_end
            last = cut and not any(
                r.decode("utf-8", "replace").strip(RUST_WHITESPACE) for r in lines
            )
            said = bom_said(text, exc.msg)
            error = LineError(LogLine(0, number, text), said, last)
            raise LogReadError(said, error) from None
