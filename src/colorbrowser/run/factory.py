"""Wire settings into a ready episode: model, browser, memory, knowledge, triggers,
trajectory.

The CLI, the evaluation runner, adapt and the copilot all start episodes through
here, so a setting means the same thing everywhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colorbrowser import __version__
from colorbrowser.agent.loop import Episode
from colorbrowser.agent.memory import FullHistory, NoMemory
from colorbrowser.agent.operator import Operator
from colorbrowser.agent.secrets import Vault, vault_for
from colorbrowser.agent.state import now_iso
from colorbrowser.agent.summarizer import Summarizer
from colorbrowser.agent.trajectory import Redactor, Trajectory, lock_run_dir, slugify
from colorbrowser.config import ModelSettings, Settings
from colorbrowser.knowledge.aliases import NO_ALIASES, SiteAliases
from colorbrowser.knowledge.store import open_knowledge
from colorbrowser.protocols import Decider, Environment, Hook, Memory, Model
from colorbrowser.steps import SCHEMA_VERSION

if TYPE_CHECKING:
    from colorbrowser.agent.output import OutputSpec
    from colorbrowser.agent.tools import Tool
    from colorbrowser.hitl.asking import Asker
    from colorbrowser.knowledge.store import KnowledgeBase
    from colorbrowser.run.profiles import Profile


def new_run_dir(root: Path, goal: str) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = root / f"{stamp}-{slugify(goal)}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def open_model(settings: ModelSettings, stack: contextlib.ExitStack, cache: Path) -> Model:
    from colorbrowser.llm.factory import make_model

    return make_model(settings, stack=stack, cache_dir=cache)


class LazyModel:
    """The configured model, opened at its first use: a workflow that heals no step
    needs no model, so it starts no offline model server either."""

    def __init__(self, settings: ModelSettings, stack: contextlib.ExitStack, cache: Path):
        self._open = lambda: open_model(settings, stack, cache)
        self._model: Model | None = None
        self.name = settings.model or "offline"
        self.vision = settings.vision != "off"

    def _get(self) -> Model:
        if self._model is None:
            self._model = self._open()
        return self._model

    def complete(self, messages, **kwargs):
        return self._get().complete(messages, **kwargs)

    def __getattr__(self, name: str) -> Any:  # context_tokens, reply_tokens, ...
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._get(), name)


def open_browser(settings: Settings, stack: contextlib.ExitStack) -> Environment:
    """The browser, started at its first use; a configured one that is not there is
    refused now (BrowserUnavailable), before a run folder or a model is made."""
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.browser.launch import find_chromium

    find_chromium(settings.browser)
    env = BrowserEnv(settings.browser)
    stack.callback(env.close)
    return env


def build_memory(settings: Settings, model: Model, stack: contextlib.ExitStack) -> Memory:
    """``summary`` (default) uses the Summarizer, on its own model when one is configured."""
    mode = settings.agent.memory
    if mode == "full":
        return FullHistory()
    if mode == "none":
        return NoMemory()
    if settings.summarizer_model is not None and settings.summarizer_model.base_url:
        model = open_model(settings.summarizer_model, stack, settings.paths.cache)
    return Summarizer(
        model,
        budget=settings.agent.summary_budget,
        every=settings.agent.summary_every,
        count_tokens=token_counter(),
    )


def token_counter():
    from colorbrowser.llm.tokens import count_tokens

    return count_tokens


def settings_snapshot(settings: Settings) -> dict[str, Any]:
    """Settings as JSON with every secret masked by pydantic, plus a seal per endpoint.

    The seal (an HMAC of the endpoint under the key) lets ``resume`` recognise an
    endpoint this key was already used with, without the key ever being written.
    """
    data = settings.model_dump(mode="json")
    for name in ("model", "summarizer_model", "judge"):
        section, model = data.get(name), getattr(settings, name)
        if isinstance(section, dict) and model is not None and model.api_key is not None:
            section["key_seal"] = key_seal(model.api_key.get_secret_value(), model.base_url)
    return data


def key_seal(key: str, base_url: str | None) -> str:
    return hmac.new(key.encode(), (base_url or "").encode(), hashlib.sha256).hexdigest()[:32]


# -- knowledge and human help -------------------------------------------------------
def knowledge_hooks(settings: Settings, stack: contextlib.ExitStack,
                    kb: KnowledgeBase | None = None,
                    aliases: SiteAliases = NO_ALIASES) -> list[Hook]:
    """Tips and URL shortcuts from the knowledge base; [] when knowledge is off.

    Pass ``kb`` to share one open store across episodes (adapt); otherwise the store
    is opened here (read-only when frozen) and closed with ``stack``.
    """
    if settings.agent.knowledge == "off":
        return []
    from colorbrowser.agent.knowledge import KnowledgeHook
    from colorbrowser.agent.shortcuts import ShortcutHook

    kb = kb if kb is not None else open_knowledge(settings, stack)
    agent = settings.agent
    return [KnowledgeHook(kb, k=agent.tips_k, token_budget=agent.tips_token_budget,
                          aliases=aliases),
            ShortcutHook(kb.shortcuts_for, aliases=aliases)]


def help_hooks(settings: Settings, model: Model, kb: KnowledgeBase | None,
               asker: Asker | None = None, aliases: SiteAliases = NO_ALIASES) -> list[Hook]:
    """Failure triggers, the critic and asking a person (settings.hitl)."""
    from colorbrowser.hitl.hook import build_trigger_hook

    hook = build_trigger_hook(settings.hitl, model=model, kb=kb, asker=asker,
                              aliases=aliases)
    return [hook] if hook is not None else []


def verify_hooks(settings: Settings, stack: contextlib.ExitStack,
                 state_changed: Callable[[], bool | None] | None = None) -> list[Hook]:
    """The verifier at the stop, with the model judge when one is configured; [] when
    verification is off."""
    if settings.agent.verify == "off":
        return []
    from colorbrowser.agent.verifying import VerifyHook

    judge = None
    if settings.judge is not None:
        from colorbrowser.agent.judge import ModelJudge

        judge = ModelJudge(open_model(settings.judge, stack, settings.paths.cache))
    return [VerifyHook(settings.agent.verify_retries, judge=judge, state_changed=state_changed)]


def build_episode(
    goal: str,
    start_url: str | None,
    settings: Settings,
    stack: contextlib.ExitStack,
    *,
    run_dir: Path | None = None,
    model: Model | None = None,
    env: Environment | None = None,
    hooks: Sequence[Hook] = (),
    extra_secrets: Sequence[str] = (),
    write_meta: bool = True,
    kb: KnowledgeBase | None = None,
    asker: Asker | None = None,
    decider: Decider | None = None,
    lock: bool = True,
    site_aliases: SiteAliases = NO_ALIASES,
    episode_type: type[Episode] = Episode,
    tools: Sequence[Tool] = (),
    output: OutputSpec | None = None,
    vault: Vault | None = None,
    profile: Profile | None = None,
    state_changed: Callable[[], bool | None] | None = None,
) -> Episode:
    """``site_aliases`` names locally served sites stably for knowledge (tips, scopes);
    ``episode_type`` an Episode subclass (the copilot's, where a person may take over);
    ``tools`` Python functions the Operator may call as actions; ``output`` the schema
    the final answer must fit; ``vault`` the secrets it may type (default: the
    config's [secrets]); ``profile`` a saved sign-in the browser starts with;
    ``state_changed`` tells the verifier whether the site's database changed (the arena)."""
    from colorbrowser.actions import BUILTIN
    from colorbrowser.agent.tools import with_tools

    table, by_name = with_tools(BUILTIN, tools)
    vault = vault if vault is not None else vault_for(settings, None, start_url)
    if settings.agent.knowledge == "off":
        kb = None
    elif kb is None:  # first, so a missing frozen store fails before anything starts
        kb = open_knowledge(settings, stack)
    workflow = None
    if decider is None:  # a replay script, a person or the explorer decide themselves
        from colorbrowser.workflows.episode import plan_for

        workflow = plan_for(goal, start_url, kb, settings.agent.workflows,
                            aliases=site_aliases)
    env = env or open_browser(settings, stack)
    if profile is not None:
        from colorbrowser.run.profiles import ProfileCheck, use_profile

        use_profile(env, profile)
        hooks = [ProfileCheck(profile), *hooks]
    if run_dir is not None and lock:  # before a model or browser starts: it may be in use
        lock_run_dir(run_dir, stack)
    knowledge = knowledge_hooks(settings, stack, kb, site_aliases)
    if model is None and workflow is not None and workflow.runs:
        model = LazyModel(settings.model, stack, settings.paths.cache)
    model = model or open_model(settings.model, stack, settings.paths.cache)
    redactor = Redactor(set(settings.secrets()) | {s for s in extra_secrets if s}
                        | set(vault.values)
                        | (profile.session_values() if profile is not None else set()))
    trajectory = None
    if run_dir is not None:
        trajectory = Trajectory(run_dir, redactor)
    if trajectory and write_meta:
        trajectory.write_meta({
            "schema_version": SCHEMA_VERSION,
            "goal": goal,
            "start_url": start_url,
            "started": now_iso(),
            "model": model.name,
            "colorbrowser": __version__,
            "settings": settings_snapshot(settings),
        })
    decider = decider or Operator(
        model,
        format_retries=settings.agent.format_retries,
        send_screenshot=settings.agent.send_screenshot,
        table=table,
        output=output,
        secrets=vault.prompt_lines(),
    )
    memory = build_memory(settings, model, stack)
    workflow_hooks: list[Hook] = []
    if workflow is not None:
        decider, workflow_hooks, memory = workflow.attach(decider, memory)
    episode = episode_type(
        vault.hide(goal),  # a value written into the goal reaches the model as its name
        env,
        decider,
        settings=settings.agent,
        start_url=start_url,
        trajectory=trajectory,
        memory=memory,
        hooks=[*knowledge, *help_hooks(settings, model, kb, asker, site_aliases), *hooks,
               *workflow_hooks, *verify_hooks(settings, stack, state_changed)],
        tools=by_name,
        vault=vault,
    )
    episode.workflow = workflow  # what the workflows setting chose (None: not asked)
    return episode
