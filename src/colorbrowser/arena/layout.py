"""Where the arena keeps its things, under the user cache folder.

One place decides every path, so the CLI, the tests and phase 2's evaluators agree on
which file is the live database of which app in which instance.

    <cache>/arena/venv/<app>/          the app's own virtual environment (pip apps)
    <cache>/arena/snap/<app>/          the built snapshot: data, meta.json, auth/
    <cache>/arena/stage/<app>/         a build in progress (renamed to snap/ when done)
    <cache>/arena/inst/<N>/<app>/      instance N's live copy of the snapshot
    <cache>/arena/inst/<N>/state.json  pids and ports of instance N's servers
    <cache>/arena/inst/<N>/logs/       server logs
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Layout:
    root: Path  # <cache>/arena

    @classmethod
    def from_cache(cls, cache: Path) -> Layout:
        return cls(Path(cache).expanduser() / "arena")

    def venv(self, app: str) -> Path:
        return self.root / "venv" / app

    def venv_python(self, app: str) -> Path:
        return self.venv(app) / "bin" / "python"

    def snap(self, app: str) -> Path:
        return self.root / "snap" / app

    def stage(self, app: str) -> Path:
        return self.root / "stage" / app

    def instance(self, number: int) -> Path:
        return self.root / "inst" / str(number)

    def live(self, number: int, app: str) -> Path:
        return self.instance(number) / app

    def state_file(self, number: int) -> Path:
        return self.instance(number) / "state.json"

    def log(self, number: int, app: str) -> Path:
        return self.instance(number) / "logs" / f"{app}.log"
