"""An evaluation worker: owns one browser, runs one episode at a time, returns records.

The same class runs in a local worker process and inside a Ray actor. Each episode
has a time limit. Between steps the episode ends itself once past the limit. A
call that is stuck inside the browser is cut off shortly after, when the worker
kills its own Chromium processes. The next episode then gets a fresh browser.
The coordinator kills a worker that still does not answer.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil

from colorbrowser.agent.trajectory import Redactor
from colorbrowser.errors import ColorBrowserError, UserError
from colorbrowser.evaluation.episode import TaskRun, run_task_episode
from colorbrowser.evaluation.records import EpisodeRecord

if TYPE_CHECKING:
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.config import ModelSettings, Settings
    from colorbrowser.evaluation.study import EpisodeJob
    from colorbrowser.evaluation.suites import SuiteChoice
    from colorbrowser.knowledge.store import KnowledgeBase
    from colorbrowser.protocols import Model

log = logging.getLogger(__name__)

@dataclass
class WorkerPlan:
    """What every worker of a study shares; plain data, sent once per worker."""

    suite: str  # the SUITE argument, file paths made absolute
    study_dir: Path
    judge: ModelSettings | None = None  # scores fuzzy_match answers; None: not needed
    offline: tuple[str, str] | None = None  # (base_url, token) of the shared offline server
    env: dict[str, str] = field(default_factory=dict)  # WA_* site addresses for placeholders
    episode_max_time_ms: int | None = None
    # The browser reaches only the hosts the suite's tasks name (False: the settings'
    # allow_hosts, set with eval --allow-hosts, stand).
    task_hosts: bool = True


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def job_record(job: EpisodeJob, **fields: Any) -> EpisodeRecord:
    """A record for ``job`` with the given outcome fields (the rest default)."""
    base: dict[str, Any] = {"task": job.task, "site": job.site, "seed": job.seed,
                            "variant": job.variant, "config_hash": job.config_hash,
                            "trajectory": job.rel_dir, "attempt": job.attempt}
    return EpisodeRecord(**{**base, **fields})


def kill_browsers(root_pid: int) -> int:
    """Kill every Chromium process below ``root_pid``; the Playwright driver stays, so
    blocked calls return with an error instead of hanging. Returns how many died."""
    try:
        children = psutil.Process(root_pid).children(recursive=True)
    except psutil.Error:
        return 0
    victims = [p for p in children if _is_chromium(p)]
    for proc in victims:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    return len(victims)


def _is_chromium(proc: psutil.Process) -> bool:
    try:
        name = proc.name().lower()
    except psutil.Error:
        return False
    return "chrom" in name or "headless_shell" in name


class EpisodeWorker:
    def __init__(self, plan: WorkerPlan, name: str) -> None:
        self.plan = plan
        self.name = name
        self._stack = contextlib.ExitStack()
        self._choice: SuiteChoice | None = None
        self._env: BrowserEnv | None = None
        self._env_key = ""
        self._models: dict[str, Model] = {}
        self._kbs: dict[tuple[str, str, bool], KnowledgeBase | None] = {}
        self._killed = threading.Event()
        self._instance: int | None = None  # the current task's arena instance, if any

    # -- what episodes share ----------------------------------------------------
    def model(self, settings: ModelSettings) -> Model:
        key = settings.model_dump_json() + (
            settings.api_key.get_secret_value() if settings.api_key else "")
        if key not in self._models:
            from colorbrowser.llm.client import OpenAIChatModel
            from colorbrowser.llm.factory import offline_client

            if settings.is_offline_default:
                if self.plan.offline is None:
                    raise UserError("no model endpoint and no offline server for this worker")
                model = offline_client(settings, *self.plan.offline, stack=self._stack)
            else:
                model = OpenAIChatModel(settings)
                self._stack.callback(model.close)
            self._models[key] = model
        return self._models[key]

    def suite(self) -> SuiteChoice:
        if self._choice is None:
            from colorbrowser.evaluation.suites import open_suite

            judge = self.model(self.plan.judge) if self.plan.judge is not None else None
            self._choice = open_suite(self.plan.suite, judge=judge, env=self.plan.env,
                                      episode_max_time_ms=self.plan.episode_max_time_ms)
            self._stack.callback(self._choice.suite.close)
        return self._choice

    def knowledge(self, settings: Settings) -> KnowledgeBase | None:
        from colorbrowser.knowledge.store import open_knowledge

        agent = settings.agent
        key = (str(settings.paths.knowledge), agent.knowledge, agent.tips_embeddings)
        if key not in self._kbs:
            self._kbs[key] = open_knowledge(settings, self._stack)
        return self._kbs[key]

    def browser(self, settings: Settings) -> BrowserEnv:
        from colorbrowser.browser.env import BrowserEnv

        key = settings.browser.model_dump_json()
        if self._env is not None and (key != self._env_key or self._killed.is_set()):
            self._close_browser()
        if self._env is None:
            self._env, self._env_key = BrowserEnv(settings.browser), key
            self._killed.clear()
        return self._env

    def _close_browser(self) -> None:
        env, self._env = self._env, None
        if env is not None:
            with contextlib.suppress(Exception):
                env.close()

    # -- one job ------------------------------------------------------------------
    def run(self, job: EpisodeJob) -> dict[str, Any]:
        """Run ``job``; always returns a record (as JSON), whatever went wrong."""
        started, t0 = now_iso(), time.monotonic()
        self._instance = None
        redactor = Redactor(set(job.settings.secrets()))
        try:
            run = self._run(job)
            redactor = run.redactor
            record = self._record(job, run)
        except UserError as exc:  # an unknown task, a missing store: no episode ran
            record = job_record(job, status="setup_error", error_class="setup",
                                error=str(exc))
        except Exception as exc:
            self._log_crash(job, exc, redactor)
            record = job_record(job, status="error", error_class="internal",
                                error=f"{type(exc).__name__}: {exc}")
        record.wall_time = round(time.monotonic() - t0, 3)
        record.started, record.finished, record.worker = started, now_iso(), self.name
        # The answer, errors and grader details may echo a key or a typed password.
        return redactor.obj(record.model_dump(mode="json"))

    def _run(self, job: EpisodeJob) -> TaskRun:
        from colorbrowser.evaluation.configured import with_task_hosts
        from colorbrowser.evaluation.replay import NoModel, ReplayOperator

        settings = job.settings
        if self.plan.task_hosts:  # this worker's suite: an arena instance has its own ports
            settings = with_task_hosts(settings, self.suite().suite.hosts())
        task = self.suite().suite.task(job.task, seed=job.seed)
        self._instance = getattr(task, "instance", None)
        env = self.browser(settings)
        if job.replay is not None:
            model, decider, kb = NoModel(), ReplayOperator(job.replay), None
        else:
            model, decider, kb = self.model(settings.model), None, self.knowledge(settings)
        timer = threading.Timer(job.timeout + job.kill_grace, self._kill)
        timer.daemon = True
        timer.start()
        try:
            return run_task_episode(task, settings, env=env, model=model, decider=decider,
                                    run_dir=job.run_dir, kb=kb, timeout=job.timeout)
        finally:
            timer.cancel()

    def _kill(self) -> None:
        """Runs on the timer thread: never touches Playwright, only processes."""
        import os

        self._killed.set()
        count = kill_browsers(os.getpid())
        log.warning("%s: episode past its time limit; killed %d browser processes",
                    self.name, count)

    def _record(self, job: EpisodeJob, run: TaskRun) -> EpisodeRecord:
        error_class = run.error_class
        if self._killed.is_set() and error_class in (None, "browser"):
            error_class = "timeout"  # the browser died because we killed it
        validation = run.validation
        return job_record(
            job, reward=run.reward if not error_class else 0.0,
            success=run.success and not error_class, status=run.status,
            steps=run.steps, prompt_tokens=run.usage.prompt_tokens,
            completion_tokens=run.usage.completion_tokens, tokens=run.usage.total_tokens,
            cost=round(run.usage.cost, 6), error_class=error_class, error=run.error,
            goal=run.goal, answer=run.answer,
            verdict=run.verification.verdict if run.verification else None,
            verdict_reasons=list(run.verification.reasons) if run.verification else [],
            info=_jsonable(validation.info) if validation else {},
            trajectory=job.rel_dir if job.run_dir.exists() else None,
            instance=self._instance,
        )

    def _log_crash(self, job: EpisodeJob, exc: BaseException, redactor: Redactor) -> None:
        path = self.plan.study_dir / "logs" / f"{self.name}.log"
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"--- {now_iso()} {job.task} seed {job.seed} ({job.variant})\n")
                fh.write(redactor.text("".join(traceback.format_exception(exc))))

    def close(self) -> None:
        self._close_browser()
        with contextlib.suppress(ColorBrowserError, OSError):
            self._stack.close()


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
