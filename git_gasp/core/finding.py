"""What judging a change yields: a :class:`Finding` (one rule broken, at a
path and maybe a line), the :class:`Step` (one change) it was found in, and
the two together (:class:`Judged`). Plain values, shared by the rules in
:mod:`git_gasp.core.change` and its siblings, the hooks and the notes sync.

Rules (the ``rule`` of a :class:`Finding`), documented in git-gasp-hooks(1):

=================  ==============================================================
append-only        the log, facts files and journals only grow at their end; a
                   merge keeps every line each parent added (the check 4 rule)
envelope           an appended event has the exact envelope (check 1)
vocabulary         node kinds and relations are baseline or declared (check 3)
causation          ids unique, causes point backwards, roots have root kinds (5)
pairing            a domain event's pair lands in the same change; no ops event
                   chains to an ops event; an entity is created once (check 7)
fold               a strict fold of the appended lines skips nothing (check 2)
identity           identity/ changes with its hash in AGENT.md and a
                   decision.created pair; the hash never changes alone
skill              changed SKILL.md frontmatter is valid; one skill per commit
facts              appended facts follow the §9.5 envelope and name known ids
snapshot           an added or changed snapshot verifies against the log
control-plane      .agent/lease, .agent/HEAD, .agent/RUN, .agent/worker are
                   local and never committed
transcript         transcripts/ is not committed unless gasp.commitTranscripts
trailer            a boundary commit names its run in Run-Id/Goal/Outcome;
                   Agent-Session values follow the grammar
path               no changed path name holds a line break
secret             appended lines carry no credentials (git_gasp.core.secrets)
line-size          no appended line is larger than the cap (default 1 MiB)
utf-8              append-only files stay valid UTF-8
torn               an appended JSONL line ends with a newline
=================  ==============================================================
"""

from typing import NamedTuple


class Finding(NamedTuple):
    path: str
    line: int | None  # 1-based physical line in the new version, when one is to blame
    rule: str
    message: str
    hint: str

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path


class Step(NamedTuple):
    name: str  # a commit id, or "" for the staged index
    parents: tuple[str, ...]
    paths: frozenset[str]  # the paths it changes against any parent


class Judged(NamedTuple):
    step: str  # the step's name
    finding: Finding
