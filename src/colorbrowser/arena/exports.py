"""What an arena instance tells a WebArena task file: site addresses (``WA_SHOPPING``...),
database files for ``db_match`` (``WA_DB_SHOP``...) and a folder of WebArena-named
login states (``WA_AUTH_DIR``). Used by the arena suite and by ``colorbrowser arena env``.
"""

from __future__ import annotations

import itertools
import json
import shlex
from collections.abc import Iterable
from pathlib import Path

from colorbrowser.arena.apps import APPS
from colorbrowser.arena.arena import Arena
from colorbrowser.arena.build import SnapshotMeta, auth_file
from colorbrowser.arena.tasks.sites import SITES, STATE_SUFFIX, merge_states, sites_in_state_name
from colorbrowser.datafile import load_json
from colorbrowser.errors import UserError
from colorbrowser.evaluation.configured import AUTH_DIR_VAR
from colorbrowser.evaluation.dbmatch import db_var


def built(arena: Arena) -> set[str]:
    return {app for app in APPS if SnapshotMeta.read(arena.layout.snap(app))}


def auth_dir(arena: Arena) -> Path:
    return arena.layout.instance(arena.instance) / "webarena-auth"


def site_env(arena: Arena) -> dict[str, str]:
    """``WA_*`` values of every site whose app is built, at this instance's ports."""
    have = built(arena)
    env = {AUTH_DIR_VAR: str(auth_dir(arena))}
    for s in SITES.values():
        if s.app in have:
            env[s.var] = arena.base_url(s.app) + s.path
            env[db_var(s.app)] = str(arena.db_path(s.app))
    return env


def write_states(arena: Arena, names: Iterable[str]) -> list[str]:
    """Write the named WebArena login states (``gitlab.reddit_state.json``) from the
    snapshots' own; returns the names written. Unknown sites are skipped."""
    have = built(arena)
    folder = auth_dir(arena)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in sorted(set(names)):
        try:
            sites = [SITES[s] for s in sites_in_state_name(name)]
        except (KeyError, UserError):
            continue
        states = [auth_file(arena.layout.snap(s.app), s.user) for s in sites
                  if s.user and s.app in have]
        if len(states) == len(sites) and all(p.exists() for p in states):
            (folder / name).write_text(json.dumps(merge_states(states)), "utf-8")
            written.append(name)
    return written


def every_state_name() -> list[str]:
    """Each site with a login, alone and in pairs, as WebArena's harness names them."""
    logged = [s.name for s in SITES.values() if s.user]
    pairs = [".".join(p) for p in itertools.combinations(logged, 2)]
    return [f"{n}{STATE_SUFFIX}" for n in logged + pairs]


def states_named_in(files: Iterable[Path]) -> set[str]:
    """The login-state file names some WebArena task files ask for."""
    wanted = set()
    for path in files:
        try:
            items = load_json(path, "task file")
        except UserError:
            continue  # the task loader reports a broken file in one line
        for item in items if isinstance(items, list) else [items]:
            if isinstance(item, dict) and isinstance(item.get("storage_state"), str):
                wanted.add(Path(item["storage_state"]).name)
    return wanted


def exports(arena: Arena) -> list[str]:
    """Shell lines that point WebArena placeholders at this instance."""
    write_states(arena, every_state_name())
    return [f"export {key}={shlex.quote(value)}" for key, value in site_env(arena).items()]
