"""Stable names for the sites we serve ourselves.

MiniWoB and the demo shop are served on a random loopback port behind a random
token path, so their live address changes with every run. Knowledge must not:
tips, their scopes, review-queue items and shortcuts name such a site by a
stable base (``http://miniwob.local/``), and the episode translates at the
knowledge boundary, stable for retrieval and scopes, live for the browser.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


def _base(url: str) -> str:
    # A base always ends in "/", so ":3366/" never claims ":33663/...".
    url = url.strip()
    return url if url.endswith("/") else url + "/"


@dataclass(frozen=True)
class SiteAliases:
    """Pairs of (live base, stable base); empty means every URL is its own name."""

    pairs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, mapping: Mapping[str, str] | None) -> SiteAliases:
        """From ``{live base: stable base}`` (a TaskSpec's ``site_aliases``)."""
        return cls(tuple((_base(live), _base(stable)) for live, stable in (mapping or {}).items()))

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def stable(self, url: str) -> str:
        """The name knowledge uses for a live URL (unchanged when not served by us)."""
        return _swap(url, ((live, stable) for live, stable in self.pairs))

    def live(self, url: str) -> str:
        """Where a stable URL (a shortcut, a URL in a tip) is served in this run."""
        return _swap(url, ((stable, live) for live, stable in self.pairs))


NO_ALIASES = SiteAliases()  # immutable, so one shared default serves every caller


def _swap(url: str, pairs) -> str:
    for old, new in pairs:
        if url.startswith(old):
            return new + url[len(old):]
        if url == old[:-1]:  # the bare base, without its slash
            return new[:-1]
    return url
