"""One task as one episode: set up the page, run the agent, score, tear down.

``adapt`` and the evaluation workers both come through here, so a task is run
and judged the same way wherever it runs. Nothing here raises for the task's own
problems (a page that never loads, a dead browser, a judge that fails): they are
the outcome, classified for the study's ``error_class``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colorbrowser.agent.knowledge import KnowledgeHook
from colorbrowser.agent.trajectory import Redactor
from colorbrowser.errors import BrowserError, EpisodeEnd, UserError
from colorbrowser.evaluation.task import Task, TaskSetupError, TaskSpec, Validation
from colorbrowser.evidence import Verification
from colorbrowser.knowledge.aliases import SiteAliases
from colorbrowser.protocols import Decider, EpisodeView, Hook
from colorbrowser.run.factory import build_episode
from colorbrowser.steps import EpisodeResult, Step, StepContext
from colorbrowser.types import Usage

if TYPE_CHECKING:
    from colorbrowser.agent.loop import Episode
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.config import Settings
    from colorbrowser.hitl.asking import Asker
    from colorbrowser.knowledge.store import KnowledgeBase
    from colorbrowser.protocols import Model
    from colorbrowser.types import Completion, Message, Observation


class TaskFinished(EpisodeEnd):
    """The task's page says the episode is over (MiniWoB ends on the first answer)."""

    reason = "task_done"


class EpisodeTimeout(EpisodeEnd):
    reason = "timeout"


class PreparedEnv:
    """The task has already opened its page (and maybe started a timer on it): the
    episode's reset must only look at that page, never navigate or open a tab."""

    def __init__(self, env: BrowserEnv) -> None:
        self.env = env

    def reset(self, url: str | None = None) -> Observation:
        return self.env.observe()

    def observe(self) -> Observation:
        return self.env.observe()

    def step(self, action):
        return self.env.step(action)

    def close(self) -> None:  # the browser outlives the task
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)


class TaskDoneHook(Hook):
    """Ends the episode once the task reports itself finished.

    Without it an agent keeps acting on a finished MiniWoB page, whose START cover
    starts a new problem and wipes the reward before it is read.
    """

    def __init__(self, task: Task, env: BrowserEnv) -> None:
        self.finished = getattr(task, "finished", None)
        self.env = env

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        if self.finished is None or episode.status != "running":
            return
        try:
            done = self.finished(self.env.page)
        except Exception:  # a page in the middle of navigating is asked again next step
            return
        if done:
            raise TaskFinished("the task page reported the episode finished")


class Deadline(Hook):
    """A soft time limit checked between steps; the worker's hard limit backs it up."""

    def __init__(self, seconds: float | None) -> None:
        self.at = None if seconds is None else time.monotonic() + seconds
        self.seconds = seconds

    def left(self) -> float | None:
        """Seconds until the limit (negative past it); None without a limit."""
        return None if self.at is None else self.at - time.monotonic()

    def check(self) -> None:
        if self.at is not None and time.monotonic() > self.at:
            raise EpisodeTimeout(f"episode timeout ({self.seconds:g} s) reached")

    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        self.check()

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        self.check()


class DeadlineModel:
    """A model whose calls end at the episode's time limit.

    A hung endpoint keeps a call waiting for its own timeout times its retries
    (minutes), and no step boundary comes meanwhile for the Deadline hook. So the
    call runs on a daemon thread that is abandoned at the limit: the episode ends as
    a timeout at once, and the HTTP request finishes or fails on its own later.
    """

    def __init__(self, model: Model, deadline: Deadline) -> None:
        self.model = model
        self.deadline = deadline

    def complete(self, messages: list[Message], **options: Any) -> Completion:
        left = self.deadline.left()
        if left is None:
            return self.model.complete(messages, **options)
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                outcome["reply"] = self.model.complete(messages, **options)
            except BaseException as exc:  # handed to the episode's thread below
                outcome["error"] = exc

        worker = threading.Thread(target=call, name="model-call", daemon=True)
        worker.start()
        worker.join(max(0.0, left))
        if worker.is_alive():
            raise EpisodeTimeout(f"episode timeout ({self.deadline.seconds:g} s) reached "
                                 "while waiting for the model")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["reply"]

    def __getattr__(self, name: str) -> Any:  # name, vision, usage, ...
        return getattr(self.model, name)


@dataclass
class TaskRun:
    """What happened to one task: the episode's end, the verdict and, if any, why there
    is no trustworthy score (``error_class``, one of ``records.ERROR_CLASSES``)."""

    task_id: str
    status: str = "setup_error"
    goal: str = ""
    answer: str | None = None
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    validation: Validation | None = None
    error: str | None = None
    error_class: str | None = None
    spec: TaskSpec | None = None
    episode: Episode | None = None
    verification: Verification | None = None  # the verifier's verdict on the stop
    # The secrets this run knows (API keys, passwords typed), for whoever writes it down.
    redactor: Redactor = field(default_factory=Redactor)

    @property
    def success(self) -> bool:
        return bool(self.validation and self.validation.success and not self.error_class)

    @property
    def reward(self) -> float:
        return self.validation.reward if self.validation else 0.0


def validate(task: Task, env: BrowserEnv, answer: str | None) -> Validation:
    try:
        return task.validate(env.page, answer)
    except Exception as exc:  # a judge or page failure leaves the task unscored
        return Validation.unscored(f"{type(exc).__name__}: {exc}")


def classify(result: EpisodeResult, validation: Validation) -> str | None:
    """Why the score cannot be trusted, or None. A step limit is a plain failure."""
    if result.status == "timeout":
        return "timeout"
    if result.status == "error":
        error = result.error or ""
        if error.startswith("ModelError") or error.startswith("ModelUnavailable"):
            return "model"
        return "browser"
    if validation.error:
        return "eval"
    return None


def run_task_episode(
    task: Task,
    settings: Settings,
    *,
    env: BrowserEnv,
    model: Model,
    run_dir: Path | None,
    kb: KnowledgeBase | None = None,
    asker: Asker | None = None,
    hooks: Sequence[Hook] = (),
    decider: Decider | None = None,
    timeout: float | None = None,
    keep_episode: bool = False,
    episode_type: type[Episode] | None = None,
) -> TaskRun:
    """Set up, run, validate and tear down one task. ``episode_type``: an Episode
    subclass (a copilot study's, where a scripted person answers the gate)."""
    run = TaskRun(task.id, redactor=Redactor(set(settings.secrets())))
    if decider is not None and settings.agent.verify_retries and not getattr(
            decider, "takes_second_chance", False):
        # A replayed plan is the thing measured: the verifier judges its stop but
        # does not send it back (a script cannot take a second chance).
        agent = settings.agent.model_copy(update={"verify_retries": 0})
        settings = settings.model_copy(update={"agent": agent})
    deadline = Deadline(timeout)
    try:
        env.reset(None)  # a fresh tab: nothing left from the task before
        spec = run.spec = task.setup(env.page)
        run.goal = spec.goal
        probe = getattr(task, "state_probe", None)  # the arena's databases, where there are
        state_changed = probe() if callable(probe) else None
        if spec.viewport:
            env.page.set_viewport_size({"width": spec.viewport[0], "height": spec.viewport[1]})
    except (TaskSetupError, BrowserError, UserError) as exc:
        run.error, run.error_class = str(exc), "setup"
        task.teardown()
        return run
    try:
        with contextlib.ExitStack() as stack:
            episode = build_episode(
                spec.goal, spec.start_url, settings, stack, run_dir=run_dir,
                model=DeadlineModel(model, deadline) if timeout is not None else model,
                env=PreparedEnv(env), kb=kb, asker=asker, decider=decider,
                hooks=[deadline, TaskDoneHook(task, env), *hooks],
                state_changed=state_changed,
                site_aliases=SiteAliases.of(spec.site_aliases),
                **({"episode_type": episode_type} if episode_type is not None else {}))
            if episode.trajectory is not None:
                run.redactor = episode.trajectory.redactor
            knowledge = [h for h in episode.hooks if isinstance(h, KnowledgeHook)]
            for hook in knowledge:
                hook.defer_outcome = True  # success is the task's verdict, not "stopped"
            result = episode.run()
            validation = validate(task, env, result.answer)
            for hook in knowledge:
                hook.record_outcome(validation.success)
            if episode.trajectory is not None:
                episode.trajectory.write_json("validation.json", {
                    "task": task.id, "success": validation.success,
                    "reward": validation.reward, "error": validation.error,
                    "info": validation.info,
                })
            run.status, run.steps, run.answer = result.status, result.steps, result.answer
            run.verification = result.verification
            run.usage, run.validation = result.usage, validation
            run.error = result.error or validation.error
            run.error_class = classify(result, validation)
            if keep_episode:
                run.episode = episode
    finally:
        task.teardown()
    return run
