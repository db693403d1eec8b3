"""``colorbrowser resume RUN_DIR``: continue a killed run from its last committed step."""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from colorbrowser.agent import checkpoint
from colorbrowser.agent.loop import Episode
from colorbrowser.agent.state import now_iso
from colorbrowser.agent.trajectory import lock_run_dir
from colorbrowser.config import Settings
from colorbrowser.errors import ConfigError, UserError
from colorbrowser.protocols import Hook, Restorable
from colorbrowser.run.factory import build_episode, key_seal


def settings_for_resume(meta: dict[str, Any], current: Settings) -> Settings:
    """The run's own behaviour settings, with endpoint and key from the current setup.

    The key was masked when the run was saved, so it must come from the environment
    again; everything that shapes the agent's behaviour comes from the run itself.
    """
    saved = json.loads(json.dumps(meta.get("settings") or {}))
    seals: dict[str, Any] = {}
    for name in ("model", "summarizer_model", "judge"):
        section = saved.get(name)
        if isinstance(section, dict):
            section.pop("api_key", None)
            seals[name] = section.pop("key_seal", None)
    agent = saved.get("agent")
    if isinstance(agent, dict) and "verify" not in agent:
        agent["verify"] = "off"  # recorded before the verifier: it goes on as it began
    try:
        settings = Settings.model_validate(saved)
    except ValidationError as exc:
        raise ConfigError(f"meta.json settings are damaged: {exc.errors()[0]['msg']}") from None
    model = settings.model.model_copy()
    if current.model.base_url and current.model.base_url != model.base_url:
        model.base_url = current.model.base_url
    model.api_key = _key_for(model.base_url, current, seals.get("model"))
    settings.model = model
    for name in ("summarizer_model", "judge"):
        other = getattr(settings, name)
        if other is not None:
            other.api_key = _key_for(other.base_url, current, seals.get(name))
    settings.paths = current.paths
    return settings


def _key_for(base_url: str | None, current: Settings, seal: Any) -> Any:
    """The person's key goes to an endpoint they name now, or to one the run folder
    proves this same key was used with (its seal); a base_url read from a folder that
    anyone could have written gets none of its own accord."""
    key = current.model.api_key
    if base_url is None or base_url == current.model.base_url or _sealed(key, base_url, seal):
        return key
    return None


def _sealed(key: Any, base_url: str, seal: Any) -> bool:
    if key is None or not isinstance(seal, str):
        return False
    return hmac.compare_digest(key_seal(key.get_secret_value(), base_url), seal)


def foreign_endpoint(meta: dict[str, Any], current: Settings) -> str | None:
    """The run's own endpoint when it will be used without the person's key."""
    saved = (meta.get("settings") or {}).get("model") or {}
    url = saved.get("base_url") if isinstance(saved, dict) else None
    if not url or current.model.base_url or current.model.api_key is None:
        return None
    if _sealed(current.model.api_key, str(url), saved.get("key_seal")):
        return None
    return str(url)


def resume_episode(
    run_dir: Path,
    current: Settings,
    stack: contextlib.ExitStack,
    *,
    hooks: list[Hook] | None = None,
    headed: bool = False,
    notice: Callable[[str], None] | None = None,
    **build: Any,
) -> Episode:
    if Path(run_dir).is_dir():  # before load(), which trims a torn line in steps.jsonl
        lock_run_dir(run_dir, stack)
    point = checkpoint.load(run_dir)
    settings = settings_for_resume(point.meta, current)
    if (url := foreign_endpoint(point.meta, current)) and notice is not None:
        notice(f"your API key is not sent to {url}, which comes from the run folder; "
               f"pass --base-url {url} to send it there")
    if headed:
        settings.browser.headless = False
    episode = build_episode(
        point.state.goal, point.state.start_url, settings, stack,
        run_dir=run_dir, hooks=hooks or [], write_meta=False, lock=False, **build,
    )
    episode.state = point.state
    if isinstance(episode.memory, Restorable):
        try:
            episode.memory.restore(point.memory)
        except (TypeError, ValueError) as exc:
            raise UserError(f"the checkpoint's memory is damaged: {exc}") from None
    episode.browser_snapshot = point.browser
    if point.interrupted_action:
        episode.pending_hints.append(
            f"The run was interrupted while doing {point.interrupted_action}; it may already "
            "have taken effect. Check the page before doing it again."
        )
    meta = dict(point.meta)
    meta.setdefault("resumed", []).append({"at": now_iso(), "from_step": point.state.step})
    if episode.trajectory:
        episode.trajectory.write_meta(meta)
    return episode
