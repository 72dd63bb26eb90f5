"""Checkout attributes of append-only files: a change may not give one a
setting that rewrites it on checkout, nor turn line-ending conversion back on.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from git_gasp.core.finding import Finding

#: the attributes that decide how git checks a file out
CHECKOUT_ATTRIBUTES = ("text", "crlf", "eol", "ident", "filter", "working-tree-encoding")
#: one file's attributes in one view (``set``, ``unset`` or a value; absent: unspecified)
Attributes = Mapping[str, str]


def _text_off(attributes: Attributes) -> bool:
    """Line endings are never converted: ``-text`` (or the legacy ``-crlf``)."""
    text = attributes.get("text")
    return text == "unset" if text is not None else attributes.get("crlf") == "unset"


def _rewrites(attributes: Attributes) -> set[str]:
    """The settings that make a checkout differ from the blob (no-ops left out:
    a filter without a driver name, UTF-8 as the encoding, eol on -text)."""
    out = set()
    if attributes.get("ident") == "set":
        out.add("ident")
    driver = attributes.get("filter")
    if driver not in (None, "set", "unset"):
        out.add(f"filter={driver}")
    encoding = attributes.get("working-tree-encoding")
    if encoding not in (None, "set", "unset") and encoding.upper().replace("-", "") != "UTF8":
        out.add(f"working-tree-encoding={encoding}")
    if attributes.get("eol") == "crlf" and not _text_off(attributes):
        out.add("eol=crlf")
    return out


def _conversions(attributes: Attributes) -> set[str]:
    """The settings that turn line-ending conversion on (``text``,
    ``text=auto``, ``eol=lf``, the legacy ``crlf``); none on ``-text``.
    ``eol=crlf`` is a rewrite of its own (:func:`_rewrites`)."""
    if _text_off(attributes):
        return set()
    out = set()
    text = attributes.get("text")
    if text is not None:
        out.add("text" if text == "set" else f"text={text}")
    eol = attributes.get("eol")
    if eol not in (None, "unset", "crlf"):
        out.add(f"eol={eol}")
    crlf = attributes.get("crlf")
    if text is None and crlf not in (None, "unset"):
        out.add("crlf" if crlf == "set" else f"crlf={crlf}")
    return out


def check_attributes(
    source: str,
    before: Sequence[Mapping[str, Attributes]],
    after: Sequence[Mapping[str, Attributes]],
    present: Collection[str] | None = None,
) -> list[Finding]:
    """An append-only file checks out byte for byte: a change to ``source``
    (a ``.gitattributes``, or the manifest that says which files are
    append-only) may not give one a setting that rewrites it on checkout
    (``eol=crlf``, ``ident``, a filter, a working-tree encoding), nor turn
    line-ending conversion back on for one that had it off (``-text``: with
    ``core.autocrlf`` every such clone would see CRLF lines), nor give an
    append-only file that had none a new ``text``/``eol`` setting
    (``* text=auto`` converts on every Windows clone; a file arriving
    under such attributes is the manifest's or the attributes' to mark).

    ``before``/``after``: the files' attributes in each view of the change's
    parent and of the change (case-sensitive and case-insensitive matching,
    as clones on either kind of file system see them); a file that was not
    append-only before has no ``before`` entry. ``present``: the files the
    change's tree holds, the only ones a new ``text``/``eol`` is judged on
    (None: all)."""
    out = []
    files = sorted({path for view in after for path in view})
    for path in files:
        old = [view[path] for view in before if path in view]
        new = [view.get(path, {}) for view in after]
        was = set().union(*(_rewrites(a) for a in old))
        for setting in sorted(set().union(*(_rewrites(a) for a in new)) - was):
            hint = "mark it -text" if setting == "eol=crlf" else f"drop {setting} for it"
            out.append(_attribute_finding(source, path, setting, hint))
        if old and all(_text_off(a) for a in old) and not all(_text_off(a) for a in new):
            out.append(_attribute_finding(source, path, "text", "keep it -text"))
        elif old and (present is None or path in present):
            had = set().union(*(_conversions(a) for a in old))
            for setting in sorted(set().union(*(_conversions(a) for a in new)) - had):
                hint = f"mark it -text after that line ({path} -text)"
                out.append(_attribute_finding(source, path, setting, hint, converts=True))
    return out


def check_attribute_names(paths: Iterable[str]) -> list[Finding]:
    """A ``.gitattributes`` spelled with other capitals is one git reads on a
    case-insensitive file system (macOS, Windows) but not on the server, so
    its settings could not be judged: it is refused."""
    return [
        Finding(
            path,
            None,
            "attributes",
            "an attributes file in other capitals applies only on case-insensitive file systems",
            "name it .gitattributes",
        )
        for path in sorted(paths)
        if path.rsplit("/", 1)[-1] != ".gitattributes"
    ]


def _attribute_finding(
    source: str, path: str, setting: str, hint: str, converts: bool = False
) -> Finding:
    what = "turns line-ending conversion back on for" if setting == "text" else f"{setting} makes"
    rest = "" if setting == "text" else " check out differently from its committed bytes"
    if converts:
        what, rest = f"{setting} turns line-ending conversion on for", ""
    return Finding(
        source,
        None,
        "attributes",
        f"{what} {path}{rest}",
        f"append-only files check out byte for byte: {hint}",
    )
