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
from colorbrowser.config import AUTHORITY, Settings
from colorbrowser.datafile import one_line
from colorbrowser.errors import ConfigError, UserError
from colorbrowser.protocols import Hook, Restorable
from colorbrowser.run.factory import build_episode, key_seal


def settings_for_resume(meta: dict[str, Any], current: Settings) -> Settings:
    """The run's own behaviour settings; whatever is authority comes from the current setup.

    See ``resume_settings``, which also says what differed from the run folder."""
    return resume_settings(meta, current)[0]


def resume_settings(meta: dict[str, Any], current: Settings) -> tuple[Settings, list[str]]:
    """The run's behaviour settings (steps, memory, prompts' limits...), with the browser
    executable, trusted pages, debug port, paths, keys and endpoints from the current
    settings: a run folder can be mailed around, so it chooses none of them. Also one
    line per setting where the folder said otherwise, for the person to see.
    """
    saved = json.loads(json.dumps(meta.get("settings") or {}))
    if not isinstance(saved, dict):
        raise ConfigError("meta.json settings are damaged: not a JSON object")
    for name in ("secret_sources", "secrets"):  # a run folder is data: never a secret
        saved.pop(name, None)
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
    changes = _endpoints(settings, current, seals)
    for (section, key), how in AUTHORITY.items():
        own = getattr(settings, section)
        if own is None or key == "api_key":
            continue
        now = getattr(getattr(current, section), key)
        was = getattr(own, key)
        if section == "browser" and key == "allow_hosts" and not now:
            continue  # a list in the folder only narrows "any host"
        if was != now:
            changes.append(f"{section}.{key}: the run folder says {_shown(was)}; resuming "
                           f"with your settings ({_shown(now)}); to change them, {how}")
            setattr(own, key, now)
    settings.paths = current.paths
    settings.secret_sources = current.secret_sources
    return settings, changes


def _endpoints(settings: Settings, current: Settings, seals: dict[str, Any]) -> list[str]:
    """Endpoints and keys: the person's current endpoint; with none named, the run's
    own endpoint only when the folder's seal proves the person's own key was used with
    it; otherwise the offline model. The key goes only with the person's endpoints."""
    changes = []
    key = current.model.api_key
    model = settings.model
    was = model.base_url
    if current.model.base_url or not (was and _sealed(key, was, seals.get("model"))):
        model.base_url = current.model.base_url
    model.api_key = key
    if was != model.base_url:
        model.model = current.model.model  # a name at the run's endpoint means nothing here
        changes.append(_endpoint_change("model", was, model.base_url))
    summarizer = settings.summarizer_model
    if summarizer is not None:
        was = summarizer.base_url
        mine = current.summarizer_model
        if mine is not None and mine.base_url:
            summarizer.base_url, summarizer.api_key = mine.base_url, mine.api_key
        elif not (was and _sealed(key, was, seals.get("summarizer_model"))):
            summarizer.base_url, summarizer.api_key = model.base_url, model.api_key
        else:
            summarizer.api_key = key
        if was != summarizer.base_url:
            changes.append(_endpoint_change("summarizer_model", was, summarizer.base_url))
    judge = settings.judge
    if judge is not None:  # the judge reads everything: only one the person names now
        was, now = judge.base_url, current.judge.base_url if current.judge else None
        settings.judge = current.judge
        if was != now:
            changes.append(_endpoint_change("judge", was, now))
    return changes


def _endpoint_change(section: str, was: str | None, now: str | None) -> str:
    where = _shown(now) if now else "no judge" if section == "judge" else "the offline model"
    again = f"; pass --base-url {was} to use it" if was and section == "model" else ""
    return (f"{section}.base_url: the run folder says {_shown(was)}; resuming with your "
            f"settings ({where}){again}")


def _shown(value: Any) -> str:
    if isinstance(value, Path):
        value = str(value)
    return one_line(repr(value) if value is not None else "none", 120)


def _sealed(key: Any, base_url: str, seal: Any) -> bool:
    if key is None or not isinstance(seal, str):
        return False
    return hmac.compare_digest(key_seal(key.get_secret_value(), base_url), seal)


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
    settings, changes = resume_settings(point.meta, current)
    for change in changes if notice is not None else ():
        notice(change)
    if headed:
        settings.browser.headless = False
    # A workflow's place is not checkpointed: a resumed run goes on with the Operator.
    settings.agent.workflows = "off"
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
    meta.setdefault("resumed", []).append({"at": now_iso(), "from_step": point.state.step,
                                           "settings_changed": changes})
    if episode.trajectory:
        episode.trajectory.write_meta(meta)
    return episode
