"""The Python entry point: ``Agent(goal, url=..., model=...).run()``.

Everything a run needs is built by ``run/factory.py``, the path the CLI takes, from
the same ``Settings`` the config file and the flags fill: a keyword here such as
``max_steps=5`` is the setting ``agent.max_steps``, checked by the same validators,
so a setting means one thing in Python, on the command line and in config.toml.

The result is typed (``AgentResult``): the answer as text, the typed ``output`` when
an output model was given, the status, a ``verdict`` slot for the verifier, the
``Step`` records as written to the run folder, usage and cost, and the folder.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from colorbrowser.actions import BUILTIN
from colorbrowser.agent.output import OutputSpec
from colorbrowser.agent.secrets import Secret, vault_for
from colorbrowser.agent.tools import Tool, as_tool, with_tools
from colorbrowser.agent.trajectory import load_steps
from colorbrowser.config import Settings, load_settings
from colorbrowser.errors import Aborted, UserError
from colorbrowser.protocols import EpisodeView, Hook, Model
from colorbrowser.run.profiles import load_profile
from colorbrowser.steps import EpisodeResult, Step, StepContext, StepUsage

T = TypeVar("T")

StepCallback = Callable[[Step], object]


class StopRun(Aborted):
    """Raise this from an ``on_step`` callback to end the run after that step.

    The run ends cleanly with status ``stopped`` and the callback's message as the
    error; any other exception from a callback is a bug in it and propagates."""

    reason = "stopped"


# Keywords that are not a field name of exactly one settings section.
_ALIASES: dict[str, tuple[str, str]] = {
    "kb": ("paths", "knowledge"),
    "knowledge": ("agent", "knowledge"),
    "base_url": ("model", "base_url"),
    "api_key": ("model", "api_key"),
}
_SECTIONS = ("model", "agent", "browser", "hitl", "paths")


def setting_path(name: str) -> tuple[str, str]:
    """Where a keyword setting lives (``max_steps`` -> ``agent.max_steps``); a name of
    no section, or of two, is refused with the places it could mean."""
    if name in _ALIASES:
        return _ALIASES[name]
    found = [(section, name) for section in _SECTIONS
             if name in Settings.model_fields[section].annotation.model_fields]  # type: ignore[union-attr]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UserError(f"Agent(): unknown setting {name!r}; settings are the fields of "
                        "config.toml's sections (max_steps, headless, allow_hosts, ...)")
    raise UserError(f"Agent(): setting {name!r} is ambiguous; pass settings=Settings(...) "
                    f"to choose between {', '.join('.'.join(p) for p in found)}")


def agent_settings(config: Path | str | None, model: str | None,
                   overrides: Mapping[str, Any]) -> Settings:
    """Settings from config.toml and the environment, with the keywords on top: the
    same loader as the CLI, so the same errors name what is wrong."""
    flat: dict[tuple[str, ...], Any] = {setting_path(k): v for k, v in overrides.items()}
    if model is not None:
        flat[("model", "model")] = model
    return load_settings(config, flat)


@dataclass
class AgentResult(Generic[T]):
    """How a run ended. ``status`` is the agent's own account (done, step_limit,
    cost_limit, stopped, aborted, error); ``verdict`` is what the verifier concluded
    from evidence (verified, unverified, refuted), None where none ran."""

    status: str
    answer: str | None
    output: T | None = None
    verdict: str | None = None
    reasons: list[str] = field(default_factory=list)  # why the verdict, one line each
    steps: list[Step] = field(default_factory=list)
    usage: StepUsage = field(default_factory=StepUsage)
    elapsed: float = 0.0
    run_dir: Path | None = None
    error: str | None = None

    @property
    def done(self) -> bool:
        """The agent says it finished (not that it was checked: see ``verdict``)."""
        return self.status == "done"

    @property
    def cost(self) -> float:
        return self.usage.cost

    def to_json(self) -> dict[str, Any]:
        output = self.output
        if hasattr(output, "model_dump"):
            output = output.model_dump(mode="json")  # type: ignore[union-attr]
        return {"status": self.status, "verdict": self.verdict, "reasons": self.reasons,
                "answer": self.answer,
                "output": output, "steps": len(self.steps), "usage": self.usage.model_dump(),
                "elapsed": round(self.elapsed, 3),
                "run_dir": str(self.run_dir) if self.run_dir else None, "error": self.error}


class _Callbacks(Hook):
    """``on_step`` callbacks, handed each step as the run folder holds it (secrets
    already masked), never the live one a later hook might still change."""

    def __init__(self, callbacks: Sequence[StepCallback]) -> None:
        self.callbacks = list(callbacks)

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        shown = Step.read(episode.redact(step.to_json()), step.step)
        for callback in self.callbacks:
            callback(shown)


class Agent(Generic[T]):
    """One task for the agent. ``run()`` blocks; ``await arun()`` runs the same loop in
    a worker thread (Playwright's sync API may not run on an event loop's thread).

    ``model`` is a model name at the configured endpoint, or any object with the
    ``Model`` protocol (``complete``). Other keywords are settings by field name
    (``max_steps=5``, ``headless=False``, ``base_url=...``); ``settings=`` takes a
    whole ``Settings`` instead of reading config.toml and the environment.
    """

    def __init__(self, goal: str, *, url: str | None = None, model: str | Model | None = None,
                 settings: Settings | None = None, config: Path | str | None = None,
                 output: type[T] | Mapping[str, Any] | None = None,
                 tools: Sequence[Callable[..., Any] | Tool] = (),
                 secrets: Mapping[str, Secret | str] | None = None,
                 profile: str | None = None,
                 on_step: StepCallback | Sequence[StepCallback] = (),
                 run_dir: Path | str | None = None, **overrides: Any) -> None:
        if not goal.strip():
            raise UserError("Agent(): the goal is empty; say what the agent should do")
        if settings is not None and (overrides or config is not None):
            raise UserError("Agent(): pass either settings= or keyword settings, not both")
        named = model if isinstance(model, str) else None
        self.goal = goal
        self.model: Model | None = None if isinstance(model, str) else model
        self.settings = settings if settings is not None else agent_settings(
            config, named, overrides)
        self.url = url
        self.output = OutputSpec.of(output) if output is not None else None
        self.tools = [as_tool(t) for t in tools]
        with_tools(BUILTIN, self.tools)  # a bad signature or a taken name fails here
        self.secrets = dict(secrets or {})
        self.profile = load_profile(profile) if profile is not None else None
        self.on_step = [on_step] if callable(on_step) else list(on_step)
        self.run_dir = Path(run_dir) if run_dir is not None else None

    def run(self) -> AgentResult[T]:
        """Run the task to its end and return how it ended."""
        from colorbrowser.run.factory import build_episode, new_run_dir
        from colorbrowser.run.flags import checked_start, require_start_allowed

        settings = self.settings
        start = self.url
        if start is not None:
            start, _ = checked_start(start, allow_file_url=False)
            require_start_allowed(start, settings)
        run_dir = self.run_dir or new_run_dir(settings.paths.runs, self.goal)
        if (run_dir / "steps.jsonl").exists():
            raise UserError(f"{run_dir} already holds a run; choose another run_dir")
        vault = vault_for(settings, self.secrets, start)
        with contextlib.ExitStack() as stack:
            episode = build_episode(self.goal, start, settings, stack, run_dir=run_dir,
                                    model=self.model, hooks=[_Callbacks(self.on_step)],
                                    tools=self.tools, output=self.output, vault=vault,
                                    profile=self.profile)
            ended = episode.run()
        if isinstance(episode.failure, UserError):  # e.g. the endpoint refused the key
            raise episode.failure
        if settings.agent.learn_workflows:  # a verified Operator run teaches its family
            from colorbrowser.workflows.episode import after_run

            after_run(episode.workflow, ended, settings)
        return self._result(ended, episode.redact)

    async def arun(self) -> AgentResult[T]:
        """``run()`` in a worker thread, so an event loop keeps serving meanwhile."""
        return await asyncio.to_thread(self.run)

    run_async = arun

    def _result(self, ended: EpisodeResult, redact: Callable[[Any], Any]) -> AgentResult[T]:
        run_dir = Path(ended.run_dir) if ended.run_dir else None
        steps = load_steps(run_dir) if run_dir else []
        answer = redact(ended.answer)
        typed = self.output.typed(answer) if self.output and ended.done else None
        checked = ended.verification
        return AgentResult(
            status=ended.status, answer=answer, output=typed, verdict=ended.verdict,
            reasons=[redact(r) for r in checked.reasons] if checked else [], steps=steps,
            usage=StepUsage.of(ended.usage), elapsed=ended.elapsed, run_dir=run_dir,
            error=redact(ended.error))
