"""Turn a SUITE argument into a Suite: ``miniwob``, ``miniwob:<names>``, ``webarena``,
``arena[:<apps>|:<file>.json]``, a WebArena ``.json`` file or a ``.yaml`` task file."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from colorbrowser.errors import UserError
from colorbrowser.evaluation.configured import ConfigSuite
from colorbrowser.evaluation.miniwob import PREFIX as MINIWOB_PREFIX
from colorbrowser.evaluation.miniwob import MiniWobSuite
from colorbrowser.evaluation.task import Suite, TaskEntry
from colorbrowser.evaluation.taskfiles import load_webarena, load_yaml
from colorbrowser.protocols import Model

SUITE_GROUP = "colorbrowser.suites"  # entry points: name -> opener(spec, judge=, env=)
USAGE = ("expected miniwob, miniwob:<task>[,<task>...], webarena, arena[:<app>,...], "
         "a WebArena .json file or a .yaml task file")


@dataclass
class SuiteChoice:
    suite: Suite
    pattern: str | None = None  # tasks named in the SUITE argument itself (miniwob:a,b)

    def select(self, tasks: str | None = None) -> list[TaskEntry]:
        """Tasks named by the SUITE argument, narrowed by ``--tasks`` patterns."""
        entries = self.suite.select(self.pattern)
        if tasks:
            narrowed = {e.id for e in self.suite.select(tasks)}
            entries = [e for e in entries if e.id in narrowed]
        return entries


def webarena_test_file() -> Path:
    """The 812-task ``test.raw.json`` shipped by the ``libwebarena`` package (not imported:
    importing it demands every site URL to be set)."""
    spec = importlib.util.find_spec("webarena")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("the webarena tasks need libwebarena (pip install 'colorbrowser[bench]')")
    path = Path(next(iter(spec.submodule_search_locations))) / "test.raw.json"
    if not path.is_file():
        raise UserError(f"libwebarena has no task file at {path}")
    return path


def plugin_suite(spec: str) -> Callable[..., Suite] | None:
    """The opener a package registers for SUITE's name (``arena``, ``arena:shop``...).

    Suites that live above the runner (the arena) register under the entry-point group
    ``colorbrowser.suites``, so the runner never imports them and other packages can
    add suites the same way.
    """
    name = spec.split(":", 1)[0]
    if not name.isidentifier():
        return None
    for point in entry_points(group=SUITE_GROUP, name=name):
        return point.load()
    return None


def open_suite(spec: str, *, judge: Model | None = None,
               env: Mapping[str, str] | None = None,
               episode_max_time_ms: int | None = None) -> SuiteChoice:
    """Resolve SUITE. Raises UserError (one line) for anything unknown or broken."""
    spec = spec.strip()
    if spec == "miniwob" or spec.startswith(MINIWOB_PREFIX):
        kwargs = {} if episode_max_time_ms is None else {
            "episode_max_time_ms": episode_max_time_ms}
        suite = MiniWobSuite(**kwargs)
        names = spec[len(MINIWOB_PREFIX):] if spec.startswith(MINIWOB_PREFIX) else ""
        if names:
            try:
                suite.select(names)  # an unknown name fails here, not later
            except UserError:
                suite.close()
                raise
        return SuiteChoice(suite, names or None)
    opener = plugin_suite(spec)
    if opener is not None:
        return SuiteChoice(opener(spec, judge=judge, env=env))
    if spec == "webarena":
        path = webarena_test_file()
        return SuiteChoice(ConfigSuite("webarena", load_webarena(path, env=env), judge=judge))
    path = Path(spec)
    suffix = path.suffix.lower()
    if suffix == ".json":
        return SuiteChoice(ConfigSuite(str(path), load_webarena(path, env=env), judge=judge))
    if suffix in (".yaml", ".yml"):
        return SuiteChoice(ConfigSuite(str(path), load_yaml(path, env=env), judge=judge))
    if path.exists():
        raise UserError(f"{spec}: unknown task file type ({USAGE})")
    raise UserError(f"unknown suite {spec!r}: {USAGE}")
