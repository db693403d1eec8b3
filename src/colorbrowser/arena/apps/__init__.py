"""The arena's apps by name. Imported lazily: each module pulls in its content generators."""

from __future__ import annotations

import importlib

from colorbrowser.arena.apps.base import App
from colorbrowser.errors import UserError

# name -> "module:class"; the order is the order of `up`, `status` and the printed list.
APPS: dict[str, str] = {
    "shop": "colorbrowser.arena.apps.shop:ShopApp",
    "forum": "colorbrowser.arena.apps.forum:ForumApp",
    "trac": "colorbrowser.arena.apps.trac:TracApp",
    "wiki": "colorbrowser.arena.apps.wiki:WikiApp",
    "tracker": "colorbrowser.arena.apps.tracker:TrackerApp",
}


def get_app(name: str) -> App:
    names([name])
    module, cls = APPS[name].split(":")
    return getattr(importlib.import_module(module), cls)()


def names(chosen: list[str] | tuple[str, ...] | None) -> list[str]:
    """The chosen app names in the arena's order; none chosen means all of them."""
    wanted = set(chosen or APPS)
    for name in sorted(wanted):
        if name not in APPS:
            raise UserError(f"unknown arena app {name!r}; choose from {', '.join(APPS)}")
    return [name for name in APPS if name in wanted]


def select(chosen: list[str] | tuple[str, ...] | None) -> list[App]:
    return [get_app(name) for name in names(chosen)]
