"""Credentials in one line of text, so append-only files can refuse them.

An append-only file (``state/events.jsonl``, ``memory/facts.jsonl``,
``journal/JOURNAL.md``) can never forget what it was given, so the hooks
refuse an appended line that carries a credential. ``find_secrets(line)``
scans one line -- compact JSON, JSON nested inside a JSON string, or
Markdown -- and returns a ``SecretFinding`` per credential, in column order.
Its ``preview`` keeps the first four characters of the match and never the
secret itself.

The rules (``SECRET_RULES``, in this order; a match that overlaps one
already reported by an earlier rule is not reported again):

    rule id                 what it catches
    ----------------------  ---------------------------------------------------
    private-key             a ``-----BEGIN ... PRIVATE KEY-----`` header: PKCS#8,
                            RSA, EC, DSA, OPENSSH, ENCRYPTED, and
                            ``PGP PRIVATE KEY BLOCK`` (also inside a JSON string)
    aws-access-key-id       ``AKIA`` or ``ASIA`` + 16 of [A-Z0-9]
    aws-secret-access-key   ``aws_secret_access_key`` (any case, ``_``/``-``/none
                            between words) ``=`` or ``:`` a 40-char base64 value
    github-token            ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36
                            alphanumerics; ``github_pat_`` + 82 of [A-Za-z0-9_]
    gitlab-token            ``glpat-`` or ``gldt-`` + 20 or more of [A-Za-z0-9_-]
    slack-token             ``xoxa-``/``xoxb-``/``xoxp-``/``xoxo-``/``xoxs-``/
                            ``xoxr-`` + 10 or more of [A-Za-z0-9-], the first a digit
    slack-webhook           ``https://hooks.slack.com/services/...`` (also
                            ``workflows/``, ``triggers/``)
    anthropic-api-key       ``sk-ant-`` + 32 or more of [A-Za-z0-9_-]
    openai-api-key          ``sk-`` (also ``sk-proj-``, ``sk-svcacct-``,
                            ``sk-admin-``) + 32 or more of [A-Za-z0-9_-] with a digit
    google-api-key          ``AIza`` + 35 of [A-Za-z0-9_-]
    stripe-live-key         ``sk_live_`` or ``rk_live_`` + 24 or more alphanumerics
    jwt                     ``eyJ...`` ``.eyJ...`` ``.sig``: three base64url segments
    authorization-header    ``Authorization: Bearer <20+ chars>`` or
                            ``Authorization: Basic <base64>`` (header or JSON key)
    url-credentials         ``scheme://user:password@host`` (3+ char password)
    password-assignment     a key ending in password, passwd, pwd, secret,
                            client_secret, api_key/apikey, access_token,
                            auth_token or private_key (any case, any prefix such
                            as ``DB_``; also api-key, client-secret, ...; the
                            match starts at the key word), then an optional closing
                            quote, ``=``, ``:``, ``:=`` or ``=>``, then
                            a value of 6 or more characters: quoted (JSON
                            ``"password":"v"``, ``'v'``, ``\\"v\\"``) with no
                            whitespace, or bare with at least one digit

Which matches are credentials (a placeholder is not, nor the name of a key
file; a prefix glued to the letters before it only where the token's own
shape says so; why each rule has or lacks its leading boundary):
:mod:`git_gasp.core.secretvalues`. Key names must be followed by the
separator, so ``"password_hint": ...`` and prose such as "reset your
password" do not match; a bare value after ``password:`` must contain a
digit, so "Password: required" does not either, nor do code references such
as ``api_key=api_key`` or ``password = getpass()``.

Cost: each rule names trigger substrings that every match contains; a line is
lowercased once and a rule's regex runs only if one of its triggers is there.
The triggers are tested in groups: those holding ``gh``, ``gl``, ``api`` or
``token`` only when that key is in the line, so a line costs a lowercase and
under twenty substring tests (about 9 microseconds for a 700-byte event line)
plus the regexes its triggers wake. password-assignment's ``token`` triggers
are ``access``/``auth`` + ``token`` (with ``_``, ``-`` or nothing between), the
words its pattern names, so a usage count's ``input_tokens`` wakes nothing.
"""

import bisect
import re
from collections.abc import Sequence
from typing import AnyStr, NamedTuple

from git_gasp.core.secretvalues import accepted


class SecretRule(NamedTuple):
    rule: str  # stable short id, e.g. "private-key"
    label: str  # human name, e.g. "a private key block"
    source: str  # the regular expression; its group "value", if any, gets the placeholder test
    flags: int  # its flags (re.ASCII always)
    description: str  # one line
    triggers: tuple[str, ...]  # lowercase; every match contains one (in any case)

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled expression: compiled when a line first wakes the rule
        (then ``re``'s own cache holds it), so a process that scans no line
        with its trigger, a hook start-up above all, never compiles it."""
        return re.compile(self.source, self.flags)


class SecretFinding(NamedTuple):
    rule: str
    label: str
    column: int  # 1-based character column of the match start
    preview: str  # the match's first 4 characters, then "…"


_WORD = r"(?<![A-Za-z0-9])"  # not inside a longer alphanumeric run
_UPPER = r"(?<![A-Z0-9])"  # not inside a longer run of uppercase letters and digits
# a key's closing quote (maybe JSON-escaped), the separator, the value's opening quote
_SEP = r"""\\*["']?\s*(?:=>|:=|[:=])\s*\\*["']?"""

# Starts at the key word (any prefix, e.g. DB_, may precede it); the first-character
# lookahead lets the regex engine skip most positions quickly.
_ASSIGNMENT = r"""
(?=[PpSsAa])
(?i:passw(?:or)?d|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)
(?:\\*["'])?\s*(?:=>|:=|[:=])\s*
(?:\\*(?P<q>["']))?
(?!\.{0,2}/|~/)
(?P<value>(?(q)
    (?:[^"'\\\s]|\\[^"'\\\s]){6,}+(?=\\*["'])
  | (?=[^\s"'`,;(){}\[\]<>=\\]*[0-9])[^\s"'`,;(){}\[\]<>=\\]{6,}+(?![(\[])
))
"""


def _rule(
    rule: str, label: str, pattern: str, description: str, *triggers: str, flags: int = 0
) -> SecretRule:
    # ASCII: case-insensitive parts then match only what the lowercased screen sees
    return SecretRule(rule, label, pattern, flags | re.ASCII, description, triggers)


SECRET_RULES: tuple[SecretRule, ...] = (
    _rule(
        "private-key",
        "a private key block",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        "A PEM or PGP private key header (RSA, EC, DSA, OPENSSH, PKCS#8, PGP).",
        "private",
    ),
    _rule(
        "aws-access-key-id",
        "an AWS access key id",
        _UPPER + r"(?:AKIA|ASIA)(?P<value>[A-Z0-9]{16})(?![A-Za-z0-9])",
        "AKIA or ASIA followed by 16 uppercase letters or digits.",
        "akia",
        "asia",
    ),
    _rule(
        "aws-secret-access-key",
        "an AWS secret access key",
        r"(?i:aws[_-]?secret[_-]?access[_-]?key)"
        + _SEP
        + r"(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        "aws_secret_access_key assigned a 40-character base64 value.",
        "secret",
    ),
    _rule(
        "github-token",
        "a GitHub token",
        r"(?:(?P<fine>github_pat_)|gh[pousr]_)"
        r"(?P<value>(?(fine)[A-Za-z0-9_]{82}|[A-Za-z0-9]{36}))(?![A-Za-z0-9_])",
        "ghp_, gho_, ghu_, ghs_, ghr_ + 36 alphanumerics, or github_pat_ + 82.",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
    ),
    _rule(
        "gitlab-token",
        "a GitLab token",
        r"(?:glpat|gldt)-(?P<value>[A-Za-z0-9_-]{20,})",
        "A GitLab personal (glpat-) or deploy (gldt-) token.",
        "glpat-",
        "gldt-",
    ),
    _rule(
        "slack-token",
        "a Slack token",
        r"xox[abposr]-(?=[0-9])(?P<value>[A-Za-z0-9-]{10,})",
        "A Slack bot, user, app or refresh token (xoxb-, xoxp-, ...; digits come first).",
        "xox",
    ),
    _rule(
        "slack-webhook",
        "a Slack webhook URL",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<value>[A-Za-z0-9_/-]{20,})",
        "A Slack incoming-webhook or workflow URL.",
        "hooks.slack.com",
    ),
    _rule(
        "anthropic-api-key",
        "an Anthropic API key",
        r"sk-ant-(?P<value>[A-Za-z0-9_-]{32,})",
        "sk-ant- followed by 32 or more key characters.",
        "sk-ant-",
    ),
    _rule(
        "openai-api-key",
        "an OpenAI API key",
        r"sk-(?!ant-)(?:(?:proj|svcacct|admin)-)?"
        r"(?=[A-Za-z0-9_-]*[0-9])(?P<value>[A-Za-z0-9_-]{32,})",
        "sk- (or sk-proj-, ...) followed by 32 or more key characters.",
        "sk-",
    ),
    _rule(
        "google-api-key",
        "a Google API key",
        r"AIza(?P<value>[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])",
        "AIza followed by 35 key characters.",
        "aiza",
    ),
    _rule(
        "stripe-live-key",
        "a Stripe live secret key",
        _WORD + r"[sr]k_live_(?P<value>[A-Za-z0-9]{24,})",
        "sk_live_ or rk_live_ followed by 24 or more alphanumerics.",
        "_live_",
    ),
    _rule(
        "jwt",
        "a JSON web token",
        r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.(?P<value>[A-Za-z0-9_-]{10,})",
        "Three base64url segments, the first two JSON objects (eyJ...).",
        "eyj",
    ),
    _rule(
        "authorization-header",
        "an HTTP Authorization credential",
        r"(?i:authorization)" + _SEP + r"\s*(?:(?P<bearer>(?i:bearer))|(?i:basic))\s+"
        r"(?P<value>(?(bearer)[A-Za-z0-9._~+/-]{20,}+=*|[A-Za-z0-9+/]{8,}+={0,2}))",
        "Authorization: Bearer <20+ chars> or Basic <base64>, as a header or JSON key.",
        "authorization",
    ),
    _rule(
        "url-credentials",
        "a password in a URL",
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}+://[^\s/?#@:\"'\\<>]*:"
        r"(?P<value>[^\s/?#@\"'\\<>]{3,}+)@(?=[A-Za-z0-9\[])",
        "A URL with user:password@ before its host.",
        "://",
    ),
    _rule(
        "password-assignment",
        "a password or secret assignment",
        _ASSIGNMENT,
        "password=, secret:, api_key, access_token, ... assigned a literal value.",
        "passw",
        "pwd",
        "secret",
        "apikey",
        "api_key",
        "api-key",
        *(f"{who}{sep}token" for who in ("access", "auth") for sep in ("", "_", "-")),
        "private",
        flags=re.VERBOSE,
    ),
)

_ALL = {t for r in SECRET_RULES for t in r.triggers}
# The screen: each trigger (less those holding a shorter one: "sk-ant-" has "sk-") with
# the rules it wakes, as a bit mask over SECRET_RULES: every rule with a trigger that
# contains it. Waking a rule too many is harmless; missing one is not.
_SCREEN = tuple(
    (t, sum(1 << i for i, r in enumerate(SECRET_RULES) if any(t in u for u in r.triggers)))
    for t in sorted(_ALL)
    if not any(o != t and o in t for o in _ALL)
)
# The screen in groups: the triggers holding one of these keys are tested only when
# the key is in the line (a trigger in the line puts its key there), the others alone.
_KEYS = ("gh", "gl", "api", "token")
_GROUPS = tuple(
    (key, tuple((t, m) for t, m in _SCREEN if key in t))
    for key in _KEYS
    if any(key in t for t, _ in _SCREEN)
) + tuple((t, ((t, m),)) for t, m in _SCREEN if not any(k in t for k in _KEYS))
_NEWLINE = re.compile("\n")
SCREEN_TRIGGERS = tuple(t for t, _ in _SCREEN)  # a line with none holds no credential
SCREEN_GROUPS = _GROUPS  # the screen as lines_to_scan takes it: (key, its triggers)
_TEXT_GROUPS = tuple((k, tuple(t for t, _ in m), m[0][0] == k) for k, m in _GROUPS)


def _preview(match: str) -> str:
    return match[:4] + "…"


def may_hold_secrets(text: str) -> bool:
    """False only when no line of ``text`` can hold a credential: the screen
    of :func:`find_secrets` (no rule's trigger anywhere in it), run once over
    many lines. Every line is a part of ``text``, so a trigger absent from
    it is absent from each."""
    low = text.lower()
    for key, members in _GROUPS:  # loops, not any() over generators: it runs on every summary
        if key in low:
            for trigger, _ in members:
                if trigger in low:
                    return True
    return False


def lines_to_scan(text: str) -> set[int]:
    """The indexes of the lines of ``text`` (split on ``\\n``) in which some
    rule's trigger appears: :func:`find_secrets` finds nothing in the others.
    One substring search of the whole text per trigger (a group's triggers
    only where its key is: ``_GROUPS``), resumed at the next line after each
    hit (lowering keeps every ``\\n``, and no trigger holds one): a regular
    expression of all the triggers, or a loop over the lines testing each,
    costs several times more on a large batch."""
    return lines_holding(text.lower(), _TEXT_GROUPS, _NEWLINE)


def lines_holding(
    low: AnyStr,
    groups: Sequence[tuple[AnyStr, Sequence[AnyStr], bool]],
    newline: re.Pattern[AnyStr],
) -> set[int]:
    """The search of :func:`lines_to_scan` over a lowered text or its bytes:
    ``groups`` holds each key, its triggers and whether the key is one of them."""
    found: set[int] = set()
    ends: list[int] | None = None  # where each line of ``low`` ends
    for key, triggers, is_trigger in groups:  # a group's triggers only where its key is
        if not is_trigger and key not in low:
            continue
        for trigger in triggers:
            at = low.find(trigger)
            if at < 0:
                continue
            if ends is None:
                ends = [m.start() for m in newline.finditer(low)]
            while at >= 0:  # the next search starts on the next line
                line = bisect.bisect_left(ends, at)
                found.add(line)
                at = low.find(trigger, ends[line] + 1) if line < len(ends) else -1
    return found


def find_secrets(line: str) -> list[SecretFinding]:
    """Every credential in ``line``, in column order (see the module doc)."""
    low = line.lower()
    awake = 0
    for key, members in _GROUPS:  # plain substring tests: the cheapest screen measured
        if key in low:
            for trigger, rules in members:
                if trigger in low:
                    awake |= rules
    if not awake:
        return []
    found: list[tuple[int, int, SecretRule]] = []
    for i, rule in enumerate(SECRET_RULES):
        if not awake >> i & 1:
            continue
        for m in rule.pattern.finditer(line):
            if not accepted(rule.rule, m):
                continue
            start, end = m.span()
            if any(start < e and s < end for s, e, _ in found):
                continue
            found.append((start, end, rule))
    found.sort(key=lambda f: f[0])
    return [SecretFinding(r.rule, r.label, s + 1, _preview(line[s:e])) for s, e, r in found]
