"""Credentials in appended lines: every rule's positives, near misses and placeholders.

Secret-shaped strings are built by concatenation from made-up characters, so
this file holds no literal token a secret scanner (or GitHub push protection)
would recognise.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_gasp.core import secrets
from git_gasp.core.secrets import SECRET_RULES, SecretFinding, find_secrets

MIXED = "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"
UPPER = "Q7WE9RT2YU4IO6PA8SDF3GHJ5KLZ1XCV0BNM"


def chars(n: int, alphabet: str = MIXED) -> str:
    """``n`` varied characters: no repeats, digits and both cases (not a placeholder)."""
    return (alphabet * (n // len(alphabet) + 1))[:n]


BEGIN, END = "-----BEGIN ", "-----"
AWS_ID = "AK" + "IA" + chars(16, UPPER)
AWS_SECRET = chars(38) + "+/"
GITHUB = "gh" + "p_" + chars(36)
GITHUB_PAT = "github" + "_pat_" + chars(22) + "_" + chars(59)
GITLAB = "gl" + "pat-" + chars(20)
SLACK = "xo" + "xb-" + "123456789012-" + "1234567890123-" + chars(24)
SLACK_HOOK = (
    "https://hooks." + "slack.com/services/" + "T0" + chars(8, UPPER) + "/B0" + chars(8, UPPER)
) + ("/" + chars(24))
ANTHROPIC = "sk-" + "ant-" + "api03-" + chars(93)
OPENAI = "sk-" + chars(48)
OPENAI_PROJECT = "sk-" + "proj-" + chars(120)
GOOGLE = "AI" + "za" + chars(35)
STRIPE = "sk" + "_live_" + chars(24)
JWT = "ey" + "JhbGciOiJIUzI1NiJ9" + ".ey" + "JzdWIiOiIxMjM0NSJ9." + chars(43)
BEARER = chars(32)
BASIC = "dXNlcjpodW50ZXIy"  # base64 of "user:hunter2"

# One example per rule: (line, the secret it carries).
EXAMPLES: dict[str, tuple[str, str]] = {
    "private-key": (
        '{"kind":"file.read","payload":{"text":"' + BEGIN + "RSA PRIVATE KEY" + END + '\\nMIIE"}}',
        "MIIE",
    ),
    "aws-access-key-id": ('{"payload":{"env":{"AWS_ACCESS_KEY_ID":"' + AWS_ID + '"}}}', AWS_ID),
    "aws-secret-access-key": ("aws_secret_access_key = " + AWS_SECRET, AWS_SECRET),
    "github-token": ('{"payload":{"args":"git push https://' + GITHUB + '@github.com"}}', GITHUB),
    "gitlab-token": ("export GITLAB_TOKEN=" + GITLAB, GITLAB),
    "slack-token": ('{"payload":{"token":"' + SLACK + '"}}', SLACK),
    "slack-webhook": ("curl -X POST " + SLACK_HOOK, SLACK_HOOK),
    "anthropic-api-key": ('{"args":"ANTHROPIC_API_KEY=' + ANTHROPIC + '"}', ANTHROPIC),
    "openai-api-key": ('{"args":{"key":"' + OPENAI + '"}}', OPENAI),
    "google-api-key": ("https://maps.example/api?key=" + GOOGLE, GOOGLE),
    "stripe-live-key": ("stripe.api_key = '" + STRIPE + "'", STRIPE),
    "jwt": ('{"payload":{"cookie":"session=' + JWT + '"}}', JWT),
    "authorization-header": ("curl -H 'Authorization: Bearer " + BEARER + "' https://api", BEARER),
    "url-credentials": ("DATABASE_URL=postgres://app:Hunter22@db:5432/app", "Hunter22"),
    "password-assignment": ('{"payload":{"args":{"password":"Hunter22"}}}', "Hunter22"),
}

# More positives: (rule, line, secret).
MORE_POSITIVES: list[tuple[str, str, str]] = [
    ("private-key", BEGIN + "PRIVATE KEY" + END, "PRIVATE KEY"),
    ("private-key", BEGIN + "EC PRIVATE KEY" + END, "EC PRIVATE KEY"),
    ("private-key", BEGIN + "OPENSSH PRIVATE KEY" + END, "OPENSSH PRIVATE KEY"),
    ("private-key", BEGIN + "DSA PRIVATE KEY" + END, "DSA PRIVATE KEY"),
    ("private-key", BEGIN + "ENCRYPTED PRIVATE KEY" + END, "ENCRYPTED PRIVATE KEY"),
    ("private-key", "    " + BEGIN + "PGP PRIVATE KEY BLOCK" + END, "PGP PRIVATE KEY"),
    ("aws-access-key-id", "key ASIA" + chars(16, UPPER) + " in use", "ASIA" + chars(16, UPPER)),
    ("aws-secret-access-key", '{"aws_secret_access_key":"' + AWS_SECRET + '"}', AWS_SECRET),
    ("aws-secret-access-key", "AWS_SECRET_ACCESS_KEY=" + AWS_SECRET, AWS_SECRET),
    ("github-token", GITHUB_PAT, GITHUB_PAT),
    ("github-token", "token " + "gh" + "s_" + chars(36), chars(36)),
    ("github-token", "gh" + "o_" + chars(36), chars(36)),
    ("github-token", "gh" + "u_" + chars(36), chars(36)),
    ("github-token", "gh" + "r_" + chars(36), chars(36)),
    ("gitlab-token", "gl" + "dt-" + chars(24), chars(24)),
    ("slack-token", "xo" + "xp-" + "1" + chars(29), "1" + chars(29)),
    ("anthropic-api-key", "key: " + ANTHROPIC, ANTHROPIC),
    ("openai-api-key", OPENAI_PROJECT, OPENAI_PROJECT),
    ("openai-api-key", "OPENAI_API_KEY=" + OPENAI, OPENAI),  # one finding, not two
    ("stripe-live-key", "rk" + "_live_" + chars(30), chars(30)),
    ("jwt", "Authorization: Bearer " + JWT, JWT),  # the more specific rule wins
    ("authorization-header", '{"headers":{"Authorization":"Basic ' + BASIC + '"}}', BASIC),
    ("authorization-header", '{"authorization": "bearer ' + BEARER + '"}', BEARER),
    ("url-credentials", "https://x-access-token:T0k3n-Value@github.com/o/r.git", "T0k3n-Value"),
    ("url-credentials", '{"url":"redis://:S3cretPass@cache:6379/0"}', "S3cretPass"),
    ("github-token", "https://x-access-token:" + GITHUB + "@github.com/o/r", GITHUB),
    ("password-assignment", "export DB_PASSWORD=hunter22", "hunter22"),
    ("password-assignment", '{"password": "Hunter22"}', "Hunter22"),
    ("password-assignment", '{"args":"{\\"password\\":\\"Hunter22\\"}"}', "Hunter22"),
    ("password-assignment", "Password: hunter22", "hunter22"),
    ("password-assignment", "passwd=Tr0ub4dor", "Tr0ub4dor"),
    ("password-assignment", "mysql -u root --pwd=S3cure!x", "S3cure!x"),
    ("password-assignment", '{"client_secret":"GOCSPX-abc123def456"}', "GOCSPX-abc123def456"),
    ("password-assignment", "api_key: 'q8Zr2LmN4pX'", "q8Zr2LmN4pX"),
    ("password-assignment", "apikey=q8Zr2LmN4pX", "q8Zr2LmN4pX"),
    ("password-assignment", '{"X-Api-Key":"q8Zr2LmN4pX"}', "q8Zr2LmN4pX"),
    ("password-assignment", '"access_token": "ya29.A0Afb8"', "ya29.A0Afb8"),
    ("password-assignment", "AUTH_TOKEN := 'q8Zr2LmN4pX'", "q8Zr2LmN4pX"),
    ("password-assignment", "'secret' => 'Sup3rS3cret'", "Sup3rS3cret"),
    ("password-assignment", '{"private_key":"MIIEvQIBADAN"}', "MIIEvQIBADAN"),
    ("password-assignment", 'password = "hunter22"', "hunter22"),
]

# credentials shaped like names or paths, which the key-file exceptions must not pass
MORE_POSITIVES += [
    ("password-assignment", "HEROKU_API_KEY=01234567-89ab-cdef-0123-456789abcdef",
     "01234567-89ab-cdef-0123-456789abcdef"),
    ("password-assignment", 'password: "tiger-lake-7-rain"', "tiger-lake-7-rain"),
    ("password-assignment", "api_key=1234-5678-9012", "1234-5678-9012"),
    ("password-assignment", 'password="Pa55/w0rd.Ab"', "Pa55/w0rd.Ab"),
]  # fmt: skip

POSITIVES = [(rule, line, secret) for rule, (line, secret) in EXAMPLES.items()] + MORE_POSITIVES

# Near misses: none of these is a credential.
NEGATIVES: list[str] = [
    # private-key
    BEGIN + "PUBLIC KEY" + END,
    BEGIN + "CERTIFICATE" + END,
    BEGIN + "PGP PUBLIC KEY BLOCK" + END,
    "keep the private key in the vault, never in the log",
    # aws-access-key-id
    "AK" + "IA" + chars(15, UPPER),
    "ak" + "ia" + chars(16, UPPER).lower(),
    "XAK" + "IA" + chars(16, UPPER),
    "AK" + "IA" + "IOSFODNN7" + "EXAMPLE",  # AWS's documented example
    "flights to ASIA and Europe",
    # aws-secret-access-key
    "aws_secret_access_key = " + chars(30),
    "aws_secret_access_key=${AWS_SECRET_ACCESS_KEY}",
    "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    # github-token
    "gh" + "p_" + chars(35),
    "gh" + "x_" + chars(36),
    "xgh" + "p_" + chars(36),
    "gh" + "p_" + "x" * 36,
    "github" + "_pat_" + chars(40),
    "see https://github.com/org/repo/pull/12",
    # gitlab-token
    "gl" + "pat-" + chars(19),
    "gl" + "pat-" + "x" * 20,
    # slack-token
    "xo" + "xb-123",
    "xoxo-hugs from the team",
    "xoxo-party-2024-planning",
    "xo" + "xz-" + chars(20),
    # slack-webhook
    "docs at https://hooks." + "slack.com/",
    "https://hooks." + "slack.com/services/" + "T0/B0/short",
    # anthropic-api-key
    "sk-" + "ant-" + chars(20),
    "sk-" + "ant-" + "your-key-here-" + "x" * 30,
    # openai-api-key
    "task-" + chars(40),
    "risk-" + chars(40),
    "sk-" + chars(20),
    "sk-" + "x" * 48,
    "sk-" + "proj-" + "x" * 48,
    "sk-" + "this-is-a-very-long-kebab-case-identifier-name",
    "sk-" + "your" + "-openai-key-" + chars(30),
    # google-api-key
    "AI" + "za" + chars(34),
    "AI" + "za" + chars(36),
    # stripe-live-key
    "sk" + "_test_" + chars(24),
    "pk" + "_live_" + chars(24),
    "sk" + "_live_" + chars(10),
    # jwt
    "ey" + "JhbGciOiJIUzI1NiJ9.notjson." + chars(20),
    "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NSJ9",
    # authorization-header
    "Authorization: Bearer short",
    "Authorization: Bearer $GITHUB_TOKEN",
    "Authorization: Bearer ${{ secrets.TOKEN }}",
    "Authorization: Bearer <token>",
    "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE_1234567890",
    "Authorization: Bearer " + "*" * 24,
    "bearer tokens are described in RFC 6750, basic auth in RFC 7617",
    "WWW-Authenticate: Basic realm=app",
    # url-credentials
    "https://github.com/org/repo.git",
    "ssh://git@github.com:22/org/repo",
    "git@github.com:org/repo.git",
    "https://user@host.example/path",
    "postgres://app:${PGPASSWORD}@db/app",
    "https://user:****@host/path",
    "postgres://postgres:postgres@localhost/db",
    "https://host.test/a?x=b:c@d",
    "http://host:8080/path@v2",
    # password-assignment
    "reset your password from the settings page",
    "Password: required",
    "the password: see the vault",
    '{"password_hint":"Hunter22"}',
    '{"password_length":16,"passwordless":true}',
    '{"password":""}',
    '{"password":null}',
    '{"password": true}',
    '{"password":"abc12"}',
    '{"password":"***"}',
    '{"password":"********"}',
    '{"password":"<redacted>"}',
    '{"password":"[REDACTED]"}',
    '{"password":"${DB_PASSWORD}"}',
    "password=$DB_PASSWORD",
    '{"password":"{{ vault_db_password }}"}',
    '{"password":"xxxxxx"}',
    '{"password":"changeme"}',
    '{"password":"CHANGEME"}',
    '{"password":"undefined"}',
    '{"password":"%DB_PASS%"}',
    '{"api_key":"your-api-key-here"}',
    '{"secret":"GITHUB_TOKEN"}',
    '{"secret":"rotated"}',
    '{"password": "correct horse battery staple"}',
    "client = OpenAI(api_key=api_key)",
    "password = getpass.getpass()",
    'password = os.environ["DB_PASSWORD"]',
    "password = get_pw2()",
    "api_key = settings.OPENAI_API_KEY",
    '{"PWD":"/work/main2"}',
    '{"private_key":"~/.ssh/id_ed25519"}',
    '{"private_key":"./keys/deploy2"}',
    '{"usage":{"input_tokens":123456,"output_tokens":654321}}',
    '{"max_tokens":4096,"access_token_ttl":3600}',
    "if password == 'x': pass",
    "private_key=id_ed25519",
    "private_key: keys/deploy-2024.pem",
]


@pytest.mark.parametrize(("rule", "line", "secret"), POSITIVES)
def test_each_positive_is_found_once_by_its_rule(rule: str, line: str, secret: str) -> None:
    assert [f.rule for f in find_secrets(line)] == [rule]


@pytest.mark.parametrize("line", NEGATIVES)
def test_near_misses_are_not_secrets(line: str) -> None:
    assert find_secrets(line) == []


@pytest.mark.parametrize(("rule", "line", "secret"), POSITIVES)
def test_previews_never_hold_the_secret(rule: str, line: str, secret: str) -> None:
    for finding in find_secrets(line):
        start = finding.column - 1
        assert finding.preview == line[start : start + 4] + "…"
        assert secret not in finding.preview


def test_every_rule_has_an_example() -> None:
    ids = [r.rule for r in SECRET_RULES]
    assert sorted(EXAMPLES) == sorted(ids)
    assert {rule for rule, _, _ in POSITIVES} == set(ids)


def test_a_finding_names_its_rule_column_and_preview() -> None:
    line = '{"id":"e1","payload":{"args":"' + GITHUB + '"}}'
    assert find_secrets(line) == [
        SecretFinding("github-token", "a GitHub token", line.index(GITHUB) + 1, "ghp_…")
    ]


def test_findings_come_in_column_order() -> None:
    line = "password=Hunter22 " + OPENAI + " " + AWS_ID
    findings = find_secrets(line)
    assert [f.rule for f in findings] == [
        "password-assignment",
        "openai-api-key",
        "aws-access-key-id",
    ]
    assert [f.column for f in findings] == [1, line.index(OPENAI) + 1, line.index(AWS_ID) + 1]


def test_a_key_word_with_a_prefix_is_found_at_the_key_word() -> None:
    line = "export DB_PASSWORD=hunter22"
    assert [f.column for f in find_secrets(line)] == [line.index("PASSWORD") + 1]


def test_the_rules_are_documented_and_well_formed() -> None:
    ids = [r.rule for r in SECRET_RULES]
    assert len(ids) == len(set(ids))
    doc = secrets.__doc__ or ""
    for rule in SECRET_RULES:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.rule)
        assert rule.label and rule.description and "\n" not in rule.description
        assert rule.triggers and all(t == t.lower() for t in rule.triggers)
        assert f"    {rule.rule} " in doc, rule.rule


@pytest.mark.parametrize(("rule", "line", "secret"), POSITIVES)
def test_every_match_holds_one_of_its_rules_triggers(rule: str, line: str, secret: str) -> None:
    # the screen skips a rule when none of its triggers is in the line, so this must hold
    for r in SECRET_RULES:
        for m in r.pattern.finditer(line):
            assert any(t in m.group().lower() for t in r.triggers), (r.rule, m.group())


def _event(rng: random.Random, n: int) -> str:
    args = rng.choice(
        [
            "cd /work/main && python -m pytest -q tests/test_core.py && git push origin main",
            "fetch https://docs.python.org/3/library/re.html#re.Pattern.finditer",
            "reset your password from the settings page, then sign in again",
            "grep -rn 'private key' docs/ | head -20",
            "task-runner --timezone Asia/Tokyo --retries 3",
            "git log --oneline 3f2c9a1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
            "open ~/.ssh/known_hosts; ask the user for the api key; wait for token refresh",
        ]
    )
    event = {
        "id": f"e{n:06d}",
        "kind": rng.choice(["tool.called", "tool.returned", "note.added", "plan.updated"]),
        "at": f"2025-01-{1 + n % 28:02d}T12:{n % 60:02d}:00Z",
        "run": f"r-{rng.randrange(1000)}",
        "payload": {
            "tool": rng.choice(["bash", "read_file", "web.fetch", "edit"]),
            "args": args,
            "usage": {"input_tokens": rng.randrange(99999), "output_tokens": rng.randrange(9999)},
            "cwd": "/work/main",
        },
    }
    return json.dumps(event, separators=(",", ":"))


def test_ten_thousand_typical_event_lines_have_no_findings() -> None:
    rng = random.Random(0)
    lines = [_event(rng, n) for n in range(10_000)]
    assert [line for line in lines if find_secrets(line)] == []


def _unscreened(line: str) -> list[SecretFinding]:
    """find_secrets without its screen: every rule's regex run on every line (the
    reference the screen must agree with, finding for finding)."""
    found: list[tuple[int, int, secrets.SecretRule]] = []
    for rule in SECRET_RULES:
        for m in rule.pattern.finditer(line):
            if "value" in m.re.groupindex and secrets._is_placeholder(m["value"]):
                continue
            if rule.rule == "password-assignment" and secrets._THING.fullmatch(m["value"]):
                continue
            start, end = m.span()
            if not any(start < e and s < end for s, e, _ in found):
                found.append((start, end, rule))
    found.sort(key=lambda f: f[0])
    return [SecretFinding(r.rule, r.label, s + 1, line[s : s + 4] + "…") for s, e, r in found]


# pieces that come near each rule: its triggers, cut, in other cases, with separators
_PIECES = [
    *sorted({t for r in SECRET_RULES for t in r.triggers}),
    "AKIA", "Asia", "GHP_", "Access_Token", "AUTH-TOKEN", "ApiKey", "PassWord", "pwd",
    "input_tokens", "token", "tok", "acc", "gh", "gl", "api", "sk", "-", "_", "=", ":",
    '"', "'", "\\", "\\\"", " ", "://", "@", "x:", "u:p4ssw0rd@h", "eyJ", ".", "K", "İ",
    "ß", "ABCDEFGHIJKLMNOP1234", "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0", "hunter22",
    "0123456789", "Bearer ", "basic ", "-----BEGIN RSA PRIVATE KEY-----", "live_", "xoxb-1",
]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), max_size=24))
def test_the_screen_gives_the_verdict_of_every_regex_run(parts: list[str]) -> None:
    line = "".join(parts)
    assert find_secrets(line) == _unscreened(line)


@pytest.mark.parametrize(("rule", "line", "secret"), POSITIVES)
def test_the_screen_agrees_on_every_positive(rule: str, line: str, secret: str) -> None:
    assert find_secrets(line) == _unscreened(line)
    for cut in range(0, len(line), 3):  # and on every cut of it
        assert find_secrets(line[cut:]) == _unscreened(line[cut:])


def test_the_screen_groups_hold_their_keys() -> None:
    # a trigger is tested only when its group's key is in the line: it must hold the key
    grouped = {t for _, members in secrets._GROUPS for t, _ in members}
    assert grouped == {t for t, _ in secrets._SCREEN}
    for key, members in secrets._GROUPS:
        assert all(key in t for t, _ in members)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), max_size=24))
def test_may_hold_secrets_is_false_only_when_no_line_has_one(parts: list[str]) -> None:
    text = "\n".join(parts)
    if not secrets.may_hold_secrets(text):
        assert not any(_unscreened(line) for line in text.splitlines())
        assert not any(t in text.lower() for t, _ in secrets._SCREEN)


def test_lines_to_scan_names_every_line_with_a_trigger() -> None:
    """check_lines screens a chunk at once: exactly the lines where some
    rule's trigger appears (in any case) are scanned, so no finding is lost."""
    from git_gasp.core.secrets import _SCREEN, lines_to_scan

    lines = [
        "plain prose with nothing to see",
        "an ACCESS_TOKEN here",
        "",
        "x SK-ant-abc and ghp_ in one line",
        "İstanbul passw",  # lowering changes the length before the trigger
        "no newline inside a trigger: sk\n-",
        "last line github_pat_",
    ]
    text = "\n".join(lines)
    expected = {
        i for i, line in enumerate(text.split("\n")) if any(t in line.lower() for t, _ in _SCREEN)
    }
    assert lines_to_scan(text) == expected == {1, 3, 4, 7}
    assert lines_to_scan("") == set()


_PIECES = [t for t, _ in secrets._SCREEN] + [t.upper() for t, _ in secrets._SCREEN]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_PIECES, "\n", " ", "x", "İ", "Σ", "K", "-", "_"]), max_size=40))
def test_lines_to_scan_is_the_per_line_screen(parts: list[str]) -> None:
    """The one search per trigger over the whole text names the same lines as
    testing every trigger on each lowered line (triggers repeated on a line,
    back to back, across lines, after characters whose lowering is longer)."""
    from git_gasp.core.secrets import lines_to_scan

    text = "".join(parts)
    expected = {
        i for i, line in enumerate(text.split("\n")) if any(t in line.lower() for t in _PIECES)
    }
    assert lines_to_scan(text) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "plain",
                "ghp_" + "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8",
                "password:\\thunter2x9",
                "pw\u2028password: hunter2x9",
                "\\u0067hp_",
                "AKIAABCDEFGHIJKLMNOP",
                "api_\u212aey=zq8Rw3Lm9Xc2Vb7N",  # KELVIN SIGN: its lowercase is "k"
                "\r",
            ]
        ),
        max_size=8,
    )
)
def test_the_append_writer_refuses_what_the_per_line_test_finds(lines: list[str]) -> None:
    """validate.secrets screens the batch once, then tests the lines it names:
    it refuses a batch exactly when testing every line would, naming the same
    (first) credential."""
    from git_gasp.agent import validate
    from git_gasp.core.change import line_secrets
    from git_gasp.errors import GaspError

    batch = "".join(f'{{"summary":"{line}"}}\n' for line in lines)
    first = next((f for raw in batch.splitlines() if (f := line_secrets(raw))), None)
    try:
        validate.secrets("state/events.jsonl", batch.encode(), "the event")
    except GaspError as exc:
        assert first is not None and f"({first[0][1].preview})" in exc.message
    else:
        assert first is None


_HIDDEN_PIECES = [
    "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "AKIAABCDEFGHIJKLMNOP",
    "password: hunter2x9",
    "Authorization: Bearer abcDEF123456ghiJKL789",
    "https://deploy:Zq8w3Lm9Xc2V@git.example.com/repo",  # its only trigger is ://
    "api_\u212aey=zq8Rw3Lm9Xc2Vb7N",  # KELVIN SIGN: its lowercase is "k"
    "xoxb-123456789012-abcdefABCDEF",
    "plain words",
    "\n",
    "\t",
    '"',
    "\\",
    "/",
    ":",
    " ",
    "İ",
    "é",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_HIDDEN_PIECES), max_size=8),
    st.lists(st.sampled_from(_HIDDEN_PIECES), max_size=4),
    st.booleans(),
    st.booleans(),
    st.sets(st.sampled_from("ghpakiswordtxbAKI:/_-"), max_size=6),
)
def test_a_line_whose_escapes_cannot_spell_a_trigger_needs_no_decoding(
    value: list[str], key: list[str], ascii_only: bool, slashes: bool, escaped: set[str]
) -> None:
    """check_lines and the append writer decode a line's JSON strings only when
    it holds a trigger or an escape that could spell one (``\\u``, ``\\/``):
    every line in which decoding finds a credential is such a line, however
    its strings are escaped (``\\n``, ``\\t``, ``\\"``, ``\\\\``, ``\\/``, ``\\uXXXX``)."""
    from git_gasp.core.change import escapes_may_hide, line_secrets
    from git_gasp.core.secrets import lines_to_scan

    def literal(text: str) -> str:  # a JSON string, its characters escaped as chosen
        out = []
        for c in text:
            if c in escaped or (ascii_only and ord(c) > 127) or (ord(c) < 0x20 and c not in "\n\t"):
                out.append(f"\\u{ord(c):04x}")
            elif c in '"\\\n\t' or (c == "/" and slashes):
                out.append("\\" + {"\n": "n", "\t": "t"}.get(c, c))
            else:
                out.append(c)
        return '"' + "".join(out) + '"'

    k, v = "".join(key) or "k", "".join(value)
    line = "{" + literal(k) + ":" + literal(v) + "}"
    assert json.loads(line) == {k: v}
    if line_secrets(line):
        assert 0 in lines_to_scan(line) or escapes_may_hide(line)
