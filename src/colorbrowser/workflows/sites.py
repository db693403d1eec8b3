"""Workflows whose steps cross to another site the person has named.

A workflow belongs to the site its run started on, and it opens only that site's
pages, with one exception: a page of another site the settings name by a placeholder
(``__GITLAB__``, filled from ``WA_GITLAB``). A run that looked something up on Trac
and then filed it on the code-hosting site is learned with that second site's
addresses written as the placeholder (``__GITLAB__/projects/harbor/issues/new``), so
the workflow holds no address of its own beyond its site, and when it runs the
placeholder is filled from the running person's settings and the filled address is
checked to be on the site the placeholder names. Only a workflow of a named site may
cross (a workflow someone sent for another site never opens the person's own sites).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from colorbrowser.knowledge.patterns import host_matches_site, url_host
from colorbrowser.plan.format import fill
from colorbrowser.plan.placeholders import PLACEHOLDERS


def placeholder_bases(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """{live base address: placeholder} for every site placeholder that is set."""
    env = os.environ if env is None else env
    out = {}
    for placeholder, var in PLACEHOLDERS.items():
        base = env.get(var, "").strip().rstrip("/")
        if base.startswith(("http://", "https://")) and url_host(base):
            out[base] = placeholder
    return out


def as_placeholder(url: str, site: str, env: Mapping[str, str] | None = None) -> str | None:
    """A live address of another named site written with its placeholder (the longest
    base that holds it), or None when it is on ``site`` or on no named site."""
    if host_matches_site(url_host(url), site):
        return None
    for base, placeholder in sorted(placeholder_bases(env).items(), key=lambda kv: -len(kv[0])):
        if url == base or url.startswith(base + "/") or url.startswith(base + "?"):
            return placeholder + url[len(base):]
    return None


def placeholder_host(url: str, env: Mapping[str, str] | None = None) -> str | None:
    """The host an address that starts with a site placeholder opens once filled (None
    when it starts with none, or the placeholder is not set here)."""
    head = url.strip().split("/", 1)[0]
    if head not in PLACEHOLDERS:
        return None
    filled = fill(head, os.environ if env is None else env)
    return url_host(filled) if filled != head else None


def crossing_to(url: str, site: str, env: Mapping[str, str] | None = None) -> str | None:
    """The host of another named site an address may open from a workflow of
    ``site``: only a workflow of a named site itself crosses to another one (a
    workflow someone sent for any other site never reaches the person's own sites)."""
    env = os.environ if env is None else env
    host = placeholder_host(url, env)
    if host is None:
        return None
    named = {url_host(base) for base in placeholder_bases(env)}
    return host if any(host_matches_site(h, site) for h in named) else None
