"""The plain frontmatter path of :mod:`git_gasp.core.skill`: a frontmatter of
``key: words`` lines is read without YAML, and reads exactly as ruamel.yaml's
safe loader reads it; anything else goes to YAML (which decides)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from git_gasp.core.skill import parse_frontmatter, plain_frontmatter


def _yaml(front: str) -> Any:
    return YAML(typ="safe").load(front)


PLAIN = [
    "name: retry\ndescription: Retry a flaky call, with backoff (up to 3 times).\n",
    "name: skill01\ndescription: The skill01 skill, version 1.\n",
    "name: a-b_c\ndescription: The agent's own words/notes + more\nallowed-tools: Bash, Read\n",
    "name: x\n",
]
TO_YAML = [
    "name: true\n",  # a boolean
    "name: Null\n",
    "name: yes\n",  # a string in YAML 1.2, a boolean in 1.1: YAML decides
    "name: 12\n",  # an integer
    "name: a: b\n",  # not a plain mapping line
    "name: a #comment\n",
    "name: x\nname: y\n",  # a key twice
    "name: &a x\n",  # an anchor
    "tools:\n  - a\n",  # a list
    "name: 'quoted'\n",
    "name: x  \n",  # trailing spaces
    "name:  x\n",
    "True: x\n",  # a boolean key
    "name: é\n",  # not ASCII
    "\n",
    "",
]


@pytest.mark.parametrize("front", PLAIN)
def test_plain_lines_read_as_yaml_reads_them(front: str) -> None:
    assert plain_frontmatter(front) == _yaml(front)


@pytest.mark.parametrize("front", TO_YAML)
def test_anything_else_goes_to_yaml(front: str) -> None:
    assert plain_frontmatter(front) is None


_WORD = st.text(alphabet="abcXYZ019 ,.()/'_+-:#&*!|>%@`\"{}[]~", min_size=0, max_size=12)
_KEY = st.text(alphabet="abcNTy_-0:", min_size=1, max_size=6)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_KEY, _WORD), min_size=1, max_size=5))
def test_whatever_the_plain_path_takes_it_reads_as_yaml(pairs: list[tuple[str, str]]) -> None:
    front = "".join(f"{k}: {v}\n" for k, v in pairs)
    plain = plain_frontmatter(front)
    if plain is not None:
        assert plain == _yaml(front)
        assert all(type(v) is str for v in plain.values())


def test_a_skill_file_reads_the_same_either_way() -> None:
    data = b"---\nname: retry\ndescription: Retry with backoff.\n---\n# retry\n"
    assert parse_frontmatter(data) == {"name": "retry", "description": "Retry with backoff."}
    # the same file with a list goes through YAML, screened
    listed = b"---\nname: retry\ndescription: d\ntools:\n  - Bash\n---\n"
    assert parse_frontmatter(listed) == {"name": "retry", "description": "d", "tools": ["Bash"]}
