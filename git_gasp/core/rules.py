"""The rules the hooks and ``validate`` judge changes by: each with a stable
name (the ``[tag]`` of a finding), a tier and levels.

* *protocol* rules are what the reference checker rejects, plus
  append-only, pairing, the identity hash and the envelope: always errors.
* *strict* rules are git-gasp's own: each takes a level (``error``,
  ``warn`` or ``off``) from ``git config gasp.rule.<name>``, at any scope
  (a repository, or the system config of a fleet of server repositories).

A strict rule has two default levels: one for new changes, one for
*history*: the commits of an onboarding push (the first push to a server
that holds no refs yet), which are older than the hook. A level set in git
config applies to both. Rules added elsewhere call :func:`register`.

Pure: the configured values come in as a mapping.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, NamedTuple

from git_gasp.core.finding import Judged

Level = Literal["error", "warn", "off"]
LEVELS: tuple[Level, ...] = ("error", "warn", "off")
CONFIG_PREFIX = "gasp.rule."


class Rule(NamedTuple):
    name: str
    tier: Literal["protocol", "strict"]
    default: Level  # for a new change
    history: Level  # for a change older than the hook (an onboarding push)
    summary: str


RULES: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    RULES[rule.name] = rule
    return rule


def _protocol(name: str, summary: str) -> None:
    register(Rule(name, "protocol", "error", "error", summary))


def _strict(name: str, summary: str, history: Level = "warn") -> None:
    register(Rule(name, "strict", "error", history, summary))


# a table: one line per rule, in the order git-gasp-hooks(1) lists them
_protocol("append-only", "the log, facts files and journals only grow at their end")
_protocol("envelope", "an appended event has the exact envelope (check 1)")
_protocol("vocabulary", "node kinds and relations are baseline or declared (check 3)")
_protocol("causation", "ids unique, causes point backwards, roots have root kinds (check 5)")
_protocol("pairing", "a domain event's pair lands in the same change (check 7)")
_protocol("fold", "a strict fold of the appended lines skips nothing (check 2)")
_protocol("identity", "identity/ changes with its hash and a decision.created pair")
_protocol("snapshot", "an added or changed snapshot verifies against the log (check 6)")
_protocol("torn", "an appended JSONL line ends with a newline")
_protocol("utf-8", "append-only files stay valid UTF-8")
_protocol("attributes", "no attributes change how an append-only file is checked out")
_protocol("path", "no changed path name holds a line break")
_protocol("replace-ref", "no replace refs are pushed")
_protocol("notes", "the session notes ref only grows, and holds references and digests")
_strict("facts", "appended facts follow the §9.5 envelope and name known ids")
_strict("skill", "changed SKILL.md frontmatter is valid; one skill per commit")
_strict("secret", "appended lines carry no credentials", history="error")
_strict("line-size", "no appended line is larger than gasp.maxLineBytes")
_strict("control-plane", "the local control files (.agent/lease, RUN, worker) are not committed")
_strict("transcript", "transcripts/ is not committed unless gasp.commitTranscripts")
_strict("trailer", "a boundary commit names its run; Agent-Session follows the grammar")
_strict("run-id", "a Run-Id trailer names a run the staged log starts or finishes (commit-msg)")


def parse_levels(entries: Iterable[tuple[str, str]]) -> dict[str, Level]:
    """``gasp.rule.<name>`` config entries as levels; ValueError names a bad
    value or a protocol rule set below ``error``."""
    out: dict[str, Level] = {}
    for key, raw in entries:
        name = key[len(CONFIG_PREFIX) :] if key.startswith(CONFIG_PREFIX) else key
        value = raw.strip().lower()
        if value not in LEVELS:
            raise ValueError(f"{CONFIG_PREFIX}{name} is {raw!r}, not one of error, warn, off")
        rule = RULES.get(name)
        if rule is not None and rule.tier == "protocol" and value != "error":
            raise ValueError(f"{CONFIG_PREFIX}{name}: a protocol rule is always an error")
        out[name] = value
    return out


def level(name: str, configured: Mapping[str, Level], history: bool = False) -> Level:
    """The level a finding of rule ``name`` is reported at (an unknown rule
    is an error: a policy never fails open)."""
    rule = RULES.get(name)
    if rule is None or rule.tier == "protocol":
        return "error"
    if name in configured:
        return configured[name]
    return rule.history if history else rule.default


class Verdict(NamedTuple):
    errors: list[Judged]
    warnings: list[Judged]


def weigh(
    found: Sequence[Judged], configured: Mapping[str, Level], history: bool = False
) -> Verdict:
    """Split findings into the errors that refuse and the warnings that are
    only printed; findings of rules set to ``off`` are dropped."""
    verdict = Verdict([], [])
    for judged in found:
        match level(judged.finding.rule, configured, history):
            case "error":
                verdict.errors.append(judged)
            case "warn":
                verdict.warnings.append(judged)
            case "off":
                pass
    return verdict
