"""Which matches of a credential rule (:mod:`git_gasp.core.secrets`) are
credentials: :func:`accepted`. Pure.

What comes before a token (its leading boundary), rule by rule, since a
credential glued to other letters (``Bashghp_...``, a tool name and its input
run together) is still one:

* no boundary: ``aws_secret_access_key``, ``glpat-``/``gldt-``, ``xox?-`` (the
  digit after it), ``github_pat_``, ``AIza`` (exactly 35 after it), ``eyJ...``
  (three dotted segments), a private key header, a Slack webhook: the prefix
  and shape alone are rare outside credentials;
* ``AKIA``/``ASIA``: not after another uppercase letter or digit (so
  ``XAKIA...`` and ``EURASIA...`` stay words), after a lowercase letter it is
  found (``echoAKIA...``);
* ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``: after a letter or digit only
  when the last 6 characters are the base62 CRC32 of the 30 before them, the
  checksum GitHub writes into every such token (so ``xghp_`` + 36 arbitrary
  letters stays a word);
* ``sk-ant-``: glued only as ``sk-ant-api03-``/``admin01-``/``oat01-``, the
  kinds Anthropic issues (``task-ant-...`` is a word); ``sk-``: glued only
  with ``T3BlbkFJ`` in the key, the marker inside OpenAI's keys (``task-``,
  ``risk-`` + 40 characters stay words);
* ``sk_live_``/``rk_live_`` keep the word boundary: ``_live_`` follows
  ordinary identifier words (``network_live_...``) and the key has no shape
  of its own to tell them apart.

Values that are not secrets (checked on the value part: the token body, the
password, the assigned value):

* one character repeated (``xxxxxx``, ``******``) or only mask characters
  (``xxxx-xxxx``), or containing ``***``, ``...`` or ``…`` (masked or cut);
* containing ``redacted`` or ``example`` (AWS's documented example keys end in
  ``EXAMPLE``), or starting with ``your`` (``your-api-key-here``);
* starting with ``$`` (``$VAR``, ``${VAR}``, ``$(cmd)``), or wrapped in
  ``<...>``, ``{...}``/``{{...}}``, ``[...]`` or ``%...%``;
* the words null, none, nil, true, false, undefined, changeme, change_me,
  placeholder, password, passwd, secret, string, dummy (any case);
* a name rather than a value: lowercase letters only (``"secret": "rotated"``,
  ``postgres:postgres@``) or an environment variable's name
  (``"secret": "GITHUB_TOKEN"``);
* for password-assignment, a path (starting ``/``, ``./``, ``../``, ``~/``), so
  ``"private_key": "~/.ssh/id_ed25519"`` and ``PWD=/home/me`` pass, and the name
  of a key file rather than a key: an SSH key file's name (``id_ed25519``), or
  a relative path to a key or certificate file (``keys/deploy-2024.pem``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PLACEHOLDER_WORDS = frozenset(
    "null none nil true false undefined changeme change_me placeholder"
    " password passwd secret string dummy".split()
)
_MASK = frozenset("xX*•#-_. ")
_WRAPPERS = (("<", ">"), ("{", "}"), ("[", "]"), ("%", "%"))
# a lowercase word ("required", "postgres") or an environment variable's name
_NAME = re.compile(r"[a-z]+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


# for password-assignment: the name of a thing, not a value (see the module doc)
_THING = re.compile(
    r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.pub)?"
    r"|[\w.-]+(?:/[\w.-]+)+\.(?:pem|key|pub|crt|der|p12|pfx|jks|ppk)",
    re.ASCII,
)


def _is_placeholder(value: str) -> bool:
    """A value that stands for a secret rather than being one (see the module doc)."""
    low = value.lower()
    return (
        len(set(value)) <= 1
        or set(value) <= _MASK
        or any(s in value for s in ("***", "...", "…"))
        or "redacted" in low
        or "example" in low
        or low.startswith("your")
        or value.startswith("$")
        or any(value.startswith(a) and value.endswith(b) for a, b in _WRAPPERS)
        or low in _PLACEHOLDER_WORDS
        or _NAME.fullmatch(value) is not None
    )


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ALNUM = frozenset(_BASE62)  # ASCII letters and digits
_TOKEN_CHARS = _ALNUM | {"_", "-"}
_ANTHROPIC_KIND = re.compile(r"(?:api|admin|oat)[0-9]{2}-")


def _github_checksum(body: str) -> bool:
    """Whether the last 6 of a classic GitHub token's 36 characters are the
    base62 CRC32 of the 30 before them (GitHub writes it into every one)."""
    import zlib  # here: a hook that meets no glued token never loads it

    crc = zlib.crc32(body[:30].encode("ascii"))
    digits = ""
    for _ in range(6):  # 62**6 > 2**32: six digits always hold it
        crc, digit = divmod(crc, 62)
        digits = _BASE62[digit] + digits
    return digits == body[30:]


# The rules whose prefix may be glued to the characters before it (in the set
# given) only when the match shows its own shape (see the module doc). Every other
# rule's leading boundary, if any, is in its expression.
_GLUED: dict[str, tuple[frozenset[str], Callable[[re.Match[str]], bool]]] = {
    "github-token": (_ALNUM, lambda m: bool(m["fine"]) or _github_checksum(m["value"])),
    "anthropic-api-key": (_TOKEN_CHARS, lambda m: bool(_ANTHROPIC_KIND.match(m["value"]))),
    "openai-api-key": (_TOKEN_CHARS, lambda m: "T3BlbkFJ" in m["value"]),
}


def accepted(rule: str, m: re.Match[str]) -> bool:
    """Whether the match ``m`` of the rule named ``rule`` is a credential: not
    a placeholder, not the name of a key file, and not glued to the text
    before it unless its shape allows that (see the module doc)."""
    if "value" in m.re.groupindex and _is_placeholder(m["value"]):
        return False
    if rule == "password-assignment" and _THING.fullmatch(m["value"]):
        return False
    glue = _GLUED.get(rule)
    start = m.start()
    if glue is not None and start and m.string[start - 1] in glue[0]:
        return glue[1](m)
    return True
