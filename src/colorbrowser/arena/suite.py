"""The ``arena`` suite: WebArena-format tasks on the local arena's real apps.

``arena`` runs every task, ``arena:trac,shop`` those whose sites all belong to the
named apps (multi-site tasks need all of theirs), ``arena:my_tasks.json`` a user's own
WebArena file with ``__SHOPPING__``-style placeholders.

Each process that opens the suite (the coordinator to list, each eval worker to run)
claims an arena instance of its own and holds its lock (``instances.py`` has the rule:
``eval --instance N`` names it, else a running instance nobody holds, else the first
free one), so workers never share a database without being told to. The suite
fills the placeholders with that instance's addresses, publishes them as ``WA_*``
variables (oracle plans and ``db_match`` read them there), writes WebArena-named login
states and starts the apps a task needs on first use. Before every task it resets the
task's apps and clears the browser's cookies, so no task sees another's leftovers and
the order of tasks does not matter. Apps it started are stopped when it closes.

fuzzy_match needs a judge model: the suite hands the judge eval gives it (the study's
model, ``--base-url``/``--model``) to every task. Where a task also carries
must_include or exact_match (all the arena's own fuzzy tasks do), the suite scores it by
that alone, so every score of the shipped tasks is deterministic; a task with
fuzzy_match alone is judged.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from colorbrowser.errors import UserError
from colorbrowser.evaluation.configured import ConfiguredTask, TaskDefinition, hosts_of
from colorbrowser.evaluation.spec import EvalSpec
from colorbrowser.evaluation.task import Suite, TaskEntry, TaskSpec, Validation
from colorbrowser.evaluation.taskfiles import load_webarena

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from colorbrowser.arena import Arena
    from colorbrowser.protocols import Model

PREFIX = "arena:"
ORDER_VAR = "COLORBROWSER_ARENA_ORDER"  # "shuffle:<seed>" lists the tasks shuffled
TASK_SEED = 2024  # the snapshot seed the shipped tasks' answers were computed from


def tasks_dir() -> Path:
    return Path(str(resources.files("colorbrowser.arena.tasks") / "data"))


def task_files() -> list[Path]:
    return sorted(tasks_dir().glob("*.json"))


def plan_files() -> list[Path]:
    return sorted(tasks_dir().glob("*.oracle.yaml"))


def without_judge(spec: EvalSpec) -> EvalSpec:
    """fuzzy_match dropped where a deterministic reference stands beside it."""
    refs = spec.reference_answers
    if refs is None or refs.fuzzy_match is None or (
            refs.must_include is None and refs.exact_match is None):
        return spec
    return spec.model_copy(update={"reference_answers": refs.model_copy(
        update={"fuzzy_match": None})})


@dataclass
class ArenaDefinition:
    definition: TaskDefinition
    apps: list[str]
    written: EvalSpec  # the eval block as the file has it (fuzzy_match included)


class ArenaSuite(Suite):
    seeded = False

    def __init__(self, apps: list[str] | None = None, files: list[Path] | None = None, *,
                 cache: Path | None = None, judge: Model | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        from colorbrowser.arena import Arena
        from colorbrowser.arena.apps import names
        from colorbrowser.arena.exports import site_env, states_named_in, write_states
        from colorbrowser.arena.instances import InstanceLock, claim
        from colorbrowser.arena.layout import Layout

        self.apps = names(apps) if apps else None
        self.name = "arena" + (f":{','.join(self.apps)}" if self.apps else "")
        self.judge = judge  # the model behind fuzzy_match, given to every task
        layout = Layout.from_cache(cache or _default_cache())
        self._claim: InstanceLock | None = claim(layout, {**os.environ, **(env or {})})
        self._started: list[str] = []
        try:
            self.arena: Arena = Arena(self._claim.instance, cache=cache)
            self.env = site_env(self.arena)
            os.environ.update(self.env)  # oracle plans and helpers in this process read them
            sources = files or task_files()
            write_states(self.arena, states_named_in(sources))
            self.tasks: dict[str, ArenaDefinition] = {}
            for path in sources:
                for definition in load_webarena(path, env=self.env):
                    self._add(definition)
        except BaseException:
            self.close()  # a broken task file must not keep the instance locked
            raise

    # -- loading ---------------------------------------------------------------------
    def _add(self, definition: TaskDefinition) -> None:
        from colorbrowser.arena.build import SnapshotMeta
        from colorbrowser.arena.tasks.sites import apps_of

        definition.id = PREFIX + definition.id.split(":", 1)[1]
        try:
            apps = apps_of(s for s in definition.site.split("+") if s)
        except UserError as exc:
            definition.unsupported = [str(exc)]
            apps = []
        if not apps and not definition.unsupported:
            definition.unsupported = ["the task names no arena site"]
        if self.apps is not None and not set(apps) <= set(self.apps):
            return
        problems = []
        for app in apps:
            meta = SnapshotMeta.read(self.arena.layout.snap(app))
            if meta is None:
                problems.append(f"{app} is not built (colorbrowser arena build {app})")
            elif meta.seed != TASK_SEED and definition.source.startswith(str(tasks_dir())):
                problems.append(f"the arena's tasks are for seed {TASK_SEED}; {app} was built "
                                f"with seed {meta.seed}")
        if problems:
            definition.unsupported = problems
        written = definition.eval
        definition.eval = without_judge(written)
        self.tasks[definition.id] = ArenaDefinition(definition, apps, written)

    # -- the Suite interface ---------------------------------------------------------------
    def entries(self) -> list[TaskEntry]:
        entries = [t.definition.entry() for t in self.tasks.values()]
        order = os.environ.get(ORDER_VAR, "")
        if order.startswith("shuffle:"):
            random.Random(order.split(":", 1)[1]).shuffle(entries)
        return entries

    def hosts(self) -> list[str] | None:
        """This instance's apps at their ports, as the tasks name them."""
        return hosts_of([t.definition for t in self.tasks.values()])

    def task(self, task_id: str, *, seed: int | None = None) -> ArenaTask:
        self.runnable_entry(task_id)
        return ArenaTask(self, self.tasks[task_id])

    def prepare(self, apps: list[str]) -> None:
        """Start the apps this instance does not run yet, then reset them all."""
        running = set(self.arena.running())
        missing = [app for app in apps if app not in running]
        if missing:
            self.arena.up(missing)
            self._started += missing
        self.arena.reset(apps)

    def close(self) -> None:
        started, self._started = self._started, []
        if started:
            self.arena.down(started)
        claim, self._claim = self._claim, None
        if claim is not None:
            claim.release()


class ArenaTask:
    """A task of the arena: its apps are reset and its cookies cleared before it starts."""

    def __init__(self, suite: ArenaSuite, task: ArenaDefinition) -> None:
        self.suite = suite
        self.apps = task.apps
        self.inner = ConfiguredTask(task.definition, judge=suite.judge)
        self.id = task.definition.id
        self.site = task.definition.site
        self.instance = suite.arena.instance  # the worker writes it into the record

    def setup(self, page: Page) -> TaskSpec:
        self.suite.prepare(self.apps)
        page.context.clear_cookies()
        spec = self.inner.setup(page)
        spec.info["arena_instance"] = self.suite.arena.instance
        return spec

    def state_probe(self):
        """Whether the task's databases changed since now: evidence for the verifier."""
        from colorbrowser.arena.traps import db_changed

        return db_changed(*[p for app in self.apps for p in self.suite.arena.db_paths(app)])

    def validate(self, page: Page, answer: str | None) -> Validation:
        return self.inner.validate(page, answer)

    def teardown(self) -> None:
        self.inner.teardown()


def _default_cache() -> Path:
    from colorbrowser.arena.arena import default_cache

    return default_cache()


def open_arena(spec: str, *, judge: Model | None = None,
               env: Mapping[str, str] | None = None) -> ArenaSuite:
    """``arena``, ``arena:<app>[,<app>]`` or ``arena:<file>.json``."""
    rest = spec[len("arena"):].lstrip(":").strip()
    if rest.lower().endswith(".json"):
        path = Path(rest)
        if not path.is_file():
            raise UserError(f"no such task file: {path}")
        return ArenaSuite(files=[path.resolve()], judge=judge, env=env)
    apps = [a.strip() for a in rest.split(",") if a.strip()]
    return ArenaSuite(apps or None, judge=judge, env=env)
