"""URL scopes of tips: globs and ``re:`` regexes, and how specific a match is.

Only ``*`` is a wildcard in globs, because ``?`` and ``[`` appear literally in URLs
far more often than people mean them as wildcards. A glob is either absolute
(``http://shop.local/admin/*``, ``*://shop.local/*``) or a path glob starting with
``/`` that applies on the tip's own site.

The page being matched chooses its URL, so every pattern is matched in linear time
(see ``colorbrowser.linear_regex``), and a glob has at most ``MAX_GLOB_STARS``
wildcards: no real URL scope needs more, and each one multiplies the work of any
backtracking matcher the pattern may one day be handed to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from colorbrowser.linear_regex import LinearRegex, RegexRefused, compile_linear

REGEX_PREFIX = "re:"
MAX_GLOB_STARS = 8


class PatternError(ValueError):
    """A pattern that cannot be compiled; the message is meant for a person."""


@dataclass(frozen=True)
class CompiledPattern:
    source: str
    regex: LinearRegex
    path_only: bool  # path glob: matched against path+query on the tip's site
    specificity: float  # 0 (matches a whole site) .. 1 (one narrow page family)


def normalize_url(url: str) -> str:
    """Lower-case scheme and host and drop the fragment, so matching is stable."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        return url.strip()
    path = parts.path or "/"
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}{query}"


def url_host(url: str) -> str:
    """``host[:port]`` of a URL in lower case, or "" when the URL has none."""
    return urlsplit(url.strip()).netloc.lower()


def hide_userinfo(url: str) -> str:
    """``url`` with any user name and password before its host shown as ``***``: an
    error message may quote an address, and ``http://ann:pw@host/`` holds a password."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    netloc, slash, tail = rest.partition("/")
    if "@" not in netloc:
        return url
    return f"{scheme}://***@{netloc.rpartition('@')[2]}{slash}{tail}"


def path_and_query(url: str) -> str:
    parts = urlsplit(url.strip())
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def host_matches_site(host: str, site: str) -> bool:
    """A site without a port covers every port of that host."""
    host, site = host.lower(), site.lower()
    if ":" in site:
        return host == site
    return host.split(":", 1)[0] == site


def _literal_weight(text: str) -> float:
    # Specificity counts literal path characters: "/admin/sales/order/*" is narrower
    # than "/admin/*", which is narrower than "/*".
    return min(1.0, len(re.sub(r"[^A-Za-z0-9]", "", text)) / 20.0)


def _regex_tail(body: str) -> str:
    """The part of a regex after its host, roughly: what narrows it within a site."""
    for sep in ("\\/\\/", "//"):
        if sep in body:
            rest = body.split(sep, 1)[1]
            return rest.split("/", 1)[1] if "/" in rest else ""
    return body


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> CompiledPattern:
    """Compile one pattern or raise PatternError saying what is wrong with it."""
    if not pattern or not pattern.strip():
        raise PatternError("empty URL pattern")
    if pattern != pattern.strip():
        raise PatternError(f"URL pattern {pattern!r} has leading or trailing spaces")
    if pattern.startswith(REGEX_PREFIX):
        body = pattern[len(REGEX_PREFIX):]
        if not body:
            raise PatternError("empty regex after 're:'")
        try:
            regex = compile_linear(body, name=pattern)
        except RegexRefused as exc:
            raise PatternError(str(exc)) from None
        return CompiledPattern(pattern, regex, False, _literal_weight(_regex_tail(body)))
    if any(ch.isspace() for ch in pattern):
        raise PatternError(f"URL glob {pattern!r} contains spaces")
    if (stars := pattern.count("*")) > MAX_GLOB_STARS:
        raise PatternError(f"URL glob {pattern!r} has {stars} '*' wildcards; at most "
                           f"{MAX_GLOB_STARS} are allowed (a re: pattern can say more)")
    if pattern.startswith("/"):
        return CompiledPattern(pattern, _glob_regex(pattern), True, _literal_weight(pattern))
    if "://" not in pattern:
        raise PatternError(
            f"URL glob {pattern!r} must be absolute (http://host/...) or a path starting with /"
        )
    scheme, rest = pattern.split("://", 1)
    host, slash, path = rest.partition("/")
    # Scheme and host compare case-insensitively (URLs are normalized the same way).
    regex = _glob_regex(f"{scheme.lower()}://{host.lower()}{slash}{path}")
    return CompiledPattern(pattern, regex, False, _literal_weight(path))


def _glob_regex(glob: str) -> LinearRegex:
    body = ".*".join(re.escape(part) for part in glob.split("*"))
    if glob.endswith("/*"):
        # "http://shop.local/admin/*" also covers "http://shop.local/admin".
        body = body[: -len("/.*")] + "(?:/.*)?"
    return compile_linear(body, name=glob)


def match(pattern: str, url: str) -> bool:
    """Whether a pattern covers a URL. Path globs see only path+query.

    A pattern that no longer compiles (stored by a version that accepted more) covers
    nothing: ``tips lint`` reports it, and retrieval must not fail over it."""
    try:
        cp = compile_pattern(pattern)
    except PatternError:
        return False
    if cp.path_only:
        return cp.regex.fullmatch(path_and_query(url)) is not None
    target = normalize_url(url)
    if pattern.startswith(REGEX_PREFIX):
        return cp.regex.search(target) is not None
    return cp.regex.fullmatch(target) is not None


def glob_host(pattern: str) -> str | None:
    """Literal host part of an absolute glob (may hold ``*``), else None."""
    if pattern.startswith(REGEX_PREFIX) or "://" not in pattern:
        return None
    return pattern.split("://", 1)[1].split("/", 1)[0].lower()
