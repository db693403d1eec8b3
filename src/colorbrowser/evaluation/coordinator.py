"""``colorbrowser eval`` behind the flags: plan the study, start what workers share
(the offline model server), run the jobs on a backend and show progress.

Everything a user can get wrong is checked here, before any worker starts: the
suite, the tasks, the matrix, the replay file, the knowledge store.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from colorbrowser.agent.trajectory import Redactor
from colorbrowser.config import Settings
from colorbrowser.errors import UserError
from colorbrowser.evaluation.configured import check_task_hosts
from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.evaluation.replay import ReplayScript
from colorbrowser.evaluation.study import (
    EpisodeJob,
    StudyDir,
    Variant,
    build_variants,
    parse_seeds,
    plan_jobs,
)
from colorbrowser.evaluation.suites import open_suite
from colorbrowser.evaluation.task import TaskEntry
from colorbrowser.evaluation.worker import WorkerPlan
from colorbrowser.safe_text import escape


@dataclass
class StudyOptions:
    suite: str
    study_dir: Path
    tasks: str | None = None
    seeds: str | None = None
    workers: int = 1
    backend: str = "local"
    ray_address: str | None = None
    matrix: tuple[str, ...] = ()
    replay: Path | None = None
    timeout: float = 900.0
    kill_grace: float = 15.0
    hard_grace: float = 45.0
    retry_errors: bool = False
    command: list[str] = field(default_factory=list)
    # The browser reaches only the hosts the tasks name (False: --allow-hosts was given).
    task_hosts: bool = True


@dataclass
class StudyOutcome:
    study_dir: Path
    skipped_done: int
    records: list[EpisodeRecord]
    unsupported: dict[str, str]
    elapsed: float = 0.0

    def line(self) -> str:
        scored = [r for r in self.records if not r.errored]
        ok = sum(r.success for r in scored)
        errors = Counter(r.error_class for r in self.records if r.errored)
        parts = [f"ran {len(self.records)} episode(s)"]
        if scored:
            parts.append(f"success {ok}/{len(scored)} ({100 * ok / len(scored):.0f}%)")
        if errors:
            parts.append("errored " + ", ".join(f"{n} {c}" for c, n in errors.most_common()))
        if self.skipped_done:
            parts.append(f"{self.skipped_done} already done")
        if self.unsupported:
            parts.append(f"{len(self.unsupported)} task(s) unsupported here")
        return "; ".join(parts)


def absolute_suite(spec: str) -> str:
    """File suites become absolute paths: Ray workers start in another folder."""
    path = Path(spec)
    if path.suffix.lower() in (".json", ".yaml", ".yml") and path.exists():
        return str(path.resolve())
    return spec


def prepare_settings(settings: Settings, *, replay: bool) -> Settings:
    """Study-wide rules: nobody is at the terminal, paths are absolute, and the replay
    agent gets no model-driven parts."""
    from colorbrowser.knowledge.store import default_db_path

    data = settings.model_dump()
    data["hitl"]["interactive"] = False
    paths = data["paths"]
    paths["knowledge"] = Path(paths["knowledge"] or default_db_path()).resolve()
    paths["cache"] = Path(paths["cache"]).resolve()
    if replay:
        data["agent"].update(memory="none", knowledge="off")
        data["hitl"]["critic_every"] = 0
    return Settings.model_validate(data)


def check_knowledge(variants: list[Variant]) -> None:
    """Open each store once here, so a missing frozen store is one line, not N crashes."""
    from colorbrowser.knowledge.store import KnowledgeBase

    seen: set[tuple[str, str]] = set()
    for variant in variants:
        agent, path = variant.settings.agent, variant.settings.paths.knowledge
        key = (str(path), agent.knowledge)
        if agent.knowledge == "off" or key in seen:
            continue
        seen.add(key)
        if agent.knowledge == "frozen" and not Path(path).is_file():
            raise UserError(f"variant {variant.name}: frozen knowledge needs an existing "
                            f"store, and {path} does not exist")
        KnowledgeBase.open(path, readonly=agent.knowledge == "frozen", embeddings=False).close()


# Site addresses for placeholders, and the arena's choices (instance, order, ports),
# which reach a Ray worker only this way.
WORKER_ENV_PREFIXES = ("WA_", "COLORBROWSER_ARENA_")


def needs_offline(variants: list[Variant], judge: Settings | None) -> bool:
    for variant in variants:
        s = variant.settings
        if variant.agent == "llm" and s.model.is_offline_default:
            return True
    return judge is not None and judge.model.is_offline_default


class StudyProgress:
    """A rich bar with done, succeeded, errored and the ETA; a line per episode."""

    def __init__(self, console: Console, total: int) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]eval[/]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[green]✓ {task.fields[ok]}[/] [red]✗ {task.fields[failed]}[/] "
                       "[yellow]! {task.fields[errored]}[/]"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=console)
        self.bar = self.progress.add_task("", total=total, ok=0, failed=0, errored=0)
        self.counts = Counter()

    def __enter__(self) -> StudyProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def started(self, job: EpisodeJob, worker: str) -> None:
        pass

    def finished(self, record: EpisodeRecord) -> None:
        kind = "errored" if record.errored else "ok" if record.success else "failed"
        self.counts[kind] += 1
        self.progress.update(self.bar, advance=1, **{k: self.counts[k] for k in
                                                      ("ok", "failed", "errored")})
        mark = {"ok": "[green]✓[/]", "failed": "[red]✗[/]", "errored": "[yellow]![/]"}[kind]
        seed = f" s{record.seed}" if record.seed is not None else ""
        variant = f" [dim]{escape(record.variant)}[/]" if record.variant != "default" else ""
        tail = (f"{record.error_class}: {escape((record.error or '')[:100])}" if record.errored
                else f"reward {record.reward:g}, {record.steps} steps")
        self.console.print(f"{mark} {escape(record.task)}{seed}{variant}  {tail}, "
                           f"{record.wall_time:.1f} s")


def run_study(options: StudyOptions, settings: Settings, console: Console) -> StudyOutcome:
    replay = ReplayScript.load(options.replay) if options.replay else None
    settings = prepare_settings(settings, replay=replay is not None)
    agent = f"replay:{replay.digest}" if replay else "llm"
    variants = build_variants(settings, options.matrix, agent)
    spec = absolute_suite(options.suite)
    keys = {key for variant in variants for key in variant.settings.secrets()}
    study = StudyDir(options.study_dir.resolve(), Redactor(keys))
    choice = open_suite(spec)
    with choice.suite:
        entries: list[TaskEntry] = choice.select(options.tasks)
        seeded = choice.suite.seeded
        hosts = choice.suite.hosts() if options.task_hosts else None
    runnable = [e for e in entries if e.runnable]
    unsupported = {e.id: e.unsupported or "" for e in entries if not e.runnable}
    for task_id, why in unsupported.items():
        console.print(f"[yellow]unsupported[/] {escape(task_id)}: {escape(why)}")
    if not runnable:
        raise UserError(f"no runnable task in {options.suite}")
    if hosts:
        check_task_hosts(hosts, options.suite)
        console.print(f"the browser reaches only the {len(hosts)} host(s) the tasks name "
                      "(--allow-hosts to change)")
    seeds: list[int | None] = list(parse_seeds(options.seeds)) if seeded else [None]
    if options.seeds and not seeded:
        console.print("[yellow]--seeds ignored: these tasks are not generated from a seed[/]")
    check_knowledge(variants)
    judge = settings if any(e.needs_judge for e in runnable) else None
    study.register(options.suite, variants, options.command)
    jobs, done = plan_jobs(study, variants, [(e.id, e.site) for e in runnable], seeds,
                           timeout=options.timeout, retry_errors=options.retry_errors,
                           replay=replay, kill_grace=options.kill_grace,
                           hard_grace=options.hard_grace)
    records: list[EpisodeRecord] = []
    outcome = StudyOutcome(study.path, done, records, unsupported)
    if not jobs:
        return outcome
    plan = WorkerPlan(suite=spec, study_dir=study.path, task_hosts=options.task_hosts,
                      judge=judge.model if judge is not None else None,
                      env={k: v for k, v in os.environ.items()
                           if k.startswith(WORKER_ENV_PREFIXES)})
    with contextlib.ExitStack() as stack:
        if needs_offline(variants, judge):
            plan.offline = start_offline(settings, stack, console)
        backend = make_backend(options, plan)
        progress = stack.enter_context(StudyProgress(console, len(jobs)))

        def on_record(record: EpisodeRecord) -> None:
            study.append(record)
            records.append(record)
            progress.finished(record)

        t0 = time.monotonic()
        backend.run(jobs, on_record, progress.started)
        outcome.elapsed = time.monotonic() - t0
    return outcome


def start_offline(settings: Settings, stack: contextlib.ExitStack,
                  console: Console) -> tuple[str, str]:
    """One offline server for all workers: on 2 cores, two would only fight."""
    from colorbrowser.llm.offline import OfflineServer

    server = OfflineServer(Path(settings.paths.cache), n_ctx=settings.model.context_tokens)
    with console.status("Starting the offline model (SmolLM2-135M)…"):
        stack.enter_context(server)
    return server.base_url, server.token


def make_backend(options: StudyOptions, plan: WorkerPlan):
    if options.backend == "ray":
        from colorbrowser.evaluation.ray_backend import RayBackend

        return RayBackend(plan, options.workers, options.ray_address)
    from colorbrowser.evaluation.runner import LocalBackend

    return LocalBackend(plan, options.workers)
