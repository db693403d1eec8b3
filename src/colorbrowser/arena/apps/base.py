"""What every arena app tells the arena: how to install, build, serve and check it.

An app is a small class of facts plus two methods (``build`` and ``server``). The
arena does everything else the same way for all of them: process groups, ports,
snapshots, hot resets, content hashes and logins.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import ClassVar

from colorbrowser.arena.process import Command, run_step
from colorbrowser.browser.weblogin import Account, LoginForm

__all__ = ["Account", "App", "BuildContext", "LoginForm", "ServeContext"]




@dataclass
class BuildContext:
    """One build of one app, into ``data`` (the future snapshot's data folder)."""

    app: str
    snapshot: Path  # the staging folder that becomes the snapshot (``data`` is inside)
    data: Path
    work: Path  # scratch space that is not kept
    python: Path | None  # the app venv's interpreter, for pip apps
    seed: int
    log: Path
    say: Callable[[str], None]

    def run(self, argv: Sequence[str | Path], what: str, env: Mapping[str, str] | None = None,
            cwd: Path | None = None) -> None:
        self.say(what)
        run_step(Command([str(a) for a in argv], dict(env or {}), cwd), self.log, what)

    def write_json(self, name: str, payload: object) -> Path:
        path = self.work / name
        path.write_text(json.dumps(payload, ensure_ascii=False, indent=1), "utf-8")
        return path


@dataclass(frozen=True)
class ServeContext:
    data: Path  # the live copy (or, during a build, the staging data)
    snapshot: Path  # the snapshot folder: read-only files shared by instances (static)
    port: int
    python: Path | None
    instance: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class App(ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    site: ClassVar[str]  # which WebArena site it stands in for
    pip: ClassVar[tuple[str, ...]] = ()  # requirements of its own venv
    apt: ClassVar[tuple[str, ...]] = ()  # Debian packages
    databases: ClassVar[tuple[str, ...]]  # SQLite files, relative to the data folder
    side_dirs: ClassVar[tuple[str, ...]] = ()  # folders a reset syncs back too
    health_path: ClassVar[str] = "/"
    start_timeout: ClassVar[float] = 60.0
    # db (relative path) -> table -> columns left out of the content hash
    content: ClassVar[Mapping[str, Mapping[str, tuple[str, ...]]]]
    login: ClassVar[LoginForm]

    @abstractmethod
    def accounts(self, seed: int) -> list[Account]:
        """The seeded logins, computed from the seed alone (no build needed)."""

    def login_accounts(self, seed: int) -> list[Account]:
        """Accounts whose login state the build prepares; others are logged in on demand."""
        return self.accounts(seed)

    @abstractmethod
    def build(self, ctx: BuildContext) -> None:
        """Create, migrate and seed the app's data folder deterministically."""

    @abstractmethod
    def server(self, ctx: ServeContext) -> Command:
        """The command that serves ``ctx.data`` on 127.0.0.1:``ctx.port``."""

    @property
    def uses_venv(self) -> bool:
        return bool(self.pip)

    def resource(self, name: str) -> Path:
        """A file shipped with the app's module (settings, seed scripts, templates)."""
        return Path(str(resources.files(f"colorbrowser.arena.apps.{self.name}") / name))

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "title": self.title, "site": self.site,
                "login": asdict(self.login)}
