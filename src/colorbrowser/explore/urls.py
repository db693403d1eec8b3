"""URL templates: two product pages are one kind of page.

A state is keyed by its URL template plus the page's structure, so the template only
has to say where record ids and titles sit in an address. It is deterministic and
needs no history: a key computed today is the key computed after a resume.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

ID = "{id}"
TITLE = "{title}"
VALUE = "{}"
# Query keys whose value names a kind of page (MediaWiki's action=edit, view=list).
KIND_KEYS = frozenset({"action", "mode", "view", "tab", "do", "op", "format", "type", "report",
                       "section"})
_DIGITS = re.compile(r"\d")
_HEX = re.compile(r"^[0-9a-f]{8,}$|^[0-9a-f-]{32,36}$", re.I)
_SPECIAL = re.compile(r"^(special|spezial):", re.I)
# A calendar date or time stamp: 2026-11-25(T10:00), 11/25/26, 25.11.2026, or
# MediaWiki's 20261125103000. A form prefilled with today's date puts one in the address.
_DATED = re.compile(r"\d{4}-\d{1,2}-\d{1,2}([T ].*)?|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}"
                    r"|(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(\d{6})?")


def _segment(seg: str, previous: str) -> str:
    """One path segment as a template part."""
    text = unquote(seg)
    if not text:
        return text
    if _HEX.match(text) or (_DIGITS.search(text) and not re.fullmatch(r"[a-z]+\.\w+", text)):
        return ID
    if previous == ID and ("-" in text or "_" in text):  # the slug after a record id
        return TITLE
    if ":" in text:
        space, _, name = text.partition(":")
        return text if _SPECIAL.match(text) else f"{space}:{TITLE if name else ''}"
    if any(c.isupper() for c in text) or "_" in text or " " in text or text.count("-") >= 2:
        return TITLE
    return text


def _value(key: str, value: str) -> str:
    if key.lower() == "title":
        return _segment(value, "")
    if key.lower() in KIND_KEYS and re.fullmatch(r"[A-Za-z_]{1,24}", value):
        return value
    return VALUE


def url_template(url: str) -> str:
    """``http://h/ticket/12?x=1`` -> ``h/ticket/{id}?x={}``; the fragment is dropped."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url.split("#", 1)[0]
    out: list[str] = []
    for seg in parts.path.split("/"):
        out.append(_segment(seg, out[-1] if out else ""))
    query = sorted({f"{k}={_value(k, v)}" for k, v in parse_qsl(parts.query,
                                                              keep_blank_values=True)})
    host = parts.netloc.lower()
    return host + "/".join(out) + (("?" + "&".join(query)) if query else "")


def steady_url(url: str) -> str:
    """The address without query values that are dates: a timeline's filter form fills in
    today's date, so the same click ends on another address tomorrow. A task checked
    against the steady part is still true the next day."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not _DATED.fullmatch(v.strip())]
    if len(kept) == len(pairs):
        return url
    return urlunsplit(parts._replace(query=urlencode(kept)))


def same_page(a: str, b: str) -> bool:
    """Whether two addresses show the same document (fragments and a trailing slash aside)."""
    return _plain(a) == _plain(b)


def page_address(url: str) -> str:
    """The address as ``same_page`` compares it (no fragment or trailing slash, sorted query)."""
    return _plain(url)


def _plain(url: str) -> str:
    base = url.split("#", 1)[0]
    parts = urlsplit(base)
    path = parts.path.rstrip("/") or "/"
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    return f"{parts.scheme}://{parts.netloc.lower()}{path}?{query}"


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()
