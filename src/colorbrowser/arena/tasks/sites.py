"""WebArena's site names on the arena: which app serves each, under which placeholder,
and who the site's login state (``.auth/<site>_state.json``) is logged in as.

WebArena task files name sites (``"sites": ["gitlab"]``), write URLs with placeholders
(``__GITLAB__/...``) and log in with ``./.auth/gitlab_state.json`` or, for two sites,
``./.auth/gitlab.reddit_state.json``. The arena fills all three from one table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from colorbrowser.errors import UserError


@dataclass(frozen=True)
class Site:
    name: str  # WebArena's name for the site
    app: str  # the arena app that serves it
    placeholder: str
    var: str  # the environment variable the placeholder is filled from
    path: str = ""  # added to the app's base URL (the admin lives under /dashboard)
    user: str | None = None  # whose login the site's state file holds


SITES: dict[str, Site] = {s.name: s for s in (
    Site("shopping", "shop", "__SHOPPING__", "WA_SHOPPING", user="nora"),
    Site("shopping_admin", "shop", "__SHOPPING_ADMIN__", "WA_SHOPPING_ADMIN", "/dashboard",
         user="omar"),
    Site("reddit", "forum", "__REDDIT__", "WA_REDDIT", user="urban_gardener86"),
    Site("gitlab", "tracker", "__GITLAB__", "WA_GITLAB", user="liam"),
    Site("wikipedia", "wiki", "__WIKIPEDIA__", "WA_WIKIPEDIA", user="Emma"),  # for edits
    Site("trac", "trac", "__TRAC__", "WA_TRAC", user="hugo"),
)}
STATE_SUFFIX = "_state.json"


def site(name: str) -> Site:
    if name not in SITES:
        known = ", ".join(SITES)
        raise UserError(f"the arena has no site {name!r} (it has {known}; no map)")
    return SITES[name]


def apps_of(site_names: Iterable[str]) -> list[str]:
    """The arena apps behind some WebArena site names, in a stable order."""
    return sorted({site(n).app for n in site_names})


def sites_in_state_name(file_name: str) -> list[str]:
    """``gitlab.reddit_state.json`` -> ``["gitlab", "reddit"]``."""
    if not file_name.endswith(STATE_SUFFIX):
        raise UserError(f"{file_name}: a WebArena login state is named <site>{STATE_SUFFIX}")
    return file_name[: -len(STATE_SUFFIX)].split(".")


def merge_states(states: Iterable[Path]) -> dict:
    """One storage state holding the cookies of several (cookies of one name, domain and
    path are kept once: the later file wins)."""
    cookies: dict[tuple[str, str, str], dict] = {}
    for path in states:
        for cookie in json.loads(path.read_text("utf-8")).get("cookies", []):
            cookies[(cookie["name"], cookie["domain"], cookie["path"])] = cookie
    return {"cookies": list(cookies.values()), "origins": []}
