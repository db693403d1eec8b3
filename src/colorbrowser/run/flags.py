"""Flags shared by the commands: the model endpoint (every command that talks to a
model), knowledge and human help (``run``, ``demo``, ``resume``, ``eval``, ``adapt``).

Kept apart from the commands so every command that starts an episode shares them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from colorbrowser.config import load_settings
from colorbrowser.destination import Destination
from colorbrowser.errors import UserError

if TYPE_CHECKING:
    from rich.console import Console

    from colorbrowser.config import Settings

KNOWLEDGE_MODES = ("on", "off", "frozen")


# -- the model: every command that talks to one ----------------------------------------
def model_options(f):
    """Flags shared by every command that talks to a model."""
    f = click.option("--config", "config_path", type=click.Path(dir_okay=False),
                     help="Settings file (TOML).")(f)
    f = click.option("--api-key-env", default=None,
                     help="Name of an env var holding the API key (keys never go on the "
                          "command line).")(f)
    f = click.option("--base-url", default=None,
                     help="OpenAI-compatible endpoint; without it the offline model runs.")(f)
    f = click.option("--model", "model_name", default=None, help="Model name at the endpoint.")(f)
    return f


def model_flags(base_url, model_name, api_key_env) -> dict:
    """The shared model flags as settings overrides (only those given)."""
    import os

    from colorbrowser.errors import ConfigError

    flags = {("model", "base_url"): base_url, ("model", "model"): model_name}
    if api_key_env:
        if not os.environ.get(api_key_env):
            raise ConfigError(f"environment variable {api_key_env} is not set")
        flags[("model", "api_key")] = os.environ[api_key_env]
    return {key: value for key, value in flags.items() if value is not None}


def settings_from_flags(config_path, base_url, model_name, api_key_env, overrides=None):
    """Settings from the config file, env vars and the shared model flags, with the
    command's own flags (``{("agent", "max_steps"): 5}``; None means not given) on top."""
    given = model_flags(base_url, model_name, api_key_env)
    return load_settings(config_path, {**(overrides or {}), **given})  # flags on top


# -- the start page -------------------------------------------------------------------
def checked_start(url: str, allow_file_url: bool) -> tuple[str, list[str]]:
    """The start address in full (a typo fails here, before a model or browser starts),
    and the pages the person trusts by saying --allow-file-url."""
    from colorbrowser.browser.messages import ActionFailed, normalize_url
    from colorbrowser.browser.policy import start_pages

    try:
        url = normalize_url(url)
    except ActionFailed as exc:
        raise UserError(f"--url: {exc}") from None
    return url, start_pages(url, allow_file=allow_file_url)


def require_start_allowed(url: str, settings, *, file_flag: bool = True) -> None:
    """``file_flag``: the command has ``--allow-file-url`` to suggest (copilot does not)."""
    from colorbrowser.browser.policy import start_refusal

    reason = start_refusal(url, settings.browser.allow_hosts, settings.browser.trusted_pages,
                           file_flag=file_flag)
    if reason:
        raise UserError(f"--url: {reason}")


# -- flags shared with `run` ----------------------------------------------------------
def knowledge_options(f):
    """--knowledge and --kb."""
    f = click.option("--kb", "kb_path",
                     type=Destination("the knowledge base", folder=False, path_type=Path),
                     default=None, help="Knowledge base file (default: $COLORBROWSER_KB or the "
                                        "user data folder).")(f)
    f = click.option("--knowledge", type=click.Choice(KNOWLEDGE_MODES), default=None,
                     help="on: retrieve tips and learn their usage (default); off: no tips "
                          "(ablation); frozen: retrieve from a read-only store.")(f)
    return f


def help_options(f):
    """--interactive and --critic-every."""
    f = click.option("--critic-every", type=click.IntRange(min=0), default=None,
                     help="Ask the LLM critic after every N-th action (0: never).")(f)
    f = click.option("--interactive/--no-interactive", default=None,
                     help="Pause when a trigger fires and ask you for a tip or a hint.")(f)
    return f


def verify_options(f):
    """--verify, --verify-retries and --judge-model."""
    f = click.option("--judge-model", default=None,
                     help="A model judge after the verifier's checks (same endpoint unless "
                          "the config's [judge] says).")(f)
    f = click.option("--verify-retries", type=click.IntRange(0, 10), default=None,
                     help="How often a stop the verifier refuses goes back to the agent "
                          "(default 2).")(f)
    f = click.option("--verify", type=click.Choice(["on", "off"]), default=None,
                     help="on: check a stop against the evidence before calling it done "
                          "(default); off: take the model's word.")(f)
    return f


def workflow_options(f):
    """--workflows and --learn-workflows."""
    f = click.option("--learn-workflows/--no-learn-workflows", default=None,
                     help="After a run the verifier verified, learn a workflow from it into "
                          "the knowledge base (default off).")(f)
    f = click.option("--workflows", type=click.Choice(["on", "off", "only"]), default=None,
                     help="on: run a learned workflow whose goal pattern fits, the Operator "
                          "healing a step that misses, and show a similar one as guidance "
                          "(default); only: fail rather than fall back to the Operator for "
                          "the whole task; off: ignore workflows.")(f)
    return f


def workflow_overrides(workflows: str | None = None, learn_workflows: bool | None = None
                       ) -> dict[tuple[str, ...], Any]:
    return {("agent", "workflows"): workflows, ("agent", "learn_workflows"): learn_workflows}


def verify_overrides(verify: str | None = None, verify_retries: int | None = None,
                     judge_model: str | None = None) -> dict[tuple[str, ...], Any]:
    """Settings overrides for the verifier flags (None leaves the configured value)."""
    return {("agent", "verify"): verify, ("agent", "verify_retries"): verify_retries,
            ("judge", "model"): judge_model}


def loop_overrides(knowledge: str | None = None, kb_path: Path | None = None,
                   interactive: bool | None = None, critic_every: int | None = None,
                   ) -> dict[tuple[str, ...], Any]:
    """Settings overrides for the flags above (None leaves the configured value)."""
    return {("agent", "knowledge"): knowledge, ("paths", "knowledge"): kb_path,
            ("hitl", "interactive"): interactive, ("hitl", "critic_every"): critic_every}


# -- what the terminal commands attach to an episode ------------------------------------
def loop_console_hooks(settings: Settings, console: Console) -> list:
    """The step display, plus which tips were used when knowledge is on."""
    from colorbrowser.run.console import ConsoleHook, KnowledgeConsole

    if settings.agent.knowledge == "off":
        return [ConsoleHook(console)]
    return [ConsoleHook(console), KnowledgeConsole(console)]


def terminal_asker(settings: Settings, console: Console):
    """The person at this terminal answers triggers when --interactive is on."""
    if not settings.hitl.interactive:
        return None
    from colorbrowser.hitl.terminal import TerminalAsker

    return TerminalAsker(console)
