"""The arena's Python API: ``Arena(instance=0).up(["trac"])``, ``.reset()``, ``.down()``.

The CLI is a thin layer over this class, and phase 2 (tasks, oracle plans, the
``db_match`` evaluator) builds on the same calls: live database paths, base URLs,
seeded accounts with their login states, and resets.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from colorbrowser.arena.apps import APPS, get_app, select
from colorbrowser.arena.apps import names as app_names
from colorbrowser.arena.apps.base import Account, App, ServeContext
from colorbrowser.arena.build import SnapshotMeta, app_hash, auth_file, build_app
from colorbrowser.arena.install import install, is_installed
from colorbrowser.arena.layout import Layout
from colorbrowser.arena.ports import (
    PORTS_ENV,
    parse_ports,
    port_for,
    wait_port_free,
)
from colorbrowser.arena.process import group_alive, start_group, stop_group, wait_http
from colorbrowser.arena.snapshot import copy_tree, restore_db, sync_dir
from colorbrowser.arena.state import InstanceState, ServerRecord, locked, read_state, write_state
from colorbrowser.browser.weblogin import log_in, save_state, state_works
from colorbrowser.errors import UserError

DEFAULT_SEED = 2024
Say = Callable[[str, str], None]  # (app, message)


def _quiet(app: str, message: str) -> None:
    pass


@dataclass(frozen=True)
class AppStatus:
    app: str
    installed: bool
    built: SnapshotMeta | None
    running: bool
    url: str
    pgid: int | None


def default_cache() -> Path:
    from colorbrowser.config import load_settings

    return load_settings().paths.cache


class Arena:
    """One instance of the arena: its ports, its live data and its servers."""

    def __init__(self, instance: int = 0, *, cache: Path | None = None,
                 ports: Mapping[str, int] | None = None, seed: int = DEFAULT_SEED) -> None:
        if instance < 0 or instance > 50:
            raise UserError(f"instance must be between 0 and 50, not {instance}")
        self.instance = instance
        self.layout = Layout.from_cache(cache if cache is not None else default_cache())
        env_ports = parse_ports(os.environ.get(PORTS_ENV), set(APPS))
        self.ports = {**env_ports, **(ports or {})}
        self.seed = seed

    # ----- facts phase 2 builds on -----------------------------------------------------

    def port(self, app: str) -> int:
        record = self._state().servers.get(app)
        return record.port if record else port_for(get_app(app).name, self.instance, self.ports)

    def base_url(self, app: str) -> str:
        return f"http://127.0.0.1:{self.port(app)}"

    def db_paths(self, app: str) -> list[Path]:
        """The live SQLite files of ``app`` in this instance (read them with ``mode=ro``)."""
        return [self.layout.live(self.instance, app) / db for db in get_app(app).databases]

    def db_path(self, app: str) -> Path:
        return self.db_paths(app)[0]

    def accounts(self, app: str) -> list[Account]:
        return get_app(app).accounts(self.seed)

    def account(self, app: str, username: str) -> Account:
        for account in self.accounts(app):
            if account.username == username:
                return account
        names = ", ".join(a.username for a in self.accounts(app))
        raise UserError(f"{app} has no seeded user {username!r}; it has {names}")

    def login_state(self, app: str, username: str, validate: bool = False) -> Path:
        """A Playwright storage-state file that is logged in as ``username``.

        The snapshot's state is valid after every reset (its session is in the
        snapshot). With ``validate``, the state is checked against the running app and
        made again through the login form when it no longer works (e.g. the task
        logged out and no reset followed).
        """
        account = self.account(app, username)
        self._require_built([get_app(app)])
        state = auth_file(self.layout.snap(app), username)
        if not validate and state.exists():
            return state
        spec = get_app(app).login
        fresh = auth_file(self.layout.instance(self.instance) / "auth" / app, username)
        for candidate in (fresh, state):
            if candidate.exists() and state_works(self.base_url(app), spec, account, candidate):
                return candidate
        return save_state(fresh, log_in(self.base_url(app), spec, account))

    def content_hash(self, app: str, snapshot: bool = False) -> str:
        """Hash of the content tables, of the live copy or of the snapshot."""
        live = self.layout.live(self.instance, app)
        source = self.layout.snap(app) / "data" if snapshot else live
        self._require_built([get_app(app)])
        return app_hash(get_app(app), source)

    # ----- commands ---------------------------------------------------------------------

    def install(self, names: Iterable[str] | None = None, say: Say = _quiet) -> dict[str, bool]:
        done = {}
        for app in select(list(names or [])):
            log = self.layout.root / "logs" / f"install-{app.name}.log"
            done[app.name] = install(app, self.layout, log, lambda m, a=app.name: say(a, m))
        return done

    def build(self, names: Iterable[str] | None = None, say: Say = _quiet
              ) -> dict[str, SnapshotMeta]:
        apps = select(list(names or []))
        for app in apps:
            if not is_installed(app, self.layout):
                raise UserError(f"{app.name} is not installed: run `colorbrowser arena install "
                                f"{app.name}` first")
        return {app.name: build_app(app, self.layout, self.seed,
                                    lambda m, a=app.name: say(a, m)) for app in apps}

    def up(self, names: Iterable[str] | None = None, say: Say = _quiet) -> dict[str, float]:
        """Start the apps from their snapshots; returns seconds until each answered."""
        apps = select(list(names or []))
        self._require_built(apps)
        with locked(self._state_path()):
            state = self._state()
            for app in apps:
                port = port_for(app.name, self.instance, self.ports)
                record = state.servers.get(app.name)
                if record and group_alive(record.pgid):
                    raise UserError(f"{app.name} is already running on port {record.port} "
                                    f"(instance {self.instance}); run `colorbrowser arena down` "
                                    "first")
                if not wait_port_free(port, timeout=0.5):
                    raise UserError(f"port {port} for {app.name} is busy: another server "
                                    "listens there; stop it or pick other ports")
            started: list[tuple[App, ServerRecord]] = []
            try:
                for app in apps:
                    say(app.name, "copy snapshot")
                    live = self.layout.live(self.instance, app.name)
                    copy_tree(self.layout.snap(app.name) / "data", live)
                    serve = ServeContext(live, self.layout.snap(app.name),
                                         port_for(app.name, self.instance, self.ports),
                                         self._python(app), self.instance)
                    log = self.layout.log(self.instance, app.name)
                    pgid = start_group(app.server(serve), log)
                    record = ServerRecord(pgid=pgid, port=serve.port, url=serve.url,
                                          started_at=time.time(), log=str(log))
                    state.servers[app.name] = record
                    started.append((app, record))
                    write_state(self._state_path(), state)
                waited = {}
                for app, record in started:
                    say(app.name, "wait for 200")
                    waited[app.name] = wait_http(record.url + app.health_path, record.pgid,
                                                 app.start_timeout, Path(record.log))
                return waited
            except BaseException:
                for app, record in started:
                    stop_group(record.pgid)
                    wait_port_free(record.port)
                    state.servers.pop(app.name, None)
                write_state(self._state_path(), state)
                raise

    def reset(self, names: Iterable[str] | None = None) -> dict[str, float]:
        """Restore the snapshot; hot (server kept running) for running apps.

        Returns seconds per app. An app that is not running gets a fresh copy.
        """
        apps = select(list(names or []))
        self._require_built(apps)
        state = self._state()
        timings = {}
        for app in apps:
            start = time.perf_counter()
            snap = self.layout.snap(app.name) / "data"
            live = self.layout.live(self.instance, app.name)
            record = state.servers.get(app.name)
            if record and group_alive(record.pgid):
                for db in app.databases:
                    restore_db(snap / db, live / db)
                for folder in app.side_dirs:
                    sync_dir(snap / folder, live / folder)
            else:
                copy_tree(snap, live)  # cold: a fresh copy of the snapshot data
            timings[app.name] = time.perf_counter() - start
        return timings

    def down(self, chosen: Iterable[str] | None = None) -> list[str]:
        """Stop the servers this instance started; returns the apps stopped."""
        wanted = set(app_names(list(chosen or [])))
        with locked(self._state_path()):
            state = self._state()
            stopped = []
            for name in [n for n in state.servers if n in wanted]:
                record = state.servers[name]
                if group_alive(record.pgid):
                    stopped.append(name)
                stop_group(record.pgid)
                wait_port_free(record.port)
                del state.servers[name]
            write_state(self._state_path(), state)
        return stopped

    def status(self, names: Iterable[str] | None = None) -> list[AppStatus]:
        state = self._state()
        out = []
        for app in select(list(names or [])):
            record = state.servers.get(app.name)
            alive = bool(record and group_alive(record.pgid))
            pgid = record.pgid if alive and record else None
            out.append(AppStatus(app.name, is_installed(app, self.layout),
                                 SnapshotMeta.read(self.layout.snap(app.name)), alive,
                                 self.base_url(app.name), pgid))
        return out

    def running(self) -> list[str]:
        """Apps whose servers this instance started and that are still alive."""
        return [name for name, rec in self._state().servers.items() if group_alive(rec.pgid)]

    # ----- helpers ----------------------------------------------------------------------

    def _state_path(self) -> Path:
        return self.layout.state_file(self.instance)

    def _state(self) -> InstanceState:
        return read_state(self._state_path(), self.instance)

    def _python(self, app: App) -> Path | None:
        return self.layout.venv_python(app.name) if app.uses_venv else None

    def _require_built(self, apps: list[App]) -> None:
        for app in apps:
            if SnapshotMeta.read(self.layout.snap(app.name)) is None:
                raise UserError(f"{app.name} is not built: run `colorbrowser arena build "
                                f"{app.name}` first")


def login_state(app: str, user: str, instance: int = 0, validate: bool = False) -> Path:
    """Shortcut for ``Arena(instance).login_state(app, user)``."""
    return Arena(instance).login_state(app, user, validate=validate)

