"""The two ways a log line is read agree: orjson's canonical fast path and the
exact parser alone (``LogReader(fast=False)``, what a hook's small input takes
without loading orjson) give the same events, line errors and check-1 findings."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.agent.fixture import fixture_files
from git_gasp.core import jsonvalue
from git_gasp.core.log import EXACT_BELOW, LogReader, parse_log

LINES = [x for x in fixture_files()["state/events.jsonl"].split(b"\n") if x.strip()]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def log_lines(draw: st.DrawFn) -> bytes:
    line = draw(st.sampled_from(LINES))
    how = draw(st.integers(0, 7))
    if how == 1:  # cut short
        line = line[: draw(st.integers(0, len(line)))]
    elif how == 2:  # a duplicated key, or one that is no envelope field
        line = line[:-1] + draw(st.sampled_from([b',"id":"x"}', b',"extra":1}', b"}"]))
    elif how == 3:  # spaced out, or a number written another way
        line = line.replace(b":", b": ", 1).replace(b'"ts_ms":1', b'"ts_ms":1.0e0', 1)
    elif how == 4:  # an escape serde_json reads differently
        line = line.replace(
            b'"kind":"', draw(st.sampled_from([b'"kind":"\\ud800', b'"kind":"\\u00e9'])), 1
        )
    elif how == 5:  # any JSON at all
        text = json.dumps(draw(json_values), allow_nan=True, separators=(",", ":"))
        line = text.encode("utf-8", "surrogatepass")
    elif how == 6:
        line = draw(st.sampled_from([b"", b"   ", b"\r", b"{", b"[]", b"\xff{}"]))
    return line


def _read(fast: bool, data: bytes) -> tuple[str, ...]:
    reader = LogReader(fast=fast)
    events = tuple(reader.events(data.split(b"\n")))
    parsed = reader.parsed(events, data)
    return tuple(repr(part) for part in parsed)  # repr: 1, 1.0 and True differ


@settings(max_examples=400, deadline=None)
@given(st.lists(log_lines(), max_size=12), st.booleans())
def test_the_exact_parser_alone_reads_a_log_as_the_fast_path_does(
    lines: list[bytes], newline: bool
) -> None:
    data = b"\n".join(lines) + (b"\n" if newline else b"")
    assert _read(True, data) == _read(False, data)


def test_a_small_log_is_read_without_orjson_unless_it_is_loaded() -> None:
    import subprocess
    import sys

    probe = (
        "import sys; from git_gasp.core.log import parse_log; "
        "from git_gasp.agent.fixture import fixture_files; "
        "parse_log(fixture_files()['state/events.jsonl']); print('orjson' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    big = b"\n".join(LINES * (EXACT_BELOW // sum(map(len, LINES)) + 1))
    assert parse_log(big).line_count == len(LINES) * (EXACT_BELOW // sum(map(len, LINES)) + 1)
    assert jsonvalue.accelerated()  # a large log loads it
